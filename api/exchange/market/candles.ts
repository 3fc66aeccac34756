// Candles of settled trades, read from the indexer (the read model of the chain: indexer/src/api, GET
// /candles). Buckets are UTC-aligned and keyed by the trades' block time; only buckets with trades exist.
// A candle counts a trade once its settle batch is mined and indexed (the lag is the batcher's wait, a block
// and the indexer's polling: docs/decisions/api.md). Every reply is validated; an indexer that is down or
// answers nonsense gives the last good answer to the same query shape, marked stale, or SERVICE_UNAVAILABLE
// when there is none (never a 500). Identical reads within `cacheMs` share one fetch.
import { z } from "zod";
import { ExchangeApiError } from "../errors";

export const CANDLE_INTERVALS = ["1m", "5m", "15m", "1h", "1d"] as const;
export type CandleInterval = (typeof CANDLE_INTERVALS)[number];
export const INTERVAL_MS: Readonly<Record<CandleInterval, number>> = {
  "1m": 60_000,
  "5m": 300_000,
  "15m": 900_000,
  "1h": 3_600_000,
  "1d": 86_400_000,
};

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

/** Candles, and when the indexer did not answer, the last answer it gave to the same query shape. */
export interface CandleReply {
  candles: Candle[];
  /** set on a stale reply: when the indexer gave these candles (ms) */
  staleAsOfMs?: number;
}

/** Whether candle reads reach the indexer now (the exchange API's health, /health). */
export interface MarketDataStatus {
  live: boolean;
  /** not live: why (indexer_unreachable, indexer_status_<n>, indexer_reply_invalid) and since when (ms) */
  reason?: string;
  sinceMs?: number;
}

export interface CandleSource {
  candles(q: CandleQuery): Promise<CandleReply>;
  /** the last reads' outcome; while failing, one read is tried again first (so an idle API recovers) */
  status?(): Promise<MarketDataStatus>;
}

const units = z
  .string()
  .regex(/^\d{1,78}$/)
  .transform(BigInt);
const replySchema = z.object({
  candles: z.array(
    z.object({
      time: z.number().int().nonnegative(),
      open: units,
      high: units,
      low: units,
      close: units,
      baseVolume: units,
      tradeCount: z.number().int().nonnegative(),
    }),
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
  return new IndexerCandleSource(deps);
}

const unavailable = (reason: string, cause?: unknown) =>
  new ExchangeApiError("SERVICE_UNAVAILABLE", "market data is unavailable: try again shortly", { reason }, { cause });

function candlesUrl(base: string, q: CandleQuery): string {
  const params = new URLSearchParams({ pair: q.pair, interval: q.interval, limit: String(q.limit), order: q.order });
  if (q.fromMs !== undefined) params.set("from", String(q.fromMs));
  if (q.toMs !== undefined) params.set("to", String(q.toMs));
  return `${base}/candles?${params}`;
}

/** One GET of the indexer's candles; every failure is SERVICE_UNAVAILABLE with its reason. */
async function fetchCandles(url: string, timeoutMs: number): Promise<Candle[]> {
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    throw unavailable("indexer_unreachable", err);
  }
  if (res.status !== 200) throw unavailable(`indexer_status_${res.status}`);
  const parsed = replySchema.safeParse(await res.json().catch(() => null));
  if (!parsed.success) throw unavailable("indexer_reply_invalid", parsed.error);
  return parsed.data.candles.map((c) => ({
    startMs: c.time,
    open: c.open,
    high: c.high,
    low: c.low,
    close: c.close,
    baseVolume: c.baseVolume,
    tradeCount: c.tradeCount,
  }));
}

class IndexerCandleSource implements CandleSource {
  private readonly timeoutMs: number;
  private readonly cacheMs: number;
  private readonly now: () => number;
  private readonly cache = new Map<string, { at: number; reply: Promise<Candle[]> }>();
  // the last good answer per query shape (pair, interval, order, limit; the window moves with the clock):
  // what a read answers, marked stale, while the indexer does not
  private readonly lastGood = new Map<string, { at: number; candles: Candle[] }>();
  private failing: { reason: string; sinceMs: number; url: string } | null = null;

  constructor(private readonly deps: IndexerCandleSourceDeps) {
    this.timeoutMs = deps.timeoutMs ?? 5_000;
    this.cacheMs = deps.cacheMs ?? 1_000;
    this.now = deps.now ?? Date.now;
  }

  async candles(q: CandleQuery): Promise<CandleReply> {
    const { lastGood } = this;
    const shape = `${q.pair}|${q.interval}|${q.order}|${q.limit}`;
    const base = this.deps.indexerUrl();
    try {
      if (!base) throw unavailable("indexer_not_running");
      const candles = await this.read(candlesUrl(base, q));
      lastGood.delete(shape);
      if (lastGood.size >= MAX_CACHED) lastGood.delete(lastGood.keys().next().value!);
      lastGood.set(shape, { at: this.now(), candles });
      return { candles: candles.slice() };
    } catch (err) {
      const good = lastGood.get(shape);
      if (!good || !(err instanceof ExchangeApiError)) throw err;
      return { candles: good.candles.slice(), staleAsOfMs: good.at };
    }
  }

  async status(): Promise<MarketDataStatus> {
    if (this.failing) await this.read(this.failing.url).catch(() => undefined);
    const { failing } = this;
    return failing ? { live: false, reason: failing.reason, sinceMs: failing.sinceMs } : { live: true };
  }

  /** A cached reply younger than `cacheMs`, or a new fetch (which clears or sets the failing mark). */
  private read(url: string): Promise<Candle[]> {
    const { cache, cacheMs } = this;
    const t = this.now();
    const hit = cache.get(url);
    if (hit && t - hit.at < cacheMs) return hit.reply;
    const reply = fetchCandles(url, this.timeoutMs).then(
      (candles) => {
        this.failing = null;
        return candles;
      },
      (err: unknown) => {
        if (err instanceof ExchangeApiError)
          this.failing ??= { reason: String(err.details.reason), sinceMs: this.now(), url };
        throw err;
      },
    );
    // a failure is not kept: the next request asks again
    reply.catch(() => cache.delete(url));
    if (cache.size >= MAX_CACHED) for (const [k, v] of cache) if (t - v.at >= cacheMs) cache.delete(k);
    if (cache.size < MAX_CACHED) cache.set(url, { at: t, reply });
    return reply;
  }
}
