// Trades and signed orders for batcher unit tests: hash n is order n; trade s joins orders 2s+1 (maker) and
// 2s+2 (taker) and carries s as its base amount, so a sent batch reads back as its trade seqs.
import type { Hex } from "viem";
import type { SignedOrder } from "../../sdk/settle-batch";
import type { SettleableTrade } from "../settle/batcher";

export const hashOf = (n: number) => `0x${n.toString(16).padStart(64, "0")}` as Hex;

export const fixtureSignedOrder = (hash: Hex): SignedOrder => ({
  hash,
  signature: "0x" as Hex,
  order: {
    trader: "0x0000000000000000000000000000000000000001",
    baseToken: "0x0000000000000000000000000000000000000002",
    quoteToken: "0x0000000000000000000000000000000000000003",
    side: 0,
    price: 1n,
    amount: 1n,
    expiry: 1n,
    nonce: BigInt(hash),
    flags: 0,
  },
});

export const fixtureTrade = (seq: number): SettleableTrade => ({
  seq,
  makerHash: hashOf(2 * seq + 1),
  takerHash: hashOf(2 * seq + 2),
  baseAmount: BigInt(seq),
  price: 1n,
  matchedAtMs: 0,
});
