// Invariant test (Solady-style handler with running totals): fast-check drives random deposits, batches
// and withdrawals against the Hardhat network while a model keeps the expected balances. After every
// step, for every token: token.balanceOf(settlement) == sum of internal balances + collected fees, the
// chain's balances and fees equal the model's, and the model never goes negative.
import { expect } from "chai";
import fc from "fast-check";
import { loadFixture, time } from "@nomicfoundation/hardhat-toolbox/network-helpers";
import type { Address } from "viem";
import { feeFor, quoteAmountFor, OrderSide } from "../../../sdk/eip712";
import type { FillByHash, SignedOrder } from "../../../sdk/settle-batch";
import {
  deployFixture,
  orderFor,
  settle,
  signed,
  signerKey,
  useEncoding,
  DELAY,
  MAKER_BPS,
  TAKER_BPS,
  type Fixture,
} from "./fixtures";

const LOT = 10n ** 15n; // 0.001 WETH
const TICK = 10n ** 6n; // 1 USD per WETH (ticks from 10: one lot at 10 USD is 10,000 quote units, MIN_FILL_UNITS)
const TRADERS = [3, 4, 5, 6]; // alice, bob, carol, dave
/** deposit and withdrawal amounts are drawn in units of 1 USD (1e6) and 0.001 WETH (1e15) */
const UNIT = [10n ** 6n, 10n ** 15n];

type Action =
  | { kind: "deposit"; t: number; token: number; amount: bigint }
  | {
      kind: "batch";
      packed: boolean;
      fills: { maker: number; taker: number; takerBuys: boolean; lots: bigint; ticks: bigint }[];
    }
  | { kind: "request"; t: number; token: number; amount: bigint }
  | { kind: "execute"; t: number; token: number }
  | { kind: "cancel"; t: number; token: number };

const trader = fc.integer({ min: 0, max: TRADERS.length - 1 });
const token = fc.integer({ min: 0, max: 1 });
const actionArb: fc.Arbitrary<Action> = fc.oneof(
  fc.record({ kind: fc.constant("deposit" as const), t: trader, token, amount: fc.bigInt({ min: 1n, max: 5000n }) }),
  fc.record({
    kind: fc.constant("batch" as const),
    packed: fc.boolean(),
    fills: fc.array(
      fc
        .record({
          maker: trader,
          taker: trader,
          takerBuys: fc.boolean(),
          lots: fc.bigInt({ min: 1n, max: 3000n }),
          ticks: fc.bigInt({ min: 10n, max: 4000n }),
        })
        .filter((x) => x.maker !== x.taker),
      { minLength: 1, maxLength: 4 },
    ),
  }),
  fc.record({ kind: fc.constant("request" as const), t: trader, token, amount: fc.bigInt({ min: 1n, max: 3000n }) }),
  fc.record({ kind: fc.constant("execute" as const), t: trader, token }),
  fc.record({ kind: fc.constant("cancel" as const), t: trader, token }),
);

class Model {
  balances = new Map<string, bigint>();
  fees = [0n, 0n];
  pending = new Map<string, bigint>();
  key = (t: number, tok: number) => `${t}:${tok}`;
  bal = (t: number, tok: number) => this.balances.get(this.key(t, tok)) ?? 0n;
  add(t: number, tok: number, d: bigint) {
    const v = this.bal(t, tok) + d;
    expect(v >= 0n, "model balance went negative").to.equal(true);
    this.balances.set(this.key(t, tok), v);
  }
}

async function initialModel(f: Fixture): Promise<Model> {
  const m = new Model();
  const tokens = [await f.usd.getAddress(), await f.weth.getAddress()];
  for (let t = 0; t < TRADERS.length; t++)
    for (let k = 0; k < 2; k++) m.add(t, k, await f.settlement.balanceOf(signerKey(TRADERS[t]!).address, tokens[k]!));
  return m;
}

async function checkInvariants(f: Fixture, m: Model) {
  const tokens = [f.usd, f.weth];
  for (let k = 0; k < 2; k++) {
    const addr = await tokens[k]!.getAddress();
    let sum = 0n;
    for (let t = 0; t < TRADERS.length; t++) {
      const onChain = await f.settlement.balanceOf(signerKey(TRADERS[t]!).address, addr);
      expect(onChain).to.equal(m.bal(t, k));
      sum += onChain;
    }
    const fees = await f.settlement.collectedFees(addr);
    expect(fees).to.equal(m.fees[k]);
    expect(await tokens[k]!.balanceOf(await f.settlement.getAddress())).to.equal(sum + fees);
  }
}

