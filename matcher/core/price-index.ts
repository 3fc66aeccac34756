// A book side's price levels by price: a window of WINDOW consecutive ticks in a plain array (one bounds
// check and one load per lookup, nothing allocated per new price), and a Map for the prices outside it.
// It replaces a Map<number, Level> whose get/set were ~7 % of the steady book's time and whose tables,
// rebuilt as prices came and went, were most of what the engine allocated (docs/measurements.md).
// A live book stays within a band of ticks around its mid, so nearly every price falls in the window; the
// window follows the book: it is placed around the first price given to an empty index, and re-centred on
// a new price when more levels lie outside it than inside (at most once per as many insertions as the move
// touches slots and levels, so its cost stays O(1) per insertion whatever the prices). Only where a level is stored changes,
// never which level a price gives: no event depends on the window.
import type { Level } from "./order";

/** Ticks covered by the window (a power of two; 16 KB of slots). */
export const PRICE_WINDOW = 4096;

/** A packed array of nulls (a holey one would pay a hole check on every read). */
function emptySlots(n: number): (Level | null)[] {
  const b: (Level | null)[] = [];
  for (let i = 0; i < n; i++) b.push(null);
  return b;
}

export class PriceIndex {
  private readonly slots: (Level | null)[] = emptySlots(PRICE_WINDOW);
  /** The price of slots[0]. */
  private base = 0;
  private inWindow = 0;
  private readonly far = new Map<number, Level>();
  /** Insertions since the window last moved (a re-centring waits for as many as it costs). */
  private sinceMove = PRICE_WINDOW;

  get size(): number {
    return this.inWindow + this.far.size;
  }

  /** The first price of the window (for tests). */
  get windowBase(): number {
    return this.base;
  }

  get(priceTicks: number): Level | undefined {
    const i = priceTicks - this.base;
    if (i >= 0 && i < PRICE_WINDOW) {
      const lvl = this.slots[i];
      if (lvl !== null) return lvl;
    }
    return this.far.size === 0 ? undefined : this.far.get(priceTicks);
  }

  /** Adds a level for a price that has none. */
  add(lvl: Level): void {
    const p = lvl.priceTicks;
    this.sinceMove++;
    if (this.inWindow === 0 && this.far.size === 0) this.moveTo(p);
    let i = p - this.base;
    // Re-centre when the window holds fewer levels than the far map, at most once per `cost` insertions
    // (what a re-centring touches), so the work stays O(1) per insertion however the prices spread.
    if (
      !(i >= 0 && i < PRICE_WINDOW) &&
      this.far.size >= this.inWindow &&
      this.sinceMove >= (this.inWindow > 0 ? PRICE_WINDOW : 0) + this.far.size
    ) {
      this.recentre(p);
      i = p - this.base;
    }
    if (i >= 0 && i < PRICE_WINDOW) {
      this.slots[i] = lvl;
      this.inWindow++;
    } else this.far.set(p, lvl);
  }

  /** Removes the level stored for its price. */
  delete(lvl: Level): void {
    const i = lvl.priceTicks - this.base;
    if (i >= 0 && i < PRICE_WINDOW && this.slots[i] === lvl) {
      this.slots[i] = null;
      this.inWindow--;
    } else this.far.delete(lvl.priceTicks);
  }

  /** An empty window starting half a window below `priceTicks` (never below tick 0). */
  private moveTo(priceTicks: number): void {
    const half = PRICE_WINDOW / 2;
    this.base = priceTicks > half ? priceTicks - half : 0;
    this.sinceMove = 0;
  }

  /** Centres the window on `priceTicks`, moving every level to where the new window puts it. */
  private recentre(priceTicks: number): void {
    const all: Level[] = [...this.far.values()];
    const slots = this.slots;
    for (let i = 0; this.inWindow > 0 && i < PRICE_WINDOW; i++) {
      const lvl = slots[i];
      if (lvl !== null) {
        all.push(lvl);
        slots[i] = null;
        this.inWindow--;
      }
    }
    this.far.clear();
    this.moveTo(priceTicks);
    for (const lvl of all) {
      const i = lvl.priceTicks - this.base;
      if (i >= 0 && i < PRICE_WINDOW) {
        slots[i] = lvl;
        this.inWindow++;
      } else this.far.set(lvl.priceTicks, lvl);
    }
  }
}
