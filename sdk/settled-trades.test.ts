// The reader of settled batches without a chain: a service's fast order hasher gives the trades the portable
// one (sdk/eip712's EIP-712 digest) gives; a call's
// input gives the same trades through settle and settlePacked; an input that is not a settle call, names another
// batch or another number of fills is refused; settledTradesOf reads only direct calls of the log's contract.
// The contract test test/contracts/exchange/batch-event.test.ts holds the trades to what the contract settled.
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { type Hex, encodeAbiParameters, encodeEventTopics, encodeFunctionData, getAddress } from "viem";
import { settlementAbi } from "./abi";
import { type Order, getOrderHash, getSettlementDomain } from "./eip712";
import { type SettleArgs, encodePackedBatch } from "./settle-batch";
import { createOrderDigester, getDomainSeparator } from "../runtime/order-digest";
import {
  type BatchSettledArgs,
  type OrderHasherFactory,
  type SettlementReadClient,
  settledTradesOf,
  settledTradesOfCall,
} from "./settled-trades";

const SETTLEMENT = "0x5fbdb2315678afecb367f032d93f642f64180aa3" as Hex;
const domain = { chainId: 31337, settlement: SETTLEMENT };
/** a service's hasher, as the indexer passes it: runtime/order-digest over the domain's separator */
const nativeHasher: OrderHasherFactory = (d) => createOrderDigester(getDomainSeparator(d));
const hex = (n: number) =>
  fc.uint8Array({ minLength: n, maxLength: n }).map((b) => `0x${Buffer.from(b).toString("hex")}`);
const u = (bits: bigint) => fc.bigInt({ min: 0n, max: (1n << bits) - 1n });
const orderArb: fc.Arbitrary<Order> = fc.record({
  trader: hex(20).map((a) => getAddress(a)),
  baseToken: hex(20).map((a) => getAddress(a)),
  quoteToken: hex(20).map((a) => a as Hex),
  side: fc.constantFrom(0 as const, 1 as const),
  price: u(256n),
  amount: u(256n),
  expiry: u(64n),
  nonce: u(256n),
  flags: fc.integer({ min: 0, max: 255 }),
});

const WETH = "0x1111111111111111111111111111111111111111" as Hex;
const USD = "0x2222222222222222222222222222222222222222" as Hex;
const order = (trader: string, side: 0 | 1, price: bigint): Order => ({
  trader: trader as Hex,
  baseToken: WETH,
  quoteToken: USD,
  side,
  price,
  amount: 10n ** 20n,
  expiry: 2_000_000_000n,
  nonce: 7n,
  flags: 0,
});
const ARGS: SettleArgs = {
  orders: [order(`0x${"aa".repeat(20)}`, 1, 2000n * 10n ** 6n), order(`0x${"bb".repeat(20)}`, 0, 2100n * 10n ** 6n)],
  signatures: [`0x${"01".repeat(64)}1b`, "0x1234"],
  fills: [
    { makerIndex: 0, takerIndex: 1, baseAmount: 10n ** 16n, price: 2000n * 10n ** 6n },
    { makerIndex: 0, takerIndex: 1, baseAmount: 3n * 10n ** 16n, price: 2050n * 10n ** 6n },
  ],
};
const EVENT: BatchSettledArgs = { batchId: 4n, tradeCount: 2n, makerFeeBps: 10, takerFeeBps: 20 };
const settleInput = (batchId: bigint, args: SettleArgs) =>
  encodeFunctionData({
    abi: settlementAbi,
    functionName: "settle",
    args: [batchId, args.orders, args.signatures, args.fills],
  });
const packedInput = (batchId: bigint, args: SettleArgs) =>
  encodeFunctionData({ abi: settlementAbi, functionName: "settlePacked", args: [batchId, encodePackedBatch(args)] });

test("settledTradesOfCall: the same trades through settle and settlePacked, with hashes, amounts and fees", () => {
  const trades = settledTradesOfCall(settleInput(4n, ARGS), EVENT, domain);
  assert.deepEqual(settledTradesOfCall(packedInput(4n, ARGS), EVENT, domain), trades);
  const d = getSettlementDomain(domain.chainId, domain.settlement);
  assert.deepEqual(trades[1], {
    batchId: 4n,
    tradeIndex: 1,
    makerOrderHash: getOrderHash(d, ARGS.orders[0]!),
    takerOrderHash: getOrderHash(d, ARGS.orders[1]!),
    maker: `0x${"aa".repeat(20)}`,
    taker: `0x${"bb".repeat(20)}`,
    baseToken: WETH,
    quoteToken: USD,
    takerIsBuy: true,
    price: 2050n * 10n ** 6n,
    baseAmount: 3n * 10n ** 16n,
    quoteAmount: 61_500_000n,
    // the maker sells and receives quote, the taker buys and receives base: ceil(x * bps / 10,000)
    makerFee: 61_500n,
    takerFee: 6n * 10n ** 13n,
  });
});

