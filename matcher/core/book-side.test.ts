import { test } from "node:test";
import assert from "node:assert/strict";
import { BookSide, type Level } from "./book";

// A book side's bookkeeping of empty levels, through its API: levelFor, noteMaybeEmpty, best and the sorted
// levels. A level's orderCount stands for the orders an engine appends (Level.append counts them the same way).

const occupy = (l: Level) => {
  l.orderCount = 1;
  return l;
};
const empty = (side: BookSide, l: Level) => {
  l.orderCount = 0;
  side.noteMaybeEmpty(l);
};

/** A bid side with levels at prices 1..n, each holding an order. */
function bids(n: number): { side: BookSide; at: Level[] } {
  const side = new BookSide("X-Y", true);
  const at: Level[] = [];
  for (let p = 1; p <= n; p++) at[p] = occupy(side.levelFor(p));
  return { side, at };
}

test("BookSide sweeps its empty levels exactly when more than 256 lie empty and they are most of the side", () => {
  const { side, at } = bids(400);
  for (let p = 1; p <= 256; p++) empty(side, at[p]);
  assert.equal(side.levels.length, 400, "256 empty levels stay in place");
  empty(side, at[257]);
  assert.equal(side.levels.length, 143, "the 257th empty level sweeps all of them");
  assert.ok(side.levels.every((l) => l.orderCount > 0));
  assert.equal(side.byPrice.get(1), undefined);
  assert.equal(side.byPrice.get(257), undefined);
  assert.equal(side.byPrice.get(258), at[258]);
  assert.equal(side.best(), at[400]);
});

test("BookSide does not count a level that still holds orders when an order leaves it", () => {
  const { side, at } = bids(400);
  for (let k = 0; k < 100; k++) side.noteMaybeEmpty(at[400]);
  for (let p = 1; p <= 256; p++) empty(side, at[p]);
  assert.equal(side.levels.length, 400);
  empty(side, at[257]);
  assert.equal(side.levels.length, 143);
});

test("BookSide counts a re-used empty level as occupied, and an occupied one only once", () => {
  const { side, at } = bids(400);
  for (let p = 1; p <= 200; p++) empty(side, at[p]);
  // Orders arrive at 50 of the empty levels (each no longer empty) and at the top (already occupied).
  for (let p = 1; p <= 50; p++) assert.equal(occupy(side.levelFor(p)), at[p]);
  for (let k = 0; k < 20; k++) assert.equal(side.levelFor(400), at[400]);
  for (let p = 201; p <= 306; p++) empty(side, at[p]);
  assert.equal(side.levels.length, 400, "150 + 106 = 256 empty levels: no sweep yet");
  empty(side, at[307]);
  assert.equal(side.levels.length, 143, "the 257th sweeps");
  assert.equal(side.byPrice.get(50), at[50]);
});

test("BookSide.best drops empty levels from the top, uncounts them, and levelFor reuses the dropped level", () => {
  const { side, at } = bids(400);
  for (let p = 391; p <= 400; p++) empty(side, at[p]);
  assert.equal(side.best(), at[390]);
  assert.equal(side.levels.length, 390);
  assert.equal(side.byPrice.get(400), undefined);
  // The dropped levels are kept for reuse: the next new price gets the last one dropped.
  const reused = side.levelFor(1_000);
  assert.equal(reused, at[391]);
  assert.equal(reused.priceTicks, 1_000);
  assert.equal(side.byPrice.get(1_000), reused);
  assert.equal(side.levels.at(-1), reused);
  occupy(reused);
  // No empty level is left counted: 256 from the bottom do not sweep (391 levels), the 257th does.
  for (let p = 1; p <= 256; p++) empty(side, at[p]);
  assert.equal(side.levels.length, 391);
  empty(side, at[257]);
  assert.equal(side.levels.length, 134);
});
