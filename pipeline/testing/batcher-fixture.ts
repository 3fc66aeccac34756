// Trades and signed orders for batcher unit tests: hash n is order n; trade s joins orders 2s+1 (maker) and
// 2s+2 (taker) and carries s as its base amount, so a sent batch reads back as its trade seqs.
import type { Address, Hex } from "viem";
import type { Order } from "../../sdk/eip712";
import type { SignedOrder } from "../../sdk/settle-batch";
import type { SettleableTrade } from "../settle/batcher";

export const hashOf = (n: number) => `0x${n.toString(16).padStart(64, "0")}` as Hex;
export const addressOf = (n: number) => `0x${n.toString(16).padStart(40, "0")}` as Address;

/** A one-unit buy by trader 0x…01 of token 0x…02 for 0x…03 with nonce `nonce`; `o` overrides. */
export const fixtureOrder = (nonce: bigint, o: Partial<Order> = {}): Order => ({
  trader: addressOf(1),
  baseToken: addressOf(2),
  quoteToken: addressOf(3),
  side: 0,
  price: 1n,
  amount: 1n,
  expiry: 1n,
  nonce,
  flags: 0,
  ...o,
});

/** The fixture order whose nonce is its hash (a stand-in signature); `o` overrides order fields. */
export const fixtureSignedOrder = (hash: Hex, o: Partial<Order> = {}): SignedOrder => ({
  hash,
  signature: "0x" as Hex,
  order: fixtureOrder(BigInt(hash), o),
});

export const fixtureTrade = (seq: number, matchedAtMs = 0): SettleableTrade => ({
  seq,
  makerHash: hashOf(2 * seq + 1),
  takerHash: hashOf(2 * seq + 2),
  baseAmount: BigInt(seq),
  price: 1n,
  matchedAtMs,
});
