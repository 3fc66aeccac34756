// npm run bench:e2e — signed orders from several accounts into the live pipeline (intake -> journaled
// engine -> batcher -> settle on a real Hardhat node) as fast as it takes them, for a fixed time.
// Prints orders accepted/s, trades settled/s, gas per trade, p50/p99 acceptance->settlement and
// ->indexer visibility, and PASS/FAIL against the targets (>= 2,000 orders/s; p99 settlement < 250 ms).
// Env: BENCH_SECONDS (default 10), BENCH_TRADERS (4), BENCH_INFLIGHT (64), BENCH_MAX_TRADES, BENCH_MAX_DELAY_MS.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hexToBytes, bytesToHex } from "@noble/hashes/utils.js";
import type { Hex } from "viem";
import { getDomainSeparator, getSettlementDomain, type Order } from "../../sdk/eip712";
import { startPipeline } from "../../pipeline/pipeline";
import { createOrderDigester } from "../../pipeline/order-digest";
import { startFixture } from "../../pipeline/testing/fixture";
import { HARDHAT_DEV_PRIVATE_KEYS } from "../../config/dev-accounts";
import type { PlaceSignedInput } from "../../pipeline/intake";

// eslint-disable-next-line @typescript-eslint/no-require-imports
const native = require("secp256k1/bindings") as { ecdsaSign(msg: Uint8Array, key: Uint8Array): { signature: Uint8Array; recid: number } };

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const TRADERS = Number(process.env.BENCH_TRADERS ?? 4);
const INFLIGHT = Number(process.env.BENCH_INFLIGHT ?? 64);
const MAX_TRADES = Number(process.env.BENCH_MAX_TRADES ?? 100);
const MAX_DELAY_MS = Number(process.env.BENCH_MAX_DELAY_MS ?? 20);
const TARGET_ORDERS_PER_S = 2000;
const TARGET_P99_SETTLE_MS = 250;

