// Boundary tests of every limit in Settlement (issue 11, "tests that hold every limit"): each limit is hit one
// unit below, at, and one unit above (or one second early / at its end), so that flipping a comparison, dropping
// a check or shifting a bound by one in the contract fails a test here. Also the attacks of issue 11's Low/Info
// items: an order of the zero trader, dust fills, an agent pushing the minimum nonce out of reach.
import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture, time } from "@nomicfoundation/hardhat-toolbox/network-helpers";
import { concatHex, padHex, type Address, type Hex } from "viem";
import {
  getOrderHash,
  signAgentApproval,
  signOrder,
  MIN_FILL_UNITS,
  MAX_AGENT_MIN_NONCE_STEP,
  type Order,
} from "../../../sdk/eip712";
import { buildSettleArgs, encodePackedBatch, type SignedOrder } from "../../../sdk/settle-batch";
import { deployFixture, fill, orderFor, settle, signed, signerKey, type Fixture, type Untyped } from "./fixtures";
import { bobSellsToAlice, fundedErin, settledTradeArgs } from "./fixtures";
import { DELAY, ENCODINGS, ETH, OrderSide, PRICE_2000, USD, useEncoding } from "./fixtures";
import { anyValue } from "@nomicfoundation/hardhat-chai-matchers/withArgs";

const ZERO = "0x0000000000000000000000000000000000000000" as Address;
/** 1 quote unit per base unit: a fill's quote amount equals its base amount */
const PRICE_ONE = ETH;

async function sell(f: Fixture, amount: bigint, price = PRICE_2000, extra: Partial<Order> = {}) {
  return signed(f, f.keys.bob, await orderFor(f, f.bob.address as Address, OrderSide.SELL, amount, price, extra));
}
async function buy(f: Fixture, amount: bigint, price = PRICE_2000, extra: Partial<Order> = {}) {
  return signed(f, f.keys.alice, await orderFor(f, f.alice.address as Address, OrderSide.BUY, amount, price, extra));
}

