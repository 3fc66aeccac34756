// The hot front's fixed-layout decoder against viem's generic one: for random TradeSettled and
// BatchSettled events (encoded with viem), decodeSettlementLog gives the same fields as decodeEventLog;
// every malformed log (a field with high bits, a bool of 2, a word too few or too many, a stray topic, a
// non-hex digit, another event, a removed log) throws instead of decoding.
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { type Hex, decodeEventLog, encodeAbiParameters, encodeEventTopics, getAbiItem } from "viem";
import { settlementAbi } from "../../sdk/abi";
import { BATCH_SETTLED_TOPIC, type RawLog, TRADE_SETTLED_TOPIC, decodeSettlementLog } from "./decode";

const tradeSettled = getAbiItem({ abi: settlementAbi, name: "TradeSettled" });
const hex32 = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => `0x${Buffer.from(b).toString("hex")}` as Hex);
const addr = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => `0x${Buffer.from(b).toString("hex")}` as Hex);
const u256 = fc.bigInt({ min: 0n, max: 2n ** 256n - 1n });
const u64 = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n });

const tradeArgs = fc.record({
  batchId: u64,
  makerOrderHash: hex32,
  takerOrderHash: hex32,
  maker: addr,
  taker: addr,
  baseToken: addr,
  quoteToken: addr,
  takerIsBuy: fc.boolean(),
  price: u256,
  baseAmount: u256,
  quoteAmount: u256,
  makerFee: u256,
  takerFee: u256,
});
type TradeArgs = typeof tradeArgs extends fc.Arbitrary<infer T> ? T : never;

const place = { address: "0x5fbdb2315678afecb367f032556d4b3a5c65d2e0", blockNumber: "0x1a2b", blockHash: `0x${"ab".repeat(32)}`, transactionHash: `0x${"cd".repeat(32)}`, logIndex: "0x7" };

function tradeLog(a: TradeArgs): RawLog {
  const topics = encodeEventTopics({ abi: settlementAbi, eventName: "TradeSettled", args: { batchId: a.batchId, makerOrderHash: a.makerOrderHash, takerOrderHash: a.takerOrderHash } }) as string[];
  const nonIndexed = tradeSettled.inputs.filter((i) => !i.indexed);
  const data = encodeAbiParameters(nonIndexed, nonIndexed.map((i) => a[i.name as keyof TradeArgs]) as never);
  return { ...place, topics, data };
}

function batchLog(batchId: bigint, tradeCount: bigint): RawLog {
  const topics = encodeEventTopics({ abi: settlementAbi, eventName: "BatchSettled", args: { batchId } }) as string[];
  return { ...place, topics, data: encodeAbiParameters([{ type: "uint256" }], [tradeCount]) };
}

test("TradeSettled: the same fields as viem's decodeEventLog", () => {
  fc.assert(
    fc.property(tradeArgs, fc.option(fc.integer({ min: 0, max: 2 ** 40 }), { nil: undefined }), (a, ts) => {
      const raw = { ...tradeLog(a), ...(ts === undefined ? {} : { blockTimestamp: `0x${ts.toString(16)}` }) };
      const ours = decodeSettlementLog(raw);
      const viem = decodeEventLog({ abi: settlementAbi, topics: raw.topics as [Hex, ...Hex[]], data: raw.data as Hex, strict: true });
      assert.equal(viem.eventName, "TradeSettled");
      assert.equal(ours.kind, "trade");
      if (ours.kind !== "trade") return;
      const lower = Object.fromEntries(Object.entries(viem.args).map(([k, v]) => [k, typeof v === "string" ? v.toLowerCase() : v]));
      assert.deepEqual(ours.trade, { logIndex: 7, ...lower });
      assert.deepEqual([ours.blockNumber, ours.blockHash, ours.txHash, ours.logIndex, ours.blockTimestamp], [0x1a2b, place.blockHash, place.transactionHash, 7, ts === undefined ? undefined : BigInt(ts)]);
    }),
    { numRuns: 300 },
  );
});

test("BatchSettled: the same fields as viem's decodeEventLog", () => {
  fc.assert(
    fc.property(u64, u256, (batchId, tradeCount) => {
      const raw = batchLog(batchId, tradeCount);
      const ours = decodeSettlementLog(raw);
      const viem = decodeEventLog({ abi: settlementAbi, topics: raw.topics as [Hex, ...Hex[]], data: raw.data as Hex, strict: true });
      assert.equal(viem.eventName, "BatchSettled");
      assert.equal(ours.kind, "batch");
      if (ours.kind === "batch") assert.deepEqual({ batchId: ours.batchId, tradeCount: ours.tradeCount }, viem.args);
    }),
    { numRuns: 200 },
  );
});

