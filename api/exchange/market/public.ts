// The exchange API's public surface (no tokens, as on every major venue): the asset catalogue and market
// data, under spec 8's public tier (100 requests per minute per client IP, X-RateLimit-* headers on every
// answer, 429 RATE_LIMIT_EXCEEDED). The app mounts it at /v1 before its authenticated routers; the limit
// counts these paths only.
import { Router } from "express";
import type { DexService } from "../../../pipeline/service";
import { clientIp, createLimiter } from "../../dex/rate-limits";
import { CATALOGUE, type CatalogueAsset } from "../assets/catalogue";
import { createAssetsRouter } from "../assets/router";
import type { CandleSource } from "./candles";
import { createMarketData } from "./market-data";
import { createMarketRouter } from "./router";

/** Spec 8: exchange API public market data, 100 requests per minute. */
export const PUBLIC_MARKET_DATA_PER_MINUTE = 100;

/** Every path the public tier answers (prefixes, under /v1). */
export const PUBLIC_PATHS = [
  "/navigation",
  "/assets",
  "/exchange-explorers",
  "/stock-summaries",
  "/exchange-assets",
  "/exchange-orderbook",
  "/asset-chats",
];

export interface PublicMarketRouterDeps {
  dex: DexService | undefined;
  candles: CandleSource;
  /** {base_url}: .../v1 */
  publicBaseUrl: string;
  /** default 100 (spec 8) */
  perMinute?: number;
  catalogue?: readonly CatalogueAsset[];
  now?: () => number;
}

export function createPublicMarketRouter(deps: PublicMarketRouterDeps): Router {
  const catalogue = deps.catalogue ?? CATALOGUE;
  const market = createMarketData({ dex: deps.dex, candles: deps.candles, now: deps.now });
  const r = Router();
  r.use(PUBLIC_PATHS, createLimiter("public", 60_000, deps.perMinute ?? PUBLIC_MARKET_DATA_PER_MINUTE, clientIp));
  r.use(createAssetsRouter({ catalogue, market, publicBaseUrl: deps.publicBaseUrl, fees: () => deps.dex?.getFees() }));
  r.use(createMarketRouter({ catalogue, market }));
  return r;
}
