// Candle buckets are UTC-aligned and keyed by the BLOCK timestamp of the trade (not wall-clock time),
// so a replay or a second indexer builds identical candles.
export const CANDLE_INTERVALS = {
  "1m": 60_000n,
  "5m": 300_000n,
  "15m": 900_000n,
  "1h": 3_600_000n,
  "1d": 86_400_000n,
} as const;

export type CandleInterval = keyof typeof CANDLE_INTERVALS;

export const CANDLE_INTERVAL_NAMES = Object.keys(CANDLE_INTERVALS) as CandleInterval[];

/** Start (ms) of the bucket of `interval` holding the block timestamp `timestampS` (seconds). */
export function bucketStartMs(timestampS: bigint, interval: CandleInterval): bigint {
  const ms = timestampS * 1000n;
  const width = CANDLE_INTERVALS[interval];
  return ms - (ms % width);
}

export function candleId(pair: string, interval: CandleInterval, startMs: bigint): string {
  return `${pair}:${interval}:${startMs}`;
}

export interface CandleValues {
  open: bigint;
  high: bigint;
  low: bigint;
  close: bigint;
  baseVolume: bigint;
  quoteVolume: bigint;
  tradeCount: number;
}

/** A candle as the REST API answers it: its bucket start in ms (`time`), amounts as decimal strings. */
export function candleJsonOf(bucketStartMs: bigint, v: CandleValues) {
  return {
    time: Number(bucketStartMs),
    open: v.open.toString(),
    high: v.high.toString(),
    low: v.low.toString(),
    close: v.close.toString(),
    baseVolume: v.baseVolume.toString(),
    quoteVolume: v.quoteVolume.toString(),
    tradeCount: v.tradeCount,
  };
}

/** A candle of one trade. */
function tradeCandle(trade: { price: bigint; baseAmount: bigint; quoteAmount: bigint }): CandleValues {
  return {
    open: trade.price,
    high: trade.price,
    low: trade.price,
    close: trade.price,
    baseVolume: trade.baseAmount,
    quoteVolume: trade.quoteAmount,
    tradeCount: 1,
  };
}

/** A candle followed by a later one of the same bucket (a settle batch's, or one trade's): open stays,
 *  high/low widen, the later close wins, volumes and counts add. */
export function mergeCandle(earlier: CandleValues, later: CandleValues): CandleValues {
  return {
    open: earlier.open,
    high: later.high > earlier.high ? later.high : earlier.high,
    low: later.low < earlier.low ? later.low : earlier.low,
    close: later.close,
    baseVolume: earlier.baseVolume + later.baseVolume,
    quoteVolume: earlier.quoteVolume + later.quoteVolume,
    tradeCount: earlier.tradeCount + later.tradeCount,
  };
}

/** The candle after one more trade (trades arrive in chain order, so the last one is the close). */
export function applyTrade(
  current: CandleValues | undefined,
  trade: { price: bigint; baseAmount: bigint; quoteAmount: bigint },
): CandleValues {
  return current ? mergeCandle(current, tradeCandle(trade)) : tradeCandle(trade);
}
