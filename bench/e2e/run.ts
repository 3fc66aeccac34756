// npm run bench:e2e — the real stack (chains behind their journalling proxies, deployment, seeded sandbox
// traders, the pipeline component, the DEX API with raised rate limits (bench-dex-api.ts) and the Ponder
// indexer), driven entry by entry, one after the other on the same stack:
//   in-process   signed orders straight into the pipeline's service (no API): the reference line
//   rest-wallet  wallet-signed orders over POST /v1/orders     } from a separate load-generating process
//   rest-key     API-key orders over POST /v1/orders           } (bench/e2e/loadgen.ts, forked), the way
//   ws-wallet    wallet-signed orders over the WebSocket order entry } clients send them (keep-alive
//   ws-key       API-key orders over the WebSocket order entry  } HTTP/1.1; `order` messages on /ws)
// For each: orders accepted/s, trades settled/s, gas per trade, p50/p99 acceptance -> on-chain settlement
// (the trade's match time to its batch's receipt) and -> indexer visibility, and the load average; then
// the goals of issue #17 against them (>= 6,000/s through the low-latency entry, >= 3,000/s through REST,
// p99 acceptance->settlement <= 100 ms, indexer p99 <= 1 s), PASS or FAIL each.
// Load: closed loop, BENCH_INFLIGHT clients (orders in flight) each placing its next order when the
// previous one is answered; an order shed because the settlement backlog is full (503 SERVICE_UNAVAILABLE,
// SETTLEMENT_BACKLOG) is retried by its client after its retry hint (counted as "shed"). Between entries
// the batcher drains, so each entry's trades and batches are its own.
// Env: BENCH_ENTRIES (all five, comma-separated), BENCH_SECONDS (10), BENCH_WARMUP_SECONDS (5: the same load
// first, reported apart), BENCH_INFLIGHT (64), BENCH_WS_CONNECTIONS (4: ws-wallet's connections; ws-key uses
// one per trader's key), PIPELINE_MAX_BACKLOG_TRADES (pipeline default), BENCH_MAX_TRADES / BENCH_MAX_DELAY_MS /
// BENCH_MAX_INFLIGHT (batcher, config), BENCH_INDEXER=0 to skip the indexer, BENCH_UNEQUAL=1 (in-process:
// pairs of unequal sizes), BENCH_RATE=n (in-process: pace n orders/s), BENCH_CHAIN_NODE=anvil|hardhat,
// BENCH_PROFILE=dir: a V8 CPU profile of this (the stack's) process (and of each API process), BENCH_DETAIL=1 per-second figures,
// BENCH_INDEXER_DB=postgres: the indexer on a real Postgres server (test/support/external-parts.ts) instead of PGlite.
// BENCH_API_PROCESSES=N (default 0): N >= 1 runs the deployment of docs/operations.md "Scale-out and production mapping": this
// process is the matcher partition (on a one-node NATS server, ORDER_LOG_URL, owning every market), the DEX API runs in N processes of its own
// (bench/e2e/api-process.ts, DEX_PARTITIONS, each its own PGlite), the load generator spreads its connections over
// them; each entry prints every process's CPU seconds. 0: the DEX API in this process, as before.
// `--compare <rev>`: alternated runs of this tree and of <rev> (bench/e2e/compare.ts).
// Parts: settings.ts (env), bench-stack.ts (the stack), in-process.ts and clients.ts (the entries' load),
// phases.ts (an entry's run and CPU), indexer-watch.ts (visibility), report.ts (figures and goals).
import os from "node:os";
import fs from "node:fs";
import path from "node:path";
import { Session } from "node:inspector/promises";
import { startBenchStack, type BenchStack } from "./bench-stack";
import { compareMain } from "./compare";
import { VisibilityPoller, indexerCpu, tradeKey } from "./indexer-watch";
import { runPhase, type PhaseResult } from "./phases";
import { measuredTrades, reportIndexer, reportPhase, reportSummary } from "./report";
import { INFLIGHT, PHASES, SECONDS, WARMUP, WITH_INDEXER } from "./settings";