async function runBatch(f: Fixture, m: Model, fills: Extract<Action, { kind: "batch" }>["fills"], packed: boolean) {
  useEncoding(packed ? "packed" : "abi"); // both entry points must keep the same books
  const orders: SignedOrder[] = [];
  const byHash: FillByHash[] = [];
  const next = new Model();
  next.balances = new Map(m.balances);
  next.fees = [...m.fees];
  for (const x of fills) {
    const base = x.lots * LOT;
    const price = x.ticks * TICK;
    const quote = quoteAmountFor(base, price)!;
    const makerKey = signerKey(TRADERS[x.maker]!);
    const takerKey = signerKey(TRADERS[x.taker]!);
    // the maker order is twice the fill, so it stays partially filled (filledAmount written)
    const maker = await signed(
      f,
      makerKey,
      await orderFor(f, makerKey.address as Address, x.takerBuys ? OrderSide.SELL : OrderSide.BUY, base * 2n, price),
    );
    const taker = await signed(
      f,
      takerKey,
      await orderFor(f, takerKey.address as Address, x.takerBuys ? OrderSide.BUY : OrderSide.SELL, base, price),
    );
    orders.push(maker, taker);
    byHash.push({ makerHash: maker.hash, takerHash: taker.hash, baseAmount: base, price });
    const [buyer, seller] = x.takerBuys ? [x.taker, x.maker] : [x.maker, x.taker];
    const buyerFee = feeFor(base, x.takerBuys ? TAKER_BPS : MAKER_BPS);
    const sellerFee = feeFor(quote, x.takerBuys ? MAKER_BPS : TAKER_BPS);
    // net settlement: the batch applies iff every balance ends non-negative (raw adds, checked after)
    next.balances.set(next.key(buyer, 0), next.bal(buyer, 0) - quote);
    next.balances.set(next.key(seller, 1), next.bal(seller, 1) - base);
    next.balances.set(next.key(buyer, 1), next.bal(buyer, 1) + base - buyerFee);
    next.balances.set(next.key(seller, 0), next.bal(seller, 0) + quote - sellerFee);
    next.fees[1] += buyerFee;
    next.fees[0] += sellerFee;
  }
  const fundsShort = [...next.balances.values()].some((v) => v < 0n);
  if (fundsShort) {
    await expect(settle(f, orders, byHash)).to.be.revertedWithCustomError(
      f.settlement,
      "SettlementInsufficientBalance",
    );
    return;
  }
  await settle(f, orders, byHash);
  m.balances = next.balances;
  m.fees = next.fees;
}

async function runAction(f: Fixture, m: Model, a: Action) {
  const tokens = [await f.usd.getAddress(), await f.weth.getAddress()];
  if (a.kind === "batch") return runBatch(f, m, a.fills, a.packed);
  if (a.kind === "deposit" || a.kind === "request") a = { ...a, amount: a.amount * UNIT[a.token]! };
  const who = f.signers[TRADERS[a.t]!]!;
  const tok = tokens[a.token]!;
  const pendingKey = m.key(a.t, a.token);
  if (a.kind === "deposit") {
    await f.settlement.connect(who).deposit(tok, a.amount);
    m.add(a.t, a.token, a.amount);
  } else if (a.kind === "request") {
    const call = f.settlement.connect(who).requestWithdrawal(tok, a.amount);
    if (m.pending.has(pendingKey))
      await expect(call).to.be.revertedWithCustomError(f.settlement, "SettlementWithdrawalAlreadyPending");
    else if (a.amount > m.bal(a.t, a.token))
      await expect(call).to.be.revertedWithCustomError(f.settlement, "SettlementInsufficientBalance");
    else {
      await call;
      m.pending.set(pendingKey, a.amount);
    }
  } else if (a.kind === "execute") {
    await time.increase(DELAY);
    const call = f.settlement.connect(who).executeWithdrawal(tok);
    const amount = m.pending.get(pendingKey);
    if (amount === undefined)
      await expect(call).to.be.revertedWithCustomError(f.settlement, "SettlementWithdrawalNotPending");
    else if (amount > m.bal(a.t, a.token))
      await expect(call).to.be.revertedWithCustomError(f.settlement, "SettlementInsufficientBalance");
    else {
      await call;
      m.add(a.t, a.token, -amount);
      m.pending.delete(pendingKey);
    }
  } else {
    const call = f.settlement.connect(who).cancelWithdrawal(tok);
    if (!m.pending.has(pendingKey))
      await expect(call).to.be.revertedWithCustomError(f.settlement, "SettlementWithdrawalNotPending");
    else {
      await call;
      m.pending.delete(pendingKey);
    }
  }
}

describe("Settlement: invariant (fast-check)", () => {
  it("token balance == internal balances + fees; chain == model; nothing negative", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(actionArb, { minLength: 1, maxLength: 10 }), async (actions) => {
        const f = await loadFixture(deployFixture);
        const m = await initialModel(f);
        await checkInvariants(f, m);
        for (const a of actions) {
          await runAction(f, m, a);
          await checkInvariants(f, m);
        }
      }),
      { numRuns: Number(process.env.FC_RUNS ?? 25), endOnFailure: true, seed: Number(process.env.FC_SEED ?? 20261122) },
    );
  });
});
