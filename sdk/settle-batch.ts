// Builds the arguments of Settlement.settle from signed orders and fills that name orders by hash.
// The contract wants every order once, sorted by strictly increasing order hash (so that no order can
// appear twice and be overfilled), and fills that point at orders by index.
import type { Hex } from "viem";
import type { Order } from "./eip712";

export interface SignedOrder {
  order: Order;
  signature: Hex;
  /** getOrderHash(domain, order) */
  hash: Hex;
}

export interface FillByHash {
  makerHash: Hex;
  takerHash: Hex;
  baseAmount: bigint;
  price: bigint;
}

export interface SettleArgs {
  orders: Order[];
  signatures: Hex[];
  fills: { makerIndex: number; takerIndex: number; baseAmount: bigint; price: bigint }[];
}

export function buildSettleArgs(signedOrders: SignedOrder[], fills: FillByHash[]): SettleArgs {
  const unique = new Map<string, SignedOrder>();
  for (const so of signedOrders) unique.set(so.hash.toLowerCase(), so);
  const sorted = [...unique.values()].sort((a, b) => (BigInt(a.hash) < BigInt(b.hash) ? -1 : 1));
  const index = new Map(sorted.map((so, i) => [so.hash.toLowerCase(), i]));
  const at = (h: Hex): number => {
    const i = index.get(h.toLowerCase());
    if (i === undefined) throw new Error(`buildSettleArgs: fill names an unknown order ${h}`);
    return i;
  };
  return {
    orders: sorted.map((so) => so.order),
    signatures: sorted.map((so) => so.signature),
    fills: fills.map((f) => ({ makerIndex: at(f.makerHash), takerIndex: at(f.takerHash), baseAmount: f.baseAmount, price: f.price })),
  };
}