function pct(xs: number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

async function main(): Promise<void> {
  const f = await startFixture({ traders: TRADERS, wethUnits: 1_000_000n * 10n ** 18n, usdUnits: 10n ** 15n });
  const dataDir = mkdtempSync(join(tmpdir(), "bench-e2e-"));
  const settleLatency: number[] = [];
  let tradesSettled = 0;
  let gasTotal = 0n;
  let batches = 0;
  let windowEnd = Infinity;
  let tradesSettledInWindow = 0;
  const p = await startPipeline({
    rpcUrl: f.chain.rpcUrl, chainId: f.chainId, settlement: f.settlement, fromBlock: f.deployBlock, markets: [f.market],
    operatorKey: f.operatorKey, dataDir, maxTrades: MAX_TRADES, maxDelayMs: MAX_DELAY_MS, fsync: true,
    onSettled(b) {
      batches += 1;
      tradesSettled += b.trades.length;
      if (b.settledAtMs <= windowEnd) tradesSettledInWindow += b.trades.length;
      gasTotal += b.gasUsed;
      for (const t of b.trades) settleLatency.push(b.settledAtMs - t.matchedAtMs);
    },
  });
  try {
    // Orders are signed by the clients before the clock starts (signing is the client's cost): native
    // ECDSA over the EIP-712 digest, the same bytes a wallet signs.
    const digest = createOrderDigester(getDomainSeparator(getSettlementDomain(f.chainId, f.settlement)));
    const keys = f.traders.map((_, i) => hexToBytes(HARDHAT_DEV_PRIVATE_KEYS[4 + i].slice(2)));
    const total = Math.ceil(SECONDS * TARGET_ORDERS_PER_S * 2.5);
    const expiry = BigInt(Math.floor(Date.now() / 1000) + 3600);
    const inputs: PlaceSignedInput[] = [];
    const m = f.market;
    for (let i = 0; i < total; i++) {
      // pairs: a sell rests, the next buy (another trader) takes it: one trade per two orders
      const ti = (i >> 1) % TRADERS;
      const trader = f.traders[(i & 1) === 0 ? ti : (ti + 1) % TRADERS];
      const order: Order = {
        trader: trader.address, baseToken: m.baseToken, quoteToken: m.quoteToken, side: (i & 1) === 0 ? 1 : 0,
        price: 250_000n * m.tickSize, amount: m.lotSize * BigInt(1 + (i % 3)), expiry, nonce: BigInt(i), flags: 0,
      };
      const kIdx = f.traders.indexOf(trader);
      const sig = native.ecdsaSign(hexToBytes(digest(order).slice(2)), keys[kIdx]);
      const signature = ("0x" + bytesToHex(sig.signature) + (27 + sig.recid).toString(16)) as Hex;
      inputs.push({ symbol: m.symbol, type: "limit", timeInForce: "GTC", order, signature });
    }
    console.log(`bench:e2e  ${TRADERS} traders, ${SECONDS} s, ${INFLIGHT} in flight, batches <= ${MAX_TRADES} trades / ${MAX_DELAY_MS} ms; ${total} orders pre-signed`);

    let next = 0;
    let accepted = 0;
    let rejected = 0;
    const acceptLatency: number[] = [];
    const progress = setInterval(() => console.log("progress", accepted, rejected, JSON.stringify(p.health())), 1000);
    const t0 = Date.now();
    windowEnd = t0 + SECONDS * 1000;
    async function worker(): Promise<void> {
      while (Date.now() < windowEnd && next < inputs.length) {
        const input = inputs[next++];
        const s = performance.now();
        try {
          const timer = setTimeout(() => console.log("STUCK", next, input.order.nonce), 3000);
          const r = await p.service.placeSigned(input);
          clearTimeout(timer);
          if (r.status === "accepted") accepted += 1;
          else rejected += 1;
          acceptLatency.push(performance.now() - s);
        } catch (e) {
          rejected += 1;
          if (rejected < 5) console.error("rejected:", (e as Error).message);
        }
      }
    }
    await Promise.all(Array.from({ length: INFLIGHT }, worker));
    const elapsed = (Date.now() - t0) / 1000;
    console.log("window over");
    await p.batcher.drain();
    const ordersPerS = accepted / elapsed;
    const tradesPerS = tradesSettledInWindow / elapsed;
    const p50 = pct(settleLatency, 50);
    const p99 = pct(settleLatency, 99);
    console.log(`signed orders accepted      ${accepted} in ${elapsed.toFixed(2)} s = ${ordersPerS.toFixed(0)} /s (rejected ${rejected}); ack p50 ${pct(acceptLatency, 50).toFixed(1)} ms p99 ${pct(acceptLatency, 99).toFixed(1)} ms`);
    console.log(`trades settled              ${tradesSettled} in ${batches} batches; ${tradesPerS.toFixed(0)} /s during the window`);
    console.log(`gas per trade               ${tradesSettled ? (gasTotal / BigInt(tradesSettled)).toString() : "n/a"} (settle gasUsed / trades, avg ${batches ? (Number(gasTotal) / batches).toFixed(0) : "n/a"} per batch)`);
    console.log(`acceptance -> on-chain      p50 ${p50.toFixed(0)} ms  p99 ${p99.toFixed(0)} ms  (${settleLatency.length} trades)`);
    console.log(`acceptance -> indexer       n/a: the indexer is not wired into this bench yet`);
    console.log(`health                      ${JSON.stringify(p.health())}`);
    console.log(`${ordersPerS >= TARGET_ORDERS_PER_S ? "PASS" : "FAIL"}  signed orders accepted/s >= ${TARGET_ORDERS_PER_S} (${ordersPerS.toFixed(0)})`);
    console.log(`${p99 < TARGET_P99_SETTLE_MS ? "PASS" : "FAIL"}  p99 acceptance->settlement < ${TARGET_P99_SETTLE_MS} ms (${p99.toFixed(0)} ms)`);
  } finally {
    await p.stop();
    await f.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
