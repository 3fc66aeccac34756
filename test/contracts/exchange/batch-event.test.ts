// BatchSettled carries every trade of its batch (one event per batch): for random batches settled through
// both entry points, the sdk decoder (sdk/settled-trades.ts) gives exactly the trades that were settled
// (hashes, traders, tokens, side, price, amounts, fees by the contract's rules, in fill order), and the
// sdk encoder restates the contract's bytes exactly.
import { expect } from "chai";
import fc from "fast-check";
import { loadFixture } from "@nomicfoundation/hardhat-toolbox/network-helpers";
import type { Address, Hex } from "viem";
import { feeFor, quoteAmountFor, OrderSide } from "../../../sdk/eip712";
import type { FillByHash, SignedOrder } from "../../../sdk/settle-batch";
import {
  decodeSettledTrades,
  encodeSettledTrades,
  parseSettledTrades,
  settledTradesOf,
  type SettledBatchTrade,
} from "../../../sdk/settled-trades";
import {
  deployFixture,
  orderFor,
  settle,
  settleRaw,
  signed,
  useEncoding,
  ENCODINGS,
  MAKER_BPS,
  TAKER_BPS,
  type Fixture,
} from "./fixtures";

const LOT = 10n ** 15n;
const TICK = 10n ** 6n;

const fillArb = fc.record({
  seller: fc.integer({ min: 0, max: 1 }),
  buyer: fc.integer({ min: 0, max: 1 }),
  takerBuys: fc.boolean(),
  lots: fc.bigInt({ min: 10n, max: 2000n }),
  ticks: fc.bigInt({ min: 10n, max: 4000n }),
  /** the maker's order also takes the next fill's maker side (one maker order, two trades) */
  shareMaker: fc.boolean(),
});

async function runBatch(
  f: Fixture,
  spec: { seller: number; buyer: number; takerBuys: boolean; lots: bigint; ticks: bigint; shareMaker: boolean }[],
) {
  const sellers = [
    { a: f.bob, k: f.keys.bob },
    { a: f.dave, k: f.keys.dave },
  ];
  const buyers = [
    { a: f.alice, k: f.keys.alice },
    { a: f.carol, k: f.keys.carol },
  ];
  const orders: SignedOrder[] = [];
  const fills: FillByHash[] = [];
  const expected: Omit<SettledBatchTrade, "tradeIndex" | "batchId">[] = [];
  let shared: { order: SignedOrder; side: OrderSide; price: bigint; trader: string } | undefined;
  for (const s of spec) {
    const price = s.ticks * TICK;
    const base = s.lots * LOT;
    const seller = sellers[s.seller]!,
      buyer = buyers[s.buyer]!;
    const [maker, taker] = s.takerBuys ? [seller, buyer] : [buyer, seller];
    const makerSide = s.takerBuys ? OrderSide.SELL : OrderSide.BUY;
    let makerOrder: SignedOrder;
    if (shared && shared.side === makerSide && shared.price === price && shared.trader === maker.a.address)
      makerOrder = shared.order;
    else {
      makerOrder = await signed(
        f,
        maker.k,
        await orderFor(f, maker.a.address as Address, makerSide, 10n ** 22n, price),
      );
      orders.push(makerOrder);
    }
    shared = s.shareMaker ? { order: makerOrder, side: makerSide, price, trader: maker.a.address } : undefined;
    const takerOrder = await signed(
      f,
      taker.k,
      await orderFor(f, taker.a.address as Address, s.takerBuys ? OrderSide.BUY : OrderSide.SELL, base, price),
    );
    orders.push(takerOrder);
    fills.push({ makerHash: makerOrder.hash, takerHash: takerOrder.hash, baseAmount: base, price });
    const quote = quoteAmountFor(base, price)!;
    expected.push({
      makerOrderHash: makerOrder.hash.toLowerCase() as Hex,
      takerOrderHash: takerOrder.hash.toLowerCase() as Hex,
      maker: maker.a.address.toLowerCase() as Hex,
      taker: taker.a.address.toLowerCase() as Hex,
      baseToken: (await f.weth.getAddress()).toLowerCase() as Hex,
      quoteToken: (await f.usd.getAddress()).toLowerCase() as Hex,
      takerIsBuy: s.takerBuys,
      price,
      baseAmount: base,
      quoteAmount: quote,
      makerFee: feeFor(s.takerBuys ? quote : base, MAKER_BPS),
      takerFee: feeFor(s.takerBuys ? base : quote, TAKER_BPS),
    });
  }
  const batchId = (await f.settlement.nextBatchId()) as bigint;
  const receipt = await (await settle(f, orders, fills)).wait();
  const logs = receipt.logs.map((l: { address: string; topics: string[]; data: string }) => ({
    address: l.address,
    topics: l.topics as Hex[],
    data: l.data as Hex,
  }));
  expect(logs.length, "one log for the whole batch").to.equal(1);
  const trades = settledTradesOf(logs, await f.settlement.getAddress());
  expect(trades).to.deep.equal(expected.map((e, tradeIndex) => ({ batchId, tradeIndex, ...e })));
  const event = f.settlement.interface.parseLog(receipt.logs[0]);
  expect(event.args.tradeCount).to.equal(BigInt(spec.length));
  const bytes = event.args.trades as Hex;
  expect(encodeSettledTrades(parseSettledTrades(BigInt(spec.length), bytes))).to.equal(bytes.toLowerCase());
  expect(decodeSettledTrades(batchId, BigInt(spec.length), bytes)).to.deep.equal(trades);
}

