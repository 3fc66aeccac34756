// The simulated market's history replay (simulator/replay.ts): the past instants it trades at, and what it
// trades at each: a candle with a body and a wick per book.
import assert from "node:assert/strict";
import { test } from "node:test";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { createMemoryDexService, TEST_MARKETS } from "../api/testing/memory-dex-service";
import { candlePlan, nextInstant, replayHistory, replaySchedule } from "./replay";

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

/** An in-memory DEX and two funded traders. */
function fundedDex() {
  const dex = createMemoryDexService();
  const traders = [generatePrivateKey(), generatePrivateKey()].map((k) => privateKeyToAccount(k));
  for (const t of traders)
    for (const m of TEST_MARKETS) {
      dex.credit(t.address, m.quoteToken, 10n ** 13n);
      dex.credit(t.address, m.baseToken, 10n ** BigInt(m.baseDecimals + 4));
    }
  return { dex, traders };
}

const BOOKS = [
  { symbol: "WETH-USD", referencePrice: "2000" },
  { symbol: "WBTC-USD", referencePrice: "60000" },
];

/** 3 days of history (12 instants) on a funded in-memory DEX, the options given added. */
function replay3Days(o: Pick<Parameters<typeof replayHistory>[0], "setNextBlockTime" | "clock" | "deadlineMs">) {
  const { dex, traders } = fundedDex();
  const schedule = replaySchedule(NOW - 3 * DAY, NOW);
  return { dex, traders, schedule, run: () => replayHistory({ dex, traders, books: BOOKS, seed: 7, schedule, ...o }) };
}

test("replayHistory: at each instant every book trades open, wick, close (a candle with a body and a wick)", async () => {
  const trades: { symbol: string; price: bigint; instant: number }[] = [];
  let instant = -1;
  const { dex, traders, schedule, run } = replay3Days({ setNextBlockTime: async () => void (instant += 1) });
  dex.subscribe((e) => {
    if (e.kind === "trade") trades.push({ symbol: e.trade.symbol, price: e.trade.priceTicks, instant });
  });
  const result = await run();
  assert.deepEqual(
    { steps: result.steps, skipped: result.skipped, trades: result.trades, stopped: result.stopped },
    { steps: 12, skipped: 0, trades: 12 * 2 * 3, stopped: undefined },
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

test("nextInstant: the next one while what is left fits, else evenly thinned, none past the deadline", () => {
  assert.equal(nextInstant(0, 10, 1_000, undefined), 0, "nothing measured yet: the first");
  assert.equal(nextInstant(3, 10, 7_000, 1_000), 3, "7 left, 7 fit");
  assert.equal(nextInstant(3, 10, 6_999, 1_000), 4, "7 left, 6 fit: one skipped");
  assert.equal(nextInstant(0, 100, 25_000, 1_000), 3, "100 left, 25 fit: every 4th");
  assert.equal(nextInstant(8, 10, 1_000, 1_000), 9, "the last one when one fits");
  assert.equal(nextInstant(8, 10, 999, 1_000), undefined, "none fits");
  assert.equal(nextInstant(2, 10, 0, undefined), undefined, "past the deadline");
  assert.equal(nextInstant(10, 10, 5_000, 1_000), undefined, "the schedule done");
});

test("replayHistory with a deadline: the instants that fit, evenly over the schedule, each a full candle", async () => {
  // each instant costs 1 s on this clock; 6 s for the 12 instants
  let clock = 0;
  const traded: number[] = [];
  const { schedule, run } = replay3Days({
    clock: () => clock,
    deadlineMs: 6_000,
    setNextBlockTime: async (seconds) => {
      traded.push(schedule.indexOf(seconds * 1000));
      clock += 1_000;
    },
  });
  const result = await run();
  assert.deepEqual(traded, [0, 3, 5, 7, 9, 11], "the first, the last, and evenly between");
  assert.deepEqual(
    { steps: result.steps, skipped: result.skipped, trades: result.trades, stopped: result.stopped },
    { steps: 6, skipped: 6, trades: 6 * 2 * 3, stopped: undefined },
  );
});
