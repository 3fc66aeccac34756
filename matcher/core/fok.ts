// The fill-or-kill check: can the order fill entirely right now, without changing anything?
import type { BookSide } from "./book";
import type { Order } from "./order";
import type { ResaleGate } from "./types";

/**
 * Dry run of a FOK: the lots it would fill, walking makers as the match would. A maker of the same
 * account ends the count (the real match would cancel or decrement the taker there), except under
 * cancel_oldest, where it is skipped. Iceberg reserve refills behind such a maker, so ahead of it
 * only the shown slice counts.
 */
export function fokFillable(opposite: BookSide, o: Order, gate: ResaleGate | null = null, ts = 0): boolean {
  const levels = opposite.levels;
  const skipSelf = o.stp === "cancel_oldest";
  // a maker the resale rule refuses: a resting buy is cancelled (skipped), a resting sell ends the taker
  const refused = (mk: Order) =>
    gate !== null && !(o.isBuy ? gate(mk.orderId, o.account, ts) : gate(o.orderId, mk.account, ts));
  let got = 0;
  for (let i = levels.length - 1; i >= 0; i--) {
    const lvl = levels[i];
    if (lvl.orderCount === 0) continue;
    if (o.isBuy ? lvl.priceTicks > o.priceTicks : lvl.priceTicks < o.priceTicks) break;
    let ahead = 0;
    let selfInVisible = false;
    for (let mk = lvl.visHead; mk !== null; mk = mk.next) {
      if (mk.account === o.account || refused(mk)) {
        if (mk.account === o.account ? skipSelf : !o.isBuy) continue;
        selfInVisible = true;
        break;
      }
      ahead += mk.displayLots;
    }
    if (selfInVisible) return got + ahead >= o.sizeLots;
    for (let mk = lvl.visHead; mk !== null; mk = mk.next)
      if (mk.account !== o.account && !refused(mk)) got += mk.remainingLots;
    if (got >= o.sizeLots) return true;
    for (let mk = lvl.hidHead; mk !== null; mk = mk.next) {
      if (mk.account === o.account || refused(mk)) {
        if (mk.account === o.account ? skipSelf : !o.isBuy) continue;
        return false;
      }
      got += mk.remainingLots;
      if (got >= o.sizeLots) return true;
    }
  }
  return got >= o.sizeLots;
}
