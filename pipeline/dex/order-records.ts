// The DEX order records the DEX state keeps, made from the matcher service's events: a trade and its
// fills, an accepted or rejected placement (with the intent's fields journaled in its info), the order as
// the DexService answers it (strip).
import type { Address, Hex } from "viem";
import type { ServiceEvent } from "../match/matcher-service";
import type { OrderRecord } from "../dex-history";
import { dexTimeInForce, type DexFill, type DexOrder, type DexStatusReason, type DexTrade } from "../service";

type TradeEvent = Extract<ServiceEvent, { kind: "trade" }>;
type EngineServiceEvent = Extract<ServiceEvent, { kind: "engine" }>;

/** The public trade of a matched trade event. */
export function dexTradeOf(se: TradeEvent): DexTrade {
  const e = se.event;
  return {
    tradeId: String(e.seq),
    symbol: e.symbol,
    priceTicks: BigInt(e.priceTicks),
    sizeLots: BigInt(e.sizeLots),
    takerSide: e.takerSide,
    timestampMs: e.ts,
    makerOrderId: e.makerOrderId,
    takerOrderId: e.takerOrderId,
  };
}

/** The fill `r` got from `trade` (as maker or taker), applied to the record: filled size, quote, status. */
export function applyFill(r: OrderRecord, se: TradeEvent, trade: DexTrade, liquidity: "maker" | "taker"): DexFill {
  const isBuyer = r.side === "buy";
  const fill: DexFill = {
    tradeId: trade.tradeId,
    orderId: r.orderId,
    priceTicks: trade.priceTicks,
    sizeLots: trade.sizeLots,
    liquidity,
    feeUnits: isBuyer ? se.buyerFee : se.sellerFee,
    feeToken: (isBuyer ? se.baseToken : se.quoteToken) as Address,
    timestampMs: trade.timestampMs,
    settlement: "pending",
    txHash: null,
  };
  r.fills.push(fill);
  r.filledLots += trade.sizeLots;
  r.filledQuoteUnits += se.quoteAmount;
  r.status = r.filledLots >= r.sizeLots ? "filled" : "partially_filled";
  r.updatedAtMs = trade.timestampMs;
  return fill;
}

/** The record of an order the engine accepted. */
export function acceptedRecord(
  se: EngineServiceEvent,
  e: Extract<EngineServiceEvent["event"], { type: "accepted" }>,
  info: Record<string, unknown>,
): OrderRecord {
  return {
    ord: -1,
    hash: e.orderId as Hex,
    orderId: String(info.orderId ?? e.orderId),
    clientOrderId: String(info.clientOrderId ?? e.orderId),
    account: (se.order?.signed.order.trader ?? e.account) as Address,
    apiKeyId: (info.apiKeyId as string | null | undefined) ?? null,
    symbol: e.symbol,
    side: e.side,
    type: e.orderType,
    timeInForce: dexTimeInForce(e.timeInForce),
    priceTicks: info.priceTicks === null ? null : e.priceTicks !== undefined ? BigInt(e.priceTicks) : null,
    triggerPriceTicks: e.triggerPriceTicks !== undefined ? BigInt(e.triggerPriceTicks) : null,
    sizeLots: BigInt(e.sizeLots),
    filledLots: 0n,
    filledQuoteUnits: 0n,
    status: e.triggerPriceTicks !== undefined ? "pending_trigger" : "open",
    statusReason: null,
    createdAtMs: e.ts,
    updatedAtMs: e.ts,
    expiresAtMs: (info.expiresAtMs as number | null | undefined) ?? null,
    ...displayOf(info),
    fills: [],
  };
}

/** The record of a placement the engine rejected: it echoes what the client sent (the intent's fields,
 *  journaled in its info). */
export function rejectedRecord(
  o: NonNullable<EngineServiceEvent["order"]>,
  e: Extract<EngineServiceEvent["event"], { type: "rejected" }>,
  info: Record<string, unknown>,
): OrderRecord {
  return {
    ord: -1,
    hash: o.hash,
    orderId: String(info.orderId),
    clientOrderId: String(info.clientOrderId ?? info.orderId),
    account: o.signed.order.trader,
    apiKeyId: (info.apiKeyId as string | null | undefined) ?? null,
    symbol: o.market.symbol,
    side: o.side,
    type: o.type,
    timeInForce: dexTimeInForce(o.timeInForce),
    priceTicks: ticksOf(info.priceTicks),
    triggerPriceTicks: ticksOf(info.triggerPriceTicks),
    sizeLots: o.sizeLots,
    filledLots: 0n,
    filledQuoteUnits: 0n,
    status: "rejected",
    statusReason:
      e.code === "POST_ONLY_WOULD_CROSS"
        ? "post_only_would_take"
        : e.code === "FOK_NOT_FILLABLE"
          ? "fok_not_fillable"
          : e.code.toLowerCase(),
    createdAtMs: e.ts,
    updatedAtMs: e.ts,
    expiresAtMs: (info.expiresAtMs as number | null | undefined) ?? null,
    ...displayOf(info),
    fills: [],
  };
}

/** A journaled intent's tick field (a decimal string, or null / absent). */
export function ticksOf(v: unknown): bigint | null {
  return typeof v === "string" || typeof v === "number" ? BigInt(v) : null;
}

/** The display options a placement's info carries (hidden, iceberg slice). */
export function displayOf(info: Record<string, unknown>): Pick<DexOrder, "hidden" | "icebergVisibleLots"> {
  return { hidden: info.hidden === true, icebergVisibleLots: ticksOf(info.icebergVisibleLots) };
}

export function clientKey(account: string, clientOrderId: string): string {
  return `${account.toLowerCase()}\n${clientOrderId}`;
}

export function cancelReason(r: string): DexStatusReason {
  return r === "user"
    ? "user_cancelled"
    : r === "stp"
      ? "self_trade_prevention"
      : r === "market_remainder"
        ? "no_liquidity"
        : r;
}

/** The order without its fills, hash and ord, written out field by field: a rest spread that leaves keys out
 *  takes V8's slow generic copy, and this runs for every order event and every answer. `Fields` makes the
 *  compiler name any field of DexOrder missing here. */
type Fields = { [K in keyof Required<DexOrder>]: unknown };
export function strip(r: OrderRecord): DexOrder {
  const o = {
    orderId: r.orderId,
    clientOrderId: r.clientOrderId,
    account: r.account,
    apiKeyId: r.apiKeyId,
    symbol: r.symbol,
    side: r.side,
    type: r.type,
    timeInForce: r.timeInForce,
    priceTicks: r.priceTicks,
    triggerPriceTicks: r.triggerPriceTicks,
    sizeLots: r.sizeLots,
    filledLots: r.filledLots,
    filledQuoteUnits: r.filledQuoteUnits,
    status: r.status,
    statusReason: r.statusReason,
    createdAtMs: r.createdAtMs,
    updatedAtMs: r.updatedAtMs,
    expiresAtMs: r.expiresAtMs,
    hidden: r.hidden,
    icebergVisibleLots: r.icebergVisibleLots,
  } satisfies Fields as DexOrder;
  // as the spread did: an optional field the record lacks stays absent
  if (r.hidden === undefined) delete o.hidden;
  if (r.icebergVisibleLots === undefined) delete o.icebergVisibleLots;
  return o;
}
