// The hot front's fixed-layout decoder against viem's generic one and the sdk's encoder of the contract's
// BatchSettled `trades`: for random batches (encoded with encodeSettledTrades and viem),
// decodeSettlementLog gives the event's fields as viem's decodeEventLog does and the trades the sdk decoder
// gives for them; every malformed log (a uint64 with high bits, a wrong offset, length or padding, a stray
// topic, a non-hex digit, another event, a removed log, trades the contract cannot write) throws.
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { type Hex, decodeEventLog, encodeAbiParameters, encodeEventTopics } from "viem";
import { settlementAbi } from "../../sdk/abi";
import { type SettledTradesData, decodeSettledTrades, encodeSettledTrades } from "../../sdk/settled-trades";
import { BATCH_SETTLED_TOPIC, type RawLog, decodeSettlementLog } from "./decode";

const hex = (n: number) =>
  fc.uint8Array({ minLength: n, maxLength: n }).map((b) => `0x${Buffer.from(b).toString("hex")}` as Hex);
const u64 = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n });

/** Random batch contents: exact fills (base in 1e12 units, price in 1e6 units) between orders of the batch. */
const batchData: fc.Arbitrary<SettledTradesData> = fc
  .record({
    makerFeeBps: fc.integer({ min: 0, max: 100 }),
    takerFeeBps: fc.integer({ min: 0, max: 100 }),
    orders: fc.array(
      fc.record({
        orderHash: hex(32),
        trader: hex(20),
        baseToken: hex(20),
        quoteToken: hex(20),
        side: fc.integer({ min: 0, max: 1 }),
      }),
      { minLength: 1, maxLength: 8 },
    ),
    fills: fc.array(
      fc.record({
        m: fc.nat(),
        t: fc.nat(),
        lots: fc.bigInt({ min: 1n, max: 2n ** 80n }),
        ticks: fc.bigInt({ min: 1n, max: 2n ** 100n }),
      }),
      { maxLength: 8 },
    ),
  })
  .map(({ orders, fills, ...fees }) => ({
    ...fees,
    orders,
    fills: fills.map((f) => ({
      makerIndex: f.m % orders.length,
      takerIndex: f.t % orders.length,
      baseAmount: f.lots * 10n ** 12n,
      price: f.ticks * 10n ** 6n,
    })),
  }));

const place = {
  address: "0x5fbdb2315678afecb367f032556d4b3a5c65d2e0",
  blockNumber: "0x1a2b",
  blockHash: `0x${"ab".repeat(32)}`,
  transactionHash: `0x${"cd".repeat(32)}`,
  logIndex: "0x7",
};

function batchLog(batchId: bigint, d: SettledTradesData): RawLog {
  const topics = encodeEventTopics({ abi: settlementAbi, eventName: "BatchSettled", args: { batchId } }) as string[];
  const data = encodeAbiParameters(
    [{ type: "uint256" }, { type: "bytes" }],
    [BigInt(d.fills.length), encodeSettledTrades(d)],
  );
  return { ...place, topics, data };
}

test("BatchSettled: viem's fields, and the trades the sdk decoder gives for them", () => {
  fc.assert(
    fc.property(
      u64,
      batchData,
      fc.option(fc.integer({ min: 0, max: 2 ** 40 }), { nil: undefined }),
      (batchId, d, ts) => {
        const raw = {
          ...batchLog(batchId, d),
          ...(ts === undefined ? {} : { blockTimestamp: `0x${ts.toString(16)}` }),
        };
        const ours = decodeSettlementLog(raw);
        const viem = decodeEventLog({
          abi: settlementAbi,
          topics: raw.topics as [Hex, ...Hex[]],
          data: raw.data as Hex,
          strict: true,
        });
        assert.equal(viem.eventName, "BatchSettled");
        if (viem.eventName !== "BatchSettled") return;
        assert.deepEqual(
          { batchId: ours.batchId, tradeCount: ours.tradeCount },
          { batchId: viem.args.batchId, tradeCount: viem.args.tradeCount },
        );
        const expected = decodeSettledTrades(viem.args.batchId, viem.args.tradeCount, viem.args.trades).map((t) => ({
          ...t,
          logIndex: 7,
        }));
        assert.deepEqual(ours.trades, expected);
        assert.equal(ours.trades.length, d.fills.length);
        assert.deepEqual(
          [ours.blockNumber, ours.blockHash, ours.txHash, ours.logIndex, ours.blockTimestamp],
          [0x1a2b, place.blockHash, place.transactionHash, 7, ts === undefined ? undefined : BigInt(ts)],
        );
      },
    ),
    { numRuns: 300 },
  );
});

