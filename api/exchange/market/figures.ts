// Market figures from integers: quote (spec 2.4), chart candles (2.5), daily candles (2.3 marketData.perDay),
// the chart's range and interval table (spec 8). Prices stay the contract's integers (quote units per 1e18
// base units) and volumes base units until the very edge, where each becomes its exact decimal text and then
// the nearest JSON number; a percentage is rounded once, half away from zero, to 4 decimals. No float ever
// takes part in arithmetic. Pure functions: the router feeds them candles and the clock.
import type { MarketSpec } from "../../../pipeline/service";
import { formatDecimal } from "../../../sdk/decimal";
import { priceExponent } from "../../dex/units";
import type { Candle, CandleInterval } from "./candles";

export const DAY_MS = 86_400_000;

/** A contract price as the spec's number (USD per unit of the asset). */
export const priceNumber = (m: MarketSpec, contractPrice: bigint): number =>
  Number(formatDecimal(contractPrice, priceExponent(m)));
/** Base units as the spec's number (units of the asset). */
export const sizeNumber = (m: MarketSpec, baseUnits: bigint): number =>
  Number(formatDecimal(baseUnits, m.baseDecimals));

export const PERCENT_DECIMALS = 4;

/** 100 * part / whole, rounded half away from zero to PERCENT_DECIMALS decimals (whole > 0). */
export function percentNumber(part: bigint, whole: bigint): number {
  const scale = 10n ** BigInt(PERCENT_DECIMALS);
  const num = part * 100n * scale;
  const neg = num < 0n;
  const abs = neg ? -num : num;
  const q = (2n * abs + whole) / (2n * whole);
  return Number(formatDecimal(neg ? -q : q, PERCENT_DECIMALS));
}

export interface QuoteView {
  assetId: string;
  last: number;
  open: number;
  high: number;
  low: number;
  prevClose: number;
  change: number;
  changePercent: number;
  volume: number;
  /** "trades": from settled trades; "reference": never traded, every price is the offering's reference price */
  priceSource: "trades" | "reference";
  timestamp: string;
}

/**
 * The quote of the UTC day holding `nowMs`, from the newest daily candles (newest first):
 * - today's candle gives open, high, low, last (its close) and volume;
 * - prevClose is the close of the newest daily candle before today (on the first day of trading, today's
 *   open), and change and changePercent are against it;
 * - no trade today: open = high = low = last = that previous close, volume 0;
 * - never traded (or not tokenized): every price is the reference price (`referencePrice`, the catalogue's
 *   exact decimal), change 0, volume 0, priceSource "reference". Numbers on every field, never null.
 */
export function quoteOf(
  assetId: string,
  m: MarketSpec | null,
  newestDailies: readonly Candle[],
  nowMs: number,
  referencePrice: string,
): QuoteView {
  const todayStart = nowMs - (nowMs % DAY_MS);
  const today = newestDailies.find((c) => c.startMs === todayStart);
  const prev = newestDailies.find((c) => c.startMs < todayStart);
  const timestamp = new Date(nowMs).toISOString();
  if (!m || (!today && !prev)) {
    const p = Number(referencePrice);
    return {
      assetId,
      last: p,
      open: p,
      high: p,
      low: p,
      prevClose: p,
      change: 0,
      changePercent: 0,
      volume: 0,
      priceSource: "reference",
      timestamp,
    };
  }
  const last = today ? today.close : prev!.close;
  const open = today ? today.open : last;
  const high = today ? today.high : last;
  const low = today ? today.low : last;
  const reference = prev ? prev.close : open;
  const change = last - reference;
  return {
    assetId,
    last: priceNumber(m, last),
    open: priceNumber(m, open),
    high: priceNumber(m, high),
    low: priceNumber(m, low),
    prevClose: priceNumber(m, reference),
    change: priceNumber(m, change),
    changePercent: reference > 0n ? percentNumber(change, reference) : 0,
    volume: today ? sizeNumber(m, today.baseVolume) : 0,
    priceSource: "trades",
    timestamp,
  };
}

/** Spec 2.5: one chart point. */
export const chartCandle = (m: MarketSpec, c: Candle) => ({
  time: c.startMs,
  open: priceNumber(m, c.open),
  high: priceNumber(m, c.high),
  low: priceNumber(m, c.low),
  close: priceNumber(m, c.close),
  volume: sizeNumber(m, c.baseVolume),
});

/** Spec 2.3 marketData.perDay: one daily candle, its UTC day as an ISO timestamp. */
export const dailyCandle = (m: MarketSpec, c: Candle) => ({
  timestamp: new Date(c.startMs).toISOString(),
  open: priceNumber(m, c.open),
  high: priceNumber(m, c.high),
  low: priceNumber(m, c.low),
  close: priceNumber(m, c.close),
  volume: sizeNumber(m, c.baseVolume),
});

export const CHART_RANGE_IDS = ["1d", "5d", "1m", "3m", "6m", "1y", "5y"] as const;
export type ChartRange = (typeof CHART_RANGE_IDS)[number];

/** Spec 8's chart table: each range's window, its recommended intervals (the first is the default; every
 *  interval is served) and its approximate maximum points (the cap for every interval of the range: the
 *  latest candles are kept). */
export const CHART_RANGES: Readonly<
  Record<ChartRange, { days: number; intervals: readonly CandleInterval[]; maxPoints: number }>
> = {
  "1d": { days: 1, intervals: ["1m", "5m"], maxPoints: 390 },
  "5d": { days: 5, intervals: ["5m", "15m"], maxPoints: 390 },
  "1m": { days: 30, intervals: ["15m", "1h"], maxPoints: 480 },
  "3m": { days: 91, intervals: ["1h", "1d"], maxPoints: 540 },
  "6m": { days: 182, intervals: ["1h", "1d"], maxPoints: 126 },
  "1y": { days: 365, intervals: ["1d"], maxPoints: 252 },
  "5y": { days: 1826, intervals: ["1d"], maxPoints: 1260 },
};

/** The chart query for (range, interval) at `nowMs`: buckets starting in the range's window, the latest
 *  maxPoints of them. */
export function chartWindow(range: ChartRange, interval: CandleInterval, intervalMs: number, nowMs: number) {
  const r = CHART_RANGES[range];
  const from = nowMs - r.days * DAY_MS;
  return { interval, fromMs: from - (from % intervalMs), toMs: nowMs, limit: r.maxPoints };
}
