// GET /v1/assets: filters (marketRail, category, tradeable), full-text search by symbol or name, ranked, and
// cursor pagination. Pure: the router hands it the catalogue and which assets trade now.
//
// Ranking of `search` (case-insensitive): 0 the symbol is the query; 1 the symbol starts with it; 2 every
// word of the query starts a word of the name; 3 the symbol or the name contains the query. Other assets are
// left out. Within a rank, by symbol. Without `search`, the catalogue's order (rail, category).
//
// Cursor: `limit` (1-100, default 50) and an opaque `cursor` from the previous page's `nextCursor` (null on
// the last page). The cursor carries the position and a fingerprint of the filters: a cursor used with other
// filters is refused (400), so a page never silently belongs to another list.
import { createHash } from "node:crypto";
import { railOf, type AssetCategory, type CatalogueAsset, type MarketRail } from "./catalogue";

export interface AssetFilters {
  marketRail?: MarketRail;
  category?: AssetCategory;
  /** true: tradeable assets only */
  tradeable?: boolean;
  search?: string;
}

export const DEFAULT_PAGE_LIMIT = 50;
export const MAX_PAGE_LIMIT = 100;
export const MAX_SEARCH_LENGTH = 64;

const words = (s: string) =>
  s
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);

/** The rank of an asset for a query (lower is better), or null when it does not match. */
export function searchRank(a: Pick<CatalogueAsset, "symbol" | "name">, query: string): number | null {
  const q = query.trim().toLowerCase();
  if (!q) return 0;
  const symbol = a.symbol.toLowerCase();
  if (symbol === q) return 0;
  if (symbol.startsWith(q)) return 1;
  const qWords = words(q);
  const nameWords = words(a.name);
  if (qWords.length > 0 && qWords.every((w) => nameWords.some((n) => n.startsWith(w)))) return 2;
  if (symbol.includes(q) || a.name.toLowerCase().includes(q)) return 3;
  return null;
}

/** The assets the filters select, in the list's order. */
export function selectAssets(
  catalogue: readonly CatalogueAsset[],
  f: AssetFilters,
  tradeable: (a: CatalogueAsset) => boolean,
): CatalogueAsset[] {
  const kept = catalogue.filter(
    (a) =>
      (!f.marketRail || railOf(a.category) === f.marketRail) &&
      (!f.category || a.category === f.category) &&
      (!f.tradeable || tradeable(a)),
  );
  const q = f.search?.trim();
  if (!q) return kept;
  return kept
    .map((a) => ({ a, rank: searchRank(a, q) }))
    .filter((x): x is { a: CatalogueAsset; rank: number } => x.rank !== null)
    .sort((x, y) => x.rank - y.rank || (x.a.symbol < y.a.symbol ? -1 : x.a.symbol > y.a.symbol ? 1 : 0))
    .map((x) => x.a);
}

function fingerprint(f: AssetFilters): string {
  const canonical = JSON.stringify([
    f.marketRail ?? null,
    f.category ?? null,
    f.tradeable === true,
    f.search?.trim().toLowerCase() || null,
  ]);
  return createHash("sha256").update(canonical).digest("base64url").slice(0, 16);
}

export function encodeCursor(offset: number, f: AssetFilters): string {
  return Buffer.from(JSON.stringify({ o: offset, f: fingerprint(f) })).toString("base64url");
}

/** The offset a cursor points at, or null when it is not one of ours for these filters. */
export function decodeCursor(cursor: string, f: AssetFilters): number | null {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) return null;
  try {
    const v = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as unknown;
    if (typeof v !== "object" || v === null) return null;
    const { o, f: fp } = v as { o?: unknown; f?: unknown };
    if (typeof o !== "number" || !Number.isSafeInteger(o) || o < 0 || fp !== fingerprint(f)) return null;
    return o;
  } catch {
    return null;
  }
}

/** One page of `items` from `offset`, and the cursor of the next page (null on the last). */
export function page<T>(
  items: readonly T[],
  offset: number,
  limit: number,
  f: AssetFilters,
): { data: T[]; nextCursor: string | null } {
  const data = items.slice(offset, offset + limit);
  const next = offset + limit;
  return { data, nextCursor: next < items.length ? encodeCursor(next, f) : null };
}
