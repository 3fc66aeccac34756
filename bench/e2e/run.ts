// npm run bench:e2e — the real stack (chains behind their journalling proxies, deployment, seeded
// sandbox traders, the pipeline component and the Ponder indexer). Signed orders from several accounts
// go into the pipeline as fast as it takes them for a fixed time. Prints signed orders accepted/s,
// trades settled/s, gas per trade, p50/p99 latency acceptance -> on-chain settlement and -> indexer
// visibility, and PASS/FAIL against the targets (>= 2,000 orders/s accepted; p99 settlement < 250 ms).
// Load generator: closed loop, BENCH_INFLIGHT clients each placing its next order when the previous one is
// acknowledged; an order shed because the settlement backlog is full (SERVICE_UNAVAILABLE,
// SETTLEMENT_BACKLOG) is retried by its client after retryAfterMs (counted as "shed").
// Env: BENCH_SECONDS (10), BENCH_WARMUP_SECONDS (5: the same load first, reported apart), BENCH_INFLIGHT (64), PIPELINE_MAX_BACKLOG_TRADES (pipeline default), BENCH_MAX_TRADES (config), BENCH_MAX_DELAY_MS (config),
// BENCH_INDEXER=0 to skip the indexer, BENCH_UNEQUAL=1 for pairs of unequal sizes, BENCH_RATE=n to pace n orders/s (latency when the chain keeps up).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import type { Address, Hex } from "viem";
import { createTestConfig, indexerComponent, startStack, type Component } from "../../scripts/stack";
import { getDomainSeparator, getSettlementDomain, type Order } from "../../sdk/eip712";
import { pipelineComponent, type PipelineHandle } from "../../scripts/stack/components/pipeline";
import { createOrderDigester } from "../../pipeline/intake/order-digest";
import type { PlaceSignedInput } from "../../pipeline/intake/intake";
import { typedOrder } from "../../pipeline/testing/orders";
import type { SettledBatch } from "../../pipeline/settle/batcher";

// eslint-disable-next-line @typescript-eslint/no-require-imports
const native = require("secp256k1/bindings") as { ecdsaSign(msg: Uint8Array, key: Uint8Array): { signature: Uint8Array; recid: number } };

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
/** the same load before the measured window, reported apart: JIT, first-touch storage, caches */
const WARMUP = Number(process.env.BENCH_WARMUP_SECONDS ?? 5);
const INFLIGHT = Number(process.env.BENCH_INFLIGHT ?? 64);
const WITH_INDEXER = process.env.BENCH_INDEXER !== "0";
const UNEQUAL = process.env.BENCH_UNEQUAL === "1";
/** orders per second to pace at; unset = as fast as the stack takes them */
const RATE = process.env.BENCH_RATE ? Number(process.env.BENCH_RATE) : undefined;
const TARGET_ORDERS_PER_S = 2000;
const TARGET_P99_SETTLE_MS = 250;

