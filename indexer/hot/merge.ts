// Ponder's answer (rows of blocks up to its `through`, the highest block holding a trade in its snapshot)
// merged with the hot tail's trades above it: one chain order, no duplicate (the tail's rows above
// `through` are exactly the ones Ponder's snapshot lacks), no gap (the tail holds every trade above the
// blocks it trimmed, and it trims only what a snapshot already in hand has).
import { type CandleInterval, type CandleValues, candleJsonOf, mergeCandle } from "../lib/candles";
import type { CandlesQuery, TradesQuery } from "../lib/queries";
import type { candleJson } from "../src/api/json";
import { type HotTail, type TradeJson, tailCandles } from "./tail";

export type CandleJson = ReturnType<typeof candleJson>;

/** GET /trades: with fromBlock oldest first from it, else newest first; `limit` rows. */
export function mergeTrades(q: TradesQuery, ponder: readonly TradeJson[], through: number, tail: HotTail): TradeJson[] {
  const fromBlock = q.fromBlock === undefined ? undefined : Number(q.fromBlock);
  if (fromBlock !== undefined) {
    // Ponder's rows are the oldest; the tail's come after them
    const rest = q.limit - ponder.length;
    const more = rest > 0 ? tail.select({ above: through, pair: q.pair, fromBlock, order: "asc", limit: rest }) : [];
    return [...ponder, ...more.map((t) => t.json)];
  }
  // the tail's rows are the newest; Ponder's follow
  const newest = tail.select({ above: through, pair: q.pair, order: "desc", limit: q.limit }).map((t) => t.json);
  return [...newest, ...ponder.slice(0, q.limit - newest.length)];
}

const candleValues = (c: CandleJson): CandleValues => ({
  open: BigInt(c.open),
  high: BigInt(c.high),
  low: BigInt(c.low),
  close: BigInt(c.close),
  baseVolume: BigInt(c.baseVolume),
  quoteVolume: BigInt(c.quoteVolume),
  tradeCount: c.tradeCount,
});

const toJson: (time: bigint, v: CandleValues) => CandleJson = candleJsonOf;

/**
 * GET /candles: Ponder's stored buckets, each followed by the tail's trades of the same bucket (the tail's
 * blocks are later, so its trades come after the stored ones: mergeCandle's order), plus the tail's new
 * buckets. Block timestamps never decrease, so the tail's buckets are at or after Ponder's last one: the
 * oldest (or newest) `limit` of the union are among Ponder's `limit` and the tail's.
 */
export function mergeCandles(
  q: CandlesQuery,
  ponder: readonly CandleJson[],
  through: number,
  tail: HotTail,
): CandleJson[] {
  const trades = tail.select({ above: through, pair: q.pair, order: "asc", limit: Number.MAX_SAFE_INTEGER });
  if (trades.length === 0) return [...ponder];
  const hot = tailCandles(trades, q.interval as CandleInterval);
  const byTime = new Map<bigint, CandleJson>();
  for (const c of ponder) byTime.set(BigInt(c.time), c);
  for (const [time, values] of hot) {
    if ((q.from !== undefined && time < q.from) || (q.to !== undefined && time > q.to)) continue;
    const stored = byTime.get(time);
    byTime.set(time, toJson(time, stored ? mergeCandle(candleValues(stored), values) : values));
  }
  const sorted = [...byTime.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, c]) => c);
  if (q.order === "desc") sorted.reverse();
  return sorted.slice(0, q.limit);
}
