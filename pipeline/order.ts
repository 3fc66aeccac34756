// The signed order as the Settlement contract sees it: the sdk's EIP-712 twin, plus the JSON form the
// pipeline stores durably (bigints as decimal strings).
import type { Address, Hex } from "viem";
import type { Order, OrderSide } from "../sdk/eip712";

export { ORDER_TYPES, OrderSide, OrderFlags, getSettlementDomain, getDomainSeparator, type Order } from "../sdk/eip712";

export interface SignedOrder {
  order: Order;
  signature: Hex;
  /** the EIP-712 digest: the contract's order hash and the engine's order id */
  hash: Hex;
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
