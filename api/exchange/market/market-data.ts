// What the public market-data endpoints read: each asset's book and recent trades from the live pipeline
// (the DexService port: the matcher's book, trades as matched) and its candles from the indexer (settled
// trades, on chain). An asset is tradeable exactly when its `SYMBOL-USD` market runs in the pipeline.
import type { DexService, MarketSpec } from "../../../pipeline/service";
import { bookSymbolOf, type CatalogueAsset } from "../assets/catalogue";
import { ExchangeApiError } from "../errors";
import { INTERVAL_MS, type Candle, type CandleInterval, type CandleSource } from "./candles";
import { chartCandle, chartWindow, dailyCandle, priceNumber, quoteOf, sizeNumber, type ChartRange, type QuoteView } from "./figures";

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

export type MarketData = ReturnType<typeof createMarketData>;

export function createMarketData(deps: MarketDataDeps) {
  const now = deps.now ?? Date.now;

  function marketOf(asset: CatalogueAsset): MarketSpec | null {
    const symbol = bookSymbolOf(asset);
    if (!symbol || !deps.dex) return null;
    return deps.dex.listMarkets().find((m) => m.symbol === symbol) ?? null;
  }

  const candles = (m: MarketSpec, interval: CandleInterval, q: { fromMs?: number; toMs?: number; limit: number }): Promise<Candle[]> =>
    deps.candles.candles({ pair: m.symbol, interval, order: "desc", ...q }).then((newestFirst) => newestFirst.reverse());

  return {
    marketOf,
    tradeable: (asset: CatalogueAsset) => marketOf(asset) !== null,

    async quote(asset: CatalogueAsset): Promise<QuoteView> {
      const t = now();
      const m = marketOf(asset);
      if (!m) return quoteOf(asset.id, null, [], t);
      const newest = await deps.candles.candles({ pair: m.symbol, interval: "1d", order: "desc", limit: 2 });
      return quoteOf(asset.id, m, newest, t);
    },

    async perDay(asset: CatalogueAsset) {
      const m = marketOf(asset);
      if (!m) return [];
      return (await candles(m, "1d", { limit: PER_DAY_CANDLES })).map((c) => dailyCandle(m, c));
    },

    async chart(asset: CatalogueAsset, range: ChartRange, interval: CandleInterval) {
      const m = marketOf(asset);
      if (!m) return [];
      const w = chartWindow(range, interval, INTERVAL_MS[interval], now());
      return (await candles(m, interval, w)).map((c) => chartCandle(m, c));
    },

    async book(asset: CatalogueAsset, depth: number): Promise<BookView> {
      const m = marketOf(asset);
      const snapshot = m ? await deps.dex!.getOrderBook(m.symbol, depth) : null;
      if (!m || !snapshot) return { assetId: asset.id, bids: [], asks: [], timestamp: new Date(now()).toISOString() };
      const level = (l: { priceTicks: bigint; sizeLots: bigint }) => ({ price: priceNumber(m, l.priceTicks * m.tickSize), size: sizeNumber(m, l.sizeLots * m.lotSize) });
      return { assetId: asset.id, bids: snapshot.bids.map(level), asks: snapshot.asks.map(level), timestamp: new Date(snapshot.timestampMs).toISOString() };
    },

    async trades(asset: CatalogueAsset, limit: number): Promise<TradeView[]> {
      const m = marketOf(asset);
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
    },
  };
}

/** ASSET_NOT_FOUND (404) for an id the catalogue does not hold. */
export const assetNotFound = (id: string) => new ExchangeApiError("ASSET_NOT_FOUND", "asset not found", { assetId: id.slice(0, 64) });
