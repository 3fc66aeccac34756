import { test } from "node:test";
import assert from "node:assert/strict";
import { Level } from "./book";
import { PRICE_WINDOW, PriceIndex } from "./price-index";

// Example-based checks of where the window sits: the first price of an empty index places it, an in-window
// price never moves it, and it re-centres exactly when more levels lie outside than inside and enough
// insertions have paid for the move (the Map-equivalence property in price-index.test.ts checks lookups).

const level = (price: number) => new Level("X-Y", price, true);
const HALF = PRICE_WINDOW / 2;

/** An index whose window starts at 10,000 - HALF and holds nothing, with one level far above it. */
function emptyWindowOneFar(): { index: PriceIndex; base: number; far: Level } {
  const index = new PriceIndex();
  const first = level(10_000);
  index.add(first);
  const far = level(1_000_000);
  index.add(far); // outside, while the window holds more: stays in the far map
  index.delete(first);
  assert.equal(index.windowBase, 10_000 - HALF);
  return { index, base: 10_000 - HALF, far };
}

test("PriceIndex: a price inside the window, at its first or last tick, never moves it", () => {
  for (const offset of [0, 1, PRICE_WINDOW - 1, 2_000]) {
    const { index, base, far } = emptyWindowOneFar();
    const l = level(base + offset);
    index.add(l);
    assert.equal(index.windowBase, base, `a level at base + ${offset} leaves the window`);
    assert.equal(index.get(base + offset), l);
    assert.equal(index.get(far.priceTicks), far);
    assert.equal(index.size, 2);
  }
});

test("PriceIndex: a price one tick outside either edge re-centres a window that holds fewer levels than the far map", () => {
  for (const offset of [-1, PRICE_WINDOW, PRICE_WINDOW + 1]) {
    const { index, base, far } = emptyWindowOneFar();
    const p = base + offset;
    const l = level(p);
    index.add(l);
    assert.equal(index.windowBase, p - HALF, `a level at base + ${offset} re-centres the window on it`);
    assert.equal(index.get(p), l);
    assert.equal(index.get(far.priceTicks), far);
    assert.equal(index.size, 2);
  }
});

test("PriceIndex: an emptied index places its window on the next price, even one inside the old window", () => {
  const index = new PriceIndex();
  const a = level(10_000);
  index.add(a);
  index.delete(a);
  const b = level(8_000);
  index.add(b);
  assert.equal(index.windowBase, 8_000 - HALF);
  assert.equal(index.get(8_000), b);
  assert.equal(index.get(10_000), undefined);
  // A price near tick 0 puts the window at 0 (HALF itself gives base 0 either way).
  index.delete(b);
  index.add(level(HALF));
  assert.equal(index.windowBase, 0);
});

/**
 * Three levels in the window around 10,000, `churn` insertions inside it, then three outside (far above,
 * at the future window's first tick, one past its last), then `centre`: the window moves onto `centre`
 * exactly when the insertions since it was placed reach PRICE_WINDOW plus the far levels.
 */
function crowdedThenFar(churn: number) {
  const index = new PriceIndex();
  const near = [10_000, 10_001, 10_002].map(level);
  for (const l of near) index.add(l);
  for (let k = 0; k < churn; k++) {
    const c = level(10_003);
    index.add(c);
    index.delete(c);
  }
  const centre = 1_000_000;
  const newBase = centre - HALF;
  const outside = [5_000_000, newBase, newBase + PRICE_WINDOW].map(level);
  for (const l of outside) index.add(l);
  assert.equal(index.windowBase, 10_000 - HALF, "fewer levels outside than inside: the window stays");
  const c = level(centre);
  index.add(c);
  return { index, all: [...near, ...outside, c], newBase };
}

test("PriceIndex: a window holding levels re-centres once the insertions since it moved pay for the move, not before", () => {
  // Insertions since the window was placed: 2 + churn + 4; the move costs PRICE_WINDOW + 3 far levels.
  const exact = crowdedThenFar(PRICE_WINDOW - 3);
  assert.equal(exact.index.windowBase, exact.newBase, "at exactly the cost the window moves onto the new price");
  for (const l of exact.all) assert.equal(exact.index.get(l.priceTicks), l);
  // The slots the old levels left are empty in the new window: no stale level answers for another price.
  for (let p = exact.newBase; p < exact.newBase + PRICE_WINDOW; p++) {
    const l = exact.index.get(p);
    if (l !== undefined) assert.equal(l.priceTicks, p);
  }
  assert.equal(exact.index.size, 7);
  for (const l of exact.all) exact.index.delete(l);
  assert.equal(exact.index.size, 0);
  for (const l of exact.all) assert.equal(exact.index.get(l.priceTicks), undefined);

  const early = crowdedThenFar(PRICE_WINDOW - 4);
  assert.equal(early.index.windowBase, 10_000 - HALF, "one insertion short of the cost the window stays");
  for (const l of early.all) assert.equal(early.index.get(l.priceTicks), l);
  assert.equal(early.index.size, 7);
});

test("PriceIndex: after a re-centring, a window emptied of its levels stays put while far levels remain", () => {
  const { index, all, newBase } = crowdedThenFar(PRICE_WINDOW - 3);
  // newBase and the centre are the only levels inside the new window.
  for (const l of all) if (l.priceTicks === newBase || l.priceTicks === newBase + HALF) index.delete(l);
  const g = level(newBase + 100);
  index.add(g);
  assert.equal(index.windowBase, newBase, "far levels remain, so the window is not re-placed");
  assert.equal(index.get(newBase + 100), g);
  assert.equal(index.size, 6);
});

test("PriceIndex: a level at the window's first tick counts as inside it when the window next decides to move", () => {
  const { index, base } = emptyWindowOneFar();
  index.add(level(base)); // inside: one level in, one out
  index.add(level(2_000_000)); // one in, one out: far from enough insertions to pay for a move
  assert.equal(index.windowBase, base);
  assert.equal(index.size, 3);
});

test("PriceIndex: the price that re-centres the window is counted inside the new window", () => {
  const { index, base } = emptyWindowOneFar();
  const p = base - 1;
  index.add(level(p)); // re-centres on p
  const newBase = p - HALF;
  assert.equal(index.windowBase, newBase);
  for (let k = 0; k < 2; k++) {
    const c = level(p + 1);
    index.add(c);
    index.delete(c);
  }
  index.add(level(2_000_000)); // p inside and one far level: the window stays
  assert.equal(index.windowBase, newBase);
  assert.equal(index.get(p)?.priceTicks, p);
});

test("PriceIndex: a re-centring counts the levels it moves into the new window, down to its first tick", () => {
  // After the move: the new base and the centre inside; three near levels, 5,000,000 and base + WINDOW outside.
  for (const [churn, moves] of [
    [PRICE_WINDOW + 4, true],
    [PRICE_WINDOW + 3, false],
  ] as const) {
    const { index, newBase } = crowdedThenFar(PRICE_WINDOW - 3);
    for (let k = 0; k < churn; k++) {
      const c = level(newBase + 10);
      index.add(c);
      index.delete(c);
    }
    index.add(level(3_000_000)); // the next move costs PRICE_WINDOW + 5 insertions
    assert.equal(index.windowBase, moves ? 3_000_000 - HALF : newBase, `after ${churn} insertions`);
    assert.equal(index.size, 8);
  }
});
