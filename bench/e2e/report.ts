// bench:e2e's figures and what it prints: per entry, the indexer's cost, the summary table and issue #17's goals.
import os from "node:os";
import type { SettledBatch } from "../../pipeline/settle/batcher";
import type { BenchStack } from "./bench-stack";
import { type IndexerCpu, tradeKey } from "./indexer-watch";
import type { PhaseResult } from "./phases";
import { GOAL, INFLIGHT, WITH_INDEXER, WS_CONNECTIONS, pct, type Phase } from "./settings";

export interface PhaseFigures {
  phase: Phase;
  accepted: number;
  ordersPerS: number;
  tradesPerS: number;
  p50Settle: number;
  p99Settle: number;
  p50Index: number;
  p99Index: number;
  /** the trade's block (its batch's receipt) -> first seen through the indexer's API: the goal's measure */
  p50BlockIndex: number;
  p99BlockIndex: number;
  indexSeen: number;
  trades: number;
  gasPerTrade: string;
  load: [number, number];
}

type Measured = { t: SettledBatch["trades"][number]; b: SettledBatch }[];

/** The entry's trades matched in its measured window, with their batches. */
export const measuredTrades = (x: PhaseResult): Measured =>
  x.batches.flatMap((b) => b.trades.map((t) => ({ t, b }))).filter(({ t }) => t.matchedAtMs >= x.warmEnd);

function figuresOf(x: PhaseResult, trades: Measured, seenAt: Map<string, number>) {
  const elapsed = (x.windowEnd - x.warmEnd) / 1000;
  const settleLat = trades.map(({ t, b }) => b.settledAtMs - t.matchedAtMs);
  const indexLat = trades
    .map(({ t }) => (seenAt.get(tradeKey(t)) ?? NaN) - t.matchedAtMs)
    .filter((v) => !Number.isNaN(v));
  const blockIndexLat = trades
    .map(({ t, b }) => (seenAt.get(tradeKey(t)) ?? NaN) - b.settledAtMs)
    .filter((v) => !Number.isNaN(v));
  const allTrades = x.batches.reduce((a, b) => a + b.trades.length, 0);
  const gas = x.batches.reduce((a, b) => a + b.gasUsed, 0n);
  const inWindow = trades.filter(({ b }) => b.settledAtMs <= x.windowEnd).length;
  const f: PhaseFigures = {
    phase: x.phase,
    accepted: x.accepted,
    ordersPerS: x.accepted / elapsed,
    tradesPerS: inWindow / elapsed,
    p50Settle: pct(settleLat, 50),
    p99Settle: pct(settleLat, 99),
    p50Index: pct(indexLat, 50),
    p99Index: pct(indexLat, 99),
    p50BlockIndex: pct(blockIndexLat, 50),
    p99BlockIndex: pct(blockIndexLat, 99),
    indexSeen: indexLat.length,
    trades: trades.length,
    gasPerTrade: allTrades ? (gas / BigInt(allTrades)).toString() : "n/a",
    load: [Math.min(...x.load), Math.max(...x.load)],
  };
  return { f, elapsed, settleLat, indexLat };
}

/** Where acceptance -> on-chain went, per trade (the batcher's stage times): the batch filling (to its size or
 *  its oldest's delay), waiting for a flight slot, persist + the send queue, the chain's send+receipt round trip
 *  (proxy, node, mining, back through this event loop), the in-order confirmation after the answer. */