test("a service's order hasher (runtime/order-digest) gives the portable one's trades, for random orders and domains", () => {
  const pair = fc.tuple(orderArb, orderArb).map(([maker, taker]) => ({
    orders: [
      { ...maker, side: 1 as const },
      { ...taker, side: 0 as const },
    ],
    signatures: ["0x01", "0x02"] as Hex[],
    fills: [{ makerIndex: 0, takerIndex: 1, baseAmount: 10n ** 16n, price: 10n ** 18n }],
  }));
  const event = { ...EVENT, tradeCount: 1n };
  fc.assert(
    fc.property(pair, fc.integer({ min: 1, max: 2 ** 40 }), hex(20), (args, chainId, at) => {
      const d = { chainId, settlement: at as Hex };
      const input = settleInput(4n, args);
      assert.deepEqual(settledTradesOfCall(input, event, d, nativeHasher), settledTradesOfCall(input, event, d));
    }),
    { numRuns: 200 },
  );
});

test("settledTradesOfCall refuses another call, another batch, another fill count and malformed input", () => {
  for (const input of [settleInput, packedInput].map((f) => f(4n, ARGS))) {
    assert.throws(
      () => settledTradesOfCall(input, { ...EVENT, batchId: 5n }, domain),
      /batch 5, its transaction settles batch 4/,
    );
    assert.throws(
      () => settledTradesOfCall(input, { ...EVENT, tradeCount: 3n }, domain),
      /3 trades, its transaction 2 fills/,
    );
  }
  const deposit = encodeFunctionData({ abi: settlementAbi, functionName: "deposit", args: [USD, 5n] });
  assert.throws(() => settledTradesOfCall(deposit, EVENT, domain), /calls deposit, not settle or settlePacked/);
  assert.throws(() => settledTradesOfCall("0xdeadbeef", EVENT, domain), /not a Settlement call/);
  const packed = packedInput(4n, ARGS);
  assert.throws(() => settledTradesOfCall(packed.slice(0, 200) as Hex, EVENT, domain), /not a Settlement call/);
  const trailing = `${encodePackedBatch(ARGS)}00` as Hex;
  const withTrailing = encodeFunctionData({ abi: settlementAbi, functionName: "settlePacked", args: [4n, trailing] });
  assert.throws(() => settledTradesOfCall(withTrailing, EVENT, domain), /1 trailing bytes/);
  const outOfRange = { ...ARGS, fills: [ARGS.fills[0]!, { ...ARGS.fills[1]!, takerIndex: 2 }] };
  assert.throws(() => settledTradesOfCall(settleInput(4n, outOfRange), EVENT, domain), /fill 1 names order 2 of 2/);
  assert.throws(() => settledTradesOfCall(packedInput(4n, outOfRange), EVENT, domain), /fill 1 names an order past 2/);
  const sideTwo = { ...ARGS, orders: [ARGS.orders[0]!, { ...ARGS.orders[1]!, side: 2 as 0 }] };
  assert.throws(() => settledTradesOfCall(settleInput(4n, sideTwo), EVENT, domain), /order 1 has side 2/);
  const inexact = { ...ARGS, fills: [ARGS.fills[0]!, { ...ARGS.fills[1]!, baseAmount: 1n }] };
  assert.throws(() => settledTradesOfCall(settleInput(4n, inexact), EVENT, domain), /fill 1 is not exact/);
});

/** A BatchSettled log of the settlement for `event` in transaction `hash`. */
function batchLog(event: BatchSettledArgs, hash: Hex, address: string = SETTLEMENT) {
  return {
    address,
    topics: encodeEventTopics({
      abi: settlementAbi,
      eventName: "BatchSettled",
      args: { batchId: event.batchId },
    }) as Hex[],
    data: encodeAbiParameters(
      [{ type: "uint256" }, { type: "uint16" }, { type: "uint16" }],
      [event.tradeCount, event.makerFeeBps, event.takerFeeBps],
    ),
    transactionHash: hash,
    blockNumber: 9n,
    logIndex: 3,
  };
}

