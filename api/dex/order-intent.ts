// POST /v1/orders body (or a gRPC OrderRequest) -> the service's integer intent. Checks the type and
// time-in-force combinations of spec 3.2 and the exact grid of the market; for wallet-signed orders,
// that the signed EIP-712 fields say the same thing as the spec fields.
import { getAddress, type Hex } from "viem";
import { ApiError } from "../errors";
import { orderFlagsFor } from "../../sdk/eip712";
import { orderToWire } from "../../sdk/orders";
import type { PlaceOrderBody } from "./schemas";
import {
  DEX_ORDER_TYPES,
  DEX_TIME_IN_FORCE,
  ORDER_TYPE_RULES,
  dexTimeInForce,
  type MarketSpec,
  type DexOrderIntent,
  type DexOrderType,
  type DexService,
  type DexTimeInForce,
  type SettlementOrder,
} from "../../pipeline/service";
import { decimalPriceToTicks, sizeToLots, type GridResult } from "./units";

/** Spec 3.2's allowed time in force per type (the engine's table) in the payloads' case; the first is the default. */
const allowedTimeInForce = (type: DexOrderType): DexTimeInForce[] =>
  ORDER_TYPE_RULES[type].timeInForce.map(dexTimeInForce);

export function findMarket(service: DexService, symbol: string): MarketSpec {
  const m = service.listMarkets().find((x) => x.symbol === symbol);
  if (!m) throw new ApiError("INVALID_SYMBOL", `trading pair ${symbol} is not supported`, { symbol });
  return m;
}

function grid(field: string, r: GridResult, m: MarketSpec): bigint {
  if (r.ok) return r.value;
  const messages = {
    not_a_number: `${field} must be a finite decimal number`,
    not_positive: `${field} must be greater than zero`,
    off_grid: `${field} is not a multiple of the market's ${field.endsWith("size") ? "lot" : "tick"} size`,
    too_large: `${field} is too large`,
  };
  throw new ApiError("INVALID_REQUEST", messages[r.reason], { field, reason: r.reason, symbol: m.symbol });
}

export interface OrderFields {
  type: string;
  side: "buy" | "sell";
  price?: number | string;
  size: number | string;
  time_in_force?: string;
  trigger_price?: number | string;
  expires_at?: number;
  hidden?: boolean;
  iceberg_visible_size?: number | string;
}

/** A price field in ticks: required when `needed`; otherwise absent, or refused with `refusal`, or (refusal
 *  null) only checked against the grid and not used. */
function priceField(
  m: MarketSpec,
  f: OrderFields,
  field: "price" | "trigger_price",
  type: string,
  needed: boolean,
  refusal: string | null,
): bigint | null {
  const v = f[field];
  if (needed) {
    if (v === undefined) throw new ApiError("INVALID_REQUEST", `${field} is required for ${type} orders`, { field });
    return grid(field, decimalPriceToTicks(m, v), m);
  }
  if (v === undefined) return null;
  if (refusal !== null) throw new ApiError("INVALID_REQUEST", refusal, { field });
  grid(field, decimalPriceToTicks(m, v), m);
  return null;
}

/** Type, time in force, price, trigger and size as integers; throws ApiError. */
export function parseOrderFields(m: MarketSpec, f: OrderFields, nowMs: number, signedMarket = false) {
  const { type, rule, timeInForce } = parseTypeAndTimeInForce(f);
  // A market order may carry a price only when it is the signed order's protection price.
  const priceTicks = priceField(
    m,
    f,
    "price",
    type,
    rule.needsPrice,
    signedMarket ? null : `price is not allowed for ${type} orders`,
  );
  const triggerPriceTicks = priceField(
    m,
    f,
    "trigger_price",
    type,
    rule.needsTrigger,
    "trigger_price is only for stop and take-profit orders",
  );
  const sizeLots = grid("size", sizeToLots(m, f.size), m);
  if (sizeLots < m.minLots)
    throw new ApiError("INVALID_REQUEST", "size is below the market's minimum", {
      field: "size",
      reason: "below_minimum",
    });
  let expiresAtMs: number | null = null;
  if (timeInForce === "gtd") {
    if (f.expires_at === undefined)
      throw new ApiError("INVALID_REQUEST", "expires_at (Unix ms) is required for gtd orders", { field: "expires_at" });
    if (f.expires_at <= nowMs)
      throw new ApiError("INVALID_REQUEST", "expires_at is in the past", { field: "expires_at" });
    expiresAtMs = f.expires_at;
  } else if (f.expires_at !== undefined) {
    throw new ApiError("INVALID_REQUEST", "expires_at is only for gtd orders", { field: "expires_at" });
  }
  const { hidden, icebergVisibleLots } = parseDisplay(m, f, rule.needsPrice, timeInForce, sizeLots);
  return { type, timeInForce, priceTicks, triggerPriceTicks, sizeLots, expiresAtMs, hidden, icebergVisibleLots };
}

/** The order type and its time in force (the type's first when none is given), checked against the table. */
function parseTypeAndTimeInForce(f: OrderFields) {
  if (!(DEX_ORDER_TYPES as readonly string[]).includes(f.type)) {
    throw new ApiError("INVALID_ORDER_TYPE", `order type ${f.type} is not recognized`, {
      type: f.type,
      allowed: DEX_ORDER_TYPES,
    });
  }
  const type = f.type as DexOrderType;
  const rule = ORDER_TYPE_RULES[type];
  const allowed = allowedTimeInForce(type);
  const tifText = f.time_in_force?.toLowerCase() ?? allowed[0];
  if (!(DEX_TIME_IN_FORCE as readonly string[]).includes(tifText)) {
    throw new ApiError("INVALID_REQUEST", `time_in_force ${f.time_in_force} is not recognized`, {
      field: "time_in_force",
      allowed: DEX_TIME_IN_FORCE,
    });
  }
  const timeInForce = tifText as DexTimeInForce;
  if (!allowed.includes(timeInForce)) {
    throw new ApiError("INVALID_ORDER_TYPE", `order type ${type} does not allow time_in_force ${timeInForce}`, {
      type,
      time_in_force: timeInForce,
      allowed,
    });
  }
  return { type, rule, timeInForce };
}

