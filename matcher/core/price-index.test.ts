import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { Level } from "./book";
import { PRICE_WINDOW, PriceIndex } from "./price-index";
import { MatchingEngine } from "./engine";
import { order } from "../testing/helpers";

const level = (price: number) => new Level("X-Y", price, true);

test("PriceIndex behaves like a Map under random add/delete/get, prices inside, at the edges of and far outside the window (fast-check)", () => {
  // Prices from a band around a drifting centre plus far outliers (up to MAX_SAFE_INTEGER), so that the
  // window is placed, left behind, re-centred, and levels move between the window and the far map.
  const price = fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min: 1, max: 3 * PRICE_WINDOW }) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        1,
        PRICE_WINDOW / 2,
        PRICE_WINDOW / 2 + 1,
        PRICE_WINDOW,
        PRICE_WINDOW + 1,
        Number.MAX_SAFE_INTEGER,
      ),
    },
  );
  const op = fc.record({ add: fc.boolean(), price });
  fc.assert(
    fc.property(fc.array(op, { minLength: 1, maxLength: 3 * PRICE_WINDOW }), (ops) => {
      const model = new Map<number, Level>();
      const index = new PriceIndex();
      for (const o of ops) {
        if (o.add) {
          if (model.has(o.price)) continue;
          const l = level(o.price);
          index.add(l);
          model.set(o.price, l);
        } else {
          const l = model.get(o.price);
          if (l === undefined) continue;
          index.delete(l);
          model.delete(o.price);
        }
        assert.equal(index.size, model.size);
        assert.equal(index.get(o.price), model.get(o.price));
      }
      for (const [p, l] of model) assert.equal(index.get(p), l);
      for (const o of ops) assert.equal(index.get(o.price), model.get(o.price));
      assert.equal(index.get(0), undefined);
    }),
    { numRuns: 40 },
  );
});

test("PriceIndex: the window starts half a window below the first price, at its exact edges, and never below tick 0", () => {
  const index = new PriceIndex();
  const first = level(10_000);
  index.add(first);
  const base = 10_000 - PRICE_WINDOW / 2;
  assert.equal(index.windowBase, base);
  // The window's first and last ticks, and one past each end (those go to the far map): all found.
  const edges = [base, base + PRICE_WINDOW - 1, base - 1, base + PRICE_WINDOW].map(level);
  for (const l of edges) index.add(l);
  for (const l of [first, ...edges]) assert.equal(index.get(l.priceTicks), l);
  assert.equal(index.windowBase, base, "a few levels outside do not move the window");
  for (const l of [first, ...edges]) index.delete(l);
  assert.equal(index.size, 0);
  for (const l of [first, ...edges]) assert.equal(index.get(l.priceTicks), undefined);

  const low = new PriceIndex();
  low.add(level(1));
  assert.equal(low.windowBase, 0);
  assert.equal(low.get(1)?.priceTicks, 1);
});

test("PriceIndex follows a book that drifts: the window re-centres once more levels lie outside it than inside", () => {
  const index = new PriceIndex();
  const live: Level[] = [];
  // A book of 300 levels whose prices climb one tick per new level, across ten windows.
  const start = 1_000_000;
  let top = start;
  for (; top < start + 10 * PRICE_WINDOW; top++) {
    const l = level(top);
    index.add(l);
    live.push(l);
    if (live.length > 300) index.delete(live.shift()!);
    if (top % 97 === 0) for (const x of live) assert.equal(index.get(x.priceTicks), x);
  }
  assert.equal(index.size, 300);
  for (const x of live) assert.equal(index.get(x.priceTicks), x);
  assert.ok(
    index.windowBase > top - 2 * PRICE_WINDOW && index.windowBase <= top,
    `window at ${index.windowBase} follows the book at ${top}`,
  );
  // Jumps of a whole window at a time: every level is still found wherever it is stored.
  for (let round = 0; round < 20; round++) {
    const added = Array.from({ length: 200 }, (_, k) => level(top + (round + 1) * PRICE_WINDOW + k));
    for (const l of added) index.add(l);
    for (const l of live) index.delete(l);
    live.splice(0, live.length, ...added);
    for (const l of live) assert.equal(index.get(l.priceTicks), l);
  }
  assert.equal(index.size, 200);
});

test("an engine whose prices spread over many windows matches like one whose prices sit in one window", () => {
  // The same orders at prices p and at p * 10,000 (spread over thousands of windows): same events up to the scale.
  const run = (scale: number) => {
    const e = new MatchingEngine({ markets: [{ symbol: "X-Y", minSizeLots: 1, maxSizeLots: 1_000 }] });
    const out: string[] = [];
    for (let i = 0; i < 400; i++) {
      const side = i % 2 === 0 ? "buy" : "sell";
      const p = side === "buy" ? 1_000 - (i % 37) : 990 + (i % 41);
      const placed = { ts: i, account: `a${i % 5}`, orderId: `o${i}`, symbol: "X-Y", side } as const;
      for (const ev of e.apply(order({ ...placed, priceTicks: p * scale, sizeLots: 1 + (i % 7) })))
        out.push(
          JSON.stringify(ev).replace(/"priceTicks":(\d+)/g, (_, x: string) => `"priceTicks":${Number(x) / scale}`),
        );
    }
    return out;
  };
  assert.deepEqual(run(10_000), run(1));
});