function printHeader(b: BenchStack): void {
  const { config } = b;
  const indexer = WITH_INDEXER
    ? `on (${b.postgres ? "Postgres server" : "PGlite"}, ${config.indexerHotFront ? "hot front" : "Ponder alone"})`
    : "off";
  const api =
    b.apiProcesses === 0
      ? "in this process"
      : `in ${b.apiProcesses} processes of its own (this one the matcher partition)`;
  console.log(
    `bench:e2e  ${b.traders.length} traders, ${WARMUP} s warm-up + ${SECONDS} s measured per entry (${PHASES.join(", ")}), ${INFLIGHT} in flight, batches <= ${config.batcher.maxTrades} trades / ${config.batcher.maxDelayMs} ms, backlog cap ${process.env.PIPELINE_MAX_BACKLOG_TRADES ?? "default"}, indexer ${indexer}, DEX API ${api}, chain node ${process.env.BENCH_CHAIN_NODE ?? process.env.CHAIN_NODE ?? "default"}; load average ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(" ")} (${os.cpus().length} cores)`,
  );
}

/** Every entry in turn (BENCH_PROFILE=dir: a V8 CPU profile of this process over them). */
async function runPhases(b: BenchStack): Promise<PhaseResult[]> {
  const profiler = process.env.BENCH_PROFILE ? new Session() : undefined;
  if (profiler) {
    profiler.connect();
    await profiler.post("Profiler.enable");
    await profiler.post("Profiler.start");
  }
  const results: PhaseResult[] = [];
  let nonceNext = 1; // nonces from 1: the first deposit pre-created word 0
  for (const phase of PHASES) {
    const { x, used } = await runPhase(b, phase, nonceNext);
    nonceNext += used;
    results.push(x);
  }
  if (profiler) {
    const { profile } = await profiler.post("Profiler.stop");
    fs.mkdirSync(process.env.BENCH_PROFILE!, { recursive: true });
    const file = path.join(process.env.BENCH_PROFILE!, `bench-e2e-${Date.now()}.cpuprofile`);
    fs.writeFileSync(file, JSON.stringify(profile));
    console.log(`CPU profile of the stack process: ${file}`);
    profiler.disconnect();
  }
  return results;
}

async function main(): Promise<void> {
  const b = await startBenchStack();
  try {
    printHeader(b);
    const hotFront = b.config.indexerHotFront;
    const cpuBefore = WITH_INDEXER ? await indexerCpu(b.indexerUrl, hotFront, b.postgres?.pid) : undefined;
    const poller = new VisibilityPoller(b.indexerUrl);
    if (WITH_INDEXER) poller.start();
    const results = await runPhases(b);
    if (WITH_INDEXER)
      await poller.waitFor(
        results.flatMap(measuredTrades).map(({ t }) => tradeKey(t)),
        120_000,
      );
    await poller.stop();
    const cpuAfter = WITH_INDEXER ? await indexerCpu(b.indexerUrl, hotFront, b.postgres?.pid) : undefined;
    const figures = results.map((x) => reportPhase(b, x, poller.seenAt));
    if (WITH_INDEXER) {
      await reportIndexer(b, results, cpuBefore!, cpuAfter!);
      if (process.env.BENCH_INDEXER_METRICS)
        fs.writeFileSync(process.env.BENCH_INDEXER_METRICS, await (await fetch(`${b.indexerUrl}/metrics`)).text());
    }
    console.log(`pipeline health             ${JSON.stringify(b.handle.pipeline.health())}`);
    reportSummary(figures);
  } finally {
    await b.stop();
  }
}

const compareAt = process.argv.indexOf("--compare");
(compareAt >= 0 ? compareMain(process.argv[compareAt + 1]) : main()).then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