/** Hidden and iceberg: display options of an order that can rest (the engine's rule, checked here first). */
function parseDisplay(
  m: MarketSpec,
  f: OrderFields,
  needsPrice: boolean,
  timeInForce: DexTimeInForce,
  sizeLots: bigint,
): { hidden: boolean; icebergVisibleLots: bigint | null } {
  const rests = needsPrice && timeInForce !== "ioc" && timeInForce !== "fok";
  const hidden = f.hidden === true;
  if (hidden && !rests)
    throw new ApiError("INVALID_REQUEST", "only orders that can rest (limit types, not ioc or fok) may be hidden", {
      field: "hidden",
    });
  let icebergVisibleLots: bigint | null = null;
  if (f.iceberg_visible_size !== undefined) {
    icebergVisibleLots = grid("iceberg_visible_size", sizeToLots(m, f.iceberg_visible_size), m);
    if (!rests)
      throw new ApiError("INVALID_REQUEST", "only orders that can rest (limit types, not ioc or fok) may be icebergs", {
        field: "iceberg_visible_size",
      });
    if (hidden)
      throw new ApiError("INVALID_REQUEST", "an order is hidden or an iceberg, not both", {
        field: "iceberg_visible_size",
      });
    if (icebergVisibleLots > sizeLots)
      throw new ApiError("INVALID_REQUEST", "iceberg_visible_size must not exceed size", {
        field: "iceberg_visible_size",
      });
  }
  return { hidden, icebergVisibleLots };
}

export type ParsedOrderFields = ReturnType<typeof parseOrderFields>;

/** The contract's struct as the body's `order` (the SDK's encoding: snake_case, integers as decimal strings):
 *  the inverse of the decoding in `checkSignedOrder`, for clients and tests that build wallet-signed bodies. */
export const signedOrderToWire = (order: SettlementOrder) => orderToWire(order);

/** The body's `order` as the contract's struct, checked against the spec fields. */
export function checkSignedOrder(
  m: MarketSpec,
  body: PlaceOrderBody,
  p: ParsedOrderFields,
  nowMs: number,
): { order: SettlementOrder; signature: Hex } {
  const o = body.order!;
  const order: SettlementOrder = {
    trader: getAddress(o.trader),
    baseToken: getAddress(o.base_token),
    quoteToken: getAddress(o.quote_token),
    side: o.side,
    price: BigInt(o.price),
    amount: BigInt(o.amount),
    expiry: BigInt(o.expiry),
    nonce: BigInt(o.nonce),
    flags: o.flags,
  };
  const mismatch = (field: string, expected: string, got: string) => {
    throw new ApiError("INVALID_REQUEST", `signed order ${field} does not match the order fields`, {
      reason: "signed_order_mismatch",
      field,
      expected,
      got,
    });
  };
  if (order.baseToken.toLowerCase() !== m.baseToken.toLowerCase()) mismatch("base_token", m.baseToken, order.baseToken);
  if (order.quoteToken.toLowerCase() !== m.quoteToken.toLowerCase())
    mismatch("quote_token", m.quoteToken, order.quoteToken);
  const side = body.side === "buy" ? 0 : 1;
  if (order.side !== side) mismatch("side", String(side), String(order.side));
  const amount = p.sizeLots * m.lotSize;
  if (order.amount !== amount) mismatch("amount", amount.toString(), order.amount.toString());
  const limitTicks =
    p.priceTicks ?? (body.price !== undefined ? (decimalPriceToTicks(m, body.price) as { value: bigint }).value : null);
  if (limitTicks !== null && order.price !== limitTicks * m.tickSize)
    mismatch("price", (limitTicks * m.tickSize).toString(), order.price.toString());
  if (order.price % m.tickSize !== 0n || order.price === 0n)
    mismatch("price", "a positive multiple of the tick", order.price.toString());
  const postOnly = orderFlagsFor(p.type, p.timeInForce);
  if ((order.flags & 1) !== postOnly) mismatch("flags", String(postOnly), String(order.flags));
  if (order.flags & ~1) mismatch("flags", "reserved bits 0", String(order.flags));
  if (order.expiry * 1000n <= BigInt(nowMs)) {
    throw new ApiError("INVALID_REQUEST", "the signed order has expired", { reason: "order_expired", field: "expiry" });
  }
  // GTD: the book drops the order at expires_at, so the signature must last at least that long (sign
  // ceil(expires_at / 1000) + the pipeline's 10 s settlement margin for it to leave exactly at expires_at)
  if (p.timeInForce === "gtd" && order.expiry * 1000n < BigInt(p.expiresAtMs!)) {
    mismatch("expiry", `at least ${(BigInt(p.expiresAtMs!) + 999n) / 1000n}`, order.expiry.toString());
  }
  return { order, signature: body.signature as Hex };
}

export function intentOf(
  symbol: string,
  side: "buy" | "sell",
  p: ParsedOrderFields,
  ids: { orderId: string; clientOrderId: string },
  receivedAtMs: number,
): DexOrderIntent {
  return { ...ids, symbol, side, ...p, receivedAtMs };
}