for (const enc of ENCODINGS)
  describe(`Settlement boundaries: settle (${enc})`, () => {
    before(() => useEncoding(enc));

    it("refuses an order of the zero trader, whatever its signature (garbage recovers to zero)", async () => {
      const f = await loadFixture(deployFixture);
      const maker = await sell(f, ETH);
      for (const signature of [
        padHex("0x", { size: 65 }),
        concatHex([padHex("0x01", { size: 64 }), "0x1b"]),
        "0x" as Hex,
      ]) {
        if (enc === "packed" && signature === "0x") continue; // the packed form carries it too, but one case suffices
        const order = await orderFor(f, ZERO, OrderSide.BUY, ETH);
        const ghost: SignedOrder = { order, signature, hash: getOrderHash(f.domain, order) };
        const args = buildSettleArgs([maker, ghost], [fill(maker, ghost, ETH / 4n)]);
        const index = args.orders.findIndex((o) => o.trader === ZERO);
        await expect(settle(f, [maker, ghost], [fill(maker, ghost, ETH / 4n)]))
          .to.be.revertedWithCustomError(f.settlement, "SettlementOrderTraderZero")
          .withArgs(BigInt(index));
      }
    });

    it("refuses a fill whose base amount is one unit below MIN_FILL_UNITS; accepts it at the minimum", async () => {
      const f = await loadFixture(deployFixture);
      const price = 2n * ETH; // quote = 2 * base: only the base amount is short
      const maker = await sell(f, 10n * MIN_FILL_UNITS, price);
      const taker = await buy(f, 10n * MIN_FILL_UNITS, price);
      const good = fill(maker, taker, MIN_FILL_UNITS, price);
      const short = fill(maker, taker, MIN_FILL_UNITS - 1n, price);
      await expect(settle(f, [maker, taker], [good, short]))
        .to.be.revertedWithCustomError(f.settlement, "SettlementFillTooSmall")
        .withArgs(1n, maker.hash, taker.hash, MIN_FILL_UNITS - 1n, 2n * (MIN_FILL_UNITS - 1n));
      await expect(settle(f, [maker, taker], [good])).to.emit(f.settlement, "BatchSettled");
      expect(await f.settlement.filledAmount(maker.hash)).to.equal(MIN_FILL_UNITS);
    });

    it("refuses a fill whose quote amount is one unit below MIN_FILL_UNITS; accepts it at the minimum", async () => {
      const f = await loadFixture(deployFixture);
      const price = ETH / 2n; // quote = base / 2: only the quote amount is short
      const maker = await sell(f, 10n * MIN_FILL_UNITS, price);
      const taker = await buy(f, 10n * MIN_FILL_UNITS, price);
      await expect(settle(f, [maker, taker], [fill(maker, taker, 2n * MIN_FILL_UNITS - 2n, price)]))
        .to.be.revertedWithCustomError(f.settlement, "SettlementFillTooSmall")
        .withArgs(0n, maker.hash, taker.hash, 2n * MIN_FILL_UNITS - 2n, MIN_FILL_UNITS - 1n);
      expect(
        await settledTradeArgs(f, settle(f, [maker, taker], [fill(maker, taker, 2n * MIN_FILL_UNITS, price)])),
      ).to.deep.equal([
        await bobSellsToAlice(f, maker, taker, {
          price,
          base: 2n * MIN_FILL_UNITS,
          quote: MIN_FILL_UNITS,
          makerFee: 10n,
          takerFee: 40n,
        }),
      ]);
    });

    it("fills an order exactly to its amount; one unit over is an overfill", async () => {
      const f = await loadFixture(deployFixture);
      const amount = 3n * MIN_FILL_UNITS;
      const maker = await sell(f, amount, PRICE_ONE);
      const taker = await buy(f, 2n * amount, PRICE_ONE);
      await expect(settle(f, [maker, taker], [fill(maker, taker, amount + 1n, PRICE_ONE)]))
        .to.be.revertedWithCustomError(f.settlement, "SettlementOrderOverfilled")
        .withArgs(maker.hash, amount, amount + 1n);
      // at the limit over two fills of one batch: the maker finishes (nonce used, no filledAmount entry)
      await settle(
        f,
        [maker, taker],
        [fill(maker, taker, amount - MIN_FILL_UNITS, PRICE_ONE), fill(maker, taker, MIN_FILL_UNITS, PRICE_ONE)],
      );
      expect(await f.settlement.isNonceUsed(f.bob.address, maker.order.nonce)).to.equal(true);
      expect(await f.settlement.filledAmount(maker.hash)).to.equal(0n);
      expect(await f.settlement.filledAmount(taker.hash)).to.equal(amount);
      // the taker's remainder: exactly its amount in total, then one unit more is refused across batches
      const maker2 = await sell(f, 2n * amount, PRICE_ONE);
      await expect(settle(f, [maker2, taker], [fill(maker2, taker, amount + 1n, PRICE_ONE)]))
        .to.be.revertedWithCustomError(f.settlement, "SettlementOrderOverfilled")
        .withArgs(taker.hash, 2n * amount, 2n * amount + 1n);
      await settle(f, [maker2, taker], [fill(maker2, taker, amount, PRICE_ONE)]);
      expect(await f.settlement.isNonceUsed(f.alice.address, taker.order.nonce)).to.equal(true);
    });

    it("settles at exactly the payer's balance; one unit more is short", async () => {
      const f = await loadFixture(deployFixture);
      const usd = await f.usd.getAddress();
      const balance = await f.settlement.balanceOf(f.alice.address, usd);
      const maker = await sell(f, balance + 1n, PRICE_ONE);
      const taker = await buy(f, balance + 1n, PRICE_ONE);
      await expect(settle(f, [maker, taker], [fill(maker, taker, balance + 1n, PRICE_ONE)]))
        .to.be.revertedWithCustomError(f.settlement, "SettlementInsufficientBalance")
        .withArgs(f.alice.address, usd, balance, balance + 1n);
      await settle(f, [maker, taker], [fill(maker, taker, balance, PRICE_ONE)]);
      expect(await f.settlement.balanceOf(f.alice.address, usd)).to.equal(0n);
    });

    it("an order is alive one second before its expiry and dead at it", async () => {
      const f = await loadFixture(deployFixture);
      const now = BigInt(await time.latest());
      const maker = await sell(f, ETH, PRICE_2000, { expiry: now + 100n });
      const taker = await buy(f, ETH, PRICE_2000, { expiry: now + 1000n });
      await time.setNextBlockTimestamp(now + 99n);
      await settle(f, [maker, taker], [fill(maker, taker, ETH / 4n)]);
      await time.setNextBlockTimestamp(now + 100n);
      await expect(settle(f, [maker, taker], [fill(maker, taker, ETH / 4n)]))
        .to.be.revertedWithCustomError(f.settlement, "SettlementOrderExpired")
        .withArgs(maker.hash, now + 100n);
    });

    it("an agent's order settles one second before the approval's expiry and not at it", async () => {
      const f = await loadFixture(deployFixture);
      const agentKey = signerKey(11);
      const now = BigInt(await time.latest());
      await f.settlement.connect(f.alice).approveAgent(agentKey.address, now + 100n);
      const maker = await sell(f, ETH);
      const order = await orderFor(f, f.alice.address as Address, OrderSide.BUY, ETH);
      const taker: SignedOrder = {
        order,
        signature: await signOrder(agentKey, f.domain, order),
        hash: getOrderHash(f.domain, order),
      };
      await time.setNextBlockTimestamp(now + 99n);
      await settle(f, [maker, taker], [fill(maker, taker, ETH / 4n)]);
      await time.setNextBlockTimestamp(now + 100n);
      await expect(settle(f, [maker, taker], [fill(maker, taker, ETH / 4n)]))
        .to.be.revertedWithCustomError(f.settlement, "SettlementAgentExpired")
        .withArgs(f.alice.address, agentKey.address, now + 100n);
    });

    it("nonces 126 and 127 live in two bitmap words (127 nonces a word); 0 and 1 share one and do not disturb each other", async () => {
      const f = await loadFixture(deployFixture);
      await f.settlement.connect(f.alice).cancelOrder(127n);
      expect(await f.settlement.isNonceUsed(f.alice.address, 126n)).to.equal(false);
      expect(await f.settlement.isNonceUsed(f.alice.address, 127n)).to.equal(true);
      expect(await f.settlement.isNonceUsed(f.alice.address, 128n)).to.equal(false);
      const maker = await sell(f, 10n * ETH);
      const t127 = await buy(f, ETH, PRICE_2000, { nonce: 127n });
      await expect(settle(f, [maker, t127], [fill(maker, t127, ETH)]))
        .to.be.revertedWithCustomError(f.settlement, "SettlementOrderNonceUsed")
        .withArgs(f.alice.address, 127n);
      // nonces 0 and 1 share word 0 (marked by the first deposit): finish both in one batch
      const t0 = await buy(f, ETH, PRICE_2000, { nonce: 0n });
      const t1 = await buy(f, ETH, PRICE_2000, { nonce: 1n });
      const t128 = await buy(f, ETH, PRICE_2000, { nonce: 128n });
      await settle(f, [maker, t0, t1, t128], [fill(maker, t0, ETH), fill(maker, t1, ETH), fill(maker, t128, ETH)]);
      for (const n of [0n, 1n, 128n])
        expect(await f.settlement.isNonceUsed(f.alice.address, n), `nonce ${n}`).to.equal(true);
      expect(await f.settlement.isNonceUsed(f.alice.address, 2n)).to.equal(false);
      expect(await f.settlement.isNonceUsed(f.alice.address, 129n)).to.equal(false);
      // nonce 2 partly filled and nonce 3 finished in the same batch (one word): 2 keeps its partial fill
      const t2 = await buy(f, ETH, PRICE_2000, { nonce: 2n });
      const t3 = await buy(f, ETH, PRICE_2000, { nonce: 3n });
      await settle(f, [maker, t2, t3], [fill(maker, t2, ETH / 2n), fill(maker, t3, ETH)]);
      expect(await f.settlement.isNonceUsed(f.alice.address, 2n)).to.equal(false);
      expect(await f.settlement.isNonceUsed(f.alice.address, 3n)).to.equal(true);
      expect(await f.settlement.filledAmount(t2.hash)).to.equal(ETH / 2n);
      await expect(settle(f, [maker, t2], [fill(maker, t2, ETH)]))
        .to.be.revertedWithCustomError(f.settlement, "SettlementOrderOverfilled")
        .withArgs(t2.hash, ETH, ETH + ETH / 2n);
      await settle(f, [maker, t2], [fill(maker, t2, ETH / 2n)]);
      expect(await f.settlement.isNonceUsed(f.alice.address, 2n)).to.equal(true);
      expect(await f.settlement.filledAmount(t2.hash)).to.equal(0n);
    });

    it("an order at exactly the minimum nonce settles; one below is dead", async () => {
      const f = await loadFixture(deployFixture);
      await f.settlement.connect(f.alice).cancelAllBelow(500n);
      const maker = await sell(f, ETH);
      const below = await buy(f, ETH, PRICE_2000, { nonce: 499n });
      await expect(settle(f, [maker, below], [fill(maker, below, ETH / 4n)]))
        .to.be.revertedWithCustomError(f.settlement, "SettlementOrderNonceBelowMinimum")
        .withArgs(f.alice.address, 499n, 500n);
      const at = await buy(f, ETH, PRICE_2000, { nonce: 500n });
      await settle(f, [maker, at], [fill(maker, at, ETH / 4n)]);
    });

    it("fills at exactly either limit price; one unit beyond either is refused", async () => {
      const f = await loadFixture(deployFixture);
      const sellLimit = 2000n * USD;
      const buyLimit = 2100n * USD;
      const maker = await sell(f, ETH, sellLimit);
      const taker = await buy(f, ETH, buyLimit);
      const base = 10n ** 16n; // quote exact for any price in whole quote units
      await expect(settle(f, [maker, taker], [fill(maker, taker, base, buyLimit + 100n)]))
        .to.be.revertedWithCustomError(f.settlement, "SettlementFillPriceWorseThanLimit")
        .withArgs(0n, taker.hash, buyLimit, buyLimit + 100n);
      await expect(settle(f, [maker, taker], [fill(maker, taker, base, sellLimit - 100n)]))
        .to.be.revertedWithCustomError(f.settlement, "SettlementFillPriceWorseThanLimit")
        .withArgs(0n, maker.hash, sellLimit, sellLimit - 100n);
      await settle(f, [maker, taker], [fill(maker, taker, base, buyLimit), fill(maker, taker, base, sellLimit)]);
      // the same with the seller as the taker
      const bid = await buy(f, ETH, buyLimit);
      const ask = await sell(f, ETH, sellLimit);
      await expect(settle(f, [bid, ask], [fill(bid, ask, base, sellLimit - 100n)]))
        .to.be.revertedWithCustomError(f.settlement, "SettlementFillPriceWorseThanLimit")
        .withArgs(0n, ask.hash, sellLimit, sellLimit - 100n);
      await settle(f, [bid, ask], [fill(bid, ask, base, sellLimit), fill(bid, ask, base, buyLimit)]);
    });

    it("a fill index equal to the number of orders is out of range; the last index is not", async () => {
      const f = await loadFixture(deployFixture);
      const maker = await sell(f, ETH);
      const taker = await buy(f, ETH);
      const args = buildSettleArgs([maker, taker], [fill(maker, taker, ETH / 4n)]);
      const good = args.fills[0]!;
      const id = await f.settlement.nextBatchId();
      const op = f.settlement.connect(f.operator);
      const run = (fills: typeof args.fills) =>
        enc === "packed"
          ? op.settlePacked(id, encodePackedBatch({ ...args, fills }))
          : op.settle(id, args.orders, args.signatures, fills);
      await expect(run([{ ...good, makerIndex: 2 }]))
        .to.be.revertedWithCustomError(f.settlement, "SettlementFillIndexOutOfRange")
        .withArgs(0n);
      await expect(run([good, { ...good, takerIndex: 2 }]))
        .to.be.revertedWithCustomError(f.settlement, "SettlementFillIndexOutOfRange")
        .withArgs(1n);
      await run([good]);
    });

    it("a batch id one above or one below the next is refused; the next one is taken", async () => {
      const f = await loadFixture(deployFixture);
      const maker = await sell(f, ETH);
      const taker = await buy(f, ETH);
      await settle(f, [maker, taker], [fill(maker, taker, ETH / 4n)], 0n);
      await expect(settle(f, [maker, taker], [fill(maker, taker, ETH / 4n)], 2n))
        .to.be.revertedWithCustomError(f.settlement, "SettlementBatchOutOfOrder")
        .withArgs(1n, 2n);
      await expect(settle(f, [maker, taker], [fill(maker, taker, ETH / 4n)], 0n))
        .to.be.revertedWithCustomError(f.settlement, "SettlementBatchOutOfOrder")
        .withArgs(1n, 0n);
      await expect(settle(f, [maker, taker], [fill(maker, taker, ETH / 4n)], 1n))
        .to.emit(f.settlement, "BatchSettled")
        .withArgs(1n, 1n, anyValue, anyValue);
      expect(await f.settlement.nextBatchId()).to.equal(2n);
    });

    it("fees: exact amounts pay exactly, one unit more rounds up by one; fee totals sum per token", async () => {
      const f = await loadFixture(deployFixture);
      // maker 10 bps of quote, taker 20 bps of base; PRICE_ONE: quote == base
      const maker = await sell(f, 10n ** 9n, PRICE_ONE);
      const taker = await buy(f, 10n ** 9n, PRICE_ONE);
      const usd = await f.usd.getAddress();
      const weth = await f.weth.getAddress();
      // 100,000 -> maker fee exactly 100, taker fee exactly 200; 100,001 -> 101 and 201
      const trades = await settledTradeArgs(
        f,
        settle(f, [maker, taker], [fill(maker, taker, 100_000n, PRICE_ONE), fill(maker, taker, 100_001n, PRICE_ONE)]),
      );
      const expected = [
        [100_000n, 100n, 200n],
        [100_001n, 101n, 201n],
      ].map(([base, makerFee, takerFee]) =>
        bobSellsToAlice(f, maker, taker, { price: PRICE_ONE, base, quote: base, makerFee, takerFee }),
      );
      expect(trades).to.deep.equal(await Promise.all(expected));
      expect(await f.settlement.collectedFees(usd)).to.equal(100n + 101n);
      expect(await f.settlement.collectedFees(weth)).to.equal(200n + 201n);
      expect(await f.settlement.balanceOf(f.bob.address, usd)).to.equal(200_001n - 201n);
      await f.settlement.connect(f.admin).setFees(0, 0);
      await settle(f, [maker, taker], [fill(maker, taker, 100_001n, PRICE_ONE)]);
      expect(await f.settlement.collectedFees(usd)).to.equal(201n);
      expect(await f.settlement.collectedFees(weth)).to.equal(401n);
      expect(await f.settlement.balanceOf(f.bob.address, usd)).to.equal(200_001n - 201n + 100_001n);
    });

    it("fees of two pairs in one batch go to the right tokens", async () => {
      const f = await loadFixture(deployFixture);
      const usd = await f.usd.getAddress();
      const weth = await f.weth.getAddress();
      // second pair: USD as base and WETH as quote (bob sells WETH = buys base USD with quote WETH)
      const m1 = await sell(f, 10n ** 9n, PRICE_ONE);
      const t1 = await buy(f, 10n ** 9n, PRICE_ONE);
      const m2 = await signed(
        f,
        f.keys.bob,
        await orderFor(f, f.bob.address as Address, OrderSide.BUY, 10n ** 9n, PRICE_ONE, {
          baseToken: usd as Address,
          quoteToken: weth as Address,
        }),
      );
      const t2 = await signed(
        f,
        f.keys.alice,
        await orderFor(f, f.alice.address as Address, OrderSide.SELL, 10n ** 9n, PRICE_ONE, {
          baseToken: usd as Address,
          quoteToken: weth as Address,
        }),
      );
      await settle(
        f,
        [m1, t1, m2, t2],
        [fill(m1, t1, 100_000n, PRICE_ONE), fill(m2, t2, 100_000n, PRICE_ONE), fill(m1, t1, 100_000n, PRICE_ONE)],
      );
      // pair 1 twice: maker (bob) 100 USD-units each, taker (alice) 200 WETH-units each; pair 2: maker bob buys
      // base USD (10 bps of 100,000 USD-units), taker alice sells for WETH (20 bps of 100,000 WETH-units)
      expect(await f.settlement.collectedFees(usd)).to.equal(3n * 100n);
      expect(await f.settlement.collectedFees(weth)).to.equal(3n * 200n);
      expect(await f.settlement.balanceOf(f.bob.address, usd)).to.equal(3n * (100_000n - 100n));
    });
  });

