// Asset list: filters, ranked search, cursor pages (every asset once, in order, whatever the page size;
// a cursor of another query, a forged or a garbled one refused).
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { CATALOGUE, type CatalogueAsset } from "./catalogue";
import { decodeCursor, encodeCursor, page, searchRank, selectAssets, type AssetFilters } from "./search";

const all = () => true;
const symbols = (xs: readonly CatalogueAsset[]) => xs.map((a) => a.symbol);

test("search ranks the exact symbol, then symbol prefixes, then name words, then substrings", () => {
  const cat = [
    { symbol: "ABCD", name: "Zeta Holdings" },
    { symbol: "AB", name: "Alpha Beta" },
    { symbol: "XAB", name: "Other" },
    { symbol: "QQ", name: "Abacus Capital" },
    { symbol: "ZZ", name: "Nothing here" },
  ].map((x) => ({ ...CATALOGUE[0], ...x, id: x.symbol }));
  assert.deepEqual(symbols(selectAssets(cat, { search: "ab" }, all)), ["AB", "ABCD", "QQ", "XAB"]);
  assert.deepEqual(
    symbols(selectAssets(cat, { search: "  AB " }, all)),
    ["AB", "ABCD", "QQ", "XAB"],
    "trimmed, case-insensitive",
  );
  assert.equal(searchRank({ symbol: "AB", name: "x" }, "ab"), 0);
  assert.equal(searchRank({ symbol: "ABCD", name: "x" }, "ab"), 1);
  assert.equal(
    searchRank({ symbol: "QQ", name: "Abacus Capital" }, "capital aba"),
    2,
    "every query word starts a name word",
  );
  assert.equal(searchRank({ symbol: "QQ", name: "Abacus Capital" }, "capital zeta"), null);
  assert.equal(searchRank({ symbol: "QQ", name: "JPMorgan Chase" }, "morgan"), 3, "a substring of the name");
});

test("the real catalogue: by symbol and by name", () => {
  assert.deepEqual(symbols(selectAssets(CATALOGUE, { search: "aapl" }, all)), ["AAPL"]);
  assert.deepEqual(symbols(selectAssets(CATALOGUE, { search: "ust" }, all)), ["UST10Y", "UST2Y"]);
  assert.deepEqual(symbols(selectAssets(CATALOGUE, { search: "treasury note" }, all)), ["UST10Y", "UST2Y"]);
  assert.deepEqual(symbols(selectAssets(CATALOGUE, { search: "gold" }, all)), ["XAU"]);
  assert.deepEqual(symbols(selectAssets(CATALOGUE, { search: "no such asset" }, all)), []);
});

test("filters: rail, category, tradeable (false: no restriction), combined", () => {
  assert.deepEqual(symbols(selectAssets(CATALOGUE, { category: "crypto" }, all)), ["WETH", "WBTC"]);
  assert.ok(
    selectAssets(CATALOGUE, { marketRail: "private" }, all).every(
      (a) => a.category === "privates" || a.category === "pre-ipo",
    ),
  );
  assert.deepEqual(selectAssets(CATALOGUE, { marketRail: "public", category: "crypto" }, all), []);
  const tradeable = (a: CatalogueAsset) => a.symbol !== "AAPL";
  assert.ok(!symbols(selectAssets(CATALOGUE, { tradeable: true }, tradeable)).includes("AAPL"));
  assert.equal(selectAssets(CATALOGUE, { tradeable: false }, tradeable).length, CATALOGUE.length);
  assert.equal(selectAssets(CATALOGUE, {}, all).length, CATALOGUE.length);
});

test("pages: every asset exactly once, in order, for any page size; the last page has no cursor", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 25 }),
      fc.constantFrom<AssetFilters>({}, { marketRail: "public" }, { search: "a" }),
      (limit, f) => {
        const items = selectAssets(CATALOGUE, f, all);
        const seen: string[] = [];
        let offset = 0;
        for (let i = 0; i < 100; i++) {
          const p = page(items, offset, limit, f);
          seen.push(...symbols(p.data));
          if (p.nextCursor === null) break;
          offset = decodeCursor(p.nextCursor, f)!;
        }
        assert.deepEqual(seen, symbols(items));
      },
    ),
  );
});

test("cursors: bound to their filters; forged, garbled and negative ones refused", () => {
  const f: AssetFilters = { category: "stocks" };
  const c = encodeCursor(2, f);
  assert.equal(decodeCursor(c, f), 2);
  assert.equal(decodeCursor(c, { category: "stocks", search: "" }), 2, "an empty search is no search");
  assert.equal(decodeCursor(c, { category: "forex" }), null);
  assert.equal(decodeCursor(c, {}), null);
  for (const bad of [
    "",
    "!!",
    "x".repeat(201),
    Buffer.from("[]").toString("base64url"),
    Buffer.from('{"o":-1}').toString("base64url"),
    Buffer.from('{"o":1.5,"f":"x"}').toString("base64url"),
    "bm90IGpzb24",
  ]) {
    assert.equal(decodeCursor(bad, f), null, bad);
  }
  const forged = JSON.parse(Buffer.from(c, "base64url").toString());
  assert.equal(
    decodeCursor(Buffer.from(JSON.stringify({ ...forged, f: "AAAAAAAAAAAAAAAA" })).toString("base64url"), f),
    null,
  );
});
