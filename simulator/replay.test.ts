// The simulated market's history replay (simulator/replay.ts): the past instants it trades at, and what it
// trades at each: a candle with a body and a wick per book.
import assert from "node:assert/strict";
import { test } from "node:test";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { createMemoryDexService, TEST_MARKETS } from "../api/testing/memory-dex-service";
import { candlePlan, replayHistory, replaySchedule } from "./replay";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = Date.UTC(2026, 10, 24, 6, 30);

test("replaySchedule: oldest first, on whole hours, after `from`, the last hour left to the live market", () => {
  const s = replaySchedule(NOW - 400 * DAY, NOW);
  assert.ok(s.length > 0);
  for (const [i, t] of s.entries()) {
    assert.equal(t % HOUR, 0, "a whole UTC hour");
    if (i > 0) assert.ok(t > s[i - 1]!, "strictly ascending");
  }
  assert.ok(s[0]! > NOW - 400 * DAY && s[0]! <= NOW - 400 * DAY + HOUR);
  assert.ok(s[s.length - 1]! <= NOW - HOUR);
  assert.ok(s[s.length - 1]! > NOW - 7 * HOUR, "the replay reaches the last hours (6-hour steps)");
});

test("replaySchedule: weekly beyond 91 days, every 2 days beyond 30, daily beyond 5 days, every 6 hours after", () => {
  const s = replaySchedule(NOW - 400 * DAY, NOW);
  const gapAfter = (ageDays: number) => {
    const i = s.findIndex((t) => t >= NOW - ageDays * DAY);
    return (s[i + 1]! - s[i]!) / HOUR;
  };
  assert.equal(gapAfter(300), 7 * 24);
  assert.equal(gapAfter(60), 48);
  assert.equal(gapAfter(20), 24);
  assert.equal(gapAfter(3), 6);
  // every chart range has points: 1y and 6m (weekly), 3m (2 days), 1m (daily), 5d (6 h)
  const within = (days: number) => s.filter((t) => t >= NOW - days * DAY).length;
  assert.ok(within(365) >= 110, `${within(365)} instants in a year`);
  assert.ok(within(91) - within(30) >= 28, "every 2 days from 91 to 30 days (the first after the last weekly one)");
  assert.ok(within(5) >= 19);
  assert.equal(s.length, 117);
});

test("replaySchedule: nothing to replay from a chain already at the present (a restart), or from the future", () => {
  assert.deepEqual(replaySchedule(NOW - 30 * 60_000, NOW), []);
  assert.deepEqual(replaySchedule(NOW + DAY, NOW), []);
  assert.equal(replaySchedule(NOW - 3 * DAY, NOW).length, 12);
});

test("candlePlan: a body and a wick beyond the open, prices at least 1 tick", () => {
  assert.deepEqual(candlePlan(100n, 105n, 5n), { open: 100n, wick: 95n, close: 105n, makerSide: "buy" });
  assert.deepEqual(candlePlan(100n, 95n, 5n), { open: 100n, wick: 105n, close: 95n, makerSide: "sell" });
  // unchanged: it still moves a step, with its wick
  assert.deepEqual(candlePlan(100n, 100n, 5n), { open: 100n, wick: 105n, close: 95n, makerSide: "sell" });
  for (const [o, c, st] of [
    [1n, 1n, 1n],
    [1n, 2n, 1n],
    [2n, 2n, 5n],
    [3n, 9n, 3n],
  ] as const) {
    const p = candlePlan(o, c, st);
    assert.ok(
      p.wick >= 1n && p.close >= 1n && p.open >= 1n,
      `${o} ${c} ${st}: ${JSON.stringify(p, (_, v) => String(v))}`,
    );
    assert.notEqual(p.open, p.close, "a body");
    const [lo, hi] = p.open < p.close ? [p.open, p.close] : [p.close, p.open];
    assert.ok(p.wick < lo || p.wick > hi, "a wick beyond the body");
  }
});

test("replayHistory: at each instant every book trades open, wick, close (a candle with a body and a wick)", async () => {
  const dex = createMemoryDexService();
  const traders = [generatePrivateKey(), generatePrivateKey()].map((k) => privateKeyToAccount(k));
  for (const t of traders)
    for (const m of TEST_MARKETS) {
      dex.credit(t.address, m.quoteToken, 10n ** 13n);
      dex.credit(t.address, m.baseToken, 10n ** BigInt(m.baseDecimals + 4));
    }
  const trades: { symbol: string; price: bigint; instant: number }[] = [];
  let instant = -1;
  dex.subscribe((e) => {
    if (e.kind === "trade") trades.push({ symbol: e.trade.symbol, price: e.trade.priceTicks, instant });
  });
  const schedule = replaySchedule(NOW - 3 * DAY, NOW);
  const result = await replayHistory({
    dex,
    traders,
    books: [
      { symbol: "WETH-USD", referencePrice: "2000" },
      { symbol: "WBTC-USD", referencePrice: "60000" },
    ],
    seed: 7,
    schedule,
    setNextBlockTime: async () => void (instant += 1),
  });
  assert.deepEqual(
    { steps: result.steps, trades: result.trades, stopped: result.stopped },
    {
      steps: 12,
      trades: 12 * 2 * 3,
      stopped: undefined,
    },
  );
  for (let k = 0; k < schedule.length; k++)
    for (const symbol of ["WETH-USD", "WBTC-USD"]) {
      const prices = trades.filter((t) => t.instant === k && t.symbol === symbol).map((t) => t.price);
      assert.equal(prices.length, 3, `${symbol} at instant ${k}`);
      const [open, wick, close] = prices as [bigint, bigint, bigint];
      assert.notEqual(open, close, "a body");
      assert.ok(close > open ? wick < open : wick > open, `${symbol} at ${k}: the wick beyond the open: ${prices}`);
    }
  // nothing of the replay rests on the books afterwards
  for (const t of traders)
    assert.deepEqual(await dex.listOrders({ account: t.address, statuses: ["open"], limit: 10 }), []);
});