describe("Settlement boundaries: custody, agents, cancellation, administration", () => {
  it("a withdrawal is not ready one second before availableAt and executes at it", async () => {
    const f = await loadFixture(deployFixture);
    const usd = await f.usd.getAddress();
    const balance = await f.settlement.balanceOf(f.alice.address, usd);
    await expect(f.settlement.connect(f.alice).requestWithdrawal(usd, balance + 1n))
      .to.be.revertedWithCustomError(f.settlement, "SettlementInsufficientBalance")
      .withArgs(f.alice.address, usd, balance, balance + 1n);
    const tx = await f.settlement.connect(f.alice).requestWithdrawal(usd, balance);
    const availableAt = BigInt((await ethers.provider.getBlock((await tx.wait())!.blockNumber))!.timestamp) + DELAY;
    await time.setNextBlockTimestamp(availableAt - 1n);
    await expect(f.settlement.connect(f.alice).executeWithdrawal(usd))
      .to.be.revertedWithCustomError(f.settlement, "SettlementWithdrawalNotReady")
      .withArgs(availableAt);
    await time.setNextBlockTimestamp(availableAt);
    await expect(f.settlement.connect(f.alice).executeWithdrawal(usd))
      .to.emit(f.settlement, "WithdrawalExecuted")
      .withArgs(f.alice.address, usd, balance);
    expect(await f.settlement.balanceOf(f.alice.address, usd)).to.equal(0n);
  });

  it("a withdrawal executes at exactly the balance left; one unit less left is short", async () => {
    const f = await loadFixture(deployFixture);
    const usd = await f.usd.getAddress();
    const weth = await f.weth.getAddress();
    const balance = await f.settlement.balanceOf(f.alice.address, usd);
    await f.settlement.connect(f.alice).requestWithdrawal(usd, balance - MIN_FILL_UNITS + 1n);
    // alice pays exactly MIN_FILL_UNITS in a trade: one unit short of the pending request
    const maker = await sell(f, MIN_FILL_UNITS, PRICE_ONE);
    const taker = await buy(f, MIN_FILL_UNITS, PRICE_ONE);
    await settle(f, [maker, taker], [fill(maker, taker, MIN_FILL_UNITS, PRICE_ONE)]);
    await time.increase(DELAY);
    await expect(f.settlement.connect(f.alice).executeWithdrawal(usd))
      .to.be.revertedWithCustomError(f.settlement, "SettlementInsufficientBalance")
      .withArgs(f.alice.address, usd, balance - MIN_FILL_UNITS, balance - MIN_FILL_UNITS + 1n);
    await f.settlement.connect(f.alice).cancelWithdrawal(usd);
    await f.settlement.connect(f.alice).requestWithdrawal(usd, balance - MIN_FILL_UNITS);
    await time.increase(DELAY);
    await f.settlement.connect(f.alice).executeWithdrawal(usd);
    expect(await f.settlement.balanceOf(f.alice.address, usd)).to.equal(0n);
    expect(await f.settlement.balanceOf(f.alice.address, weth)).to.be.greaterThan(0n);
  });

  it("an agent approval must end after now: expiry == now is refused, now + 1 is taken; the agent acts until expiry - 1", async () => {
    const f = await loadFixture(deployFixture);
    const agent = f.signers[9];
    const now = BigInt(await time.latest());
    await time.setNextBlockTimestamp(now + 10n);
    await expect(f.settlement.connect(f.alice).approveAgent(agent.address, now + 10n))
      .to.be.revertedWithCustomError(f.settlement, "SettlementAgentInvalid")
      .withArgs(agent.address, now + 10n);
    await time.setNextBlockTimestamp(now + 11n);
    await f.settlement.connect(f.alice).approveAgent(agent.address, now + 13n);
    await time.setNextBlockTimestamp(now + 12n);
    await expect(f.settlement.connect(agent).cancelOrderFor(f.alice.address, 1n)).to.emit(
      f.settlement,
      "OrderCancelled",
    );
    await time.setNextBlockTimestamp(now + 13n);
    await expect(f.settlement.connect(agent).cancelOrderFor(f.alice.address, 2n))
      .to.be.revertedWithCustomError(f.settlement, "SettlementCallerNotTraderOrAgent")
      .withArgs(f.alice.address, agent.address);
  });

  it("a signed agent approval is taken at its deadline and refused one second after", async () => {
    const f = await loadFixture(deployFixture);
    const agent = signerKey(13).address;
    const now = BigInt(await time.latest());
    const deadline = now + 50n;
    const late = { trader: f.alice.address as Address, agent, expiry: now + 1000n, nonce: 0n, deadline };
    const sig = await signAgentApproval(f.keys.alice, f.domain, late);
    await time.setNextBlockTimestamp(deadline + 1n);
    await expect(
      f.settlement.connect(f.operator).approveAgentWithSig(late.trader, agent, late.expiry, 0n, deadline, sig),
    )
      .to.be.revertedWithCustomError(f.settlement, "SettlementAgentApprovalDeadlinePassed")
      .withArgs(deadline);
    const onTime = { ...late, deadline: deadline + 10n };
    const sig2 = await signAgentApproval(f.keys.alice, f.domain, onTime);
    await time.setNextBlockTimestamp(deadline + 10n);
    await expect(
      f.settlement
        .connect(f.operator)
        .approveAgentWithSig(onTime.trader, agent, onTime.expiry, 0n, onTime.deadline, sig2),
    ).to.emit(f.settlement, "AgentApproved");
  });

  it("an agent raises the minimum nonce by at most 2^32 per call; the trader by any amount (the nonce space cannot be stolen)", async () => {
    const f = await loadFixture(deployFixture);
    const agent = f.signers[9];
    await f.settlement.connect(f.alice).approveAgent(agent.address, BigInt(await time.latest()) + 3600n);
    const step = MAX_AGENT_MIN_NONCE_STEP;
    await expect(f.settlement.connect(agent).cancelAllBelowFor(f.alice.address, step + 1n))
      .to.be.revertedWithCustomError(f.settlement, "SettlementMinNonceStepTooLarge")
      .withArgs(0n, step + 1n, step);
    await expect(
      f.settlement.connect(agent).cancelAllBelowFor(f.alice.address, 2n ** 64n),
    ).to.be.revertedWithCustomError(f.settlement, "SettlementMinNonceStepTooLarge");
    await f.settlement.connect(agent).cancelAllBelowFor(f.alice.address, step);
    await expect(f.settlement.connect(agent).cancelAllBelowFor(f.alice.address, 2n * step + 1n))
      .to.be.revertedWithCustomError(f.settlement, "SettlementMinNonceStepTooLarge")
      .withArgs(step, 2n * step + 1n, step);
    await f.settlement.connect(agent).cancelAllBelowFor(f.alice.address, 2n * step);
    expect(await f.settlement.minNonce(f.alice.address)).to.equal(2n * step);
    // the trader itself may retire any part of its nonce space, through either entry point
    await f.settlement.connect(f.alice).cancelAllBelowFor(f.alice.address, 2n ** 63n);
    await f.settlement.connect(f.alice).cancelAllBelow(2n ** 100n);
    expect(await f.settlement.minNonce(f.alice.address)).to.equal(2n ** 100n);
    // and an agent still cannot move it far once it is huge (no overflow in the step check)
    await expect(
      f.settlement.connect(agent).cancelAllBelowFor(f.alice.address, 2n ** 256n - 1n),
    ).to.be.revertedWithCustomError(f.settlement, "SettlementMinNonceStepTooLarge");
    await f.settlement.connect(agent).cancelAllBelowFor(f.alice.address, 2n ** 100n + 1n);
  });

  it("fee caps, withdrawal delay cap and fee withdrawals at their exact limits", async () => {
    const f = await loadFixture(deployFixture);
    const admin = f.settlement.connect(f.admin);
    await expect(admin.setFees(101, 0))
      .to.be.revertedWithCustomError(f.settlement, "SettlementFeeTooHigh")
      .withArgs(101, 100);
    await expect(admin.setFees(0, 101))
      .to.be.revertedWithCustomError(f.settlement, "SettlementFeeTooHigh")
      .withArgs(101, 100);
    await admin.setFees(100, 100);
    expect(await f.settlement.fees()).to.deep.equal([100n, 100n]);
    const week = 7n * 24n * 3600n;
    await expect(admin.setWithdrawalDelay(week + 1n))
      .to.be.revertedWithCustomError(f.settlement, "SettlementWithdrawalDelayTooLong")
      .withArgs(week + 1n, week);
    await admin.setWithdrawalDelay(week);
    expect(await f.settlement.withdrawalDelay()).to.equal(week);
    // collect fees, then withdraw exactly what was collected (one more is refused)
    const maker = await sell(f, ETH);
    const taker = await buy(f, ETH);
    await settle(f, [maker, taker], [fill(maker, taker, ETH / 2n)]);
    const usd = await f.usd.getAddress();
    const collected = await f.settlement.collectedFees(usd);
    expect(collected).to.be.greaterThan(0n);
    await expect(admin.withdrawFees(usd, collected + 1n))
      .to.be.revertedWithCustomError(f.settlement, "SettlementInsufficientFees")
      .withArgs(usd, collected, collected + 1n);
    await expect(admin.withdrawFees(usd, 0n)).to.be.revertedWithCustomError(f.settlement, "SettlementAmountZero");
    await admin.withdrawFees(usd, collected);
    expect(await f.settlement.collectedFees(usd)).to.equal(0n);
    expect(await f.usd.balanceOf(f.feeSink.address)).to.equal(collected);
    await expect(admin.setFeeRecipient(ZERO)).to.be.revertedWithCustomError(f.settlement, "SettlementZeroAddress");
  });

  it("pause stops settle, deposits and signed approvals; withdrawals, cancels and approvals stay open; unpause resumes", async () => {
    const f = await loadFixture(deployFixture);
    const usd = await f.usd.getAddress();
    const maker = await sell(f, ETH);
    const taker = await buy(f, ETH);
    await expect(f.settlement.connect(f.alice).pause()).to.be.revertedWithCustomError(
      f.settlement,
      "AccessControlUnauthorizedAccount",
    );
    await f.settlement.connect(f.admin).pause();
    await expect(settle(f, [maker, taker], [fill(maker, taker, ETH / 4n)])).to.be.revertedWithCustomError(
      f.settlement,
      "EnforcedPause",
    );
    const args = buildSettleArgs([maker, taker], [fill(maker, taker, ETH / 4n)]);
    await expect(
      f.settlement.connect(f.operator).settlePacked(0n, encodePackedBatch(args)),
    ).to.be.revertedWithCustomError(f.settlement, "EnforcedPause");
    await expect(
      f.settlement.connect(f.operator).settle(0n, args.orders, args.signatures, args.fills),
    ).to.be.revertedWithCustomError(f.settlement, "EnforcedPause");
    await expect(f.settlement.connect(f.alice).deposit(usd, 1n)).to.be.revertedWithCustomError(
      f.settlement,
      "EnforcedPause",
    );
    await expect(f.settlement.connect(f.alice).depositFor(f.bob.address, usd, 1n)).to.be.revertedWithCustomError(
      f.settlement,
      "EnforcedPause",
    );
    await expect(
      f.settlement
        .connect(f.operator)
        .approveAgentWithSig(f.alice.address, f.bob.address, 10n ** 12n, 0n, 10n ** 12n, "0x"),
    ).to.be.revertedWithCustomError(f.settlement, "EnforcedPause");
    await f.settlement.connect(f.alice).requestWithdrawal(usd, 1n);
    await f.settlement.connect(f.alice).cancelOrder(5n);
    await expect(f.settlement.connect(f.alice).unpause()).to.be.revertedWithCustomError(
      f.settlement,
      "AccessControlUnauthorizedAccount",
    );
    await f.settlement.connect(f.admin).unpause();
    await settle(f, [maker, taker], [fill(maker, taker, ETH / 4n)]);
    await f.settlement.connect(f.alice).deposit(usd, 1n);
  });

  it("only the admin changes fees, delay, recipient and withdraws fees", async () => {
    const f = await loadFixture(deployFixture);
    const s = f.settlement.connect(f.alice);
    const usd = await f.usd.getAddress();
    for (const call of [
      () => s.setFees(1, 1),
      () => s.setWithdrawalDelay(1n),
      () => s.setFeeRecipient(f.alice.address),
      () => s.withdrawFees(usd, 1n),
    ]) {
      await expect(call()).to.be.revertedWithCustomError(f.settlement, "AccessControlUnauthorizedAccount");
    }
  });

  it("a deposit credits the first deposit's nonce-word hint once and never clears it", async () => {
    const f = await loadFixture(deployFixture);
    // erin (account 7) never deposited: nonce 0 is fresh; a deposit marks word 0 (nonce 0 stays unused)
    const erin = await fundedErin(f, 10n * USD);
    const usd = await f.usd.getAddress();
    await f.settlement.connect(erin).deposit(usd, 5n * USD);
    await f.settlement.connect(erin).deposit(usd, 5n * USD);
    expect(await f.settlement.isNonceUsed(erin.address, 0n)).to.equal(false);
    expect(await f.settlement.balanceOf(erin.address, usd)).to.equal(10n * USD);
  });
});

