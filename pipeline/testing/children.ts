// The pipeline child processes (crash-child.ts) of the failover test and bench:failover: a leader, its
// standbys, read line by line.
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { HARDHAT_DEV_PRIVATE_KEYS } from "../../config/dev-accounts";
import type { Fixture } from "./fixture";

const ROOT = join(__dirname, "..", "..");

export interface Child {
  proc: ChildProcess;
  lines: string[];
  stderr: string;
  /** resolves with the first line starting with `prefix` */
  line(prefix: string, timeoutMs?: number): Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts crash-child.ts with `config`, to look up `hashes` (comma-separated; "-": one line on stdin);
 *  `onLine` sees every output line with a way to SIGKILL the child. */
export function startChild(config: object, hashes: string, onLine?: (line: string, kill: () => void) => void): Child {
  const proc = spawn(
    process.execPath,
    ["--import", "tsx", join(ROOT, "pipeline/testing/crash-child.ts"), JSON.stringify(config), hashes],
    { cwd: ROOT, stdio: ["pipe", "pipe", "pipe"] },
  );
  const lines: string[] = [];
  const waiters: { prefix: string; resolve: (l: string) => void }[] = [];
  let buf = "";
  const c: Child = {
    proc,
    lines,
    stderr: "",
    line(prefix, timeoutMs = 60_000) {
      const found = lines.find((l) => l.startsWith(prefix));
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const t = setTimeout(
          () => reject(new Error(`no "${prefix}" line within ${timeoutMs} ms: ${c.stderr.slice(-2000)}`)),
          timeoutMs,
        );
        waiters.push({ prefix, resolve: (l) => (clearTimeout(t), resolve(l)) });
      });
    },
    exited: new Promise((resolve) => proc.on("exit", (code, signal) => resolve({ code, signal }))),
  };
  proc.stdout!.on("data", (d) => {
    buf += d;
    let i;
    while ((i = buf.indexOf("\n")) >= 0) {
      const l = buf.slice(0, i);
      buf = buf.slice(i + 1);
      lines.push(l);
      onLine?.(l, () => proc.kill("SIGKILL"));
      for (const w of waiters.filter((x) => l.startsWith(x.prefix))) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(l);
      }
    }
  });
  proc.stderr!.on("data", (d) => (c.stderr += d));
  return c;
}

export function childConfig(
  f: Fixture,
  dataDir: string,
  servers: string | null,
  mode: "stream" | "recover",
  orders: number,
  leaseMs: number,
  nonceBase = 0,
) {
  const m = f.market;
  return {
    mode,
    rpcUrl: f.chain.rpcUrl,
    chainId: f.chainId,
    settlement: f.settlement,
    fromBlock: f.deployBlock.toString(),
    market: {
      symbol: m.symbol,
      baseToken: m.baseToken,
      quoteToken: m.quoteToken,
      baseDecimals: m.baseDecimals,
      quoteDecimals: m.quoteDecimals,
      tickSize: m.tickSize.toString(),
      lotSize: m.lotSize.toString(),
      minLots: m.minLots.toString(),
      maxLots: m.maxLots.toString(),
    },
    operatorKey: f.operatorKey,
    traderKeys: [4, 5, 6, 7].map((i) => HARDHAT_DEV_PRIVATE_KEYS[i]),
    dataDir,
    orders,
    nonceBase,
    ...(servers ? { orderLog: { servers, leaseMs } } : {}),
  };
}

export const acked = (c: Child) => c.lines.filter((l) => l.startsWith("ACK ")).map((l) => l.slice(4));

export async function waitFor(cond: () => boolean, timeoutMs: number, what: string) {
  const until = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > until) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
