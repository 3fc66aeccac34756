// The trades of one settled batch, from the `trades` bytes of the Settlement contract's BatchSettled event
// (one event per batch; the layout is documented on the event in contracts/exchange/ISettlement.sol):
//
//   trades := makerFeeBps u16 ‖ takerFeeBps u16 ‖ orderCount u32 ‖ fill × tradeCount ‖ order × orderCount
//   fill   := makerIndex u32 ‖ takerIndex u32 ‖ baseAmount u128 ‖ price u128
//   order  := orderHash bytes32 ‖ trader address ‖ baseToken address ‖ quoteToken address ‖ side u8
//
// The quote amount and both fees are not in the event: they follow from the fill and the fee rates by the
// contract's rules (quoteAmountFor, feeFor). `encodeSettledTrades` is the contract's encoding restated (for
// tests and benchmarks); the contract test test/contracts/exchange/batch-event.test.ts holds both to it.
import { type Hex, decodeEventLog } from "viem";
import { settlementAbi } from "./abi";
import { feeFor, quoteAmountFor } from "./eip712";

/** One trade as the event carries it, with what follows from it (the fields TradeSettled used to carry). */
export interface SettledBatchTrade {
  batchId: bigint;
  /** the trade's place in its batch (0-based, the order of the batch's fills) */
  tradeIndex: number;
  makerOrderHash: Hex;
  takerOrderHash: Hex;
  maker: Hex;
  taker: Hex;
  baseToken: Hex;
  quoteToken: Hex;
  takerIsBuy: boolean;
  price: bigint;
  baseAmount: bigint;
  quoteAmount: bigint;
  makerFee: bigint;
  takerFee: bigint;
}

export interface SettledOrderRecord {
  orderHash: Hex;
  trader: Hex;
  baseToken: Hex;
  quoteToken: Hex;
  /** 0 buy, 1 sell */
  side: number;
}

export interface SettledFillRecord {
  makerIndex: number;
  takerIndex: number;
  baseAmount: bigint;
  price: bigint;
}

export interface SettledTradesData {
  makerFeeBps: number;
  takerFeeBps: number;
  fills: SettledFillRecord[];
  orders: SettledOrderRecord[];
}

const HEADER_BYTES = 8;
const FILL_BYTES = 40;
const ORDER_BYTES = 93;
const U16 = 0xffff;
const U32 = 0xffff_ffff;
const U128 = 2n ** 128n;
const HEX = /^0x(?:[0-9a-fA-F]{2})*$/;

const hexOf = (digits: string) => `0x${digits}` as Hex;

/** The `trades` bytes of BatchSettled for these records (the contract's encoding). */
export function encodeSettledTrades(d: SettledTradesData): Hex {
  const uint = (n: number, max: number, digits: number) => {
    if (!Number.isInteger(n) || n < 0 || n > max) throw new RangeError(`${n} out of range`);
    return n.toString(16).padStart(digits, "0");
  };
  const u16 = (n: number) => uint(n, U16, 4);
  const u32 = (n: number) => uint(n, U32, 8);
  const u128 = (n: bigint) => {
    if (n < 0n || n >= U128) throw new RangeError(`not a u128: ${n}`);
    return n.toString(16).padStart(32, "0");
  };
  const bytes20 = (a: Hex) => a.slice(2).toLowerCase().padStart(40, "0");
  let out = u16(d.makerFeeBps) + u16(d.takerFeeBps) + u32(d.orders.length);
  for (const f of d.fills) out += u32(f.makerIndex) + u32(f.takerIndex) + u128(f.baseAmount) + u128(f.price);
  for (const o of d.orders) {
    out += o.orderHash.slice(2).toLowerCase() + bytes20(o.trader) + bytes20(o.baseToken) + bytes20(o.quoteToken);
    out += o.side.toString(16).padStart(2, "0");
  }
  return hexOf(out);
}