describe("Settlement boundaries: ERC-1271 answers", () => {
  async function rawWalletFixture() {
    const f = await deployFixture();
    const wallet = (await (await ethers.getContractFactory("SettlementTestRawWallet")).deploy()) as Untyped;
    const walletAddress = (await wallet.getAddress()) as Address;
    await f.settlement.connect(f.alice).depositFor(walletAddress, await f.usd.getAddress(), 10_000n * USD);
    return { ...f, wallet, walletAddress };
  }
  const MAGIC = "0x1626ba7e";

  for (const enc of ENCODINGS)
    it(`accepts exactly the padded magic word, or a longer answer starting with it (${enc})`, async () => {
      useEncoding(enc);
      const f = await loadFixture(rawWalletFixture);
      const cases: { name: string; answer: Hex; ok: boolean }[] = [
        { name: "magic, clean padding", answer: padHex(MAGIC, { size: 32, dir: "right" }), ok: true },
        {
          name: "magic then a second word",
          answer: concatHex([padHex(MAGIC, { size: 32, dir: "right" }), padHex("0x01", { size: 32 })]),
          ok: true,
        },
        { name: "magic with a dirty low byte", answer: concatHex([MAGIC, padHex("0x01", { size: 28 })]), ok: false },
        {
          name: "magic with a dirty byte right after it",
          answer: concatHex([MAGIC, "0x01", padHex("0x", { size: 27 })]),
          ok: false,
        },
        { name: "magic, 4 bytes only", answer: MAGIC, ok: false },
        { name: "magic, 31 bytes", answer: padHex(MAGIC, { size: 31, dir: "right" }), ok: false },
        { name: "empty", answer: "0x", ok: false },
      ];
      for (const c of cases) {
        await f.wallet.setAnswer(c.answer);
        const maker = await sell(f, ETH);
        const order = await orderFor(f, f.walletAddress, OrderSide.BUY, ETH);
        const taker: SignedOrder = {
          order,
          signature: padHex("0x", { size: 65 }),
          hash: getOrderHash(f.domain, order),
        };
        const tx = settle(f, [maker, taker], [fill(maker, taker, ETH / 1000n)]);
        if (c.ok) await expect(tx, c.name).to.emit(f.settlement, "BatchSettled");
        else
          await expect(tx, c.name)
            .to.be.revertedWithCustomError(f.settlement, "SettlementContractSignatureInvalid")
            .withArgs(f.walletAddress);
      }
    });
});