function printStages(b: BenchStack, trades: Measured): void {
  const staged = trades.filter(({ b }) => b.stages);
  if (staged.length === 0) return;
  const { maxTrades, maxDelayMs } = b.config.batcher;
  const due = (x: SettledBatch) =>
    x.trades.length >= maxTrades ? x.trades[x.trades.length - 1].matchedAtMs : x.trades[0].matchedAtMs + maxDelayMs;
  const stage = (name: string, v: (t: SettledBatch["trades"][number], b: SettledBatch) => number) => {
    const xs = staged.map(({ t, b }) => v(t, b));
    return `${name} ${pct(xs, 50).toFixed(0)}/${pct(xs, 99).toFixed(0)}`;
  };
  const st = (x: SettledBatch) => x.stages!;
  console.log(
    `  stages p50/p99 ms         ${stage("filling", (t, x) => Math.max(0, Math.min(due(x), st(x).launchedAtMs) - t.matchedAtMs))}, ${stage("slot wait", (_t, x) => Math.max(0, st(x).launchedAtMs - due(x)))}, ${stage("persist+queue", (_t, x) => st(x).sentAtMs - st(x).launchedAtMs)}, ${stage("chain round trip", (_t, x) => st(x).answeredAtMs - st(x).sentAtMs)}, ${stage("in-order confirm", (_t, x) => x.settledAtMs - st(x).answeredAtMs)} (${(trades.length / Math.max(1, new Set(trades.map(({ b }) => b)).size)).toFixed(0)} trades a batch)`,
  );
}

function printDetail(x: PhaseResult, trades: Measured): void {
  const bySecond = new Map<number, number[]>();
  for (const { t, b } of trades) {
    const sec = Math.floor((t.matchedAtMs - x.warmEnd) / 1000);
    bySecond.set(sec, [...(bySecond.get(sec) ?? []), b.settledAtMs - t.matchedAtMs]);
  }
  for (const [sec, xs] of [...bySecond].sort((a, b) => a[0] - b[0]))
    console.log(
      `  second ${sec}: ${xs.length} trades, p50 ${pct(xs, 50).toFixed(0)} ms, p99 ${pct(xs, 99).toFixed(0)} ms`,
    );
}

/** Prints one entry's figures and returns them. */
export function reportPhase(b: BenchStack, x: PhaseResult, seenAt: Map<string, number>): PhaseFigures {
  const trades = measuredTrades(x);
  const { f, elapsed, settleLat, indexLat } = figuresOf(x, trades, seenAt);
  const signed = x.phase === "in-process" || x.phase.endsWith("wallet") ? "signed orders" : "API-key orders";
  const how =
    x.phase === "in-process"
      ? " (reference: no API, the pipeline's service called in this process)"
      : ` (load generator: a separate process, ${INFLIGHT} in flight${x.phase.startsWith("rest") ? ", keep-alive HTTP/1.1" : `, ${x.phase === "ws-key" ? b.keys.length : WS_CONNECTIONS} WebSocket connections`})`;
  console.log(`\n== ${x.phase}${how}`);
  console.log(
    `load average (1 min)        ${f.load[0].toFixed(1)} .. ${f.load[1].toFixed(1)} during the entry (${os.cpus().length} cores)`,
  );
  console.log(
    `${`${signed} accepted`.padEnd(28)}${x.accepted} in ${elapsed.toFixed(2)} s = ${f.ordersPerS.toFixed(0)} /s (rejected ${x.rejected}, shed for settlement backlog ${x.shed} times); client's acknowledgement p50 ${pct(x.ackMs, 50).toFixed(1)} ms, p99 ${pct(x.ackMs, 99).toFixed(1)} ms`,
  );
  if (x.note) console.log(`                            ${x.note}`);
  console.log(
    `trades settled              ${trades.length} (${(trades.length / Math.max(1, x.accepted)).toFixed(2)} per accepted order) in ${x.batches.length} batches; ${f.tradesPerS.toFixed(0)} /s within the window, ${(trades.length / ((x.drainedAt - x.warmEnd) / 1000)).toFixed(0)} /s until drained`,
  );
  console.log(`gas per trade               ${f.gasPerTrade} (settle gasUsed / trades of the entry's batches)`);
  console.log(
    `acceptance -> on-chain      p50 ${f.p50Settle.toFixed(0)} ms, p99 ${f.p99Settle.toFixed(0)} ms (${settleLat.length} trades)`,
  );
  printStages(b, trades);
  console.log(
    WITH_INDEXER
      ? `acceptance -> indexer       p50 ${f.p50Index.toFixed(0)} ms, p99 ${f.p99Index.toFixed(0)} ms (${indexLat.length}/${trades.length} trades seen)`
      : "acceptance -> indexer       not measured (BENCH_INDEXER=0)",
  );
  if (WITH_INDEXER)
    console.log(
      `block -> indexer            p50 ${f.p50BlockIndex.toFixed(0)} ms, p99 ${f.p99BlockIndex.toFixed(0)} ms (the batch's receipt -> the trade first served by GET /trades, polled every 100 ms)`,
    );
  if (process.env.BENCH_DETAIL) printDetail(x, trades);
  return f;
}

