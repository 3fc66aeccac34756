// Quote, candles and the chart table from integers: the UTC day's figures, prevClose, change and percent
// (rounded once, half away from zero), exact decimals, and spec 8's (range, interval) pairs and caps.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import type { MarketSpec } from "../../../pipeline/service";
import { parseDecimal } from "../../../sdk/decimal";
import type { Candle } from "./candles";
import {
  CHART_RANGES,
  chartCandle,
  chartWindow,
  DAY_MS,
  percentNumber,
  priceNumber,
  quoteOf,
  sizeNumber,
} from "./figures";

const Z = "0x0000000000000000000000000000000000000000" as const;
// AAPL-USD: 18-decimal token, 6-decimal USD: contract price = USD * 1e6; tick 0.01 USD, lot 0.001
const m: MarketSpec = {
  symbol: "AAPL-USD",
  baseToken: Z,
  quoteToken: Z,
  baseDecimals: 18,
  quoteDecimals: 6,
  tickSize: 10_000n,
  lotSize: 10n ** 15n,
  minLots: 1n,
  maxLots: 10n ** 8n,
};
const usd = (s: string) => BigInt(Math.round(Number(s) * 100)) * 10_000n; // test input only: cents -> contract units
const day0 = Date.UTC(2025, 0, 10);
const candle = (startMs: number, o: string, h: string, l: string, c: string, volumeUnits: bigint): Candle => ({
  startMs,
  open: usd(o),
  high: usd(h),
  low: usd(l),
  close: usd(c),
  baseVolume: volumeUnits,
  tradeCount: 1,
});

test("quote: today's candle and the previous day's close", () => {
  const now = day0 + 5 * 3_600_000;
  const q = quoteOf(
    "AAPL",
    m,
    [
      candle(day0, "101", "105.5", "99.99", "104.25", 1_500n * 10n ** 15n),
      candle(day0 - 2 * DAY_MS, "90", "100", "90", "100", 1n),
    ],
    now,
    "190",
  );
  assert.deepEqual(q, {
    assetId: "AAPL",
    last: 104.25,
    open: 101,
    high: 105.5,
    low: 99.99,
    prevClose: 100,
    change: 4.25,
    changePercent: 4.25,
    volume: 1.5,
    priceSource: "trades",
    timestamp: new Date(now).toISOString(),
  });
});

test("quote: no trade today: flat at the last close, volume 0, change 0; first day: against the open; never traded: the reference price", () => {
  const now = day0 + 1;
  const prev = candle(day0 - DAY_MS, "10", "12", "9", "11", 5n);
  assert.deepEqual(
    { ...quoteOf("A", m, [prev], now, "5"), timestamp: "" },
    {
      assetId: "A",
      last: 11,
      open: 11,
      high: 11,
      low: 11,
      prevClose: 11,
      change: 0,
      changePercent: 0,
      volume: 0,
      priceSource: "trades",
      timestamp: "",
    },
  );
  const first = quoteOf("A", m, [candle(day0, "10", "12", "8", "8.5", 10n ** 18n)], now, "5");
  assert.equal(first.prevClose, 10, "the first day's prevClose is its open");
  assert.equal(first.change, -1.5);
  assert.equal(first.changePercent, -15);
  for (const q of [quoteOf("A", m, [], now, "99.5"), quoteOf("A", null, [prev], now, "99.5")]) {
    assert.deepEqual(
      [q.last, q.open, q.high, q.low, q.prevClose, q.change, q.changePercent, q.volume, q.priceSource],
      [99.5, 99.5, 99.5, 99.5, 99.5, 0, 0, 0, "reference"],
    );
  }
});

test("percent: rounded once, half away from zero, 4 decimals, equal to the exact rational's rounding", () => {
  assert.equal(percentNumber(1n, 3n), 33.3333);
  assert.equal(percentNumber(2n, 3n), 66.6667);
  assert.equal(percentNumber(-2n, 3n), -66.6667);
  assert.equal(percentNumber(1n, 8_000_000n), 0.0, "0.0000125 % rounds to 0");
  assert.equal(percentNumber(1n, 2_000_000n), 0.0001, "0.00005 % rounds half away from zero");
  assert.equal(percentNumber(-1n, 2_000_000n), -0.0001);
  fc.assert(
    fc.property(
      fc.bigInt({ min: 1n, max: 10n ** 18n }),
      fc.integer({ min: -100_000, max: 100_000 }),
      fc.bigInt({ min: 0n, max: 10n ** 18n }),
      (whole, k, r) => {
        const part = (BigInt(k) * whole) / 1000n + (r % whole); // anything from -100x to +100x the whole
        const got = percentNumber(part, whole);
        const q = parseDecimal(String(got), 4)!;
        // q / 1e4 is within half a unit of the 4th decimal of the exact 100 * part / whole
        const err = part * 1_000_000n - q * whole;
        assert.ok(2n * (err < 0n ? -err : err) <= whole, `${part}/${whole} -> ${got}`);
      },
    ),
  );
});

test("prices and sizes leave as the exact decimal's nearest double", () => {
  assert.equal(priceNumber(m, 123_456_789n), 123.456789);
  assert.equal(priceNumber(m, -5n), -0.000005);
  assert.equal(sizeNumber(m, 1n), 1e-18);
  assert.equal(sizeNumber(m, 10n ** 15n * 3n), 0.003);
  fc.assert(
    fc.property(fc.bigInt({ min: 0n, max: 10n ** 20n }), (units) => {
      assert.equal(
        priceNumber(m, units),
        Number(`${units / 1_000_000n}.${(units % 1_000_000n).toString().padStart(6, "0")}`),
      );
    }),
  );
  assert.deepEqual(chartCandle(m, candle(day0, "1", "2", "0.5", "1.5", 10n ** 18n)), {
    time: day0,
    open: 1,
    high: 2,
    low: 0.5,
    close: 1.5,
    volume: 1,
  });
});

test("chart table: spec 8's ranges, their recommended intervals and maximum points; windows", () => {
  assert.deepEqual(
    Object.entries(CHART_RANGES).map(([r, v]) => [r, v.intervals.join("/"), v.maxPoints]),
    [
      ["1d", "1m/5m", 390],
      ["5d", "5m/15m", 390],
      ["1m", "15m/1h", 480],
      ["3m", "1h/1d", 540],
      ["6m", "1h/1d", 126],
      ["1y", "1d", 252],
      ["5y", "1d", 1260],
    ],
  );
  const now = day0 + 12 * 3_600_000 + 123_456;
  const w = chartWindow("1d", "5m", 300_000, now);
  assert.equal(w.fromMs % 300_000, 0);
  assert.ok(w.fromMs <= now - DAY_MS && now - DAY_MS - w.fromMs < 300_000);
  assert.equal(w.toMs, now);
  assert.equal(w.limit, 390);
  assert.equal(chartWindow("5y", "1d", DAY_MS, now).fromMs % DAY_MS, 0);
});
