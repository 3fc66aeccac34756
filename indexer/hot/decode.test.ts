// The hot front's reading of a batch: its BatchSettled log by fixed layout, its trades from the input of the
// transaction that emitted it. For random batches sent through either entry point (settle's ABI calldata,
// settlePacked's packed batch in both forms of fill and signature), decodeBatchLog gives the event's fields as
// viem's decodeEventLog does, and withTrades gives the trades the sdk's settledTradesOfCall gives for the same
// call, which are the batch's fills as the contract settles them (order hashes by sdk/eip712's hashTypedData,
// quote amounts and fees by its rules). Every malformed log, and every transaction that is not a direct call of
// the log's batch in the log's block, throws.
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { type Hex, decodeEventLog, encodeAbiParameters, encodeEventTopics, encodeFunctionData } from "viem";
import { settlementAbi } from "../../sdk/abi";
import { type Order, feeFor, getOrderHash, getSettlementDomain, quoteAmountFor } from "../../sdk/eip712";
import { type SettleArgs, buildSettleArgs, encodePackedBatch } from "../../sdk/settle-batch";
import { settledTradesOfCall } from "../../sdk/settled-trades";
import type { BatchTrade } from "../lib/batchRows";
import { BATCH_SETTLED_TOPIC, type RawLog, type RawTransaction, decodeBatchLog, withTrades } from "./decode";

const SETTLEMENT = "0x5fbdb2315678afecb367f032556d4b3a5c65d2e0" as const;
const CHAIN_ID = 31337;
const domain = { chainId: CHAIN_ID, settlement: SETTLEMENT };
const eip712 = getSettlementDomain(CHAIN_ID, SETTLEMENT);

const hex = (n: number) =>
  fc.uint8Array({ minLength: n, maxLength: n }).map((b) => `0x${Buffer.from(b).toString("hex")}` as Hex);
const u64 = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n });
const ticks = fc.bigInt({ min: 1n, max: 2n ** 100n });

/** A signature as the batch carries it: 65 bytes with v 27 or 28 (compact in the packed form when s allows),
 *  or any other bytes (carried with their length). */
const signature = fc.oneof(
  fc.tuple(hex(64), fc.constantFrom("1b", "1c")).map(([rs, v]) => `${rs}${v}` as Hex),
  fc.integer({ min: 0, max: 80 }).chain(hex),
);

interface Batch {
  batchId: bigint;
  makerFeeBps: number;
  takerFeeBps: number;
  args: SettleArgs;
}

/** A random batch the contract could settle: one pair, each fill between orders of opposite sides, exact
 *  amounts (base in 1e12 units, prices in 1e6 units), some fills at the maker's price; orders sorted by hash. */
const batchArb: fc.Arbitrary<Batch> = fc
  .record({
    batchId: u64,
    makerFeeBps: fc.integer({ min: 0, max: 0xffff }),
    takerFeeBps: fc.integer({ min: 0, max: 0xffff }),
    base: hex(20),
    quote: hex(20),
    orders: fc.array(
      fc.record({
        trader: hex(20),
        side: fc.constantFrom(0, 1),
        ticks,
        amount: fc.bigInt({ min: 1n, max: 2n ** 128n - 1n }),
        expiry: u64,
        nonce: u64,
        flags: fc.integer({ min: 0, max: 1 }),
        signature,
      }),
      { minLength: 2, maxLength: 6 },
    ),
    fills: fc.array(
      fc.record({ m: fc.nat(), t: fc.nat(), lots: fc.bigInt({ min: 1n, max: 2n ** 80n }), ticks: fc.option(ticks) }),
      { maxLength: 8 },
    ),
  })
  .map(({ batchId, makerFeeBps, takerFeeBps, base, quote, orders, fills }) => {
    const signed = orders.map((o, i) => {
      const order: Order = {
        trader: o.trader,
        baseToken: base,
        quoteToken: quote,
        // both sides present
        side: (i < 2 ? i : o.side) as Order["side"],
        price: o.ticks * 10n ** 6n,
        amount: o.amount,
        expiry: o.expiry,
        nonce: o.nonce,
        flags: o.flags,
      };
      return { order, signature: o.signature, hash: getOrderHash(eip712, order) };
    });
    const byHash = fills.map((f) => {
      const maker = signed[f.m % signed.length]!;
      const takers = signed.filter((s) => s.order.side !== maker.order.side);
      const taker = takers[f.t % takers.length]!;
      const price = f.ticks === null ? maker.order.price : f.ticks * 10n ** 6n;
      return { makerHash: maker.hash, takerHash: taker.hash, baseAmount: f.lots * 10n ** 12n, price };
    });
    return { batchId, makerFeeBps, takerFeeBps, args: buildSettleArgs(signed, byHash) };
  });

const settleInput = (b: Batch) =>
  encodeFunctionData({
    abi: settlementAbi,
    functionName: "settle",
    args: [b.batchId, b.args.orders, b.args.signatures, b.args.fills],
  });

const packedInput = (b: Batch, options: { explicitPrices?: boolean; explicitSignatures?: boolean } = {}) =>
  encodeFunctionData({
    abi: settlementAbi,
    functionName: "settlePacked",
    args: [b.batchId, encodePackedBatch(b.args, options)],
  });

