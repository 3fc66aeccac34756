import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { lotsToSizeText, parseExactDecimal, decimalPriceToTicks, sizeToLots, ticksToPriceText } from "./units";
import { TEST_MARKETS } from "../testing/memory-dex-service";

// WETH-USD of the seed: tick 0.01 USD = 1e4 contract units, lot 0.0001 WETH = 1e14 base units.
const WETH_USD = TEST_MARKETS[0];

test("prices and sizes on the grid convert exactly, off the grid are refused", () => {
  assert.deepEqual(decimalPriceToTicks(WETH_USD, 2500.01), { ok: true, value: 250001n });
  assert.deepEqual(decimalPriceToTicks(WETH_USD, "2500.010"), { ok: true, value: 250001n });
  assert.deepEqual(decimalPriceToTicks(WETH_USD, 2500.015), { ok: false, reason: "off_grid" });
  assert.deepEqual(decimalPriceToTicks(WETH_USD, 0), { ok: false, reason: "not_positive" });
  assert.deepEqual(decimalPriceToTicks(WETH_USD, -1), { ok: false, reason: "not_positive" });
  assert.deepEqual(decimalPriceToTicks(WETH_USD, Number.NaN), { ok: false, reason: "not_a_number" });
  assert.deepEqual(decimalPriceToTicks(WETH_USD, 1e300), { ok: false, reason: "not_a_number" });
  assert.deepEqual(decimalPriceToTicks(WETH_USD, 1e40), { ok: false, reason: "too_large" });
  assert.deepEqual(sizeToLots(WETH_USD, 0.1), { ok: true, value: 1000n });
  assert.deepEqual(sizeToLots(WETH_USD, 1e-4), { ok: true, value: 1n });
  assert.deepEqual(sizeToLots(WETH_USD, 1e-5), { ok: false, reason: "off_grid" });
  assert.deepEqual(sizeToLots(WETH_USD, 1e9), { ok: false, reason: "too_large" });
  assert.equal(parseExactDecimal("1e5"), null);
});

test("ticks and lots survive the trip through their JSON number", () => {
  fc.assert(
    fc.property(fc.bigInt({ min: 1n, max: 10n ** 12n }), fc.bigInt({ min: 1n, max: 10n ** 8n }), (ticks, lots) => {
      const price = Number(ticksToPriceText(WETH_USD, ticks));
      const size = Number(lotsToSizeText(WETH_USD, lots));
      assert.deepEqual(decimalPriceToTicks(WETH_USD, price), { ok: true, value: ticks });
      assert.deepEqual(sizeToLots(WETH_USD, size), { ok: true, value: lots });
    }),
  );
});
