// Price levels and one side of a book. Each level keeps two FIFO queues: visible orders first,
// then hidden ones (hidden orders yield to visible ones at the same price). A side keeps its
// levels in an array sorted worst-to-best, so the best level is the last element (O(1)), plus an
// index from price to level (price-index.ts). A level that empties away from the top stays in place
// (marked empty) and is reused or swept later: removing it eagerly would cost an O(levels) splice per cancel.
import { Level } from "./order";
import { PriceIndex } from "./price-index";

export { Level };

/** Empty levels a side keeps for reuse. */
const SPARE_LEVELS = 1_024;

export class BookSide {
  readonly isBuy: boolean;
  readonly symbol: string;
  /** Sorted worst first, best last. May contain empty levels below the top. */
  levels: Level[] = [];
  readonly byPrice = new PriceIndex();
  private emptyCount = 0;
  /** Dropped (empty) levels kept for reuse: prices come and go at the top of a book all the time, and
   *  recycling their levels keeps that churn out of the garbage collector. */
  private readonly spare: Level[] = [];

  constructor(symbol: string, isBuy: boolean) {
    this.symbol = symbol;
    this.isBuy = isBuy;
  }

  /** The best non-empty level, dropping empty ones from the top. */
  best(): Level | undefined {
    const levels = this.levels;
    let n = levels.length;
    while (n > 0) {
      const top = levels[n - 1];
      if (top.orderCount > 0) return top;
      levels.pop();
      this.byPrice.delete(top);
      this.release(top);
      this.emptyCount--;
      n--;
    }
    return undefined;
  }

  /** The level at a price, created (in sorted position) when missing. */
  levelFor(priceTicks: number): Level {
    // Most orders join the best level: check it before the map.
    const n0 = this.levels.length;
    let lvl =
      n0 > 0 && this.levels[n0 - 1].priceTicks === priceTicks ? this.levels[n0 - 1] : this.byPrice.get(priceTicks);
    if (lvl !== undefined) {
      if (lvl.orderCount === 0) this.emptyCount--;
      return lvl;
    }
    lvl = this.spare.pop();
    if (lvl === undefined) lvl = new Level(this.symbol, priceTicks, this.isBuy);
    else lvl.priceTicks = priceTicks;
    this.byPrice.add(lvl);
    const levels = this.levels;
    // Sorted by "goodness": ascending price for bids, descending for asks.
    let lo = 0;
    let hi = levels.length;
    const n = hi;
    // Most new levels appear at or near the top: check there before a binary search.
    if (n === 0 || this.better(priceTicks, levels[n - 1].priceTicks)) {
      levels.push(lvl);
      return lvl;
    }
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.better(priceTicks, levels[mid].priceTicks)) lo = mid + 1;
      else hi = mid;
    }
    levels.splice(lo, 0, lvl);
    return lvl;
  }

  /** Call after an order left the level; the counter drives the sweep of empty levels. */
  noteMaybeEmpty(lvl: Level): void {
    if (lvl.orderCount !== 0) return;
    this.emptyCount++;
    // Stryker disable next-line ConditionalExpression,EqualityOperator,LogicalOperator,ArithmeticOperator: when to sweep is a cost trade-off, not behaviour: empty levels are skipped whether swept or not (boundaries.test.ts checks the book across a sweep)
    if (this.emptyCount > 256 && this.emptyCount * 2 > this.levels.length) this.sweepEmpty();
  }

  private sweepEmpty(): void {
    const kept: Level[] = [];
    for (const lvl of this.levels) {
      if (lvl.orderCount > 0) kept.push(lvl);
      else {
        this.byPrice.delete(lvl);
        this.release(lvl);
      }
    }
    this.levels = kept;
    this.emptyCount = 0;
  }

  /** Keeps an empty level, out of the book, for levelFor to reuse (its queues are empty: nothing to reset). */
  private release(lvl: Level): void {
    // Stryker disable next-line ConditionalExpression,EqualityOperator: the cap only bounds memory; a reused or a new level behave the same
    if (this.spare.length < SPARE_LEVELS) this.spare.push(lvl);
  }

  private better(a: number, b: number): boolean {
    return this.isBuy ? a > b : a < b;
  }
}
