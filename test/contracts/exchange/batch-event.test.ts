// BatchSettled names its batch, its trade count and the fee rates; the trades are the calldata of the
// transaction that emitted it. For random batches settled through both entry points, settledTradesOf
// (sdk/settled-trades.ts) gives exactly the trades that were settled (hashes, traders, tokens, side, price,
// amounts, fees by the contract's rules, in fill order), and they account for every balance and fee the contract
// moved. A log whose transaction is not a direct call, or whose calldata settles another batch, is refused.
import { expect } from "chai";
import fc from "fast-check";
import { ethers } from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-toolbox/network-helpers";
import type { Address, Hex } from "viem";
import { feeFor, quoteAmountFor, OrderSide } from "../../../sdk/eip712";
import { buildSettleArgs, encodePackedBatch, type FillByHash, type SignedOrder } from "../../../sdk/settle-batch";
import { settledTradesOf, type SettledBatchTrade } from "../../../sdk/settled-trades";
import {
  deployFixture,
  hardhatClient,
  logOf,
  orderFor,
  settle,
  settledTradesOfReceipt,
  signed,
  useEncoding,
  ENCODINGS,
  type Encoding,
  MAKER_BPS,
  TAKER_BPS,
  type Fixture,
  type Untyped,
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
  /** the fill is at the maker's limit (else one tick better for the taker: both packed fill forms) */
  atMakerPrice: fc.boolean(),
});
type FillSpec = typeof fillArb extends fc.Arbitrary<infer T> ? T : never;
type Expected = Omit<SettledBatchTrade, "tradeIndex" | "batchId">;

/** The signed orders, fills and expected trades of a batch spec (the trades computed from the spec alone). */
async function batchOf(f: Fixture, spec: FillSpec[]) {
  const sellers = [
    { a: f.bob, k: f.keys.bob },
    { a: f.dave, k: f.keys.dave },
  ];
  const buyers = [
    { a: f.alice, k: f.keys.alice },
    { a: f.carol, k: f.keys.carol },
  ];
  const [weth, usd] = [await f.weth.getAddress(), await f.usd.getAddress()];
  const orders: SignedOrder[] = [];
  const fills: FillByHash[] = [];
  const expected: Expected[] = [];
  let shared: { order: SignedOrder; side: OrderSide; limit: bigint; trader: string } | undefined;
  for (const s of spec) {
    const limit = s.ticks * TICK;
    // a sell maker's limit is a floor, a buy maker's a ceiling: one tick better for the taker stays inside it
    const price = s.atMakerPrice ? limit : s.takerBuys ? limit + TICK : limit - TICK;
    const base = s.lots * LOT;
    const [maker, taker] = s.takerBuys
      ? [sellers[s.seller]!, buyers[s.buyer]!]
      : [buyers[s.buyer]!, sellers[s.seller]!];
    const makerSide = s.takerBuys ? OrderSide.SELL : OrderSide.BUY;
    let makerOrder: SignedOrder;
    if (shared && shared.side === makerSide && shared.limit === limit && shared.trader === maker.a.address)
      makerOrder = shared.order;
    else {
      makerOrder = await signed(
        f,
        maker.k,
        await orderFor(f, maker.a.address as Address, makerSide, 10n ** 22n, limit),
      );
      orders.push(makerOrder);
    }
    shared = s.shareMaker ? { order: makerOrder, side: makerSide, limit, trader: maker.a.address } : undefined;
    const takerSide = s.takerBuys ? OrderSide.BUY : OrderSide.SELL;
    const takerOrder = await signed(f, taker.k, await orderFor(f, taker.a.address as Address, takerSide, base, price));
    orders.push(takerOrder);
    fills.push({ makerHash: makerOrder.hash, takerHash: takerOrder.hash, baseAmount: base, price });
    const quote = quoteAmountFor(base, price)!;
    expected.push({
      makerOrderHash: makerOrder.hash.toLowerCase() as Hex,
      takerOrderHash: takerOrder.hash.toLowerCase() as Hex,
      maker: maker.a.address.toLowerCase() as Hex,
      taker: taker.a.address.toLowerCase() as Hex,
      baseToken: weth.toLowerCase() as Hex,
      quoteToken: usd.toLowerCase() as Hex,
      takerIsBuy: s.takerBuys,
      price,
      baseAmount: base,
      quoteAmount: quote,
      makerFee: feeFor(s.takerBuys ? quote : base, MAKER_BPS),
      takerFee: feeFor(s.takerBuys ? base : quote, TAKER_BPS),
    });
  }
  return { orders, fills, expected };
}