describe("Settlement boundaries: packed token table", () => {
  it("the last token index of the table is valid; the index equal to the table's length is malformed", async () => {
    useEncoding("packed");
    const f = await loadFixture(deployFixture);
    const maker = await sell(f, ETH);
    const taker = await buy(f, ETH);
    const packed = encodePackedBatch(buildSettleArgs([maker, taker], [fill(maker, taker, ETH / 4n)]));
    const op = f.settlement.connect(f.operator);
    // hex offsets: token count (1 byte), 2 tokens (40), order count (2), then the first order: trader (20),
    // base token index, quote token index
    const baseAt = 2 + 2 * (1 + 2 * 20 + 2 + 20);
    const quoteAt = baseAt + 2;
    const tokenCount = parseInt(packed.slice(2, 4), 16);
    expect(tokenCount).to.equal(2);
    const setByte = (at: number, v: number) =>
      packed.slice(0, at) + v.toString(16).padStart(2, "0") + packed.slice(at + 2);
    await expect(op.settlePacked(0n, setByte(baseAt, tokenCount)))
      .to.be.revertedWithCustomError(f.settlement, "SettlementPackedBatchMalformed")
      .withArgs(43n);
    await expect(op.settlePacked(0n, setByte(quoteAt, tokenCount)))
      .to.be.revertedWithCustomError(f.settlement, "SettlementPackedBatchMalformed")
      .withArgs(43n);
    // the unmodified batch uses index tokenCount - 1 (the last entry of the table) and settles
    const indexes = [parseInt(packed.slice(baseAt, baseAt + 2), 16), parseInt(packed.slice(quoteAt, quoteAt + 2), 16)];
    expect(indexes).to.include(tokenCount - 1);
    await expect(op.settlePacked(0n, packed)).to.emit(f.settlement, "BatchSettled");
  });
});

