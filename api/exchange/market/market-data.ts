// What the public market-data endpoints read: each asset's book and recent trades from the live pipeline
// (the DexService port: the matcher's book, trades as matched) and its candles from the indexer (settled
// trades, on chain). An asset is tradeable exactly when its `SYMBOL-USD` market runs in the pipeline.
// While the indexer does not answer, candle reads give the last known candles and mark the request stale.
import type { DexService, MarketSpec } from "../../../pipeline/service";
import { bookSymbolOf, type CatalogueAsset } from "../assets/catalogue";
import { ExchangeApiError } from "../errors";
import { INTERVAL_MS, type Candle, type CandleInterval, type CandleQuery, type CandleSource } from "./candles";
import {
  chartCandle,
  chartWindow,
  dailyCandle,
  priceNumber,
  quoteOf,
  sizeNumber,
  type ChartRange,
  type QuoteView,
} from "./figures";

/** Daily candles in an asset's detail (marketData.perDay): the latest 30 UTC days with trades. */
export const PER_DAY_CANDLES = 30;

export interface MarketDataDeps {
  /** the pipeline's port; undefined when the stack runs without the pipeline (nothing is tradeable) */
  dex: DexService | undefined;
  candles: CandleSource;
  now?: () => number;
}

export interface BookView {
  assetId: string;
  bids: { price: number; size: number }[];
  asks: { price: number; size: number }[];
  timestamp: string;
}

export interface TradeView {
  tradeId: string;
  assetId: string;
  price: number;
  size: number;
  side: "buy" | "sell";
  timestamp: string;
}

/** Filled by the reads of one request: set when any candles came from the stale cache (the oldest's time). */
export interface StaleMark {
  staleAsOfMs?: number;
}

/** The header a market-data answer carries when its figures are the last known ones (the indexer is not
 *  answering): the time the indexer gave them, ISO 8601. */
export const STALE_HEADER = "X-Market-Data-Stale";

export type MarketData = ReturnType<typeof createMarketData>;

export function createMarketData(deps: MarketDataDeps) {
  const now = deps.now ?? Date.now;

  function marketOf(asset: CatalogueAsset): MarketSpec | null {
    const symbol = bookSymbolOf(asset);
    if (!symbol || !deps.dex) return null;
    return deps.dex.listMarkets().find((m) => m.symbol === symbol) ?? null;
  }

  const read = async (mark: StaleMark, q: CandleQuery): Promise<Candle[]> => {
    const r = await deps.candles.candles(q);
    if (r.staleAsOfMs !== undefined) mark.staleAsOfMs = Math.min(mark.staleAsOfMs ?? Infinity, r.staleAsOfMs);
    return r.candles;
  };
  const candles = (
    mark: StaleMark,
    m: MarketSpec,
    interval: CandleInterval,
    q: { fromMs?: number; toMs?: number; limit: number },
  ): Promise<Candle[]> =>
    read(mark, { pair: m.symbol, interval, order: "desc", ...q }).then((newestFirst) => newestFirst.reverse());

  return {
    marketOf,
    tradeable: (asset: CatalogueAsset) => marketOf(asset) !== null,

    async quote(asset: CatalogueAsset, mark: StaleMark = {}): Promise<QuoteView> {
      const t = now();
      const m = marketOf(asset);
      if (!m) return quoteOf(asset.id, null, [], t, asset.referencePrice);
      const newest = await read(mark, { pair: m.symbol, interval: "1d", order: "desc", limit: 2 });
      return quoteOf(asset.id, m, newest, t, asset.referencePrice);
    },

    /** The quote of an asset without known trades: every price its reference price. */
    referenceQuote: (asset: CatalogueAsset): QuoteView => quoteOf(asset.id, null, [], now(), asset.referencePrice),

    async perDay(asset: CatalogueAsset, mark: StaleMark = {}) {
      const m = marketOf(asset);
      if (!m) return [];
      return (await candles(mark, m, "1d", { limit: PER_DAY_CANDLES })).map((c) => dailyCandle(m, c));
    },

    async chart(asset: CatalogueAsset, range: ChartRange, interval: CandleInterval, mark: StaleMark = {}) {
      const m = marketOf(asset);
      if (!m) return [];
      const w = chartWindow(range, interval, INTERVAL_MS[interval], now());
      return (await candles(mark, m, interval, w)).map((c) => chartCandle(m, c));
    },

    book: (asset: CatalogueAsset, depth: number): Promise<BookView> => bookOf(deps, marketOf(asset), asset, depth),
    trades: (asset: CatalogueAsset, limit: number): Promise<TradeView[]> =>
      tradesOf(deps, marketOf(asset), asset, limit),
  };
}

/** The live book of an asset's market from the pipeline, levels in prices and sizes of the asset. */
async function bookOf(
  deps: MarketDataDeps,
  m: MarketSpec | null,
  asset: CatalogueAsset,
  depth: number,
): Promise<BookView> {
  const snapshot = m ? await deps.dex!.getOrderBook(m.symbol, depth) : null;
  if (!m || !snapshot)
    return { assetId: asset.id, bids: [], asks: [], timestamp: new Date((deps.now ?? Date.now)()).toISOString() };
  const level = (l: { priceTicks: bigint; sizeLots: bigint }) => ({
    price: priceNumber(m, l.priceTicks * m.tickSize),
    size: sizeNumber(m, l.sizeLots * m.lotSize),
  });
  return {
    assetId: asset.id,
    bids: snapshot.bids.map(level),
    asks: snapshot.asks.map(level),
    timestamp: new Date(snapshot.timestampMs).toISOString(),
  };
}

/** The market's recent trades as matched by the pipeline, newest first. */
async function tradesOf(
  deps: MarketDataDeps,
  m: MarketSpec | null,
  asset: CatalogueAsset,
  limit: number,
): Promise<TradeView[]> {
  if (!m) return [];
  const trades = await deps.dex!.getRecentTrades(m.symbol, limit);
  return trades.map((t) => ({
    tradeId: t.tradeId,
    assetId: asset.id,
    price: priceNumber(m, t.priceTicks * m.tickSize),
    size: sizeNumber(m, t.sizeLots * m.lotSize),
    side: t.takerSide,
    timestamp: new Date(t.timestampMs).toISOString(),
  }));
}

/** The catalogue answers without the indexer: a read that finds it unavailable with nothing known (this
 *  process never had an answer) gives `fallback()` instead, and the request is marked stale now. */
export async function orWhenUnavailable<T>(read: Promise<T>, mark: StaleMark, fallback: () => T): Promise<T> {
  try {
    return await read;
  } catch (err) {
    if (!(err instanceof ExchangeApiError) || err.code !== "SERVICE_UNAVAILABLE") throw err;
    const t = Date.now();
    mark.staleAsOfMs = Math.min(mark.staleAsOfMs ?? t, t);
    return fallback();
  }
}

/** Sets STALE_HEADER on an answer whose candles (some of them) were the last known ones. */
export function markStale(res: { setHeader(name: string, value: string): unknown }, mark: StaleMark): void {
  if (mark.staleAsOfMs !== undefined) res.setHeader(STALE_HEADER, new Date(mark.staleAsOfMs).toISOString());
}

/** ASSET_NOT_FOUND (404) for an id the catalogue does not hold. */
export const assetNotFound = (id: string) =>
  new ExchangeApiError("ASSET_NOT_FOUND", "asset not found", { assetId: id.slice(0, 64) });
