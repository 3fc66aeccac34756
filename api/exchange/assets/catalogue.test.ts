// The catalogue: every rail and category with several assets, ids unique, offering facts consistent, and
// every asset book's grid exact on chain with a lowest resting price well under where the asset trades.
import { test } from "node:test";
import assert from "node:assert/strict";
import { marketFromGrid, minRestingPriceTicks } from "../../../pipeline/markets";
import { formatDecimal } from "../../../sdk/decimal";
import {
  ASSET_CATEGORIES,
  assetMarketGrids,
  assetTokensToDeploy,
  bookSymbolOf,
  CATALOGUE,
  MARKET_RAILS,
  NAVIGATION,
  railOf,
} from "./catalogue";

const Z = "0x0000000000000000000000000000000000000000" as const;

test("three rails, seven categories, each category with at least two tradeable assets", () => {
  assert.deepEqual(
    NAVIGATION.map((r) => r.id),
    [...MARKET_RAILS],
  );
  assert.deepEqual(NAVIGATION.flatMap((r) => r.categories.map((c) => c.id)).sort(), [...ASSET_CATEGORIES].sort());
  for (const c of ASSET_CATEGORIES) assert.ok(CATALOGUE.filter((a) => a.category === c && a.token).length >= 2, c);
  assert.equal(railOf("crypto"), "digital");
  assert.equal(railOf("pre-ipo"), "private");
  assert.equal(railOf("forex"), "public");
  assert.equal(new Set(CATALOGUE.map((a) => a.id)).size, CATALOGUE.length, "ids are unique");
  assert.equal(new Set(CATALOGUE.map((a) => a.symbol.toLowerCase())).size, CATALOGUE.length, "symbols are unique");
  for (const a of CATALOGUE) assert.match(a.id, /^[A-Za-z0-9._-]{1,64}$/);
});

test("offering facts: crypto has no exchange; public assets are retail with no accreditation; every accreditation type appears", () => {
  for (const a of CATALOGUE) {
    assert.equal(a.exchange === null, a.category === "crypto", a.id);
    if (railOf(a.category) !== "private") {
      assert.equal(a.accreditationType, null, a.id);
      assert.equal(a.regime, "retail", a.id);
    }
    if (a.accreditationType !== null) assert.equal(a.regime, "reg-d", `${a.id}: 506b/506c are Reg D`);
  }
  assert.deepEqual([...new Set(CATALOGUE.map((a) => a.accreditationType))].sort(), ["506b", "506c", null].sort());
  assert.deepEqual([...new Set(CATALOGUE.map((a) => a.regime))].sort(), [
    "reg-a",
    "reg-cf",
    "reg-d",
    "reg-s",
    "retail",
  ]);
});

test("every asset token's book is exact on chain; the lowest resting price is at most 100 USD", () => {
  const grids = assetMarketGrids();
  assert.equal(Object.keys(grids).length, assetTokensToDeploy().length);
  for (const t of assetTokensToDeploy()) {
    const symbol = `${t.symbol}-USD`;
    assert.equal(bookSymbolOf({ token: t }), symbol);
    const m = marketFromGrid(symbol, { address: Z, decimals: t.decimals }, { address: Z, decimals: 6 }, grids[symbol]);
    const lowest = Number(formatDecimal(minRestingPriceTicks(m) * m.tickSize, 6));
    // the lowest price an order may rest at stays far below where each of these trades (cents to dollars)
    assert.ok(lowest <= 100, `${symbol}: lowest resting price ${lowest}`);
    assert.ok(t.seedWholeUnits > 0n);
  }
  assert.equal(bookSymbolOf({ token: null }), null);
});