/** Every trader's settlement balance of both tokens, and the fees collected in each (keys `trader:token`). */
async function ledger(f: Fixture): Promise<Map<string, bigint>> {
  const out = new Map<string, bigint>();
  const tokens = [await f.weth.getAddress(), await f.usd.getAddress()].map((t) => t.toLowerCase());
  for (const t of tokens) {
    out.set(`fees:${t}`, await f.settlement.collectedFees(t));
    for (const s of [f.alice, f.bob, f.carol, f.dave])
      out.set(`${s.address.toLowerCase()}:${t}`, await f.settlement.balanceOf(s.address, t));
  }
  return out;
}

/** The ledger `before` moved by these trades: each side receives what it bought less its fee. */
function moved(before: Map<string, bigint>, trades: readonly SettledBatchTrade[]): Map<string, bigint> {
  const out = new Map(before);
  const add = (key: string, v: bigint) => out.set(key, out.get(key)! + v);
  for (const t of trades) {
    const [buyer, seller] = t.takerIsBuy ? [t.taker, t.maker] : [t.maker, t.taker];
    const [buyerFee, sellerFee] = t.takerIsBuy ? [t.takerFee, t.makerFee] : [t.makerFee, t.takerFee];
    add(`${buyer}:${t.baseToken}`, t.baseAmount - buyerFee);
    add(`${buyer}:${t.quoteToken}`, -t.quoteAmount);
    add(`${seller}:${t.baseToken}`, -t.baseAmount);
    add(`${seller}:${t.quoteToken}`, t.quoteAmount - sellerFee);
    add(`fees:${t.baseToken}`, buyerFee);
    add(`fees:${t.quoteToken}`, sellerFee);
  }
  return out;
}

/** Settles the batch through `settle` or `settlePacked` (its signatures compact or with their length). */
function send(f: Fixture, enc: Encoding, batchId: bigint, orders: SignedOrder[], fills: FillByHash[], long: boolean) {
  const args = buildSettleArgs(orders, fills);
  const operator = f.settlement.connect(f.operator);
  if (enc === "abi") return operator.settle(batchId, args.orders, args.signatures, args.fills);
  return operator.settlePacked(batchId, encodePackedBatch(args, { explicitSignatures: long }));
}

async function runBatch(f: Fixture, enc: Encoding, spec: FillSpec[], longSignatures: boolean) {
  const { orders, fills, expected } = await batchOf(f, spec);
  const batchId = (await f.settlement.nextBatchId()) as bigint;
  const before = await ledger(f);
  const receipt = await (await send(f, enc, batchId, orders, fills, longSignatures)).wait();
  expect(receipt.logs.length, "one log for the whole batch").to.equal(1);
  const event = f.settlement.interface.parseLog(receipt.logs[0]);
  expect(event.name).to.equal("BatchSettled");
  expect([...event.args]).to.deep.equal([batchId, BigInt(spec.length), MAKER_BPS, TAKER_BPS]);
  const trades = await settledTradesOfReceipt(f, receipt);
  const place = { transactionHash: receipt.hash.toLowerCase(), blockNumber: BigInt(receipt.blockNumber), logIndex: 0 };
  expect(trades).to.deep.equal(expected.map((e, tradeIndex) => ({ batchId, tradeIndex, ...e, ...place })));
  expect(await ledger(f)).to.deep.equal(moved(before, trades));
}