describe("Settlement boundaries: construction, encoding, nonce words, fee pairs", () => {
  it("refuses a zero admin or a zero fee recipient at construction", async () => {
    const f = await loadFixture(deployFixture);
    const factory = await ethers.getContractFactory("Settlement");
    await expect(factory.deploy(ZERO, f.feeSink.address, DELAY, 10, 20)).to.be.revertedWithCustomError(
      f.settlement,
      "SettlementZeroAddress",
    );
    await expect(factory.deploy(f.admin.address, ZERO, DELAY, 10, 20)).to.be.revertedWithCustomError(
      f.settlement,
      "SettlementZeroAddress",
    );
    await expect(factory.deploy(f.admin.address, f.feeSink.address, DELAY, 101, 20)).to.be.revertedWithCustomError(
      f.settlement,
      "SettlementFeeTooHigh",
    );
  });

  it("a later deposit keeps the used nonces of word 0 (the account-setup hint is written only into an empty word)", async () => {
    const f = await loadFixture(deployFixture);
    const usd = await f.usd.getAddress();
    await f.settlement.connect(f.alice).cancelOrder(1n);
    await f.settlement.connect(f.alice).cancelOrder(127n);
    await f.settlement.connect(f.alice).deposit(usd, 1n);
    expect(await f.settlement.isNonceUsed(f.alice.address, 1n)).to.equal(true);
    expect(await f.settlement.isNonceUsed(f.alice.address, 127n)).to.equal(true);
    expect(await f.settlement.isNonceUsed(f.alice.address, 0n)).to.equal(false);
  });

  it("refuses an ABI-encoded order with dirty high bits in an address word (SettlementOrderEncodingInvalid)", async () => {
    const f = await loadFixture(deployFixture);
    const maker = await sell(f, ETH);
    const taker = await buy(f, ETH);
    const args = buildSettleArgs([maker, taker], [fill(maker, taker, ETH / 4n)]);
    const data: string = f.settlement.interface.encodeFunctionData("settle", [
      0n,
      args.orders,
      args.signatures,
      args.fills,
    ]);
    // selector (4 bytes), head (4 words), orders length (1 word), then order 0's first word: its trader
    const at = 2 + 2 * (4 + 4 * 32 + 32);
    const dirty = `${data.slice(0, at)}01${data.slice(at + 2)}`;
    const to = await f.settlement.getAddress();
    await expect(f.operator.sendTransaction({ to, data: dirty }))
      .to.be.revertedWithCustomError(f.settlement, "SettlementOrderEncodingInvalid")
      .withArgs(0n);
    await expect(f.operator.sendTransaction({ to, data })).to.emit(f.settlement, "BatchSettled");
  });

  it("fees of two pairs sharing the base token are kept apart by the quote token", async () => {
    const f = await loadFixture(deployFixture);
    const Token = await ethers.getContractFactory("DemoToken");
    const eur = (await Token.deploy("EUR", "EUR", 6)) as Untyped;
    const eurAddress = (await eur.getAddress()) as Address;
    await eur.mint(f.alice.address, 10n ** 12n);
    await eur.connect(f.alice).approve(await f.settlement.getAddress(), ethers.MaxUint256);
    await f.settlement.connect(f.alice).deposit(eurAddress, 10n ** 12n);
    const usd = await f.usd.getAddress();
    const weth = await f.weth.getAddress();
    const m1 = await sell(f, 10n ** 9n, PRICE_ONE);
    const t1 = await buy(f, 10n ** 9n, PRICE_ONE);
    const m2 = await sell(f, 10n ** 9n, PRICE_ONE, { quoteToken: eurAddress });
    const t2 = await buy(f, 10n ** 9n, PRICE_ONE, { quoteToken: eurAddress });
    await settle(f, [m1, t1, m2, t2], [fill(m1, t1, 100_000n, PRICE_ONE), fill(m2, t2, 200_000n, PRICE_ONE)]);
    // the sellers' (makers') fees are in each pair's quote token: 100 USD-units and 200 EUR-units
    expect(await f.settlement.collectedFees(usd)).to.equal(100n);
    expect(await f.settlement.collectedFees(eurAddress)).to.equal(200n);
    expect(await f.settlement.collectedFees(weth)).to.equal(200n + 400n);
  });
});
