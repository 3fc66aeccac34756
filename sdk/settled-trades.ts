// The trades of one settled batch, from the `trades` bytes of the Settlement contract's BatchSettled event
// (one event per batch; the layout is documented on the event in contracts/exchange/ISettlement.sol):
//
//   trades := makerFeeBps u16 ‖ takerFeeBps u16 ‖ orderCount u32 ‖ tokenCount u8 ‖ token address × tokenCount
//             ‖ fill × tradeCount ‖ order × orderCount
//   fill   := makerIndex u32 ‖ takerIndex u32 ‖ baseAmount u128 ‖ price u128
//   order  := orderHash bytes32 ‖ trader address ‖ baseTokenIndex u8 ‖ quoteTokenIndex u8 ‖ side u8
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
  /** the event's token table (orders name their tokens by index in it); when absent, encodeSettledTrades lists
   *  the orders' tokens in order of appearance (base, then quote), as the contract's `settle` does */
  tokens?: Hex[];
  fills: SettledFillRecord[];
  orders: SettledOrderRecord[];
}

const HEADER_BYTES = 9;
const TOKEN_BYTES = 20;
const FILL_BYTES = 40;
const ORDER_BYTES = 55;
const U8 = 0xff;
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
  const u8 = (n: number) => uint(n, U8, 2);
  const bytes20 = (a: Hex) => a.slice(2).toLowerCase().padStart(40, "0");
  const tokens = (d.tokens ?? tokensInOrder(d.orders)).map((t) => t.toLowerCase());
  const indexOf = (t: Hex) => {
    const i = tokens.indexOf(t.toLowerCase());
    if (i < 0) throw new RangeError(`token ${t} is not in the table`);
    return u8(i);
  };
  let out = u16(d.makerFeeBps) + u16(d.takerFeeBps) + u32(d.orders.length) + u8(tokens.length);
  for (const t of tokens) out += bytes20(t as Hex);
  for (const f of d.fills) out += u32(f.makerIndex) + u32(f.takerIndex) + u128(f.baseAmount) + u128(f.price);
  for (const o of d.orders) {
    out += o.orderHash.slice(2).toLowerCase() + bytes20(o.trader) + indexOf(o.baseToken) + indexOf(o.quoteToken);
    out += u8(o.side);
  }
  return hexOf(out);
}

/** The orders' tokens in order of appearance, base then quote (the table the contract's `settle` writes). */
function tokensInOrder(orders: readonly SettledOrderRecord[]): Hex[] {
  const seen = new Set<string>();
  for (const o of orders) for (const t of [o.baseToken, o.quoteToken]) seen.add(t.toLowerCase());
  return [...seen] as Hex[];
}

/** Splits the `trades` bytes into its records; throws on any length or field the contract cannot write. */
export function parseSettledTrades(tradeCount: bigint, trades: string): SettledTradesData {
  if (!HEX.test(trades)) throw new Error("BatchSettled trades: not hex bytes");
  const hex = trades.slice(2).toLowerCase();
  const at = (byte: number, len: number) => hex.slice(byte * 2, (byte + len) * 2);
  const num = (byte: number, len: number) => Number.parseInt(at(byte, len), 16);
  if (hex.length < HEADER_BYTES * 2) throw new Error("BatchSettled trades: shorter than its header");
  const orderCount = num(4, 4);
  const tokenCount = num(8, 1);
  if (tradeCount > BigInt(U32)) throw new Error(`BatchSettled: trade count ${tradeCount} out of range`);
  const count = Number(tradeCount);
  const fillsAt = HEADER_BYTES + tokenCount * TOKEN_BYTES;
  const expected = fillsAt + count * FILL_BYTES + orderCount * ORDER_BYTES;
  if (hex.length !== expected * 2)
    throw new Error(
      `BatchSettled trades: ${hex.length / 2} bytes, ${tokenCount} tokens, ${count} trades and ${orderCount} orders make ${expected}`,
    );
  const tokens = Array.from({ length: tokenCount }, (_, i) => hexOf(at(HEADER_BYTES + i * TOKEN_BYTES, TOKEN_BYTES)));
  const fills: SettledFillRecord[] = [];
  for (let k = 0; k < count; k++) {
    const p = fillsAt + k * FILL_BYTES;
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
  const token = (i: number, byte: number) => {
    const t = tokens[num(byte, 1)];
    if (t === undefined) throw new Error(`BatchSettled trades: order ${i} names a token past ${tokenCount}`);
    return t;
  };
  for (let i = 0; i < orderCount; i++) {
    const p = fillsAt + count * FILL_BYTES + i * ORDER_BYTES;
    const side = num(p + 54, 1);
    if (side > 1) throw new Error(`BatchSettled trades: order ${i} has side ${side}`);
    orders.push({
      orderHash: hexOf(at(p, 32)),
      trader: hexOf(at(p + 32, 20)),
      baseToken: token(i, p + 52),
      quoteToken: token(i, p + 53),
      side,
    });
  }
  return { makerFeeBps: num(0, 2), takerFeeBps: num(2, 2), tokens, fills, orders };
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
