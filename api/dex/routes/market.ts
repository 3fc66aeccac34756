// Public market data (order book, trades) and the signed-scheme ticker.
import { findMarket } from "../order-intent";
import { marketsResponse, presentMarkets, presentTime, timeResponse } from "../market-info";
import { presentBook, presentTrade } from "../present";
import { parseWith, requireAuth, type Route } from "../route-kit";
import {
  errorResponse,
  orderBookParams,
  orderBookQuery,
  orderBookResponse,
  symbolParam,
  tickerResponse,
  tradesQuery,
  tradesResponse,
} from "../schemas";
import { lotsToSizeText, ticksToPriceText } from "../units";
import { ApiError } from "../../errors";
import { z } from "zod";
import type { RouteContext } from "./context";

const tickerParams = z.object({ symbol: symbolParam }).strict();
const common = { 400: { description: "invalid request", schema: errorResponse }, 429: { description: "rate limited", schema: errorResponse } };

export function marketRoutes(c: RouteContext): Route[] {
  return [
    {
      spec: {
        method: "get",
        path: "/v1/markets",
        summary:
          "Every market: base and quote tokens (address, decimals), tick and lot sizes, minimum and maximum size, fees, the order types and time in force allowed (spec 3.2), and what a wallet signs: the chain id, the Settlement contract, its EIP-712 domain and Order type",
        auth: "public",
        responses: { 200: { description: "the markets", schema: marketsResponse }, 429: common[429] },
      },
      handlers: [c.limiters.public, (_req, res) => void res.json(presentMarkets(c.service))],
    },
    {
      spec: {
        method: "get",
        path: "/v1/time",
        summary: "Server time (Unix ms): the clock X-TIMESTAMP and X-Wallet-Timestamp are checked against",
        auth: "public",
        responses: { 200: { description: "server time", schema: timeResponse }, 429: common[429] },
      },
      handlers: [c.limiters.public, (_req, res) => void res.json(presentTime(c.now()))],
    },
    {
      spec: {
        method: "get",
        path: "/v1/orderbook/{symbol}",
        summary: "Order book depth (spec 4.B)",
        auth: "public",
        params: orderBookParams,
        query: orderBookQuery,
        responses: { 200: { description: "the book", schema: orderBookResponse }, ...common },
      },
      handlers: [
        c.limiters.public,
        async (req, res) => {
          const { symbol } = parseWith(orderBookParams, req.params, "params");
          const { depth } = parseWith(orderBookQuery, req.query, "query");
          const m = findMarket(c.service, symbol);
          const book = await c.service.getOrderBook(symbol, Math.min(depth ?? c.config.defaultBookDepth, c.config.maxBookDepth));
          if (!book) throw new ApiError("INVALID_SYMBOL", `trading pair ${symbol} is not supported`, { symbol });
          res.json(presentBook(m, book));
        },
      ],
    },
    {
      spec: {
        method: "get",
        path: "/v1/trades",
        summary: "Recent trades of a pair, newest first (spec 4.B)",
        auth: "public",
        query: tradesQuery,
        responses: { 200: { description: "trades", schema: tradesResponse }, ...common },
      },
      handlers: [
        c.limiters.public,
        async (req, res) => {
          const q = parseWith(tradesQuery, req.query, "query");
          const m = findMarket(c.service, q.symbol);
          const trades = await c.service.getRecentTrades(q.symbol, Math.min(q.limit ?? c.config.defaultTradesLimit, c.config.maxTradesLimit));
          res.json({ symbol: q.symbol, trades: trades.map((t) => presentTrade(m, t)) });
        },
      ],
    },
    {
      spec: {
        method: "get",
        path: "/v1/ticker/{symbol}",
        summary: "Ticker (spec 4.C, 2.16): signed scheme only (X-API-KEY, X-TIMESTAMP, X-SIGNATURE)",
        auth: "hmac_only",
        params: tickerParams,
        responses: {
          200: { description: "ticker", schema: tickerResponse },
          401: { description: "bad or missing signature", schema: errorResponse },
          ...common,
        },
      },
      handlers: [
        requireAuth(c, { hmac: true }, "read", "market"),
        async (req, res) => {
          const { symbol } = parseWith(tickerParams, req.params, "params");
          const m = findMarket(c.service, symbol);
          const [book, stats] = await Promise.all([c.service.getOrderBook(symbol, 1), c.service.getMarketStats(symbol)]);
          const bid = book?.bids[0];
          const ask = book?.asks[0];
          res.json({
            symbol,
            bid: bid ? ticksToPriceText(m, bid.priceTicks) : null,
            ask: ask ? ticksToPriceText(m, ask.priceTicks) : null,
            last: stats?.lastPriceTicks != null ? ticksToPriceText(m, stats.lastPriceTicks) : null,
            volume24h: lotsToSizeText(m, stats?.volume24hLots ?? 0n),
            timestamp: c.now(),
          });
        },
      ],
    },
  ];
}
