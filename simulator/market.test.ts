// The simulated market's agents on the in-memory DEX service (the real matcher behind the DexService port):
// real signed orders, trades on every book, the same orders for the same seed, the rate bound, a clean stop.
import { test } from "node:test";
import assert from "node:assert/strict";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { recoverTypedDataAddress } from "viem";
import { createMemoryDexService, TEST_MARKETS } from "../api/testing/memory-dex-service";
import { ORDER_TYPES } from "../sdk/eip712";
import type { PlaceSignedOrderRequest } from "../pipeline/service";
import { priceToTicks, startSimulatedMarket } from "./market";
import { prng } from "../runtime/prng";

const keys = [generatePrivateKey(), generatePrivateKey(), generatePrivateKey()];
const BOOKS = [
  { symbol: "WETH-USD", referencePrice: "2000" },
  { symbol: "WBTC-USD", referencePrice: "60000" },
];

function setup() {
  const dex = createMemoryDexService();
  const traders = keys.map((k) => privateKeyToAccount(k));
  for (const t of traders)
    for (const m of TEST_MARKETS) {
      dex.credit(t.address, m.quoteToken, 10n ** 13n);
      dex.credit(t.address, m.baseToken, 10n ** BigInt(m.baseDecimals + 4));
    }
  return { dex, traders };
}

async function until(cond: () => boolean | Promise<boolean>, what: string) {
  for (let i = 0; !(await cond()); i++) {
    if (i > 6000) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const shape = (r: PlaceSignedOrderRequest) => `${r.symbol} ${r.side} ${r.timeInForce} ${r.priceTicks} ${r.sizeLots}`;

test("prng and priceToTicks: seeded and exact", () => {
  const a = prng(7);
  const b = prng(7);
  const xs = Array.from({ length: 5 }, () => a());
  assert.deepEqual(
    xs,
    Array.from({ length: 5 }, () => b()),
  );
  assert.notDeepEqual(xs, Array.from({ length: 5 }, prng(8)));
  assert.ok(xs.every((x) => x >= 0 && x < 1));
  // WETH-USD: tick 0.01 USD -> 2000 USD = 200,000 ticks; WBTC-USD: 60000 USD = 6,000,000 ticks
  assert.equal(priceToTicks(TEST_MARKETS[0], "2000"), 200_000n);
  assert.equal(priceToTicks(TEST_MARKETS[0], "1999.99"), 199_999n);
  assert.equal(priceToTicks(TEST_MARKETS[1], "60000"), 6_000_000n);
});

test("agents trade every book with wallet-signed orders, within the rate, and stop cleanly", async () => {
  const { dex, traders } = setup();
  const trades: string[] = [];
  dex.subscribe((e) => {
    if (e.kind === "trade") trades.push(e.trade.symbol);
  });
  const errors: unknown[] = [];
  const started = Date.now();
  const sim = startSimulatedMarket({
    dex,
    traders,
    books: BOOKS,
    seed: 42,
    ordersPerSecond: 200,
    warmUpTrades: 5,
    onError: (e) => errors.push(e),
  });
  await sim.ready;
  await until(() => BOOKS.every((b) => trades.filter((s) => s === b.symbol).length >= 8), "trades on every book");
  await until(async () => {
    const book = await dex.getOrderBook("WETH-USD");
    return book!.bids.length > 0 && book!.asks.length > 0;
  }, "a two-sided book");
  const elapsedS = (Date.now() - started) / 1000;
  const calls = dex.placeCalls.length;
  // the bucket: at most ordersPerSecond per second (plus the first second's tokens)
  assert.ok(calls <= 200 * (elapsedS + 1), `${calls} placements in ${elapsedS} s`);
  assert.deepEqual(errors, []);
  // every placement is an order its trader signed (the Settlement EIP-712 Order), on one of the books
  for (const r of dex.placeCalls.slice(0, 20) as PlaceSignedOrderRequest[]) {
    assert.equal(r.kind, "signed");
    const signer = await recoverTypedDataAddress({
      domain: dex.settlementDomain,
      types: ORDER_TYPES,
      primaryType: "Order",
      message: r.order,
      signature: r.signature,
    });
    assert.equal(signer, r.trader);
  }
  // the quote moved: more than one trade price
  const recent = await dex.getRecentTrades("WETH-USD", 50);
  assert.ok(new Set(recent.map((t) => t.priceTicks)).size > 1, "the price moved");

  await sim.stop();
  const after = dex.placeCalls.length;
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(dex.placeCalls.length, after, "nothing placed after stop");
  for (const t of traders) {
    const open = await dex.listOrders({ account: t.address, statuses: ["open", "partially_filled"], limit: 1000 });
    assert.deepEqual(open, [], "the agents' resting orders are cancelled on stop");
  }
});

test("the same seed gives the same orders; another seed other orders", async () => {
  async function firstOrders(seed: number): Promise<string[]> {
    const { dex, traders } = setup();
    const sim = startSimulatedMarket({ dex, traders, books: BOOKS, seed, ordersPerSecond: 500, warmUpTrades: 5 });
    await until(() => dex.placeCalls.length >= 60, "60 placements");
    await sim.stop();
    return (dex.placeCalls as PlaceSignedOrderRequest[]).slice(0, 60).map(shape);
  }
  const a = await firstOrders(1);
  const b = await firstOrders(1);
  const c = await firstOrders(2);
  assert.deepEqual(a, b);
  assert.notDeepEqual(a, c);
});

test("the rate bound holds at a low rate", async () => {
  const { dex, traders } = setup();
  const started = Date.now();
  const sim = startSimulatedMarket({ dex, traders, books: BOOKS, seed: 3, ordersPerSecond: 20, warmUpTrades: 2 });
  await until(() => dex.placeCalls.length >= 30, "30 placements");
  const elapsedS = (Date.now() - started) / 1000;
  await sim.stop();
  // 30 orders at 20/s take at least about 1 s (the first second's 20 tokens at most come at once)
  assert.ok(elapsedS >= 0.45, `30 placements in ${elapsedS} s`);
});

test("the agents leave the event loop to timers between placements (an in-memory service answers without I/O)", async () => {
  const { dex, traders } = setup();
  // a rate the bucket never runs short of: without a turn of the loop per placement, no timer would fire
  const sim = startSimulatedMarket({
    dex,
    traders,
    books: BOOKS,
    seed: 5,
    ordersPerSecond: 1_000_000,
    warmUpTrades: 50,
  });
  await sim.ready;
  await until(() => dex.placeCalls.length >= 5, "the agents placing");
  for (let i = 0; i < 20; i++) {
    const before = dex.placeCalls.length;
    await new Promise((r) => setTimeout(r, 0));
    const during = dex.placeCalls.length - before;
    assert.ok(during < 50, `${during} placements before one timer fired`);
  }
  await sim.stop();
});

test("a live trade on every book right after its ladder (2 x 4 levels), not after every book's ladder", async () => {
  const { dex, traders } = setup();
  const firstTrade = new Map<string, number>();
  dex.subscribe((e) => {
    if (e.kind === "trade" && !firstTrade.has(e.trade.symbol)) firstTrade.set(e.trade.symbol, dex.placeCalls.length);
  });
  const sim = startSimulatedMarket({ dex, traders, books: BOOKS, seed: 42, ordersPerSecond: 200 });
  await sim.ready;
  await until(() => firstTrade.size === BOOKS.length, "a trade on every book");
  await sim.stop();
  assert.deepEqual(
    BOOKS.map((b) => firstTrade.get(b.symbol)),
    BOOKS.map((_, i) => 9 * (i + 1)),
    "the placements when each book first traded",
  );
});
