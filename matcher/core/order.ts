// The engine's intrusive nodes, in one file because each links to the others: the order node (one
// fixed-shape object per open order), the price level whose queues it sits in, and its account's list
// (intrusive lists give O(1) removal). Levels live in their BookSide (book.ts).
import type { OrderStatus, OrderType, OrderView, Side, StpMode, TimeInForce } from "./types";

export class Order implements OrderView {
  // Fields touched by every lookup, match and cancel first: V8 lays them out in this order, so they share
  // the object's first cache lines (a lookup by id reads hashNext, idHash and orderId only).
  /** The next node in its OrderIndex bucket, and the index's hash of orderId. */
  hashNext: Order | null = null;
  idHash = 0;
  // Stryker disable all: init() sets every field below before any read, so these initial values are never observed
  orderId = "";
  /** Set while the order rests in a level queue. */
  level: Level | null = null;
  prev: Order | null = null;
  next: Order | null = null;
  remainingLots = 0;
  /** Lots shown at the head of the queue: remaining for plain orders, the slice for icebergs, 0 when hidden. */
  displayLots = 0;
  hidden = false;
  account = "";
  symbol = "";
  status: OrderStatus = "open";
  acc: AccountOrders | null = null;
  accPrev: Order | null = null;
  accNext: Order | null = null;
  /** In the engine's order map and its account's list (resting or held). */
  tracked = false;
  filledLots = 0;
  cancelledLots = 0;
  expiresAt = 0;
  isBuy = true;
  priceTicks = 0;
  icebergVisibleLots = 0;
  stp: StpMode = "cancel_newest";
  clientOrderId: string | undefined = undefined;
  side: Side = "buy";
  type: OrderType = "limit";
  timeInForce: TimeInForce = "GTC";
  triggerPriceTicks = 0;
  sizeLots = 0;
  acceptedSeq = 0;
  /** True for market, stop_loss and take_profit: never rests, remainder cancelled. */
  isMarket = false;
  // Stryker restore all

  /** (Re)initialises a fresh or recycled node; links are already null when it is closed. */
  init(
    orderId: string,
    clientOrderId: string | undefined,
    account: string,
    symbol: string,
    side: Side,
    type: OrderType,
    timeInForce: TimeInForce,
    priceTicks: number,
    triggerPriceTicks: number,
    sizeLots: number,
    hidden: boolean,
    icebergVisibleLots: number,
    expiresAt: number,
    stp: StpMode,
  ): this {
    this.orderId = orderId;
    this.clientOrderId = clientOrderId;
    this.account = account;
    this.symbol = symbol;
    this.side = side;
    this.isBuy = side === "buy";
    this.type = type;
    this.timeInForce = timeInForce;
    this.priceTicks = priceTicks;
    this.triggerPriceTicks = triggerPriceTicks;
    this.sizeLots = sizeLots;
    this.filledLots = 0;
    this.remainingLots = sizeLots;
    this.cancelledLots = 0;
    this.hidden = hidden;
    this.icebergVisibleLots = icebergVisibleLots;
    this.displayLots = 0;
    this.expiresAt = expiresAt;
    this.stp = stp;
    this.status = "open";
    this.acceptedSeq = 0;
    this.tracked = false;
    this.isMarket = type === "market" || type === "stop_loss" || type === "take_profit";
    return this;
  }

  /** The lots the order would show if it were (re)entering the visible queue now. */
  freshDisplayLots(): number {
    if (this.hidden) return 0;
    const slice = this.icebergVisibleLots;
    return slice > 0 && slice < this.remainingLots ? slice : this.remainingLots;
  }
}

/** A price level: two FIFO queues, visible orders first, then hidden ones (hidden orders yield to visible
 *  ones at the same price). */
export class Level {
  priceTicks: number;
  isBuy: boolean;
  symbol: string;
  side: Side;
  visHead: Order | null = null;
  visTail: Order | null = null;
  hidHead: Order | null = null;
  hidTail: Order | null = null;
  /** Sum of displayLots of the visible queue: what depth and level events show. */
  visibleLots = 0;
  orderCount = 0;

  constructor(symbol: string, priceTicks: number, isBuy: boolean) {
    this.symbol = symbol;
    this.priceTicks = priceTicks;
    this.isBuy = isBuy;
    this.side = isBuy ? "buy" : "sell";
  }

  /** Appends at the back of its queue (visible or hidden) and counts its display. */
  append(o: Order): void {
    o.level = this;
    o.next = null;
    if (o.hidden) {
      o.prev = this.hidTail;
      if (this.hidTail === null) this.hidHead = o;
      else this.hidTail.next = o;
      this.hidTail = o;
    } else {
      o.prev = this.visTail;
      if (this.visTail === null) this.visHead = o;
      else this.visTail.next = o;
      this.visTail = o;
      this.visibleLots += o.displayLots;
    }
    this.orderCount++;
  }

  /** Unlinks the order and removes its display from the visible total. */
  unlink(o: Order): void {
    const prev = o.prev;
    const next = o.next;
    if (o.hidden) {
      if (prev === null) this.hidHead = next;
      else prev.next = next;
      if (next === null) this.hidTail = prev;
      else next.prev = prev;
    } else {
      if (prev === null) this.visHead = next;
      else prev.next = next;
      if (next === null) this.visTail = prev;
      else next.prev = prev;
      this.visibleLots -= o.displayLots;
    }
    o.prev = null;
    o.next = null;
    o.level = null;
    this.orderCount--;
  }
}

/** An account's open orders (resting and held) in arrival order: O(1) to add and remove, in order for
 *  cancel-all and for reads. */
export class AccountOrders {
  account: string;
  head: Order | null = null;
  tail: Order | null = null;
  count = 0;
  constructor(account: string) {
    this.account = account;
  }
}
