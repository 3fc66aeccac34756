// The engine's internal order node: one fixed-shape object per open order, linked into
// its price level's queue and its account's list (intrusive lists give O(1) removal).
import type { OrderStatus, OrderType, OrderView, Side, StpMode, TimeInForce } from "./types";
import type { Level } from "./book";
import type { AccountOrders } from "./engine";

export class Order implements OrderView {
  orderId = "";
  clientOrderId: string | undefined = undefined;
  account = "";
  symbol = "";
  side: Side = "buy";
  isBuy = true;
  type: OrderType = "limit";
  timeInForce: TimeInForce = "GTC";
  priceTicks = 0;
  triggerPriceTicks = 0;
  sizeLots = 0;
  filledLots = 0;
  remainingLots = 0;
  cancelledLots = 0;
  hidden = false;
  icebergVisibleLots = 0;
  /** Lots shown at the head of the queue: remaining for plain orders, the slice for icebergs, 0 when hidden. */
  displayLots = 0;
  expiresAt = 0;
  stp: StpMode = "cancel_newest";
  status: OrderStatus = "open";
  acceptedSeq = 0;
  /** In the engine's order map and its account's list (resting or held). */
  tracked = false;
  /** True for market, stop_loss and take_profit: never rests, remainder cancelled. */
  isMarket = false;
  /** Set while the order rests in a level queue. */
  level: Level | null = null;
  prev: Order | null = null;
  next: Order | null = null;
  acc: AccountOrders | null = null;
  accPrev: Order | null = null;
  accNext: Order | null = null;

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
