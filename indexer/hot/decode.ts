// Settlement's BatchSettled event as the hot front reads it, decoded from the node's raw eth_getLogs
// entries without viem's generic ABI decoder: the topic is precomputed and the data's ABI head has a fixed
// layout (tradeCount, the offset 0x40, the length of `trades`, then `trades` padded with zeros), checked
// exactly; `trades` is decoded by the sdk's decoder of the contract's encoding (sdk/settled-trades.ts).
// Stricter than the generic decoder, never looser: a log whose layout is not exactly the event's (topic
// count, data length, offset, padding, non-hex, a uint64 with high bits, trades the contract cannot write)
// throws, and the follower reads the range again (decode.test.ts holds it to viem's decodeEventLog and the
// sdk's encoder on random events).
import { getAbiItem, toEventSelector } from "viem";
import { settlementAbi } from "../../sdk/abi";
import { decodeSettledTrades } from "../../sdk/settled-trades";
import type { BatchTrade } from "../lib/batchRows";
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

interface LogPlace {
  blockNumber: number;
  blockHash: Hex;
  txHash: Hex;
  logIndex: number;
  /** block timestamp (seconds) when the node puts it in the log */
  blockTimestamp?: bigint;
}

export type SettlementLog = LogPlace & { kind: "batch"; batchId: bigint; tradeCount: bigint; trades: BatchTrade[] };

const WORD = /^0x[0-9a-f]{64}$/;
const HEX = /^0x[0-9a-f]*$/;
const OFFSET_0X40 = `${"0".repeat(62)}40`;
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

function uint64(w: string, what: string, raw: RawLog): bigint {
  if (!w.startsWith(ZERO48)) fail(`${what} is not a uint64`, raw);
  return BigInt(`0x${w}`);
}

/** The `trades` bytes of a BatchSettled log's data (ABI head and zero padding checked), with its trade count. */
function batchData(data: string, raw: RawLog): { tradeCount: bigint; trades: string } {
  if (!HEX.test(data) || data.length < 2 + 3 * 64 || (data.length - 2) % 64 !== 0)
    fail("BatchSettled data is not whole words", raw);
  if (word(data, 1) !== OFFSET_0X40) fail("BatchSettled trades offset is not 0x40", raw);
  const length = BigInt(`0x${word(data, 2)}`);
  const padded = (length + 31n) / 32n;
  if (BigInt(data.length - 2) / 64n !== 3n + padded) fail("BatchSettled data length does not match its trades", raw);
  const body = data.slice(2 + 3 * 64);
  const bytes = body.slice(0, Number(length) * 2);
  if (!/^0*$/.test(body.slice(bytes.length))) fail("BatchSettled trades padding is not zero", raw);
  return { tradeCount: BigInt(`0x${word(data, 0)}`), trades: `0x${bytes}` };
}

/** Decodes one of Settlement's BatchSettled logs with its trades; throws on any other or malformed log. */
export function decodeSettlementLog(raw: RawLog): SettlementLog {
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
  const batchId = uint64(hash(topics[1], "batchId topic", raw).slice(2), "batchId", raw);
  const { tradeCount, trades } = batchData(data, raw);
  let decoded;
  try {
    decoded = decodeSettledTrades(batchId, tradeCount, trades);
  } catch (e) {
    fail((e as Error).message, raw);
  }
  return {
    kind: "batch",
    ...place,
    batchId,
    tradeCount,
    trades: decoded.map((t) => ({ ...t, logIndex: place.logIndex })),
  };
}
