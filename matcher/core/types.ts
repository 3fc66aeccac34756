// Public types of the pure matching engine: markets, commands, events and read views.
// Prices are integer ticks and sizes integer lots (safe integers); converting to token
// base units is the edge's job. Timestamps are integer milliseconds passed in by the caller.

export type Side = "buy" | "sell";

export type OrderType =
  | "market"
  | "limit"
  | "stop_loss"
  | "stop_loss_limit"
  | "take_profit"
  | "take_profit_limit"
  | "limit_maker";

export type TimeInForce = "GTC" | "IOC" | "FOK" | "GTD" | "POST_ONLY";

/** Self-trade prevention: what happens when an order would trade with an order of the same account. */
export type StpMode = "cancel_newest" | "cancel_oldest" | "cancel_both" | "decrement";

export const DEFAULT_STP_MODE: StpMode = "cancel_newest";

export interface MarketConfig {
  /** `BASE-QUOTE` */
  symbol: string;
  minSizeLots: number;
  maxSizeLots: number;
  /** Highest accepted price; defaults to Number.MAX_SAFE_INTEGER. */
  maxPriceTicks?: number;
}

/** An order's terms, as placed and as read back. */
export interface OrderTerms {
  symbol: string;
  side: Side;
  type: OrderType;
  timeInForce: TimeInForce;
  /** Limit price; for market, stop_loss and take_profit an optional protection price (worst accepted). */
  priceTicks?: number;
  triggerPriceTicks?: number;
  sizeLots: number;
}

export interface PlaceCommand extends OrderTerms {
  kind: "place";
  ts: number;
  account: string;
  orderId: string;
  clientOrderId?: string;
  /** GTD only: the order expires once a command's ts is >= expiresAt. */
  expiresAt?: number;
  hidden?: boolean;
  /** Iceberg: the displayed slice size. */
  icebergVisibleLots?: number;
  stp?: StpMode;
}

export interface CancelCommand {
  kind: "cancel";
  ts: number;
  account: string;
  orderId: string;
}

export interface CancelAllCommand {
  kind: "cancelAll";
  ts: number;
  account: string;
  symbol?: string;
}

export interface AmendCommand {
  kind: "amend";
  ts: number;
  account: string;
  orderId: string;
  /** New total size (filled part included); must stay above the filled size. */
  newSizeLots?: number;
  newPriceTicks?: number;
}

/** Advances time alone: expires GTD orders. */
export interface TickCommand {
  kind: "tick";
  ts: number;
}

export type Command = PlaceCommand | CancelCommand | CancelAllCommand | AmendCommand | TickCommand;
export type CommandKind = Command["kind"];

export type RejectCode =
  | "INVALID_SYMBOL"
  | "INVALID_ORDER_TYPE"
  | "INVALID_ORDER"
  | "INVALID_SIZE"
  | "INVALID_PRICE"
  | "INVALID_TRIGGER_PRICE"
  | "INVALID_EXPIRY"
  | "DUPLICATE_ORDER_ID"
  | "ORDER_NOT_FOUND"
  | "ORDER_NOT_AMENDABLE"
  | "POST_ONLY_WOULD_CROSS"
  | "FOK_NOT_FILLABLE";

export type CancelReason = "user" | "ioc_remainder" | "market_remainder" | "stp" | "resale_restricted";

/**
 * A market's resale rule (MatchingEngine.setResaleGate): may the sell order `sellOrderId` fill the account
 * `buyer` at `ts`? A refusal cancels the buy order (resting or incoming) with `resale_restricted`. Must be a
 * pure function of state the owner journals, so that replay decides the same.
 */
export type ResaleGate = (sellOrderId: string, buyer: string, ts: number) => boolean;

export type OrderStatus = "held" | "open" | "filled" | "cancelled" | "expired";

/** Read-only view of an order as the engine holds it (valid during the sink call only). */
export interface OrderView {
  readonly orderId: string;
  readonly clientOrderId: string | undefined;
  readonly account: string;
  readonly symbol: string;
  readonly side: Side;
  readonly type: OrderType;
  readonly timeInForce: TimeInForce;
  /** 0 when the order has no limit/protection price. */
  readonly priceTicks: number;
  /** 0 when the order is not a stop / take-profit. */
  readonly triggerPriceTicks: number;
  readonly sizeLots: number;
  readonly filledLots: number;
  readonly remainingLots: number;
  readonly cancelledLots: number;
  readonly hidden: boolean;
  /** 0 when the order is not an iceberg. */
  readonly icebergVisibleLots: number;
  /** 0 when the order has no expiry. */
  readonly expiresAt: number;
  readonly stp: StpMode;
  readonly status: OrderStatus;
  /** Sequence number of the order's `accepted` event: its arrival rank. */
  readonly acceptedSeq: number;
}