for (const enc of ENCODINGS)
  describe(`Settlement: BatchSettled's trades from its calldata (${enc})`, () => {
    it("settledTradesOf gives exactly the settled trades and the balances moved, for random batches", async () => {
      const f = await loadFixture(deployFixture);
      const specs = fc.array(fillArb, { minLength: 1, maxLength: 6 });
      await fc.assert(
        fc.asyncProperty(specs, fc.boolean(), (spec, long) => runBatch(f, enc, spec, long)),
        { numRuns: 12 },
      );
    });
  });

/** One signed Bob-sells-to-Alice batch (orders and fills by hash). */
async function oneTrade(f: Fixture) {
  const maker = await signed(f, f.keys.bob, await orderFor(f, f.bob.address as Address, OrderSide.SELL, 10n ** 18n));
  const taker = await signed(f, f.keys.alice, await orderFor(f, f.alice.address as Address, OrderSide.BUY, 10n ** 18n));
  return {
    orders: [maker, taker],
    fills: [{ makerHash: maker.hash, takerHash: taker.hash, baseAmount: 10n ** 17n, price: 2000n * 10n ** 6n }],
  };
}

describe("settledTradesOf: which logs it reads", () => {
  before(() => useEncoding("abi"));

  it("skips the contract's other events and other contracts' logs", async () => {
    const f = await loadFixture(deployFixture);
    const batch = await oneTrade(f);
    const deposit = await (await f.settlement.connect(f.alice).deposit(await f.usd.getAddress(), 1_000_000n)).wait();
    const settled = await (await settle(f, batch.orders, batch.fills)).wait();
    const logs = [...deposit.logs, ...settled.logs].map(logOf);
    expect(logs.length).to.be.greaterThan(2);
    const trades = await settledTradesOf(hardhatClient(), logs);
    expect(trades.map((t) => t.makerOrderHash)).to.deep.equal([batch.orders[0]!.hash.toLowerCase()]);
    expect(await settledTradesOf(hardhatClient(), logs, await f.usd.getAddress())).to.deep.equal([]);
  });

  it("refuses a batch settled by a contract's call inside another transaction (not a direct call)", async () => {
    const f = await loadFixture(deployFixture);
    // a token that calls settlePacked in the middle of a transfer, as an operator: tx.to is the token
    const relay = (await (await ethers.getContractFactory("SettlementReentrantToken")).deploy()) as Untyped;
    await f.settlement.grantRole(await f.settlement.OPERATOR_ROLE(), await relay.getAddress());
    await relay.mint(f.alice.address, 10n);
    const batchId = (await f.settlement.nextBatchId()) as bigint;
    const batch = await oneTrade(f);
    const packed = encodePackedBatch(buildSettleArgs(batch.orders, batch.fills));
    const call = f.settlement.interface.encodeFunctionData("settlePacked", [batchId, packed]);
    await relay.arm(await f.settlement.getAddress(), call);
    const receipt = await (await relay.connect(f.alice).transfer(f.bob.address, 1n)).wait();
    const logs = receipt.logs.map(logOf);
    const settlement = await f.settlement.getAddress();
    expect(logs.filter((l: { address: string }) => l.address === settlement)).to.have.length(1);
    expect(await f.settlement.nextBatchId()).to.equal(batchId + 1n);
    await expectRefused(settledTradesOf(hardhatClient(), logs, settlement), /is not a direct call of/);
  });

  it("refuses a log paired with calldata that settles another batch", async () => {
    const f = await loadFixture(deployFixture);
    const first = await oneTrade(f);
    const a = await (await settle(f, first.orders, first.fills)).wait();
    const second = await oneTrade(f);
    const b = await (await settle(f, second.orders, second.fills)).wait();
    // batch 0's log, said to come from batch 1's transaction
    const log = { ...logOf(a.logs[0]), transactionHash: b.hash as Hex };
    await expectRefused(
      settledTradesOf(hardhatClient(), [log], await f.settlement.getAddress()),
      /the event is batch 0, its transaction settles batch 1/,
    );
  });
});

async function expectRefused(p: Promise<unknown>, message: RegExp): Promise<void> {
  let error: unknown;
  try {
    await p;
  } catch (e) {
    error = e;
  }
  expect(error, "refused").to.be.instanceOf(Error);
  expect((error as Error).message).to.match(message);
}
