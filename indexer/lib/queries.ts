// The REST reads' query parameters (zod), shared by Ponder's API (src/api/index.ts) and the hot front
// (hot/server.ts), so both validate alike and refuse alike.
import { z } from "zod";
import { CANDLE_INTERVAL_NAMES } from "./candles";

export const tradesQuery = z.object({
  pair: z.string().min(1).max(100).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  /** only trades of this block or later, oldest first (a client following new trades) */
  fromBlock: z.coerce.bigint().min(0n).optional(),
});
export type TradesQuery = z.infer<typeof tradesQuery>;

export const candlesQuery = z.object({
  pair: z.string().min(1).max(100),
  interval: z.enum(CANDLE_INTERVAL_NAMES as [string, ...string[]]),
  /** bucket start, Unix ms, inclusive */
  from: z.coerce.bigint().optional(),
  to: z.coerce.bigint().optional(),
  limit: z.coerce.number().int().min(1).max(5000).default(1000),
  /** asc (default): the oldest `limit` buckets of the bounds; desc: the newest first */
  order: z.enum(["asc", "desc"]).default("asc"),
});
export type CandlesQuery = z.infer<typeof candlesQuery>;

export function errorBody(code: string, message: string, details: Record<string, unknown>) {
  return { error: { code, message, details } };
}

/** The 400 body of a refused query: path and message only (an issue can carry bigints JSON cannot hold). */
export function invalidQueryBody(error: z.ZodError) {
  const issues = error.issues.map((i) => ({ path: i.path.map(String), message: i.message }));
  return errorBody("INVALID_REQUEST", "invalid query parameters", { issues });
}

/**
 * Response header of Ponder's GET /trades and GET /candles: the highest block holding a trade in the same
 * database snapshot as the rows (-1: none). Every trade of a higher block is one Ponder had not indexed
 * when it answered; the hot front adds those from its tail (hot/README in indexer/README.md).
 */
export const TRADES_THROUGH_HEADER = "x-trades-through-block";
