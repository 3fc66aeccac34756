// The signed order as the Settlement contract sees it (EIP-712 "Settlement" v1), and its hashing.
// Until `sdk/eip712.ts` lands this file holds the shapes the contract engineer published; the
// pipeline imports only from here so that switching to the sdk is a one-file change.
import { hashTypedData, type Address, type Hex, type TypedDataDomain } from "viem";

export const ORDER_TYPES = {
  Order: [
    { name: "trader", type: "address" },
    { name: "baseToken", type: "address" },
    { name: "quoteToken", type: "address" },
    { name: "side", type: "uint8" },
    { name: "price", type: "uint256" },
    { name: "amount", type: "uint256" },
    { name: "expiry", type: "uint64" },
    { name: "nonce", type: "uint256" },
    { name: "flags", type: "uint8" },
  ],
} as const;

export const OrderSide = { BUY: 0, SELL: 1 } as const;
export type OrderSide = (typeof OrderSide)[keyof typeof OrderSide];
/** flags bit 0: the order may only be the maker of a trade. */
export const ORDER_FLAG_POST_ONLY = 1;

export interface Order {
  trader: Address;
  baseToken: Address;
  quoteToken: Address;
  side: OrderSide;
  /** quote base units per 1e18 base units */
  price: bigint;
  /** base units */
  amount: bigint;
  /** unix seconds */
  expiry: bigint;
  nonce: bigint;
  flags: number;
}

export interface SignedOrder {
  order: Order;
  signature: Hex;
}

export function settlementDomain(chainId: number, verifyingContract: Address): TypedDataDomain {
  return { name: "Settlement", version: "1", chainId, verifyingContract };
}

export function getOrderHash(domain: TypedDataDomain, order: Order): Hex {
  return hashTypedData({ domain, types: ORDER_TYPES, primaryType: "Order", message: order });
}

/** JSON-safe form (bigints as decimal strings) for journals, files and worker messages. */
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