test("the precomputed topics are the events' selectors; upper-case hex from a node decodes the same", () => {
  const a: TradeArgs = { batchId: 5n, makerOrderHash: `0x${"11".repeat(32)}`, takerOrderHash: `0x${"22".repeat(32)}`, maker: `0x${"aa".repeat(20)}`, taker: `0x${"bb".repeat(20)}`, baseToken: `0x${"cc".repeat(20)}`, quoteToken: `0x${"dd".repeat(20)}`, takerIsBuy: true, price: 1n, baseAmount: 2n, quoteAmount: 3n, makerFee: 4n, takerFee: 5n };
  const raw = tradeLog(a);
  assert.equal(raw.topics[0], TRADE_SETTLED_TOPIC);
  assert.equal(batchLog(1n, 1n).topics[0], BATCH_SETTLED_TOPIC);
  const upper: RawLog = { ...raw, topics: raw.topics.map((t) => t.toUpperCase().replace("0X", "0x")), data: raw.data.toUpperCase().replace("0X", "0x"), blockHash: place.blockHash.toUpperCase().replace("0X", "0x") };
  assert.deepEqual(decodeSettlementLog(upper), decodeSettlementLog(raw));
});

test("a malformed or foreign log throws (at each field's exact boundary)", () => {
  const a: TradeArgs = { batchId: 2n ** 64n - 1n, makerOrderHash: `0x${"11".repeat(32)}`, takerOrderHash: `0x${"22".repeat(32)}`, maker: `0x${"ff".repeat(20)}`, taker: `0x${"bb".repeat(20)}`, baseToken: `0x${"cc".repeat(20)}`, quoteToken: `0x${"dd".repeat(20)}`, takerIsBuy: false, price: 2n ** 256n - 1n, baseAmount: 2n, quoteAmount: 3n, makerFee: 4n, takerFee: 5n };
  const good = tradeLog(a);
  // the boundaries themselves decode: uint64 max, an address of all ff, uint256 max
  const ok = decodeSettlementLog(good);
  assert.ok(ok.kind === "trade" && ok.trade.batchId === 2n ** 64n - 1n && ok.trade.maker === `0x${"ff".repeat(20)}` && ok.trade.price === 2n ** 256n - 1n);
  const data = good.data.slice(2);
  const setWord = (i: number, w: string) => `0x${data.slice(0, i * 64)}${w}${data.slice((i + 1) * 64)}`;
  const batchTopic = (n: bigint) => `0x${n.toString(16).padStart(64, "0")}`;
  const bad: [string, RawLog][] = [
    ["batchId one past uint64", { ...good, topics: [good.topics[0], batchTopic(2n ** 64n), good.topics[2], good.topics[3]] }],
    ["an address with a high bit", { ...good, data: setWord(0, `000000000000000000000001${"ff".repeat(20)}`) }],
    ["a bool of 2", { ...good, data: setWord(4, "2".padStart(64, "0")) }],
    ["a bool with a high bit", { ...good, data: setWord(4, `1${"0".repeat(62)}1`) }],
    ["a word too few", { ...good, data: `0x${data.slice(64)}` }],
    ["a word too many", { ...good, data: `0x${data}${"0".repeat(64)}` }],
    ["one byte short", { ...good, data: `0x${data.slice(2)}` }],
    ["a non-hex digit", { ...good, data: `0x${data.slice(0, -1)}g` }],
    ["a topic too few", { ...good, topics: good.topics.slice(0, 3) }],
    ["a topic too many", { ...good, topics: [...good.topics, good.topics[3]] }],
    ["another event", { ...good, topics: [`0x${"00".repeat(32)}`, ...good.topics.slice(1)] }],
    ["no topic", { ...good, topics: [] }],
    ["removed by a reorg", { ...good, removed: true }],
    ["a pending log (no block)", { ...good, blockNumber: null }],
    ["a short block hash", { ...good, blockHash: `0x${"ab".repeat(31)}` }],
    ["a BatchSettled with two words", { ...batchLog(1n, 1n), data: `0x${"0".repeat(128)}` }],
    ["a BatchSettled with an extra topic", { ...batchLog(1n, 1n), topics: [...batchLog(1n, 1n).topics, good.topics[2]] }],
  ];
  for (const [what, raw] of bad) assert.throws(() => decodeSettlementLog(raw), /Settlement log/, what);
});
