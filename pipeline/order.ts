// The signed order as the Settlement contract sees it: the sdk's EIP-712 twin, plus the JSON form the
// pipeline stores durably (bigints as decimal strings).
import type { Address } from "viem";
import type { OrderType, TimeInForce } from "../matcher/core/types";
import type { Order, OrderSide } from "../sdk/eip712";

export { ORDER_TYPES, OrderSide, OrderFlags, getSettlementDomain, getDomainSeparator, type Order } from "../sdk/eip712";

/** The signed order with its EIP-712 digest (the contract's order hash and the engine's order id). */
export type { SignedOrder } from "../sdk/settle-batch";

/** The one typed order of a placement, converted once at the edge (the DEX intent in dex-service.ts; tests
 *  and benches through pipeline/testing/orders.ts): integer ticks and lots, the engine's time in force, the
 *  trigger in ticks. It travels beside the signed order (the intake's PlaceSignedInput) down to the matcher's
 *  command; the intake turns ticks and lots into the engine's numbers once and checks that the signed
 *  contract order says the same (price = priceTicks x tickSize, amount = sizeLots x lotSize), never working
 *  them out again from the signed fields. */
export interface TypedOrder {
  symbol: string;
  type: OrderType;
  timeInForce: TimeInForce;
  /** the signed price in ticks: the limit, or a market / stop order's protection price */
  priceTicks: bigint;
  sizeLots: bigint;
  /** stop / take-profit trigger in ticks; null for the other types */
  triggerPriceTicks: bigint | null;
}

export interface OrderJson {
  trader: Address;
  baseToken: Address;
  quoteToken: Address;
  side: number;
  price: string;
  amount: string;
  expiry: string;
  nonce: string;
  flags: number;
}

export function orderToJson(o: Order): OrderJson {
  return {
    trader: o.trader,
    baseToken: o.baseToken,
    quoteToken: o.quoteToken,
    side: o.side,
    price: o.price.toString(),
    amount: o.amount.toString(),
    expiry: o.expiry.toString(),
    nonce: o.nonce.toString(),
    flags: o.flags,
  };
}

export function orderFromJson(j: OrderJson): Order {
  return {
    trader: j.trader,
    baseToken: j.baseToken,
    quoteToken: j.quoteToken,
    side: j.side as OrderSide,
    price: BigInt(j.price),
    amount: BigInt(j.amount),
    expiry: BigInt(j.expiry),
    nonce: BigInt(j.nonce),
    flags: j.flags,
  };
}