/** Splits the `trades` bytes into its records; throws on any length or field the contract cannot write. */
export function parseSettledTrades(tradeCount: bigint, trades: string): SettledTradesData {
  if (!HEX.test(trades)) throw new Error("BatchSettled trades: not hex bytes");
  const hex = trades.slice(2).toLowerCase();
  const at = (byte: number, len: number) => hex.slice(byte * 2, (byte + len) * 2);
  const num = (byte: number, len: number) => Number.parseInt(at(byte, len), 16);
  if (hex.length < HEADER_BYTES * 2) throw new Error("BatchSettled trades: shorter than its header");
  const orderCount = num(4, 4);
  if (tradeCount > BigInt(U32)) throw new Error(`BatchSettled: trade count ${tradeCount} out of range`);
  const count = Number(tradeCount);
  const expected = HEADER_BYTES + count * FILL_BYTES + orderCount * ORDER_BYTES;
  if (hex.length !== expected * 2)
    throw new Error(
      `BatchSettled trades: ${hex.length / 2} bytes, ${count} trades and ${orderCount} orders make ${expected}`,
    );
  const fills: SettledFillRecord[] = [];
  for (let k = 0; k < count; k++) {
    const p = HEADER_BYTES + k * FILL_BYTES;
    const fill = {
      makerIndex: num(p, 4),
      takerIndex: num(p + 4, 4),
      baseAmount: BigInt(hexOf(at(p + 8, 16))),
      price: BigInt(hexOf(at(p + 24, 16))),
    };
    if (fill.makerIndex >= orderCount || fill.takerIndex >= orderCount)
      throw new Error(`BatchSettled trades: fill ${k} names an order past ${orderCount}`);
    fills.push(fill);
  }
  const orders: SettledOrderRecord[] = [];
  for (let i = 0; i < orderCount; i++) {
    const p = HEADER_BYTES + count * FILL_BYTES + i * ORDER_BYTES;
    const side = num(p + 92, 1);
    if (side > 1) throw new Error(`BatchSettled trades: order ${i} has side ${side}`);
    orders.push({
      orderHash: hexOf(at(p, 32)),
      trader: hexOf(at(p + 32, 20)),
      baseToken: hexOf(at(p + 52, 20)),
      quoteToken: hexOf(at(p + 72, 20)),
      side,
    });
  }
  return { makerFeeBps: num(0, 2), takerFeeBps: num(2, 2), fills, orders };
}

/** The trades of a BatchSettled event (`tradeCount`, `trades` as the event carries them), in batch order. */
export function decodeSettledTrades(batchId: bigint, tradeCount: bigint, trades: string): SettledBatchTrade[] {
  const d = parseSettledTrades(tradeCount, trades);
  return d.fills.map((f, tradeIndex) => {
    const maker = d.orders[f.makerIndex]!;
    const taker = d.orders[f.takerIndex]!;
    const quoteAmount = quoteAmountFor(f.baseAmount, f.price);
    if (quoteAmount === null) throw new Error(`BatchSettled trades: fill ${tradeIndex} is not exact`);
    const takerIsBuy = taker.side === 0;
    // each side's fee is on what it receives: base for the buyer, quote for the seller
    const received = (isBuy: boolean) => (isBuy ? f.baseAmount : quoteAmount);
    return {
      batchId,
      tradeIndex,
      makerOrderHash: maker.orderHash,
      takerOrderHash: taker.orderHash,
      maker: maker.trader,
      taker: taker.trader,
      baseToken: maker.baseToken,
      quoteToken: maker.quoteToken,
      takerIsBuy,
      price: f.price,
      baseAmount: f.baseAmount,
      quoteAmount,
      makerFee: feeFor(received(!takerIsBuy), d.makerFeeBps),
      takerFee: feeFor(received(takerIsBuy), d.takerFeeBps),
    };
  });
}

/** A log as viem or ethers give it (a receipt's, eth_getLogs'): where it was, when the source says. */
export interface SettlementLogLike {
  address: string;
  topics: readonly Hex[] | readonly string[];
  data: string;
  transactionHash?: string | null;
  blockNumber?: bigint | number | null;
  logIndex?: number | null;
}

export type LocatedSettledTrade = SettledBatchTrade & {
  transactionHash?: Hex;
  blockNumber?: bigint;
  logIndex?: number;
};

/** Every trade of the Settlement contract's BatchSettled logs among `logs` (e.g. a receipt's), in log order,
 *  with the log's transaction hash, block number and log index where the log has them. */
export function settledTradesOf(logs: readonly SettlementLogLike[], settlement?: string): LocatedSettledTrade[] {
  const out: LocatedSettledTrade[] = [];
  for (const log of logs) {
    if (settlement !== undefined && log.address.toLowerCase() !== settlement.toLowerCase()) continue;
    let decoded;
    try {
      decoded = decodeEventLog({ abi: settlementAbi, topics: log.topics as [Hex, ...Hex[]], data: log.data as Hex });
    } catch {
      continue; // not one of the contract's events
    }
    if (decoded.eventName !== "BatchSettled") continue;
    const { batchId, tradeCount, trades } = decoded.args;
    const place = {
      ...(typeof log.transactionHash === "string" ? { transactionHash: log.transactionHash.toLowerCase() as Hex } : {}),
      ...(log.blockNumber !== undefined && log.blockNumber !== null ? { blockNumber: BigInt(log.blockNumber) } : {}),
      ...(typeof log.logIndex === "number" ? { logIndex: log.logIndex } : {}),
    };
    for (const t of decodeSettledTrades(batchId, tradeCount, trades)) out.push({ ...t, ...place });
  }
  return out;
}
