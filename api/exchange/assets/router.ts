// The asset catalogue (spec 2.1-2.3, 4.A, public): GET /navigation, /assets (filters, ranked search, cursor
// pages), /assets/{id} (detail with marketData.perDay from the daily candles), /assets/{id}/image, and the
// legacy paths of spec 9 (/exchange-explorers = /assets, /stock-summaries = /assets?category=stocks,
// /exchange-assets/{id} = /assets/{id}), which answer exactly as their canonical paths.
import { Router, type Response } from "express";
import { z } from "zod";
import { validationError } from "../../errors";
import { markStale, orWhenUnavailable, type MarketData, type StaleMark } from "../market/market-data";
import { assetOf, parseQuery } from "../market/router";
import { tradingTermsOf } from "../market/trading-terms";
import type { DexFees } from "../../../pipeline/service";
import { ASSET_CATEGORIES, MARKET_RAILS, NAVIGATION, railOf, type CatalogueAsset } from "./catalogue";
import { assetSvg, IMAGE_HEADERS } from "./image";
import {
  DEFAULT_PAGE_LIMIT,
  decodeCursor,
  MAX_PAGE_LIMIT,
  MAX_SEARCH_LENGTH,
  page,
  selectAssets,
  type AssetFilters,
} from "./search";

export interface AssetsRouterDeps {
  catalogue: readonly CatalogueAsset[];
  market: MarketData;
  /** the exchange API's public base URL with /v1 ({base_url}): image URLs are absolute under it */
  publicBaseUrl: string;
  /** the Settlement contract's fee rates now (the detail's trading terms); undefined without the pipeline */
  fees?: () => DexFees | undefined;
}

/** Spec 2.3 asset status: APPROVED is the one value the spec shows (every listed asset). */
export const ASSET_STATUS = "APPROVED";

export const assetListQuery = z
  .object({
    marketRail: z.enum(MARKET_RAILS).optional(),
    category: z.enum(ASSET_CATEGORIES).optional(),
    tradeable: z
      .enum(["true", "false"])
      .transform((v) => v === "true")
      .optional(),
    search: z.string().max(MAX_SEARCH_LENGTH).optional(),
    limit: z
      .string()
      .regex(/^\d{1,4}$/, "an integer")
      .transform(Number)
      .pipe(z.number().int().min(1).max(MAX_PAGE_LIMIT))
      .optional(),
    cursor: z.string().max(200).optional(),
  })
  .strict();

/** Spec 2.2's asset summary (and the detail's first fields); with nothing known from the indexer, the
 *  reference figures, marked stale. */
async function summaryOf(a: CatalogueAsset, market: MarketData, image: string, mark: StaleMark) {
  const q = await orWhenUnavailable(market.quote(a, mark), mark, () => market.referenceQuote(a));
  return {
    id: a.id,
    symbol: a.symbol,
    name: a.name,
    type: a.category,
    exchange: a.exchange,
    status: ASSET_STATUS,
    price: q.last,
    change: q.change,
    changesPercentage: q.changePercent,
    priceSource: q.priceSource,
    image,
    marketRail: railOf(a.category),
    tradeable: market.tradeable(a),
  };
}

/** The filters of a list query (a legacy path forces some), its offset from the cursor; a bad one is a 400. */
function listFilters(query: unknown, forced: Partial<AssetFilters>) {
  const q = parseQuery(assetListQuery, query);
  const refuse = (path: string, message: string) =>
    validationError(new z.ZodError([{ code: "custom", path: [path], message }]), "query");
  for (const [k, v] of Object.entries(forced)) {
    const given = (q as Record<string, unknown>)[k];
    if (given !== undefined && given !== v) throw refuse(k, `this path lists ${k}=${String(v)} only`);
  }
  const filters: AssetFilters = {
    marketRail: q.marketRail,
    category: q.category,
    tradeable: q.tradeable,
    search: q.search,
    ...forced,
  };
  let offset = 0;
  if (q.cursor !== undefined) {
    const o = decodeCursor(q.cursor, filters);
    if (o === null) throw refuse("cursor", "not a cursor of this list (use nextCursor of the same query)");
    offset = o;
  }
  return { filters, offset, limit: q.limit ?? DEFAULT_PAGE_LIMIT };
}

export function createAssetsRouter(deps: AssetsRouterDeps): Router {
  const r = Router();
  const { market } = deps;
  const base = deps.publicBaseUrl.replace(/\/+$/, "");
  const imageOf = (a: CatalogueAsset) => `${base}/assets/${encodeURIComponent(a.id)}/image`;

  const list = async (query: unknown, res: Response, forced: Partial<AssetFilters> = {}) => {
    const { filters, offset, limit } = listFilters(query, forced);
    const selected = selectAssets(deps.catalogue, filters, market.tradeable);
    const p = page(selected, offset, limit, filters);
    const mark: StaleMark = {};
    const data = await Promise.all(p.data.map((a) => summaryOf(a, market, imageOf(a), mark)));
    markStale(res, mark);
    res.json({ data, message: `${selected.length} assets`, nextCursor: p.nextCursor });
  };

  const detail = async (id: unknown, query: unknown, res: Response) => {
    const a = assetOf(deps.catalogue, id);
    parseQuery(z.object({}).strict(), query);
    const mark: StaleMark = {};
    const [s, perDay] = await Promise.all([
      summaryOf(a, market, imageOf(a), mark),
      orWhenUnavailable(market.perDay(a, mark), mark, () => []),
    ]);
    markStale(res, mark);
    res.json({
      data: {
        ...s,
        accreditationType: a.accreditationType,
        offeringType: a.offeringType,
        regime: a.regime,
        market: market.marketOf(a)?.symbol ?? null,
        trading: tradingTermsOf(market.marketOf(a), deps.fees?.()),
        marketData: { perDay },
      },
      message: "asset",
    });
  };

  r.get("/navigation", (req, res) => {
    parseQuery(z.object({}).strict(), req.query);
    res.json({ rails: NAVIGATION });
  });
  r.get("/assets", (req, res) => list(req.query, res));
  r.get("/assets/:id", (req, res) => detail(req.params.id, req.query, res));
  r.get("/assets/:id/image", (req, res) => {
    const a = assetOf(deps.catalogue, req.params.id);
    res.set(IMAGE_HEADERS).send(assetSvg(a));
  });

  // spec 9's legacy paths
  r.get("/exchange-explorers", (req, res) => list(req.query, res));
  r.get("/stock-summaries", (req, res) => list(req.query, res, { category: "stocks" }));
  r.get("/exchange-assets/:id", (req, res) => detail(req.params.id, req.query, res));
  return r;
}
