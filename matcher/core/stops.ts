// Stop and take-profit orders held off the book until the last trade price crosses their trigger.
// "Up" stops fire when a trade prints at or above the trigger (buy stop_loss, sell take_profit);
// "down" stops when a trade prints at or below it (sell stop_loss, buy take_profit).
// Each list is sorted so that the next to fire is the last element: popping is O(1).
import type { Order } from "./order";

/** Whether this held order fires on a rising price. */
export function firesOnRise(o: Order): boolean {
  const isStopLoss = o.type === "stop_loss" || o.type === "stop_loss_limit";
  return isStopLoss ? o.isBuy : !o.isBuy;
}

/** Whether a trade at priceTicks would fire the order. */
export function wouldFire(o: Order, priceTicks: number): boolean {
  return firesOnRise(o) ? priceTicks >= o.triggerPriceTicks : priceTicks <= o.triggerPriceTicks;
}

export class StopBook {
  /** Descending by (trigger, seq): the lowest trigger is last. */
  up: Order[] = [];
  /** Ascending by (trigger, seq): the highest trigger is last. */
  down: Order[] = [];

  get size(): number {
    return this.up.length + this.down.length;
  }

  add(o: Order): void {
    const list = firesOnRise(o) ? this.up : this.down;
    list.splice(this.position(list, o, firesOnRise(o)), 0, o);
  }

  remove(o: Order): void {
    const rise = firesOnRise(o);
    const list = rise ? this.up : this.down;
    const i = this.position(list, o, rise);
    if (list[i] === o) list.splice(i, 1);
  }

  /** Moves every order a trade at priceTicks fires into `out`, in arrival order. */
  collect(priceTicks: number, out: Order[]): void {
    const start = out.length;
    const up = this.up;
    while (up.length > 0 && up[up.length - 1].triggerPriceTicks <= priceTicks) out.push(up.pop()!);
    const down = this.down;
    while (down.length > 0 && down[down.length - 1].triggerPriceTicks >= priceTicks) out.push(down.pop()!);
    if (out.length - start > 1) {
      const batch = out.splice(start).sort((a, b) => a.acceptedSeq - b.acceptedSeq);
      for (const o of batch) out.push(o);
    }
  }

  /** First index whose key is not "before" o in the list's order. */
  private position(list: Order[], o: Order, descending: boolean): number {
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const m = list[mid];
      const cmp = m.triggerPriceTicks - o.triggerPriceTicks || m.acceptedSeq - o.acceptedSeq;
      if (descending ? cmp > 0 : cmp < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
