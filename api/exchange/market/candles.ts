// Candles of settled trades, read from the indexer (the read model of the chain: indexer/src/api, GET
// /candles). Buckets are UTC-aligned and keyed by the trades' block time; only buckets with trades exist.
// A candle counts a trade once its settle batch is mined and indexed (the lag is the batcher's wait, a block
// and the indexer's polling: docs/decisions/api.md). Every reply is validated; an indexer that is down or
// answers nonsense is SERVICE_UNAVAILABLE, never a 500. Identical reads within `cacheMs` share one fetch.
import { z } from "zod";
import { ExchangeApiError } from "../errors";

export const CANDLE_INTERVALS = ["1m", "5m", "15m", "1h", "1d"] as const;
export type CandleInterval = (typeof CANDLE_INTERVALS)[number];
export const INTERVAL_MS: Readonly<Record<CandleInterval, number>> = { "1m": 60_000, "5m": 300_000, "15m": 900_000, "1h": 3_600_000, "1d": 86_400_000 };

/** Integers as the chain has them: prices in the contract's units, volumes in base units. */
export interface Candle {
  startMs: number;
  open: bigint;
  high: bigint;
  low: bigint;
  close: bigint;
  baseVolume: bigint;
  tradeCount: number;
}

export interface CandleQuery {
  pair: string;
  interval: CandleInterval;
  /** bucket start bounds, inclusive (ms) */
  fromMs?: number;
  toMs?: number;
  limit: number;
  /** asc: oldest first; desc: newest first (the latest `limit` buckets) */
  order: "asc" | "desc";
}

export interface CandleSource {
  candles(q: CandleQuery): Promise<Candle[]>;
}

const units = z.string().regex(/^\d{1,78}$/).transform(BigInt);
const replySchema = z.object({
  candles: z.array(
    z.object({ time: z.number().int().nonnegative(), open: units, high: units, low: units, close: units, baseVolume: units, tradeCount: z.number().int().nonnegative() }),
  ),
});

export interface IndexerCandleSourceDeps {
  /** the indexer's base URL now (it may start after the API); undefined: no indexer runs */
  indexerUrl: () => string | undefined;
  timeoutMs?: number;
  cacheMs?: number;
  now?: () => number;
}

const MAX_CACHED = 2_000;

export function createIndexerCandleSource(deps: IndexerCandleSourceDeps): CandleSource {
  const timeoutMs = deps.timeoutMs ?? 5_000;
  const cacheMs = deps.cacheMs ?? 1_000;
  const now = deps.now ?? Date.now;
  const cache = new Map<string, { at: number; reply: Promise<Candle[]> }>();
  const unavailable = (reason: string, cause?: unknown) =>
    new ExchangeApiError("SERVICE_UNAVAILABLE", "market data is unavailable: try again shortly", { reason }, { cause });

  async function fetchCandles(url: string): Promise<Candle[]> {
    let res: Response;
    try {
      res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    } catch (err) {
      throw unavailable("indexer_unreachable", err);
    }
    if (res.status !== 200) throw unavailable(`indexer_status_${res.status}`);
    const parsed = replySchema.safeParse(await res.json().catch(() => null));
    if (!parsed.success) throw unavailable("indexer_reply_invalid", parsed.error);
    return parsed.data.candles.map((c) => ({ startMs: c.time, open: c.open, high: c.high, low: c.low, close: c.close, baseVolume: c.baseVolume, tradeCount: c.tradeCount }));
  }

  return {
    candles(q) {
      const base = deps.indexerUrl();
      if (!base) return Promise.reject(unavailable("indexer_not_running"));
      const params = new URLSearchParams({ pair: q.pair, interval: q.interval, limit: String(q.limit), order: q.order });
      if (q.fromMs !== undefined) params.set("from", String(q.fromMs));
      if (q.toMs !== undefined) params.set("to", String(q.toMs));
      const url = `${base}/candles?${params}`;
      const t = now();
      const hit = cache.get(url);
      if (hit && t - hit.at < cacheMs) return hit.reply;
      const reply = fetchCandles(url);
      // a failure is not kept: the next request asks again
      reply.catch(() => cache.delete(url));
      if (cache.size >= MAX_CACHED) for (const [k, v] of cache) if (t - v.at >= cacheMs) cache.delete(k);
      if (cache.size < MAX_CACHED) cache.set(url, { at: t, reply });
      return reply;
    },
  };
}
