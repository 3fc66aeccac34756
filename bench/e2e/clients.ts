// bench:e2e's client entries: one entry driven by a forked load generator (bench/e2e/loadgen.ts).
import { fork } from "node:child_process";
import path from "node:path";
import type { Hex } from "viem";
import { marketToJson } from "../../pipeline/markets";
import type { Entry, LoadJob, LoadResult } from "./loadgen";
import type { BenchStack } from "./bench-stack";
import { INFLIGHT, PREPARED_PER_S, SECONDS, WARMUP, WS_CONNECTIONS } from "./settings";

/** Runs `entry` from a load generator process; wallet entries use nonces from `nonceBase` (`used` of them). */
export async function runViaClients(
  b: BenchStack,
  entry: Entry,
  nonceBase: number,
): Promise<{ r: LoadResult; used: number }> {
  const m = b.market;
  const orders = Math.ceil((SECONDS + WARMUP) * PREPARED_PER_S[entry]);
  const job: LoadJob = {
    entry,
    restUrls: b.apiUrls.map((u) => u.rest),
    wsUrls: b.apiUrls.map((u) => u.ws),
    market: marketToJson(m),
    domainSeparator: b.domainSeparator,
    traders: b.traders.map((t) => ({ address: t.address, privateKey: t.privateKey as Hex })),
    keys: b.keys.map((k) => ({ apiKey: k.apiKey, secret: k.secret })),
    nonceBase,
    priceTicks: "250000",
    sizeLots: "2",
    warmupS: WARMUP,
    seconds: SECONDS,
    inflight: INFLIGHT,
    wsConnections: WS_CONNECTIONS,
    orders,
  };
  const child = fork(path.join(__dirname, "loadgen.ts"), [], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const r = await new Promise<LoadResult>((resolve, reject) => {
    child.on("message", (msg: { type: string; result?: LoadResult; error?: string }) => {
      if (msg.type === "ready") child.send(job);
      else if (msg.type === "result") resolve(msg.result!);
      else reject(new Error(`load generator: ${msg.error}`));
    });
    child.once("exit", (code) => code !== 0 && reject(new Error(`the load generator exited with ${code}`)));
  });
  return { r, used: entry.endsWith("wallet") ? orders : 0 };
}
