// npm run bench:restart — how long a restart takes as history grows. For each size (10,000 orders, then
// BENCH_RESTART_ORDERS, default 100,000): a stack (chains, the pipeline, the DEX API; no indexer, no
// bridge) on a fresh data dir takes that many signed orders (about one trade per two orders) until every
// trade is settled, stops cleanly, starts again on the same data dir and reports: time until an order is
// accepted again and until /health is 200 (ms since the process started, and startStack alone), the
// process RSS after the start, the chains' replay (calls, ms) and the matcher journal's recovery (snapshot
// index, records replayed, ms). Then the ratio of the two sizes. Each life runs in its own process
// (stack-child.ts). Goal (issue #13): under 5 s to accepting orders, the two sizes within 20 %.
// Env: BENCH_RESTART_ORDERS (100000), BENCH_RESTART_SMALL (10000), BENCH_RESTART_SIZES=small|large to run one size only,
// BENCH_CHAIN_NODE=anvil|hardhat the chains' node (default: CHAIN_NODE, else config's default).
import { fork } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createTestConfig } from "../../scripts/stack";
import type { ChainRestored } from "../../scripts/chain";
import { chainNodeOf } from "../../config";

const LARGE = Number(process.env.BENCH_RESTART_ORDERS ?? 100_000);
const SMALL = Number(process.env.BENCH_RESTART_SMALL ?? 10_000);
const SIZES = process.env.BENCH_RESTART_SIZES === "small" ? [SMALL] : process.env.BENCH_RESTART_SIZES === "large" ? [LARGE] : [SMALL, LARGE];
const TARGET_ACCEPT_MS = 5_000;
const TARGET_RATIO = 1.2;

interface RestartResult {
  processStartToAcceptedMs: number;
  processStartToHealthMs: number;
  startStackMs: number;
  timingsMs: Record<string, number>;
  rssMb: number;
  chains: { home: ChainRestored; remote: ChainRestored };
  journal: { snapshotIndex: number; replayed: number; ms: number };
  recoveredTrades: number;
  lastSettledSeq: number;
}

function life<T>(env: Record<string, string>, mode: "fill" | "restart", n: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = fork(path.join(__dirname, "stack-child.ts"), [], {
      env: { ...process.env, ...env, BENCH_RESTART_MODE: mode, BENCH_RESTART_N: String(n) },
      execArgv: ["--import", "tsx"],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    let result: T | undefined;
    child.on("message", (msg) => {
      if ((msg as { type?: string }).type === "result") result = msg as T;
    });
    child.on("exit", (code) => (result !== undefined && code === 0 ? resolve(result) : reject(new Error(`${mode} child exited ${code} without a result`))));
  });
}

async function measure(n: number): Promise<RestartResult> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-restart-"));
  try {
    const { env } = await createTestConfig(dataDir, { LOG_LEVEL: "error", STACK_COMPONENTS: "pipeline,dex-api", ...(process.env.BENCH_CHAIN_NODE ? { CHAIN_NODE: process.env.BENCH_CHAIN_NODE } : {}) });
    const fill = await life<{ accepted: number; trades: number; fillMs: number }>(env, "fill", n);
    console.log(`${n} orders: ${fill.accepted} accepted, ${fill.trades} trades settled in ${(fill.fillMs / 1000).toFixed(1)} s; data dir ${Math.round(dirBytes(dataDir) / 2 ** 20)} MB; restarting`);
    const r = await life<RestartResult>(env, "restart", n);
    console.log(`  accepting orders          ${r.processStartToAcceptedMs} ms after the process started (startStack ${r.startStackMs} ms: ${Object.entries(r.timingsMs).map(([k, v]) => `${k} ${v}`).join(", ")})`);
    console.log(`  /health 200               ${r.processStartToHealthMs} ms after the process started`);
    console.log(`  RSS after start           ${r.rssMb} MB (this process; the chain nodes are their own)`);
    const restore = (c: ChainRestored) =>
      `${c.snapshot ? `snapshot of ${c.snapshot.journalEntries} calls (${(c.snapshot.bytes / 2 ** 20).toFixed(1)} MB) loaded in ${c.snapshot.loadMs} ms + ` : ""}${c.entries} calls replayed, ${c.ms} ms`;
    console.log(`  chain restore             home ${restore(r.chains.home)}; remote ${restore(r.chains.remote)}`);
    for (const skipped of [...(r.chains.home.skippedSnapshots ?? []), ...(r.chains.remote.skippedSnapshots ?? [])]) console.log(`  snapshot skipped          ${skipped.slice(0, 300)}`);
    console.log(`  matcher journal           snapshot at record ${r.journal.snapshotIndex}, ${r.journal.replayed} records replayed, recovery ${Math.round(r.journal.ms)} ms; ${r.recoveredTrades} trades held, last settled seq ${r.lastSettledSeq}`);
    return r;
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
    // the DEX API's generated encryption key lives beside the data dir (api/dex/config.ts)
    fs.rmSync(`${dataDir}.secrets`, { recursive: true, force: true });
  }
}

function dirBytes(dir: string): number {
  let total = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    total += e.isDirectory() ? dirBytes(p) : fs.statSync(p).size;
  }
  return total;
}

async function main(): Promise<void> {
  const node = process.env.BENCH_CHAIN_NODE || chainNodeOf();
  console.log(`bench:restart  sizes ${SIZES.join(", ")} orders; chain node ${node}; ${os.cpus().length} cores, load average ${os.loadavg().map((x) => x.toFixed(1)).join(" ")}`);
  const results: RestartResult[] = [];
  for (const n of SIZES) results.push(await measure(n));
  let ok = results.every((r) => r.processStartToAcceptedMs < TARGET_ACCEPT_MS);
  console.log(`${ok ? "PASS" : "FAIL"}  restart to accepting orders < ${TARGET_ACCEPT_MS} ms (${results.map((r) => r.processStartToAcceptedMs).join(" ms, ")} ms)`);
  if (results.length === 2) {
    const [a, b] = results;
    const ratio = b.processStartToAcceptedMs / a.processStartToAcceptedMs;
    const within = ratio <= TARGET_RATIO;
    ok &&= within;
    console.log(`ratio ${SIZES[1]} / ${SIZES[0]} orders: accepting ${ratio.toFixed(2)}x, /health ${(b.processStartToHealthMs / a.processStartToHealthMs).toFixed(2)}x, RSS ${(b.rssMb / a.rssMb).toFixed(2)}x, chain restore ${(b.chains.home.ms / Math.max(1, a.chains.home.ms)).toFixed(2)}x, journal recovery ${(b.journal.ms / Math.max(1, a.journal.ms)).toFixed(2)}x`);
    console.log(`${within ? "PASS" : "FAIL"}  the two sizes within ${Math.round((TARGET_RATIO - 1) * 100)} % (${ratio.toFixed(2)}x)`);
  }
  console.log(`load average at the end ${os.loadavg().map((x) => x.toFixed(1)).join(" ")}`);
  process.exit(ok ? 0 : 1);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
