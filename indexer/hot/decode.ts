// Settlement's BatchSettled event as the hot front reads it, decoded from the node's raw eth_getLogs entries
// without viem's generic ABI decoder: the topic is precomputed and the data is three static words (tradeCount,
// makerFeeBps, takerFeeBps), checked exactly. The log carries no trades: they are the fills of the transaction
// that emitted it, fetched by hash (eth_getTransactionByHash, follow.ts) and decoded by the sdk under the
// direct-call rule (lib/batchTrades.ts, the function Ponder's handler uses). Stricter than the generic
// decoder, never looser: a log whose layout is not exactly the event's (topic count, data length, non-hex, a
// uint64 or uint16 with high bits), a transaction that is not the log's (another hash or block) or not a
// direct settle/settlePacked call of this batch throws, and the follower reads the range again
// (decode.test.ts holds it to viem's decodeEventLog and the sdk on random batches of both entry points).
import { getAbiItem, toEventSelector } from "viem";
import { settlementAbi } from "../../sdk/abi";
import type { SettlementDomain } from "../../sdk/settled-trades";
import type { BatchTrade } from "../lib/batchRows";
import { batchTradesOfCall } from "../lib/batchTrades";
import type { Hex } from "../lib/trades";

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

/** A transaction as eth_getTransactionByHash returns it (the fields read here). */
export interface RawTransaction {
  hash: string;
  blockHash: string | null;
  to: string | null;
  input: string;
}

interface LogPlace {
  blockNumber: number;
  blockHash: Hex;
  txHash: Hex;
  logIndex: number;
  /** block timestamp (seconds) when the node puts it in the log */
  blockTimestamp?: bigint;
}

/** A BatchSettled log's own fields, before its transaction is read. */
export type BatchLog = LogPlace & { batchId: bigint; tradeCount: bigint; makerFeeBps: number; takerFeeBps: number };

export type SettlementLog = BatchLog & { kind: "batch"; trades: BatchTrade[] };

const WORD = /^0x[0-9a-f]{64}$/;
const DATA = /^0x[0-9a-f]{192}$/;
const INPUT = /^0x[0-9a-f]*$/;
const QUANTITY = /^0x[0-9a-f]{1,16}$/;
const ZERO24 = "000000000000000000000000";
const ZERO48 = ZERO24 + ZERO24;
const ZERO60 = `${ZERO48}000000000000`;

function fail(what: string, raw: { transactionHash?: string | null; logIndex?: string | number | null }): never {
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

function uint64(w: string, what: string, raw: RawLog): bigint {
  if (!w.startsWith(ZERO48)) fail(`${what} is not a uint64`, raw);
  return BigInt(`0x${w}`);
}

function uint16(w: string, what: string, raw: RawLog): number {
  if (!w.startsWith(ZERO60)) fail(`${what} is not a uint16`, raw);
  return Number.parseInt(w.slice(60), 16);
}

/** Decodes one of Settlement's BatchSettled logs (its place, batch id, trade count and fee rates); throws on
 *  any other or malformed log. */
export function decodeBatchLog(raw: RawLog): BatchLog {
  if (raw.removed) fail("removed (a reorg under way)", raw);
  const topics = raw.topics;
  const topic0 = typeof topics[0] === "string" ? topics[0].toLowerCase() : "";
  const data = typeof raw.data === "string" ? raw.data.toLowerCase() : "";
  const blockTimestamp =
    raw.blockTimestamp === undefined || raw.blockTimestamp === null
      ? undefined
      : BigInt(quantity(raw.blockTimestamp, "blockTimestamp", raw));
  const place: LogPlace = {
    blockNumber: quantity(raw.blockNumber, "blockNumber", raw),
    blockHash: hash(raw.blockHash, "blockHash", raw),
    txHash: hash(raw.transactionHash, "transactionHash", raw),
    logIndex: quantity(raw.logIndex, "logIndex", raw),
    ...(blockTimestamp === undefined ? {} : { blockTimestamp }),
  };
  if (topic0 !== BATCH_SETTLED_TOPIC) fail(`not a BatchSettled log (topic ${topic0 || "none"})`, raw);
  if (topics.length !== 2) fail(`BatchSettled with ${topics.length} topics`, raw);
  if (!DATA.test(data)) fail("BatchSettled data is not three words", raw);
  return {
    ...place,
    batchId: uint64(hash(topics[1], "batchId topic", raw).slice(2), "batchId", raw),
    tradeCount: BigInt(`0x${word(data, 0)}`),
    makerFeeBps: uint16(word(data, 1), "makerFeeBps", raw),
    takerFeeBps: uint16(word(data, 2), "takerFeeBps", raw),
  };
}

/** The log with its batch's trades, from `tx`, the transaction the node gives for the log's hash: it must be
 *  that transaction in the log's block (else a reorg is under way) and a direct settle/settlePacked call of
 *  the batch (lib/batchTrades.ts); throws otherwise. */
export function withTrades(
  log: BatchLog,
  tx: RawTransaction | null | undefined,
  domain: SettlementDomain,
): SettlementLog {
  const where = { transactionHash: log.txHash, logIndex: log.logIndex };
  if (!tx) fail("its transaction is unknown to the node (a reorg under way)", where);
  if (typeof tx.hash !== "string" || tx.hash.toLowerCase() !== log.txHash)
    fail(`the node answered with transaction ${String(tx.hash)}`, where);
  if (typeof tx.blockHash !== "string" || tx.blockHash.toLowerCase() !== log.blockHash)
    fail(`its transaction is in block ${String(tx.blockHash)}, the log in ${log.blockHash} (a reorg under way)`, where);
  if (typeof tx.input !== "string" || !INPUT.test(tx.input.toLowerCase()))
    fail("its transaction's input is not hex", where);
  let trades: BatchTrade[];
  try {
    trades = batchTradesOfCall({ to: tx.to, input: tx.input.toLowerCase() as Hex }, log, log.logIndex, domain);
  } catch (e) {
    fail((e as Error).message, where);
  }
  return { ...log, kind: "batch", trades };
}
