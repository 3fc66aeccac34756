// Public market data (order book, trades) and the signed-scheme ticker.
import { findMarket } from "../order-intent";
import { marketsResponse, presentMarkets, presentTime, timeResponse } from "../market-info";
import { presentBook, presentTrade } from "../present";
import type { Route } from "../route-kit";
import {
  orderBookParams,
  orderBookQuery,
  orderBookResponse,
  symbolParam,
  marketSummaryResponse,
  tickerResponse,
  tradesQuery,
  tradesResponse,
} from "../schemas";
import { lotsToSizeText, ticksToPriceText } from "../units";
import { ApiError } from "../../errors";
import { z } from "zod";
import { dexRoute, type RouteContext } from "./context";
import type { MarketSpec } from "../../../pipeline/service";

/** (last - open) / open in percent, 2 decimals, truncated toward zero: integers only. */
export function changePercentText(open: bigint, last: bigint): string {
  const bp = ((last - open) * 10_000n) / open;
  const abs = bp < 0n ? -bp : bp;
  return `${bp < 0n ? "-" : ""}${abs / 100n}.${(abs % 100n).toString().padStart(2, "0")}`;
}

async function summaryOf(c: RouteContext, m: MarketSpec) {
  const [book, stats] = await Promise.all([c.service.getOrderBook(m.symbol, 1), c.service.getMarketStats(m.symbol)]);
  const price = (t: bigint | null | undefined) => (t == null ? null : ticksToPriceText(m, t));
  const open = stats?.open24hPriceTicks ?? null;
  const last = stats?.lastPriceTicks ?? null;
  return {
    symbol: m.symbol,
    bid: price(book?.bids[0]?.priceTicks),
    ask: price(book?.asks[0]?.priceTicks),
    last: price(last),
    open24h: price(open),
    change24h: open != null && last != null && open > 0n ? changePercentText(open, last) : null,
    volume24h: lotsToSizeText(m, stats?.volume24hLots ?? 0n),
  };
}

const tickerParams = z.object({ symbol: symbolParam }).strict();
const common = { 400: "invalid request", 429: "rate limited" };

export function marketRoutes(c: RouteContext): Route[] {
  return [
    getMarketsRoute(c),
    getTimeRoute(c),
    getOrderbookSymbolRoute(c),
    getTradesRoute(c),
    getMarketSummaryRoute(c),
    getTickerSymbolRoute(c),
  ];
}

function getMarketsRoute(c: RouteContext): Route {
  const summary =
    "Every market: base and quote tokens (address, decimals), tick and lot sizes, minimum and maximum size, fees, the order types and time in force allowed (spec 3.2), and what a wallet signs: the chain id, the Settlement contract, its EIP-712 domain and Order type";
  const answers = { 200: ["the markets", marketsResponse], 429: common[429] } as const;
  return dexRoute(c, "get /v1/markets", { summary, auth: "public", answers }, () => presentMarkets(c.service));
}

function getTimeRoute(c: RouteContext): Route {
  const summary = "Server time (Unix ms): the clock X-TIMESTAMP and X-Wallet-Timestamp are checked against";
  const answers = { 200: ["server time", timeResponse], 429: common[429] } as const;
  return dexRoute(c, "get /v1/time", { summary, auth: "public", answers }, () => presentTime(c.now()));
}

function getOrderbookSymbolRoute(c: RouteContext): Route {
  const declared = {
    summary: "Order book depth (spec 4.B)",
    auth: "public",
    params: orderBookParams,
    query: orderBookQuery,
    answers: { 200: ["the book", orderBookResponse], ...common },
  } as const;
  return dexRoute(c, "get /v1/orderbook/{symbol}", declared, async ({ params: { symbol }, query: { depth } }) => {
    const m = findMarket(c.service, symbol);
    const book = await c.service.getOrderBook(
      symbol,
      Math.min(depth ?? c.config.defaultBookDepth, c.config.maxBookDepth),
    );
    if (!book) throw new ApiError("INVALID_SYMBOL", `trading pair ${symbol} is not supported`, { symbol });
    return presentBook(m, book);
  });
}

function getTradesRoute(c: RouteContext): Route {
  const summary = "Recent trades of a pair, newest first (spec 4.B)";
  const declared = {
    summary,
    auth: "public",
    query: tradesQuery,
    answers: { 200: ["trades", tradesResponse], ...common },
  } as const;
  return dexRoute(c, "get /v1/trades", declared, async ({ query: q }) => {
    const m = findMarket(c.service, q.symbol);
    const trades = await c.service.getRecentTrades(
      q.symbol,
      Math.min(q.limit ?? c.config.defaultTradesLimit, c.config.maxTradesLimit),
    );
    return { symbol: q.symbol, trades: trades.map((t) => presentTrade(m, t)) };
  });
}

function getMarketSummaryRoute(c: RouteContext): Route {
  const summary =
    "Every market's best bid and ask, last price, 24 h open, change (percent) and volume in one public answer, for pages and dashboards; the per-symbol ticker of spec 4.C stays on the signed scheme";
  const answers = { 200: ["every market's summary", marketSummaryResponse], 429: common[429] } as const;
  return dexRoute(c, "get /v1/market-summary", { summary, auth: "public", answers }, async () => {
    const markets = await Promise.all(c.service.listMarkets().map((m) => summaryOf(c, m)));
    return { markets, timestamp: c.now() };
  });
}

function getTickerSymbolRoute(c: RouteContext): Route {
  const summary = "Ticker (spec 4.C, 2.16): signed scheme only (X-API-KEY, X-TIMESTAMP, X-SIGNATURE)";
  const answers = { 200: ["ticker", tickerResponse], 401: "bad or missing signature", ...common } as const;
  const declared = { summary, auth: "hmac_only", access: ["read", "market"], params: tickerParams, answers } as const;
  return dexRoute(c, "get /v1/ticker/{symbol}", declared, async ({ params: { symbol } }) => {
    const m = findMarket(c.service, symbol);
    const [book, stats] = await Promise.all([c.service.getOrderBook(symbol, 1), c.service.getMarketStats(symbol)]);
    const bid = book?.bids[0];
    const ask = book?.asks[0];
    return {
      symbol,
      bid: bid ? ticksToPriceText(m, bid.priceTicks) : null,
      ask: ask ? ticksToPriceText(m, ask.priceTicks) : null,
      last: stats?.lastPriceTicks != null ? ticksToPriceText(m, stats.lastPriceTicks) : null,
      volume24h: lotsToSizeText(m, stats?.volume24hLots ?? 0n),
      timestamp: c.now(),
    };
  });
}
