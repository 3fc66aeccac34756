// Market data of one asset (spec 4.A, public): GET /assets/{id}/quote, /chart, /book, /trades, and the legacy
// paths of spec 9 (/exchange-orderbook, /asset-chats: the asset named by `assetId` in the query or the path),
// which answer exactly as their canonical paths. Mounted at /v1 by createPublicMarketRouter (public.ts).
import { Router, type Request, type Response } from "express";
import { z } from "zod";
import { validationError } from "../../errors";
import type { CatalogueAsset } from "../assets/catalogue";
import { CANDLE_INTERVALS } from "./candles";
import { CHART_RANGE_IDS, CHART_RANGES } from "./figures";
import { assetNotFound, markStale, type MarketData, type StaleMark } from "./market-data";

export const DEFAULT_BOOK_DEPTH = 50;
export const MAX_BOOK_DEPTH = 500;
export const DEFAULT_TRADES = 50;
export const MAX_TRADES = 500;

export interface MarketRouterDeps {
  catalogue: readonly CatalogueAsset[];
  market: MarketData;
}

const ASSET_ID = /^[A-Za-z0-9._-]{1,64}$/;
const assetIdSchema = z.string().regex(ASSET_ID, "an asset id");
const intParam = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,6}$/, "an integer")
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

export const chartQuery = z
  .object({ range: z.enum(CHART_RANGE_IDS).default("1d"), interval: z.enum(CANDLE_INTERVALS).optional() })
  .strict()
  // every range takes every interval (spec 8's table recommends some); the range's maximum points cap each
  .transform((q) => ({ range: q.range, interval: q.interval ?? CHART_RANGES[q.range].intervals[0] }));
export const bookQuery = z.object({ depth: intParam(1, MAX_BOOK_DEPTH).default(DEFAULT_BOOK_DEPTH) }).strict();
export const tradesQuery = z.object({ limit: intParam(1, MAX_TRADES).default(DEFAULT_TRADES) }).strict();

export function parseQuery<T extends z.ZodTypeAny>(schema: T, query: unknown): z.output<T> {
  const r = schema.safeParse(query);
  if (!r.success) throw validationError(r.error, "query");
  return r.data;
}

/** The catalogue's asset of `id`, or ASSET_NOT_FOUND (a malformed id too: nothing else is told). */
export function assetOf(catalogue: readonly CatalogueAsset[], id: unknown): CatalogueAsset {
  const text = typeof id === "string" ? id : "";
  const asset = assetIdSchema.safeParse(text).success ? catalogue.find((a) => a.id === text) : undefined;
  if (!asset) throw assetNotFound(text);
  return asset;
}

/** A legacy path names its asset in the path or as `assetId` in the query; the rest of the query is the
 *  canonical path's. */
function legacyTarget(req: Request): { id: unknown; query: Record<string, unknown> } {
  const { assetId, ...rest } = req.query as Record<string, unknown>;
  if (req.params.id !== undefined) {
    if (assetId !== undefined)
      throw validationError(
        new z.ZodError([{ code: "custom", path: ["assetId"], message: "the asset is named in the path already" }]),
        "query",
      );
    return { id: req.params.id, query: rest };
  }
  if (assetId === undefined)
    throw validationError(new z.ZodError([{ code: "custom", path: ["assetId"], message: "required" }]), "query");
  return { id: assetId, query: rest };
}

export function createMarketRouter(deps: MarketRouterDeps): Router {
  const r = Router();
  const { market } = deps;

  const quote = async (id: unknown, _query: Record<string, unknown>, res: Response) => {
    const asset = assetOf(deps.catalogue, id);
    parseQuery(z.object({}).strict(), _query);
    const mark: StaleMark = {};
    const body = await market.quote(asset, mark);
    markStale(res, mark);
    res.json(body);
  };
  const chart = async (id: unknown, query: unknown, res: Response) => {
    const asset = assetOf(deps.catalogue, id);
    const q = parseQuery(chartQuery, query);
    const mark: StaleMark = {};
    const data = await market.chart(asset, q.range, q.interval, mark);
    markStale(res, mark);
    res.json({ data, message: `${q.range} chart at ${q.interval}` });
  };
  const book = async (id: unknown, query: unknown, res: Response) => {
    const asset = assetOf(deps.catalogue, id);
    const q = parseQuery(bookQuery, query);
    res.json(await market.book(asset, q.depth));
  };

  r.get("/assets/:id/quote", (req, res) => quote(req.params.id, req.query as Record<string, unknown>, res));
  r.get("/assets/:id/chart", (req, res) => chart(req.params.id, req.query, res));
  r.get("/assets/:id/book", (req, res) => book(req.params.id, req.query, res));
  r.get("/assets/:id/trades", async (req, res) => {
    const asset = assetOf(deps.catalogue, req.params.id);
    const q = parseQuery(tradesQuery, req.query);
    res.json({ data: await market.trades(asset, q.limit), message: "recent trades, newest first" });
  });

  // spec 9's legacy paths
  for (const path of ["/exchange-orderbook", "/exchange-orderbook/:id"]) {
    r.get(path, (req, res) => {
      const t = legacyTarget(req);
      return book(t.id, t.query, res);
    });
  }
  for (const path of ["/asset-chats", "/asset-chats/:id"]) {
    r.get(path, (req, res) => {
      const t = legacyTarget(req);
      return chart(t.id, t.query, res);
    });
  }
  return r;
}