/** A chain that knows these transactions (by hash) and counts what it is asked. */
function chainOf(txs: Record<string, { to: Hex | null; input: Hex }>) {
  const asked: string[] = [];
  const client = {
    getChainId: async () => 31337,
    getTransaction: async ({ hash }: { hash: Hex }) => {
      asked.push(hash);
      const tx = txs[hash];
      if (tx === undefined) throw new Error(`no transaction ${hash}`);
      return tx;
    },
  } as unknown as SettlementReadClient;
  return { client, asked };
}

test("settledTradesOf: each transaction read once, trades located; other contracts' logs skipped", async () => {
  const [a, b] = [`0x${"0a".repeat(32)}`, `0x${"0b".repeat(32)}`] as Hex[];
  const { client, asked } = chainOf({
    [a]: { to: getAddress(SETTLEMENT), input: settleInput(4n, ARGS) },
    [b]: { to: SETTLEMENT, input: packedInput(5n, { ...ARGS, fills: [ARGS.fills[0]!] }) },
  });
  const logs = [
    batchLog(EVENT, a),
    batchLog({ ...EVENT, batchId: 9n }, a, USD),
    { ...batchLog(EVENT, a), topics: [`0x${"ee".repeat(32)}`] as Hex[] },
    batchLog({ ...EVENT, batchId: 5n, tradeCount: 1n }, b),
  ];
  const trades = await settledTradesOf(client, logs, SETTLEMENT.toUpperCase().replace("0X", "0x"));
  assert.deepEqual(
    trades.map((t) => [t.batchId, t.tradeIndex, t.transactionHash, t.blockNumber, t.logIndex]),
    [
      [4n, 0, a, 9n, 3],
      [4n, 1, a, 9n, 3],
      [5n, 0, b, 9n, 3],
    ],
  );
  assert.deepEqual(asked.sort(), [a, b]);
  // a lookalike log of another contract in the settlement's transaction is not that transaction's batch
  await assert.rejects(settledTradesOf(client, logs, USD), /not a direct call of 0x2222/);
});

test("settledTradesOf refuses a log whose transaction is not a direct call, or that has no transaction hash", async () => {
  const hash = `0x${"0c".repeat(32)}` as Hex;
  const input = settleInput(4n, ARGS);
  const viaRouter = chainOf({ [hash]: { to: USD, input } }).client;
  await assert.rejects(settledTradesOf(viaRouter, [batchLog(EVENT, hash)]), /is not a direct call of 0x5fbdb/);
  const creation = chainOf({ [hash]: { to: null, input } }).client;
  await assert.rejects(settledTradesOf(creation, [batchLog(EVENT, hash)]), /is not a direct call/);
  const { transactionHash: _, ...unplaced } = batchLog(EVENT, hash);
  await assert.rejects(settledTradesOf(creation, [unplaced]), /no transaction hash/);
  const otherBatch = chainOf({ [hash]: { to: SETTLEMENT, input: settleInput(3n, ARGS) } }).client;
  await assert.rejects(settledTradesOf(otherBatch, [batchLog(EVENT, hash)]), /its transaction settles batch 3/);
});

test("settledTradesOf asks for at most 16 transactions at once, each once", async () => {
  const one = { ...ARGS, fills: [ARGS.fills[0]!] };
  const hashes = Array.from({ length: 40 }, (_, i) => `0x${(i + 1).toString(16).padStart(64, "0")}` as Hex);
  let inFlight = 0;
  let most = 0;
  const asked: Hex[] = [];
  const client = {
    getChainId: async () => 31337,
    getTransaction: async ({ hash }: { hash: Hex }) => {
      asked.push(hash);
      most = Math.max(most, ++inFlight);
      await new Promise((r) => setTimeout(r, 1));
      inFlight--;
      return { to: SETTLEMENT, input: settleInput(BigInt(hashes.indexOf(hash)), one) };
    },
  } as unknown as SettlementReadClient;
  const logs = hashes.map((h, i) => batchLog({ ...EVENT, batchId: BigInt(i), tradeCount: 1n }, h));
  const trades = await settledTradesOf(client, [...logs, ...logs], SETTLEMENT);
  assert.equal(trades.length, 80);
  assert.deepEqual(
    trades.slice(0, 40).map((t) => t.batchId),
    hashes.map((_, i) => BigInt(i)),
  );
  assert.deepEqual(asked.sort(), [...hashes].sort());
  assert.equal(most, 16);
});
