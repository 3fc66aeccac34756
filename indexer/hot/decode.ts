// Settlement's two events as the hot front reads them, decoded from the node's raw eth_getLogs entries
// without viem's generic ABI decoder: the topics are precomputed and each event has a fixed layout
// (TradeSettled: 3 indexed topics and 10 static words of data; BatchSettled: 1 topic and 1 word), so a
// field is a slice of the data at a known offset. Stricter than the generic decoder, never looser: a log
// whose layout is not exactly the event's (topic count, data length, non-hex, an address or uint64 with
// high bits, a bool other than 0/1) throws, and the follower reads the range again (decode.test.ts holds it
// to viem's decodeEventLog on random events).
import { getAbiItem, toEventSelector } from "viem";
import { settlementAbi } from "../../sdk/abi";
import type { BatchTrade } from "../lib/batchRows";
import type { Hex } from "../lib/trades";

export const TRADE_SETTLED_TOPIC = toEventSelector(getAbiItem({ abi: settlementAbi, name: "TradeSettled" })) as Hex;
export const BATCH_SETTLED_TOPIC = toEventSelector(getAbiItem({ abi: settlementAbi, name: "BatchSettled" })) as Hex;

/** A log as eth_getLogs returns it (quantities as hex strings); `blockTimestamp` where the node gives it (Anvil). */
export interface RawLog {
  address: string;
  topics: readonly string[];
  data: string;
  blockNumber: string | null;
  blockHash: string | null;
  transactionHash: string | null;
  logIndex: string | null;
  blockTimestamp?: string | null;
  removed?: boolean;
}

interface LogPlace {
  blockNumber: number;
  blockHash: Hex;
  txHash: Hex;
  logIndex: number;
  /** block timestamp (seconds) when the node puts it in the log */
  blockTimestamp?: bigint;
}

export type SettlementLog = (LogPlace & { kind: "trade"; trade: BatchTrade }) | (LogPlace & { kind: "batch"; batchId: bigint; tradeCount: bigint });

const WORD = /^0x[0-9a-f]{64}$/;
const HEX = /^0x[0-9a-f]*$/;
const BOOL = /^0{63}[01]$/;
const BATCH_DATA = /^0x[0-9a-f]{64}$/;
const QUANTITY = /^0x[0-9a-f]{1,16}$/;
const ZERO24 = "000000000000000000000000";
const ZERO48 = ZERO24 + ZERO24;

function fail(what: string, raw: RawLog): never {
  throw new Error(`Settlement log ${raw.transactionHash ?? "?"}#${raw.logIndex ?? "?"}: ${what}`);
}

function quantity(value: string | null | undefined, field: string, raw: RawLog): number {
  if (typeof value !== "string" || !QUANTITY.test(value.toLowerCase())) fail(`bad ${field} ${String(value)}`, raw);
  const n = Number(value);
  if (!Number.isSafeInteger(n)) fail(`${field} out of range`, raw);
  return n;
}

function hash(value: string | null | undefined, field: string, raw: RawLog): Hex {
  const v = typeof value === "string" ? value.toLowerCase() : "";
  if (!WORD.test(v)) fail(`bad ${field} ${String(value)}`, raw);
  return v as Hex;
}

/** 32-byte word `i` of `data` (no 0x), as hex digits */
const word = (data: string, i: number) => data.slice(2 + i * 64, 2 + (i + 1) * 64);

function address(data: string, i: number, raw: RawLog): Hex {
  const w = word(data, i);
  if (!w.startsWith(ZERO24)) fail(`word ${i} is not an address`, raw);
  return `0x${w.slice(24)}` as Hex;
}

function uint64(w: string, what: string, raw: RawLog): bigint {
  if (!w.startsWith(ZERO48)) fail(`${what} is not a uint64`, raw);
  return BigInt(`0x${w}`);
}

/** Decodes one of Settlement's TradeSettled / BatchSettled logs; throws on any other or malformed log. */
export function decodeSettlementLog(raw: RawLog): SettlementLog {
  if (raw.removed) fail("removed (a reorg under way)", raw);
  const topics = raw.topics;
  const topic0 = typeof topics[0] === "string" ? topics[0].toLowerCase() : "";
  const data = typeof raw.data === "string" ? raw.data.toLowerCase() : "";
  const blockTimestamp = raw.blockTimestamp === undefined || raw.blockTimestamp === null ? undefined : BigInt(quantity(raw.blockTimestamp, "blockTimestamp", raw));
  const place: LogPlace = {
    blockNumber: quantity(raw.blockNumber, "blockNumber", raw),
    blockHash: hash(raw.blockHash, "blockHash", raw),
    txHash: hash(raw.transactionHash, "transactionHash", raw),
    logIndex: quantity(raw.logIndex, "logIndex", raw),
    ...(blockTimestamp === undefined ? {} : { blockTimestamp }),
  };
  if (topic0 === TRADE_SETTLED_TOPIC) {
    if (topics.length !== 4) fail(`TradeSettled with ${topics.length} topics`, raw);
    if (data.length !== 2 + 10 * 64 || !HEX.test(data)) fail("TradeSettled data is not 10 words", raw);
    const batchTopic = hash(topics[1], "batchId topic", raw);
    const takerIsBuyWord = word(data, 4);
    if (!BOOL.test(takerIsBuyWord)) fail("takerIsBuy is not a bool", raw);
    return {
      kind: "trade",
      ...place,
      trade: {
        logIndex: place.logIndex,
        batchId: uint64(batchTopic.slice(2), "batchId", raw),
        makerOrderHash: hash(topics[2], "makerOrderHash", raw),
        takerOrderHash: hash(topics[3], "takerOrderHash", raw),
        maker: address(data, 0, raw),
        taker: address(data, 1, raw),
        baseToken: address(data, 2, raw),
        quoteToken: address(data, 3, raw),
        takerIsBuy: takerIsBuyWord[63] === "1",
        price: BigInt(`0x${word(data, 5)}`),
        baseAmount: BigInt(`0x${word(data, 6)}`),
        quoteAmount: BigInt(`0x${word(data, 7)}`),
        makerFee: BigInt(`0x${word(data, 8)}`),
        takerFee: BigInt(`0x${word(data, 9)}`),
      },
    };
  }
  if (topic0 === BATCH_SETTLED_TOPIC) {
    if (topics.length !== 2) fail(`BatchSettled with ${topics.length} topics`, raw);
    if (!BATCH_DATA.test(data)) fail("BatchSettled data is not 1 word", raw);
    return { kind: "batch", ...place, batchId: uint64(hash(topics[1], "batchId topic", raw).slice(2), "batchId", raw), tradeCount: BigInt(data) };
  }
  return fail(`not a TradeSettled or BatchSettled log (topic ${topic0 || "none"})`, raw);
}
