// The asset catalogue (spec 2.1-2.3, 4.A, public): GET /navigation, /assets (filters, ranked search, cursor
// pages), /assets/{id} (detail with marketData.perDay from the daily candles), /assets/{id}/image, and the
// legacy paths of spec 9 (/exchange-explorers = /assets, /stock-summaries = /assets?category=stocks,
// /exchange-assets/{id} = /assets/{id}), which answer exactly as their canonical paths.
import { Router, type Response } from "express";
import { z } from "zod";
import { validationError } from "../../errors";
import type { MarketData } from "../market/market-data";
import { assetOf, parseQuery } from "../market/router";
import { ASSET_CATEGORIES, MARKET_RAILS, NAVIGATION, railOf, type CatalogueAsset } from "./catalogue";
import { assetSvg, IMAGE_HEADERS } from "./image";
import { DEFAULT_PAGE_LIMIT, decodeCursor, MAX_PAGE_LIMIT, MAX_SEARCH_LENGTH, page, selectAssets, type AssetFilters } from "./search";

export interface AssetsRouterDeps {
  catalogue: readonly CatalogueAsset[];
  market: MarketData;
  /** the exchange API's public base URL with /v1 ({base_url}): image URLs are absolute under it */
  publicBaseUrl: string;
}

/** Spec 2.3 asset status: APPROVED is the one value the spec shows (every listed asset). */
export const ASSET_STATUS = "APPROVED";

export const assetListQuery = z
  .object({
    marketRail: z.enum(MARKET_RAILS).optional(),
    category: z.enum(ASSET_CATEGORIES).optional(),
    tradeable: z.enum(["true", "false"]).transform((v) => v === "true").optional(),
    search: z.string().max(MAX_SEARCH_LENGTH).optional(),
    limit: z.string().regex(/^\d{1,4}$/, "an integer").transform(Number).pipe(z.number().int().min(1).max(MAX_PAGE_LIMIT)).optional(),
    cursor: z.string().max(200).optional(),
  })
  .strict();

export function createAssetsRouter(deps: AssetsRouterDeps): Router {
  const r = Router();
  const { market } = deps;
  const base = deps.publicBaseUrl.replace(/\/+$/, "");
  const imageOf = (a: CatalogueAsset) => `${base}/assets/${encodeURIComponent(a.id)}/image`;

  async function summary(a: CatalogueAsset) {
    const q = await market.quote(a);
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
      image: imageOf(a),
      marketRail: railOf(a.category),
      tradeable: market.tradeable(a),
    };
  }

  const list = async (query: unknown, res: Response, forced: Partial<AssetFilters> = {}) => {
    const q = parseQuery(assetListQuery, query);
    for (const [k, v] of Object.entries(forced)) {
      const given = (q as Record<string, unknown>)[k];
      if (given !== undefined && given !== v) throw validationError(new z.ZodError([{ code: "custom", path: [k], message: `this path lists ${k}=${String(v)} only` }]), "query");
    }
    const filters: AssetFilters = { marketRail: q.marketRail, category: q.category, tradeable: q.tradeable, search: q.search, ...forced };
    let offset = 0;
    if (q.cursor !== undefined) {
      const o = decodeCursor(q.cursor, filters);
      if (o === null) throw validationError(new z.ZodError([{ code: "custom", path: ["cursor"], message: "not a cursor of this list (use nextCursor of the same query)" }]), "query");
      offset = o;
    }
    const selected = selectAssets(deps.catalogue, filters, market.tradeable);
    const p = page(selected, offset, q.limit ?? DEFAULT_PAGE_LIMIT, filters);
    res.json({ data: await Promise.all(p.data.map(summary)), message: `${selected.length} assets`, nextCursor: p.nextCursor });
  };

  const detail = async (id: unknown, query: unknown, res: Response) => {
    const a = assetOf(deps.catalogue, id);
    parseQuery(z.object({}).strict(), query);
    const [s, perDay] = await Promise.all([summary(a), market.perDay(a)]);
    res.json({
      data: {
        ...s,
        accreditationType: a.accreditationType,
        offeringType: a.offeringType,
        regime: a.regime,
        market: market.marketOf(a)?.symbol ?? null,
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
