// Copies of engine state for readers: open orders as OrderInfo, visible depth levels.
import type { BookSide } from "./book";
import type { Order } from "./order";
import type { OrderInfo } from "./types";

export function visibleLevels(side: BookSide, max: number): [number, number][] {
  const out: [number, number][] = [];
  const levels = side.levels;
  for (let i = levels.length - 1; i >= 0 && out.length < max; i--) {
    const lvl = levels[i];
    if (lvl.visibleLots > 0) out.push([lvl.priceTicks, lvl.visibleLots]);
  }
  return out;
}

/** An order's optional terms as the engine holds them (0 = none). */
export interface HeldOptionalTerms {
  clientOrderId: string | undefined;
  priceTicks: number;
  triggerPriceTicks: number;
  icebergVisibleLots: number;
  expiresAt: number;
}

/** Sets on `into` (an event or a read's copy) the optional terms `o` has, leaving out the absent ones. */
export function setOptionalTerms(
  into: Partial<
    Pick<OrderInfo, "clientOrderId" | "priceTicks" | "triggerPriceTicks" | "icebergVisibleLots" | "expiresAt">
  >,
  o: HeldOptionalTerms,
): void {
  if (o.clientOrderId !== undefined) into.clientOrderId = o.clientOrderId;
  if (o.priceTicks !== 0) into.priceTicks = o.priceTicks;
  if (o.triggerPriceTicks !== 0) into.triggerPriceTicks = o.triggerPriceTicks;
  if (o.icebergVisibleLots !== 0) into.icebergVisibleLots = o.icebergVisibleLots;
  if (o.expiresAt !== 0) into.expiresAt = o.expiresAt;
}

export function toOrderInfo(o: Order): OrderInfo {
  const info: OrderInfo = {
    orderId: o.orderId,
    account: o.account,
    symbol: o.symbol,
    side: o.side,
    type: o.type,
    timeInForce: o.timeInForce,
    sizeLots: o.sizeLots,
    filledLots: o.filledLots,
    remainingLots: o.remainingLots,
    cancelledLots: o.cancelledLots,
    hidden: o.hidden,
    stp: o.stp,
    status: o.status === "held" ? "held" : "open",
    acceptedSeq: o.acceptedSeq,
  };
  setOptionalTerms(info, o);
  return info;
}