const place = {
  address: SETTLEMENT,
  blockNumber: "0x1a2b",
  blockHash: `0x${"ab".repeat(32)}`,
  transactionHash: `0x${"cd".repeat(32)}`,
  logIndex: "0x7",
};

function batchLog(b: Pick<Batch, "batchId" | "makerFeeBps" | "takerFeeBps">, tradeCount: bigint): RawLog {
  const topics = encodeEventTopics({
    abi: settlementAbi,
    eventName: "BatchSettled",
    args: { batchId: b.batchId },
  }) as string[];
  const data = encodeAbiParameters(
    [{ type: "uint256" }, { type: "uint16" }, { type: "uint16" }],
    [tradeCount, b.makerFeeBps, b.takerFeeBps],
  );
  return { ...place, topics, data };
}

const txOf = (input: Hex): RawTransaction => ({
  hash: place.transactionHash,
  blockHash: place.blockHash,
  to: SETTLEMENT,
  input,
});

/** The batch's fills as the contract settles them, computed here from the orders (the reference hashing:
 *  hashTypedData), each side's fee on what it receives (the buyer base, the seller quote). */
function expectedTrades(b: Batch, logIndex: number): BatchTrade[] {
  const { orders } = b.args;
  const hashes = orders.map((o) => getOrderHash(eip712, o));
  return b.args.fills.map(({ makerIndex: m, takerIndex: t, baseAmount, price }, tradeIndex) => {
    const quoteAmount = quoteAmountFor(baseAmount, price)!;
    const takerIsBuy = orders[t]!.side === 0;
    const [makerGets, takerGets] = takerIsBuy ? [quoteAmount, baseAmount] : [baseAmount, quoteAmount];
    return {
      logIndex,
      tradeIndex,
      batchId: b.batchId,
      price,
      baseAmount,
      quoteAmount,
      takerIsBuy,
      makerFee: feeFor(makerGets, b.makerFeeBps),
      takerFee: feeFor(takerGets, b.takerFeeBps),
      makerOrderHash: hashes[m]!,
      takerOrderHash: hashes[t]!,
      maker: orders[m]!.trader,
      taker: orders[t]!.trader,
      baseToken: orders[m]!.baseToken,
      quoteToken: orders[m]!.quoteToken,
    };
  });
}

test("a batch of either entry point: viem's log fields, the sdk's trades, the contract's fills", () => {
  fc.assert(
    fc.property(
      batchArb,
      fc.constantFrom("settle", "packed", "packed-explicit"),
      fc.option(fc.integer({ min: 0, max: 2 ** 40 }), { nil: undefined }),
      (b, entry, ts) => {
        const raw = {
          ...batchLog(b, BigInt(b.args.fills.length)),
          ...(ts === undefined ? {} : { blockTimestamp: `0x${ts.toString(16)}` }),
        };
        const input =
          entry === "settle"
            ? settleInput(b)
            : packedInput(b, entry === "packed" ? {} : { explicitPrices: true, explicitSignatures: true });
        const log = decodeBatchLog(raw);
        const viem = decodeEventLog({
          abi: settlementAbi,
          topics: raw.topics as [Hex, ...Hex[]],
          data: raw.data as Hex,
          strict: true,
        });
        assert.equal(viem.eventName, "BatchSettled");
        if (viem.eventName !== "BatchSettled") return;
        const { batchId, tradeCount, makerFeeBps, takerFeeBps } = log;
        assert.deepEqual({ batchId, tradeCount, makerFeeBps, takerFeeBps }, viem.args);
        assert.deepEqual(
          [log.blockNumber, log.blockHash, log.txHash, log.logIndex, log.blockTimestamp],
          [0x1a2b, place.blockHash, place.transactionHash, 7, ts === undefined ? undefined : BigInt(ts)],
        );
        const { trades } = withTrades(log, txOf(input), domain);
        const lower = (t: BatchTrade) =>
          Object.fromEntries(Object.entries(t).map(([k, v]) => [k, typeof v === "string" ? v.toLowerCase() : v]));
        const sdk = settledTradesOfCall(input, viem.args, domain).map((t) => ({ ...t, logIndex: 7 }));
        assert.deepEqual(trades, sdk.map(lower), "the sdk's trades, lowercase");
        assert.deepEqual(trades, expectedTrades(b, 7).map(lower), "the contract's fills");
      },
    ),
    { numRuns: 200 },
  );
});

const sample: Batch = fc.sample(
  batchArb.filter((b) => b.args.fills.length > 0),
  { numRuns: 1, seed: 7 },
)[0]!;

test("upper-case hex from a node reads the same", () => {
  const raw = batchLog(sample, BigInt(sample.args.fills.length));
  assert.equal(raw.topics[0], BATCH_SETTLED_TOPIC);
  const up = (s: string) => s.toUpperCase().replace("0X", "0x");
  const upper: RawLog = { ...raw, topics: raw.topics.map(up), data: up(raw.data), blockHash: up(place.blockHash) };
  const tx = txOf(packedInput(sample));
  const upperTx = { hash: up(tx.hash), blockHash: up(tx.blockHash!), to: up(tx.to!), input: up(tx.input) };
  assert.deepEqual(withTrades(decodeBatchLog(upper), upperTx, domain), withTrades(decodeBatchLog(raw), tx, domain));
});

