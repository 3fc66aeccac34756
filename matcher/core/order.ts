// The engine's internal order node: one fixed-shape object per open order, linked into
// its price level's queue and its account's list (intrusive lists give O(1) removal).
import type { OrderStatus, OrderType, OrderView, Side, StpMode, TimeInForce } from "./types";
import type { Level } from "./book";
import type { AccountOrders } from "./accounts";

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