const sample: SettledTradesData = {
  makerFeeBps: 2,
  takerFeeBps: 5,
  orders: [0, 1].map((side) => ({
    orderHash: `0x${"11".repeat(32)}` as Hex,
    trader: `0x${"ff".repeat(20)}` as Hex,
    baseToken: `0x${"cc".repeat(20)}` as Hex,
    quoteToken: `0x${"dd".repeat(20)}` as Hex,
    side,
  })),
  fills: [{ makerIndex: 0, takerIndex: 1, baseAmount: 10n ** 16n, price: 2000n * 10n ** 6n }],
};

test("the precomputed topic is the event's selector; upper-case hex from a node decodes the same", () => {
  const raw = batchLog(5n, sample);
  assert.equal(raw.topics[0], BATCH_SETTLED_TOPIC);
  const upper: RawLog = {
    ...raw,
    topics: raw.topics.map((t) => t.toUpperCase().replace("0X", "0x")),
    data: raw.data.toUpperCase().replace("0X", "0x"),
    blockHash: place.blockHash.toUpperCase().replace("0X", "0x"),
  };
  assert.deepEqual(decodeSettlementLog(upper), decodeSettlementLog(raw));
});

test("a malformed or foreign log throws (at each field's exact boundary)", () => {
  const good = batchLog(2n ** 64n - 1n, sample);
  // the boundaries themselves decode: uint64 max, an address of all ff
  const ok = decodeSettlementLog(good);
  assert.ok(
    ok.batchId === 2n ** 64n - 1n && ok.trades[0]!.maker === `0x${"ff".repeat(20)}` && !ok.trades[0]!.takerIsBuy,
  );
  const data = good.data.slice(2);
  const setWord = (i: number, w: string) => `0x${data.slice(0, i * 64)}${w}${data.slice((i + 1) * 64)}`;
  const batchTopic = (n: bigint) => `0x${n.toString(16).padStart(64, "0")}`;
  const length = Number(BigInt(`0x${data.slice(128, 192)}`));
  const bad: [string, RawLog][] = [
    ["batchId one past uint64", { ...good, topics: [good.topics[0]!, batchTopic(2n ** 64n)] }],
    ["an offset other than 0x40", { ...good, data: setWord(1, "60".padStart(64, "0")) }],
    ["a trade count one more than the trades", { ...good, data: setWord(0, "2".padStart(64, "0")) }],
    ["a length one byte longer", { ...good, data: setWord(2, (length + 1).toString(16).padStart(64, "0")) }],
    ["a length one byte shorter", { ...good, data: setWord(2, (length - 1).toString(16).padStart(64, "0")) }],
    ["a non-zero padding byte", { ...good, data: `0x${data.slice(0, -2)}01` }],
    ["a word too many", { ...good, data: `0x${data}${"0".repeat(64)}` }],
    ["a word too few", { ...good, data: `0x${data.slice(0, -64)}` }],
    ["one byte short", { ...good, data: `0x${data.slice(2)}` }],
    ["a non-hex digit", { ...good, data: `0x${data.slice(0, -1)}g` }],
    ["a side of 2", batchLog(1n, { ...sample, orders: [sample.orders[0]!, { ...sample.orders[1]!, side: 2 }] })],
    [
      "a fill naming an order past the last",
      batchLog(1n, { ...sample, fills: [{ ...sample.fills[0]!, takerIndex: 2 }] }),
    ],
    [
      "a fill that is not exact",
      batchLog(1n, { ...sample, fills: [{ ...sample.fills[0]!, baseAmount: 10n ** 16n + 1n }] }),
    ],
    ["a topic too few", { ...good, topics: good.topics.slice(0, 1) }],
    ["a topic too many", { ...good, topics: [...good.topics, good.topics[1]!] }],
    ["another event", { ...good, topics: [`0x${"00".repeat(32)}`, ...good.topics.slice(1)] }],
    ["no topic", { ...good, topics: [] }],
    ["removed by a reorg", { ...good, removed: true }],
    ["a pending log (no block)", { ...good, blockNumber: null }],
    ["a short block hash", { ...good, blockHash: `0x${"ab".repeat(31)}` }],
  ];
  for (const [what, raw] of bad) assert.throws(() => decodeSettlementLog(raw), /Settlement log/, what);
});
