// The fill-or-kill check: can the order fill entirely right now, without changing anything?
import type { BookSide } from "./book";
import type { Order } from "./order";

/**
 * Dry run of a FOK: the lots it would fill, walking makers as the match would. A maker of the same
 * account ends the count (the real match would cancel or decrement the taker there), except under
 * cancel_oldest, where it is skipped. Iceberg reserve refills behind such a maker, so ahead of it
 * only the shown slice counts.
 */
export function fokFillable(opposite: BookSide, o: Order): boolean {
  const levels = opposite.levels;
  const skipSelf = o.stp === "cancel_oldest";
  let got = 0;
  for (let i = levels.length - 1; i >= 0; i--) {
    const lvl = levels[i];
    if (lvl.orderCount === 0) continue;
    if (o.isBuy ? lvl.priceTicks > o.priceTicks : lvl.priceTicks < o.priceTicks) break;
    let ahead = 0;
    let selfInVisible = false;
    for (let mk = lvl.visHead; mk !== null; mk = mk.next) {
      if (mk.account === o.account) {
        if (skipSelf) continue;
        selfInVisible = true;
        break;
      }
      ahead += mk.displayLots;
    }
    if (selfInVisible) return got + ahead >= o.sizeLots;
    for (let mk = lvl.visHead; mk !== null; mk = mk.next) if (mk.account !== o.account) got += mk.remainingLots;
    if (got >= o.sizeLots) return true;
    for (let mk = lvl.hidHead; mk !== null; mk = mk.next) {
      if (mk.account === o.account) {
        if (skipSelf) continue;
        return false;
      }
      got += mk.remainingLots;
      if (got >= o.sizeLots) return true;
    }
  }
  return got >= o.sizeLots;
}