for (const enc of ENCODINGS)
  describe(`Settlement: BatchSettled carries the batch's trades (${enc})`, () => {
    before(() => useEncoding(enc));

    it("the sdk decoder gives exactly the settled trades, for random batches", async () => {
      const f = await loadFixture(deployFixture);
      await fc.assert(
        fc.asyncProperty(fc.array(fillArb, { minLength: 1, maxLength: 6 }), (spec) => runBatch(f, spec)),
        { numRuns: 12 },
      );
    });

    it("the decoder refuses bytes the contract cannot write", () => {
      const good = encodeSettledTrades({
        makerFeeBps: 1,
        takerFeeBps: 2,
        fills: [{ makerIndex: 0, takerIndex: 1, baseAmount: 10n ** 16n, price: 2000n * 10n ** 6n }],
        orders: [0, 1].map((side) => ({
          orderHash: `0x${"11".repeat(32)}` as Hex,
          trader: `0x${"22".repeat(20)}` as Hex,
          baseToken: `0x${"33".repeat(20)}` as Hex,
          quoteToken: `0x${"44".repeat(20)}` as Hex,
          side,
        })),
      });
      expect(decodeSettledTrades(1n, 1n, good)).to.have.length(1);
      expect(() => decodeSettledTrades(1n, 2n, good)).to.throw(/bytes/);
      expect(() => decodeSettledTrades(1n, 1n, `${good}00`)).to.throw(/bytes/);
      // the taker index of the one fill, after the 9-byte header and the two tokens
      const takerIndexAt = 2 + 2 * (9 + 2 * 20 + 4);
      expect(() =>
        decodeSettledTrades(1n, 1n, `${good.slice(0, takerIndexAt)}00000002${good.slice(takerIndexAt + 8)}`),
      ).to.throw(/names an order/);
      expect(() => decodeSettledTrades(1n, 1n, `${good.slice(0, -2)}02`)).to.throw(/side/);
      expect(() => decodeSettledTrades(1n, 1n, `${good.slice(0, -4)}0201`)).to.throw(/names a token past 2/);
      expect(() => decodeSettledTrades(1n, 1n, `${good.slice(0, -1)}g`)).to.throw(/hex/);
    });
  });

describe("settledTradesOf", () => {
  it("skips the contract's other events and other contracts' logs", async () => {
    const f = await loadFixture(deployFixture);
    const maker = await signed(f, f.keys.bob, await orderFor(f, f.bob.address as Address, OrderSide.SELL, 10n ** 18n));
    const taker = await signed(
      f,
      f.keys.alice,
      await orderFor(f, f.alice.address as Address, OrderSide.BUY, 10n ** 18n),
    );
    const deposit = await (await f.settlement.connect(f.alice).deposit(await f.usd.getAddress(), 1_000_000n)).wait();
    const settled = await (
      await settle(
        f,
        [maker, taker],
        [{ makerHash: maker.hash, takerHash: taker.hash, baseAmount: 10n ** 17n, price: 2000n * 10n ** 6n }],
      )
    ).wait();
    const logs = [...deposit.logs, ...settled.logs].map((l: { address: string; topics: string[]; data: string }) => ({
      address: l.address,
      topics: l.topics as Hex[],
      data: l.data as Hex,
    }));
    expect(logs.length).to.be.greaterThan(2);
    expect(settledTradesOf(logs).map((t) => t.makerOrderHash)).to.deep.equal([maker.hash.toLowerCase()]);
    expect(settledTradesOf(logs, await f.usd.getAddress())).to.deep.equal([]);
  });
});

describe("Settlement: BatchSettled's token table (abi)", () => {
  before(() => useEncoding("abi"));

  it("holds 255 tokens: the order naming a 256th reverts the batch, not the one naming the 255th", async () => {
    const f = await loadFixture(deployFixture);
    // made-up token addresses: orders 0-126 name tokens 0-253 (a pair each), order 127 a new base (the 255th) and
    // quote 0, order 128 a new base (the 256th) and quote 1. The table is built before any signature or order
    // check, so neither is needed here.
    const token = (i: number) => `0x${(i + 1).toString(16).padStart(40, "0")}` as Address;
    const pairs = Array.from({ length: 127 }, (_, i) => [token(2 * i), token(2 * i + 1)] as const);
    pairs.push([token(254), token(0)], [token(255), token(1)]);
    const order = await orderFor(f, f.alice.address as Address, OrderSide.BUY, 10n ** 18n);
    const orders = pairs.map(([baseToken, quoteToken]) => ({ ...order, baseToken, quoteToken }));
    const signatures = orders.map(() => "0x" as Hex);
    await expect(settleRaw(f, await f.settlement.nextBatchId(), orders, signatures, []))
      .to.be.revertedWithCustomError(f.settlement, "SettlementBatchTooManyTokens")
      .withArgs(128n);
  });
});
