import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { parseDecimal, formatDecimal } from "../sdk/decimal";
import {
  DEFAULT_MARKET_GRIDS,
  PRICE_SCALE,
  isMarketGridExact,
  humanPriceToContract,
  humanSizeToBase,
  contractPriceToTicks,
  baseToLots,
  quoteFor,
  assertMarketGridExact,
  minRestingPriceTicks,
  type MarketSpec,
} from "./markets";
import { MIN_FILL_UNITS } from "../sdk/eip712";

const Z = "0x0000000000000000000000000000000000000000" as const;
const markets: MarketSpec[] = Object.entries(DEFAULT_MARKET_GRIDS).map(([symbol, g]) => ({
  symbol,
  baseToken: Z,
  quoteToken: Z,
  ...g,
}));

for (const m of markets) {
  test(`${m.symbol}: every fill on the grid has an integral quote amount`, () => {
    assert.ok(isMarketGridExact(m));
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: m.maxLots }), fc.bigInt({ min: 1n, max: 10n ** 12n }), (lots, ticks) => {
        const product = lots * m.lotSize * ticks * m.tickSize;
        assert.equal(product % PRICE_SCALE, 0n);
        assert.equal(quoteFor(m, lots, ticks) * PRICE_SCALE, product);
      }),
      { numRuns: 500 },
    );
  });
}

test("a grid whose tick*lot is not a multiple of 1e18 is refused, and has an inexact fill", () => {
  const bad = { tickSize: 10n ** 14n, lotSize: 10n ** 3n };
  assert.equal(isMarketGridExact(bad), false);
  assert.notEqual((bad.tickSize * bad.lotSize) % PRICE_SCALE, 0n);
});

test("WETH-USD conversions are exact and refuse what is off the grid", () => {
  const m = markets.find((x) => x.symbol === "WETH-USD")!;
  assert.equal(humanPriceToContract(m, "2500.01"), 2_500_010_000n);
  assert.equal(contractPriceToTicks(m, humanPriceToContract(m, "2500.01")!), 250001n);
  assert.equal(contractPriceToTicks(m, humanPriceToContract(m, "2500.015")!), null);
  assert.equal(humanSizeToBase(m, "1.5"), 15n * 10n ** 17n);
  assert.equal(baseToLots(m, humanSizeToBase(m, 0.0001)!), 1n);
  assert.equal(baseToLots(m, humanSizeToBase(m, "0.00015")!), null);
  assert.equal(humanSizeToBase(m, "1e3"), null);
  assert.equal(humanSizeToBase(m, 1e-7), 10n ** 11n);
});

test("parseDecimal/formatDecimal round-trip and reject junk", () => {
  fc.assert(
    fc.property(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), fc.integer({ min: 0, max: 24 }), (v, s) => {
      assert.equal(parseDecimal(formatDecimal(v, s), s), v);
    }),
  );
  for (const junk of ["", "1.", ".5", "1,5", "0x10", "1e5", "NaN", "--1", " "])
    assert.equal(parseDecimal(junk, 6), null, junk);
  assert.equal(parseDecimal("1.2300", 2), 123n);
  assert.equal(parseDecimal("1.234", 2), null);
  assert.equal(parseDecimal(Number.NaN, 2), null);
});

test("a market's lot must be at least the on-chain minimum fill: MIN_FILL_UNITS - 1 is refused, MIN_FILL_UNITS taken", () => {
  const grid = {
    symbol: "X-Y",
    baseToken: Z,
    quoteToken: Z,
    baseDecimals: 18,
    quoteDecimals: 6,
    minLots: 1n,
    maxLots: 10n,
  };
  assert.throws(
    () => assertMarketGridExact({ ...grid, lotSize: MIN_FILL_UNITS - 1n, tickSize: PRICE_SCALE }),
    /minimum fill/,
  );
  assert.doesNotThrow(() => assertMarketGridExact({ ...grid, lotSize: MIN_FILL_UNITS, tickSize: PRICE_SCALE }));
  for (const m of markets) assert.doesNotThrow(() => assertMarketGridExact(m));
});

test("minRestingPriceTicks: one lot is worth MIN_FILL_UNITS quote units at the minimum, less one tick below", () => {
  // the seeded markets: one lot at one tick is 1 quote unit, so 10,000 ticks (100 USD per WETH, 1,000 USD per WBTC)
  const weth = markets.find((x) => x.symbol === "WETH-USD")!;
  const wbtc = markets.find((x) => x.symbol === "WBTC-USD")!;
  assert.equal(minRestingPriceTicks(weth), 10_000n);
  assert.equal(minRestingPriceTicks(wbtc), 10_000n);
  assert.equal(humanPriceToContract(weth, "100"), 10_000n * weth.tickSize);
  fc.assert(
    fc.property(
      fc.bigInt({ min: 1n, max: 10n ** 9n }),
      fc.bigInt({ min: 1n, max: 10n ** 6n }),
      (quotePerLotTick, lotScale) => {
        // any exact grid: lotSize * tickSize = quotePerLotTick * 1e18
        const m = { lotSize: lotScale, tickSize: (quotePerLotTick * PRICE_SCALE) / lotScale };
        if ((m.tickSize * m.lotSize) % PRICE_SCALE !== 0n) return;
        const t = minRestingPriceTicks(m);
        assert.ok(t >= 1n);
        assert.ok(quoteFor({ ...m } as MarketSpec, 1n, t) >= MIN_FILL_UNITS);
        if (t > 1n) assert.ok(quoteFor({ ...m } as MarketSpec, 1n, t - 1n) < MIN_FILL_UNITS);
      },
    ),
    { numRuns: 500 },
  );
});