function pct(xs: number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-e2e-"));
  const overrides: Record<string, string> = { LOG_LEVEL: "error" };
  if (process.env.BENCH_MAX_TRADES) overrides.BATCHER_MAX_TRADES = process.env.BENCH_MAX_TRADES;
  if (process.env.BENCH_MAX_DELAY_MS) overrides.BATCHER_MAX_DELAY_MS = process.env.BENCH_MAX_DELAY_MS;
  if (process.env.BENCH_MAX_INFLIGHT) overrides.BATCHER_MAX_INFLIGHT = process.env.BENCH_MAX_INFLIGHT;
  if (process.env.CHAIN_JOURNAL_FSYNC) overrides.CHAIN_JOURNAL_FSYNC = process.env.CHAIN_JOURNAL_FSYNC;
  const { config } = await createTestConfig(dataDir, overrides);
  const components: Component[] = WITH_INDEXER ? [pipelineComponent, indexerComponent] : [pipelineComponent];
  const stack = await startStack({ config, components, onComponentError: "fail" });
  try {
    const handle = stack.components.find((c) => c.name === "pipeline")!.handle as PipelineHandle;
    const indexerUrl = WITH_INDEXER ? stack.components.find((c) => c.name === "indexer")!.handle!.urls!.graphql.replace(/\/graphql$/, "") : "";
    const p = handle.pipeline;
    const m = p.service.marketList().find((x) => x.symbol === "WETH-USD")!;
    const settlement = stack.deployments.home.contracts.Settlement as Address;
    const traders = config.keys.demoTraders;

    const settled: SettledBatch[] = [];
    let windowEnd = Infinity;
    p.subscribeSettled((b) => settled.push(b));

    // Orders are signed by the clients before the clock starts (signing is the client's cost): native
    // ECDSA over the EIP-712 digest, the bytes a wallet signs.
    const digest = createOrderDigester(getDomainSeparator(getSettlementDomain(config.chains.home.chainId, settlement)));
    const total = Math.ceil((SECONDS + WARMUP) * TARGET_ORDERS_PER_S * 3);
    const expiry = BigInt(Math.floor(Date.now() / 1000) + 3600);
    const inputs: PlaceSignedInput[] = [];
    for (let i = 0; i < total; i++) {
      // pairs: a sell rests, the next buy (another trader) takes it. Every order has the same size, so whatever
      // order the 64 clients' orders arrive in, each fills entirely against one other: one trade per two orders
      // (BENCH_UNEQUAL=1: sizes 1-3 lots, partial fills, 0.5-0.8 trades per order depending on the interleaving)
      const ti = (i >> 1) % traders.length;
      const k = (i & 1) === 0 ? ti : (ti + 1) % traders.length;
      const sizeLots = UNEQUAL ? BigInt(1 + (i % 3)) : 2n;
      const order: Order = {
        trader: traders[k].address, baseToken: m.baseToken, quoteToken: m.quoteToken, side: (i & 1) === 0 ? 1 : 0,
        price: 250_000n * m.tickSize, amount: m.lotSize * sizeLots, expiry, nonce: BigInt(i + 1), flags: 0, // nonces from 1: the first deposit pre-created word 0
      };
      const sig = native.ecdsaSign(hexToBytes(digest(order).slice(2)), hexToBytes(traders[k].privateKey.slice(2)));
      inputs.push({ ...typedOrder(m, { priceTicks: 250_000n, sizeLots }), order, signature: ("0x" + bytesToHex(sig.signature) + (27 + sig.recid).toString(16)) as Hex });
    }
    console.log(`bench:e2e  ${traders.length} traders, ${WARMUP} s warm-up + ${SECONDS} s measured, ${INFLIGHT} in flight, batches <= ${config.batcher.maxTrades} trades / ${config.batcher.maxDelayMs} ms, backlog cap ${process.env.PIPELINE_MAX_BACKLOG_TRADES ?? "default"}, indexer ${WITH_INDEXER ? "on" : "off"}, ${UNEQUAL ? "orders of 1-3 lots" : "orders of 2 lots"}, ${RATE ? `paced at ${RATE} orders/s` : "unpaced"}; ${total} orders pre-signed; load average ${os.loadavg().map((x) => x.toFixed(1)).join(" ")}`);

    // indexer visibility: follow its new trades (fromBlock: that block on, oldest first), note when each
    // (maker, taker) pair first shows up
    const seenAt = new Map<string, number>();
    let polling = WITH_INDEXER;
    let t0 = Date.now();
    let fromBlock = 0n;
    const poller = (async () => {
      while (polling) {
        try {
          const r = (await (await fetch(`${indexerUrl}/trades?pair=WETH-USD&limit=1000&fromBlock=${fromBlock}`)).json()) as { trades: { makerOrderHash: string; takerOrderHash: string; blockNumber: string }[] };
          const now = Date.now();
          for (const t of r.trades) {
            const k = `${t.makerOrderHash.toLowerCase()}:${t.takerOrderHash.toLowerCase()}`;
            if (!seenAt.has(k)) seenAt.set(k, now);
          }
          if (r.trades.length > 0) fromBlock = BigInt(r.trades[r.trades.length - 1].blockNumber); // that block again: it may still be filling
        } catch {
          /* the indexer is busy; next poll */
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    })();

    // BENCH_DETAIL: stalls of this process's event loop (intake, matcher, batcher), by time
    const stalls: string[] = [];
    let lastTick = Date.now();
    const stallTimer = process.env.BENCH_DETAIL
      ? setInterval(() => {
          const now = Date.now();
          if (now - lastTick > 40) stalls.push(`${((now - t0) / 1000 - WARMUP).toFixed(2)}s:${now - lastTick}ms`);
          lastTick = now;
        }, 10)
      : undefined;
    let next = 0;
    let accepted = 0;
    let warmAccepted = 0;
    let rejected = 0;
    let shed = 0;
    const ackMs: number[] = [];
    const loadSamples: number[] = [os.loadavg()[0]];
    const loadTimer = setInterval(() => loadSamples.push(os.loadavg()[0]), 1000);
    t0 = Date.now();
    const warmEnd = t0 + WARMUP * 1000;
    windowEnd = warmEnd + SECONDS * 1000;
    async function worker(): Promise<void> {
      while (Date.now() < windowEnd && next < inputs.length) {
        const i = next++;
        const input = inputs[i];
        if (RATE) {
          const due = t0 + (i * 1000) / RATE;
          if (due >= windowEnd) break;
          if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
          if (Date.now() >= windowEnd) break;
        }
        for (;;) {
          const s = performance.now();
          try {
            const r = await p.service.placeSigned(input);
            const measured = Date.now() >= warmEnd;
            if (r.status !== "accepted") rejected += 1;
            else if (measured) accepted += 1;
            else warmAccepted += 1;
            if (measured) ackMs.push(performance.now() - s);
          } catch (e) {
            const d = (e as { details?: { reason?: string; retryAfterMs?: number } }).details;
            if (d?.reason === "SETTLEMENT_BACKLOG") {
              // shed by the exchange (settlement backlog full): the client backs off and retries the order
              shed += 1;
              await new Promise((r) => setTimeout(r, d.retryAfterMs ?? 10));
              if (Date.now() < windowEnd) continue;
              break;
            }
            rejected += 1;
            if (rejected <= 3) console.error("rejected:", (e as Error).message);
          }
          break;
        }
      }
    }
    await Promise.all(Array.from({ length: INFLIGHT }, worker));
    const elapsed = (Date.now() - warmEnd) / 1000;
    clearInterval(loadTimer);
    loadSamples.push(os.loadavg()[0]);
    await p.batcher.drain();
    const drainedAt = Date.now();
    const allTrades = settled.flatMap((b) => b.trades.map((t) => ({ t, b })));
    const warmTrades = allTrades.filter(({ t }) => t.matchedAtMs < warmEnd);
    const trades = allTrades.filter(({ t }) => t.matchedAtMs >= warmEnd);
    if (WITH_INDEXER) {
      const end = Date.now() + 120_000;
      while (Date.now() < end && trades.some(({ t }) => !seenAt.has(`${t.makerHash.toLowerCase()}:${t.takerHash.toLowerCase()}`))) await new Promise((r) => setTimeout(r, 100));
      polling = false;
      await poller;
      const r = (await (await fetch(`${indexerUrl}/trades?pair=WETH-USD&limit=1000`)).json()) as { trades: unknown[] };
      const status = await (await fetch(`${indexerUrl}/status`)).text().catch(() => "?");
      console.log(`indexer                     ${r.trades.length} trade rows served at the end; status ${status.slice(0, 200)}`);
      // BENCH_INDEXER_METRICS=file: Ponder's Prometheus metrics at the end (cache misses, query durations)
      if (process.env.BENCH_INDEXER_METRICS) fs.writeFileSync(process.env.BENCH_INDEXER_METRICS, await (await fetch(`${indexerUrl}/metrics`)).text());
    }
    const settleLat = trades.map(({ t, b }) => b.settledAtMs - t.matchedAtMs);
    const indexLat = trades.map(({ t }) => seenAt.get(`${t.makerHash.toLowerCase()}:${t.takerHash.toLowerCase()}`)).map((s, i) => (s === undefined ? NaN : s - trades[i].t.matchedAtMs)).filter((x) => !Number.isNaN(x));
    const gas = settled.reduce((a, b) => a + b.gasUsed, 0n);
    const inWindow = allTrades.filter(({ b }) => b.settledAtMs >= warmEnd && b.settledAtMs <= windowEnd).length;
    const ordersPerS = accepted / elapsed;
    const p99 = pct(settleLat, 99);
    if (WARMUP > 0) {
      const w = warmTrades.map(({ t, b }) => b.settledAtMs - t.matchedAtMs);
      console.log(`warm-up (not measured)      ${WARMUP} s: ${warmAccepted} orders accepted, ${warmTrades.length} trades, acceptance -> on-chain p50 ${pct(w, 50).toFixed(0)} ms, p99 ${pct(w, 99).toFixed(0)} ms`);
    }
    console.log(`load average (1 min)        ${Math.min(...loadSamples).toFixed(1)} .. ${Math.max(...loadSamples).toFixed(1)} during the window (${os.cpus().length} cores)`);
    console.log(`signed orders accepted      ${accepted} in ${elapsed.toFixed(2)} s = ${ordersPerS.toFixed(0)} /s (rejected ${rejected}, shed for settlement backlog ${shed} times); acknowledgement p50 ${pct(ackMs, 50).toFixed(1)} ms, p99 ${pct(ackMs, 99).toFixed(1)} ms`);
    console.log(`trades settled              ${trades.length} in ${settled.length} batches (${(trades.length / Math.max(1, accepted)).toFixed(2)} per accepted order); ${(inWindow / elapsed).toFixed(0)} /s within the window, ${(trades.length / ((drainedAt - warmEnd) / 1000)).toFixed(0)} /s until drained`);
    console.log(`gas per trade               ${trades.length ? (gas / BigInt(trades.length)).toString() : "n/a"} (settle gasUsed / trades; ${settled.length ? (Number(gas) / settled.length).toFixed(0) : "n/a"} per batch)`);
    console.log(`acceptance -> on-chain      p50 ${pct(settleLat, 50).toFixed(0)} ms, p99 ${p99.toFixed(0)} ms (${settleLat.length} trades)`);
    console.log(WITH_INDEXER ? `acceptance -> indexer       p50 ${pct(indexLat, 50).toFixed(0)} ms, p99 ${pct(indexLat, 99).toFixed(0)} ms (${indexLat.length}/${trades.length} trades seen)` : "acceptance -> indexer       skipped (BENCH_INDEXER=0)");
    if (WITH_INDEXER) {
      // the indexer runs below the trading path (SCHED_IDLE): under full load it falls behind and catches up
      // once the load stops; its own rate is what it indexes after the drain, with the cores to itself
      const seenAfter = [...seenAt.values()].filter((s) => s > drainedAt);
      const last = Math.max(drainedAt, ...seenAfter);
      console.log(`indexer catch-up            ${seenAfter.length} trades indexed after the drain in ${((last - drainedAt) / 1000).toFixed(1)} s = ${last > drainedAt ? ((seenAfter.length * 1000) / (last - drainedAt)).toFixed(0) : "n/a"} trades/s`);
    }
    if (process.env.BENCH_DETAIL) {
      // per second of the window, by acceptance time: trades, p50/p99 acceptance -> settlement
      const bySecond = new Map<number, number[]>();
      for (const { t, b } of allTrades) {
        const sec = Math.floor((t.matchedAtMs - warmEnd) / 1000);
        bySecond.set(sec, [...(bySecond.get(sec) ?? []), b.settledAtMs - t.matchedAtMs]);
      }
      clearInterval(stallTimer);
      console.log(`  main event loop stalls > 40 ms: ${stalls.join(" ") || "none"}`);
      for (const [sec, xs] of [...bySecond].sort((a, b) => a[0] - b[0])) console.log(`  second ${sec}: ${xs.length} trades, p50 ${pct(xs, 50).toFixed(0)} ms, p99 ${pct(xs, 99).toFixed(0)} ms`);
    }
    console.log(`pipeline health             ${JSON.stringify(p.health())}`);
    console.log(`${ordersPerS >= TARGET_ORDERS_PER_S ? "PASS" : "FAIL"}  signed orders accepted/s >= ${TARGET_ORDERS_PER_S} (${ordersPerS.toFixed(0)})`);
    console.log(`${p99 < TARGET_P99_SETTLE_MS ? "PASS" : "FAIL"}  p99 acceptance->settlement < ${TARGET_P99_SETTLE_MS} ms (${p99.toFixed(0)} ms)`);
  } finally {
    await stack.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