/** The indexer's status and its processes' CPU over the run. */
export async function reportIndexer(b: BenchStack, results: PhaseResult[], before: IndexerCpu, after: IndexerCpu) {
  const status = await (await fetch(`${b.indexerUrl}/status`)).text().catch(() => "?");
  console.log(`\nindexer status at the end   ${status.slice(0, 200)}`);
  const batches = after.batches - before.batches;
  const all = results.flatMap((x) => x.batches);
  const perBatch = all.reduce((n, x) => n + x.trades.length, 0) / Math.max(1, all.length);
  const cpuMs = (after.cpuS - before.cpuS) * 1000;
  if (b.postgres)
    console.log(
      `Postgres server CPU         ${(after.postgresS - before.postgresS).toFixed(1)} s (every process of the server; the indexer is its only client)`,
    );
  console.log(
    `indexer CPU (its process)   ${(cpuMs / 1000).toFixed(1)} s for ${batches} of ${all.length} settle batches indexed = ${(cpuMs / Math.max(1, batches)).toFixed(1)} ms a batch, ${(cpuMs / Math.max(1, batches) / perBatch).toFixed(2)} ms a trade (${perBatch.toFixed(1)} trades a batch; one batch a block)`,
  );
  if (b.config.indexerHotFront)
    console.log(
      `indexer hot front CPU       ${(after.frontS - before.frontS).toFixed(1)} s (its process: following the chain's logs by block range, serving /trades and /candles)`,
    );
}

/** The summary table (one line an entry; `--compare` reads it) and issue #17's goals, never adjusted to pass. */
export function reportSummary(figures: PhaseFigures[]): void {
  console.log(`\nentry         orders/s  trades/s  settle p50/p99 ms  block->indexer p50/p99 ms  gas/trade  load`);
  for (const f of figures) {
    const idx = WITH_INDEXER ? `${f.p50BlockIndex.toFixed(0)}/${f.p99BlockIndex.toFixed(0)}` : "not measured";
    console.log(
      `${f.phase.padEnd(14)}${f.ordersPerS.toFixed(0).padStart(8)}  ${f.tradesPerS.toFixed(0).padStart(8)}  ${`${f.p50Settle.toFixed(0)}/${f.p99Settle.toFixed(0)}`.padStart(17)}  ${idx.padStart(25)}  ${f.gasPerTrade.padStart(9)}  ${f.load[0].toFixed(1)}..${f.load[1].toFixed(1)}`,
    );
  }
  const verdict = (ok: boolean) => (ok ? "PASS" : "FAIL");
  for (const f of figures) {
    if (f.phase === "in-process") continue;
    const goal = f.phase.startsWith("ws") ? GOAL.lowLatencyPerS : GOAL.restPerS;
    console.log(
      `${verdict(f.ordersPerS >= goal)}  ${f.phase}: orders accepted/s >= ${goal} (${f.ordersPerS.toFixed(0)})`,
    );
    console.log(
      `${verdict(f.p99Settle <= GOAL.p99SettleMs)}  ${f.phase}: p99 acceptance->settlement <= ${GOAL.p99SettleMs} ms (${f.p99Settle.toFixed(0)} ms)`,
    );
    // every trade must have been seen: a p99 over the seen ones alone would flatter a lagging indexer
    if (WITH_INDEXER)
      console.log(
        `${verdict(f.indexSeen === f.trades && f.p99BlockIndex <= GOAL.p99IndexerMs)}  ${f.phase}: indexer visibility p99 <= ${GOAL.p99IndexerMs} ms after the trade's block (${f.p99BlockIndex.toFixed(0)} ms, ${f.indexSeen}/${f.trades} seen)`,
      );
  }
}