/**
 * Hot-path event consumer: one method per event kind, primitive arguments, no allocation.
 * Every call carries the engine's next sequence number (strictly increasing, gap-free).
 */
export interface EventSink {
  accepted(seq: number, ts: number, order: OrderView): void;
  rejected(seq: number, ts: number, command: Command, code: RejectCode, reason: string): void;
  /** maker and taker already reflect the fill. */
  trade(seq: number, ts: number, maker: OrderView, taker: OrderView, priceTicks: number, sizeLots: number): void;
  /** cancelledLots: the lots this event removes (a decrement may leave the order open). */
  cancelled(seq: number, ts: number, order: OrderView, reason: CancelReason, cancelledLots: number): void;
  expired(seq: number, ts: number, order: OrderView, expiredLots: number): void;
  triggered(seq: number, ts: number, order: OrderView, lastPriceTicks: number): void;
  amended(seq: number, ts: number, order: OrderView, priorityKept: boolean): void;
  /** Visible size at a price changed; newTotalLots 0 = the level is gone from the visible book. */
  level(seq: number, ts: number, symbol: string, side: Side, priceTicks: number, newTotalLots: number): void;
}

interface EventBase {
  seq: number;
  ts: number;
}

export interface AcceptedEvent extends EventBase {
  type: "accepted";
  symbol: string;
  orderId: string;
  clientOrderId?: string;
  account: string;
  side: Side;
  orderType: OrderType;
  timeInForce: TimeInForce;
  priceTicks?: number;
  triggerPriceTicks?: number;
  sizeLots: number;
  hidden: boolean;
  icebergVisibleLots?: number;
  expiresAt?: number;
  stp: StpMode;
}

export interface RejectedEvent extends EventBase {
  type: "rejected";
  command: CommandKind;
  orderId?: string;
  account?: string;
  symbol?: string;
  code: RejectCode;
  reason: string;
}

export interface TradeEvent extends EventBase {
  type: "trade";
  symbol: string;
  makerOrderId: string;
  takerOrderId: string;
  makerAccount: string;
  takerAccount: string;
  priceTicks: number;
  sizeLots: number;
  takerSide: Side;
  makerRemainingLots: number;
  takerRemainingLots: number;
}

export interface CancelledEvent extends EventBase {
  type: "cancelled";
  symbol: string;
  orderId: string;
  account: string;
  reason: CancelReason;
  cancelledLots: number;
  remainingLots: number;
}

export interface ExpiredEvent extends EventBase {
  type: "expired";
  symbol: string;
  orderId: string;
  account: string;
  expiredLots: number;
}

export interface TriggeredEvent extends EventBase {
  type: "triggered";
  symbol: string;
  orderId: string;
  account: string;
  triggerPriceTicks: number;
  lastPriceTicks: number;
}

export interface AmendedEvent extends EventBase {
  type: "amended";
  symbol: string;
  orderId: string;
  account: string;
  sizeLots: number;
  priceTicks: number;
  remainingLots: number;
  priorityKept: boolean;
}

export interface LevelEvent extends EventBase {
  type: "level";
  symbol: string;
  side: Side;
  priceTicks: number;
  newTotalLots: number;
}

export type EngineEvent =
  | AcceptedEvent
  | RejectedEvent
  | TradeEvent
  | CancelledEvent
  | ExpiredEvent
  | TriggeredEvent
  | AmendedEvent
  | LevelEvent;

/** A copy of an open order, for reads (getOrder, getOpenOrders) and balance locking. */
export interface OrderInfo extends OrderTerms {
  orderId: string;
  clientOrderId?: string;
  account: string;
  filledLots: number;
  remainingLots: number;
  cancelledLots: number;
  hidden: boolean;
  icebergVisibleLots?: number;
  expiresAt?: number;
  stp: StpMode;
  /** held = a stop waiting off the book for its trigger; open = resting on the book. */
  status: "held" | "open";
  acceptedSeq: number;
}

export interface Depth {
  symbol: string;
  /** [priceTicks, visibleLots], best first */
  bids: [number, number][];
  asks: [number, number][];
}