test("a malformed or foreign log throws (at each field's exact boundary)", () => {
  const good = batchLog({ batchId: 2n ** 64n - 1n, makerFeeBps: 0xffff, takerFeeBps: 0xffff }, 1n);
  // the boundaries themselves decode: uint64 max, uint16 max
  const ok = decodeBatchLog(good);
  assert.deepEqual([ok.batchId, ok.makerFeeBps, ok.takerFeeBps], [2n ** 64n - 1n, 0xffff, 0xffff]);
  const data = good.data.slice(2);
  const setWord = (i: number, w: string) => `0x${data.slice(0, i * 64)}${w}${data.slice((i + 1) * 64)}`;
  const batchTopic = (n: bigint) => `0x${n.toString(16).padStart(64, "0")}`;
  const bad: [string, RawLog][] = [
    ["batchId one past uint64", { ...good, topics: [good.topics[0]!, batchTopic(2n ** 64n)] }],
    ["makerFeeBps one past uint16", { ...good, data: setWord(1, "10000".padStart(64, "0")) }],
    ["takerFeeBps one past uint16", { ...good, data: setWord(2, "10000".padStart(64, "0")) }],
    ["a word too many", { ...good, data: `0x${data}${"0".repeat(64)}` }],
    ["a word too few", { ...good, data: `0x${data.slice(0, -64)}` }],
    ["one byte short", { ...good, data: `0x${data.slice(2)}` }],
    ["a non-hex digit", { ...good, data: `0x${data.slice(0, -1)}g` }],
    ["a topic too few", { ...good, topics: good.topics.slice(0, 1) }],
    ["a topic too many", { ...good, topics: [...good.topics, good.topics[1]!] }],
    ["another event", { ...good, topics: [`0x${"00".repeat(32)}`, ...good.topics.slice(1)] }],
    ["no topic", { ...good, topics: [] }],
    ["removed by a reorg", { ...good, removed: true }],
    ["a pending log (no block)", { ...good, blockNumber: null }],
    ["a short block hash", { ...good, blockHash: `0x${"ab".repeat(31)}` }],
  ];
  for (const [what, raw] of bad) assert.throws(() => decodeBatchLog(raw), /Settlement log/, what);
});

test("a transaction that is not a direct call of the log's batch in the log's block throws", () => {
  const count = BigInt(sample.args.fills.length);
  const log = decodeBatchLog(batchLog(sample, count));
  const tx = txOf(settleInput(sample));
  assert.equal(withTrades(log, tx, domain).trades.length, sample.args.fills.length);
  const other = (batchId: bigint) => ({ ...sample, batchId });
  const packed = encodePackedBatch(sample.args);
  const packedCall = (batchId: bigint, batch: string) =>
    encodeFunctionData({ abi: settlementAbi, functionName: "settlePacked", args: [batchId, batch as Hex] });
  const deposit = encodeFunctionData({ abi: settlementAbi, functionName: "deposit", args: [SETTLEMENT, 1n] });
  const bad: [string, RawTransaction | null, RegExp][] = [
    ["unknown to the node", null, /unknown to the node/],
    ["another transaction", { ...tx, hash: `0x${"ce".repeat(32)}` }, /answered with/],
    ["in another block", { ...tx, blockHash: `0x${"ac".repeat(32)}` }, /reorg/],
    ["pending", { ...tx, blockHash: null }, /reorg/],
    ["a call of another contract", { ...tx, to: `0x${"00".repeat(19)}01` }, /direct call/],
    ["a contract creation", { ...tx, to: null }, /direct call/],
    ["another function", { ...tx, input: deposit }, /Settlement log/],
    ["the next batch (settle)", { ...tx, input: settleInput(other(sample.batchId + 1n)) }, /Settlement log/],
    ["the next batch (packed)", { ...tx, input: packedInput(other(sample.batchId + 1n)) }, /Settlement log/],
    ["a byte short (settle)", { ...tx, input: settleInput(sample).slice(0, -2) as Hex }, /Settlement log/],
    [
      "a packed batch a byte short",
      { ...tx, input: packedCall(sample.batchId, packed.slice(0, -2)) },
      /Settlement log/,
    ],
    ["a packed batch a byte long", { ...tx, input: packedCall(sample.batchId, `${packed}00`) }, /Settlement log/],
    ["a non-hex digit", { ...tx, input: `${settleInput(sample).slice(0, -1)}g` as Hex }, /not hex/],
  ];
  for (const [what, t, message] of bad) assert.throws(() => withTrades(log, t, domain), message, what);
  // a log that counts one trade more (or less) than the call's fills
  for (const n of [count + 1n, count - 1n])
    assert.throws(() => withTrades(decodeBatchLog(batchLog(sample, n)), tx, domain), /Settlement log/, `${n} trades`);
});
