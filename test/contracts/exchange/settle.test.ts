import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture, time } from "@nomicfoundation/hardhat-toolbox/network-helpers";
import type { Address } from "viem";
import { feeFor, quoteAmountFor, OrderFlags } from "../../../sdk/eip712";
import { buildSettleArgs, encodePackedBatch } from "../../../sdk/settle-batch";
import {
  deployFixture,
  fill,
  orderFor,
  settle,
  settleRaw,
  signed,
  ETH,
  USD,
  PRICE_2000,
  MAKER_BPS,
  TAKER_BPS,
  OrderSide,
  type Fixture,
  ENCODINGS,
  useEncoding,
  settledTradeArgs,
  bobSellsToAlice,
} from "./fixtures";

async function pair(
  f: Fixture,
  sellAmount = 1n * ETH,
  buyAmount = 1n * ETH,
  sellPrice = PRICE_2000,
  buyPrice = PRICE_2000,
) {
  const maker = await signed(
    f,
    f.keys.bob,
    await orderFor(f, f.bob.address as Address, OrderSide.SELL, sellAmount, sellPrice),
  );
  const taker = await signed(
    f,
    f.keys.alice,
    await orderFor(f, f.alice.address as Address, OrderSide.BUY, buyAmount, buyPrice),
  );
  return { maker, taker };
}

for (const enc of ENCODINGS)
  describe(`Settlement: settle (${enc})`, () => {
    before(() => useEncoding(enc));

    it("settles a trade: balances, fees in the received token rounded up, BatchSettled with the trade", async () => {
      const f = await loadFixture(deployFixture);
      const { maker, taker } = await pair(f);
      const base = ETH / 2n;
      const quote = quoteAmountFor(base, PRICE_2000)!;
      const takerFee = feeFor(base, TAKER_BPS); // alice buys: receives base
      const makerFee = feeFor(quote, MAKER_BPS); // bob sells: receives quote
      const usd = await f.usd.getAddress();
      const weth = await f.weth.getAddress();
      const tx = settle(f, [maker, taker], [fill(maker, taker, base)]);
      await expect(tx).to.emit(f.settlement, "BatchSettled").withArgs(0n, 1n, MAKER_BPS, TAKER_BPS);
      expect(await settledTradeArgs(f, tx)).to.deep.equal([
        await bobSellsToAlice(f, maker, taker, { price: PRICE_2000, base, quote, makerFee, takerFee }),
      ]);
      expect(await f.settlement.balanceOf(f.alice.address, usd)).to.equal(100_000n * USD - quote);
      expect(await f.settlement.balanceOf(f.alice.address, weth)).to.equal(base - takerFee);
      expect(await f.settlement.balanceOf(f.bob.address, weth)).to.equal(50n * ETH - base);
      expect(await f.settlement.balanceOf(f.bob.address, usd)).to.equal(quote - makerFee);
      expect(await f.settlement.collectedFees(weth)).to.equal(takerFee);
      expect(await f.settlement.collectedFees(usd)).to.equal(makerFee);
      expect(await f.settlement.nextBatchId()).to.equal(1n);
    });

    it("rounds a fee up to the next base unit (in the protocol's favour)", async () => {
      const f = await loadFixture(deployFixture);
      const price = 2001n * USD;
      const { maker, taker } = await pair(f, ETH, ETH, price, price);
      // 1e13 base at 2,001 USD = 20,010 quote base units; maker fee 10 bps = 20.01 -> 21
      expect(
        await settledTradeArgs(f, settle(f, [maker, taker], [fill(maker, taker, 10n ** 13n, price)])),
      ).to.deep.equal([
        await bobSellsToAlice(f, maker, taker, {
          price,
          base: 10n ** 13n,
          quote: 20_010n,
          makerFee: 21n,
          takerFee: 2n * 10n ** 10n,
        }),
      ]);
      expect(await f.settlement.collectedFees(await f.usd.getAddress())).to.equal(21n);
      expect(await f.settlement.balanceOf(f.bob.address, await f.usd.getAddress())).to.equal(19_989n);
    });

    it("keeps partial fills across batches, then finishes the order (nonce bit set, entry deleted)", async () => {
      const f = await loadFixture(deployFixture);
      const { maker, taker } = await pair(f, 1n * ETH, 3n * ETH);
      await settle(f, [maker, taker], [fill(maker, taker, ETH / 4n)]);
      expect(await f.settlement.filledAmount(maker.hash)).to.equal(ETH / 4n);
      expect(await f.settlement.filledAmount(taker.hash)).to.equal(ETH / 4n);
      await settle(f, [maker, taker], [fill(maker, taker, (ETH * 3n) / 4n)]);
      expect(await f.settlement.filledAmount(maker.hash)).to.equal(0n);
      expect(await f.settlement.isNonceUsed(f.bob.address, maker.order.nonce)).to.equal(true);
      expect(await f.settlement.filledAmount(taker.hash)).to.equal(ETH);
      expect(await f.settlement.isNonceUsed(f.alice.address, taker.order.nonce)).to.equal(false);
      await expect(settle(f, [maker, taker], [fill(maker, taker, 1n * 10n ** 12n)]))
        .to.be.revertedWithCustomError(f.settlement, "SettlementOrderNonceUsed")
        .withArgs(f.bob.address, maker.order.nonce);
    });

    it("rejects an overfill within one batch and across batches", async () => {
      const f = await loadFixture(deployFixture);
      const { maker, taker } = await pair(f, 1n * ETH, 2n * ETH);
      await expect(settle(f, [maker, taker], [fill(maker, taker, ETH / 2n), fill(maker, taker, ETH / 2n + 10n ** 12n)]))
        .to.be.revertedWithCustomError(f.settlement, "SettlementOrderOverfilled")
        .withArgs(maker.hash, ETH, ETH + 10n ** 12n);
      await settle(f, [maker, taker], [fill(maker, taker, (ETH * 3n) / 4n)]);
      await expect(settle(f, [maker, taker], [fill(maker, taker, ETH / 2n)]))
        .to.be.revertedWithCustomError(f.settlement, "SettlementOrderOverfilled")
        .withArgs(maker.hash, ETH, ETH + ETH / 4n);
    });

    it("rejects a fill price worse than either limit", async () => {
      const f = await loadFixture(deployFixture);
      const { maker, taker } = await pair(f, ETH, ETH, 2000n * USD, 2100n * USD);
      await expect(settle(f, [maker, taker], [fill(maker, taker, ETH / 2n, 2200n * USD)]))
        .to.be.revertedWithCustomError(f.settlement, "SettlementFillPriceWorseThanLimit")
        .withArgs(0n, taker.hash, 2100n * USD, 2200n * USD);
      await expect(settle(f, [maker, taker], [fill(maker, taker, ETH / 2n, 1900n * USD)]))
        .to.be.revertedWithCustomError(f.settlement, "SettlementFillPriceWorseThanLimit")
        .withArgs(0n, maker.hash, 2000n * USD, 1900n * USD);
      await settle(f, [maker, taker], [fill(maker, taker, ETH / 2n, 2050n * USD)]);
    });

    it("rejects a fill whose quote amount does not divide exactly, and a zero fill", async () => {
      const f = await loadFixture(deployFixture);
      const { maker, taker } = await pair(f);
      await expect(settle(f, [maker, taker], [fill(maker, taker, 1n)]))
        .to.be.revertedWithCustomError(f.settlement, "SettlementFillNotExact")
        .withArgs(1n, PRICE_2000);
      expect(quoteAmountFor(1n, PRICE_2000)).to.equal(null);
      await expect(settle(f, [maker, taker], [fill(maker, taker, 0n)])).to.be.revertedWithCustomError(
        f.settlement,
        "SettlementFillAmountZero",
      );
    });

    it("rejects an expired order", async () => {
      const f = await loadFixture(deployFixture);
      const maker = await signed(f, f.keys.bob, await orderFor(f, f.bob.address as Address, OrderSide.SELL, ETH));
      const takerOrder = await orderFor(f, f.alice.address as Address, OrderSide.BUY, ETH);
      const taker = await signed(f, f.keys.alice, { ...takerOrder, expiry: takerOrder.expiry + 3600n });
      await time.increaseTo(maker.order.expiry - 1n); // the next block is mined at exactly `expiry`: already dead
      await expect(settle(f, [maker, taker], [fill(maker, taker, ETH / 2n)]))
        .to.be.revertedWithCustomError(f.settlement, "SettlementOrderExpired")
        .withArgs(maker.hash, maker.order.expiry);
    });

    it("rejects mismatched pairs, same sides, self-trades, post-only takers and bad sides or flags", async () => {
      const f = await loadFixture(deployFixture);
      const { maker } = await pair(f);
      const otherQuote = await signed(
        f,
        f.keys.alice,
        await orderFor(f, f.alice.address as Address, OrderSide.BUY, ETH, PRICE_2000, {
          quoteToken: f.bob.address as Address,
        }),
      );
      await expect(settle(f, [maker, otherQuote], [fill(maker, otherQuote, ETH / 2n)])).to.be.revertedWithCustomError(
        f.settlement,
        "SettlementFillPairMismatch",
      );
      const sameSide = await signed(f, f.keys.dave, await orderFor(f, f.dave.address as Address, OrderSide.SELL, ETH));
      await expect(settle(f, [maker, sameSide], [fill(maker, sameSide, ETH / 2n)])).to.be.revertedWithCustomError(
        f.settlement,
        "SettlementFillSameSide",
      );
      const selfBuy = await signed(f, f.keys.bob, await orderFor(f, f.bob.address as Address, OrderSide.BUY, ETH));
      await expect(settle(f, [maker, selfBuy], [fill(maker, selfBuy, ETH / 2n)]))
        .to.be.revertedWithCustomError(f.settlement, "SettlementSelfTrade")
        .withArgs(0n, f.bob.address);
      const postOnly = await signed(
        f,
        f.keys.alice,
        await orderFor(f, f.alice.address as Address, OrderSide.BUY, ETH, PRICE_2000, { flags: OrderFlags.POST_ONLY }),
      );
      await expect(settle(f, [maker, postOnly], [fill(maker, postOnly, ETH / 2n)]))
        .to.be.revertedWithCustomError(f.settlement, "SettlementPostOnlyTaker")
        .withArgs(0n, postOnly.hash);
      // a post-only order may be the maker
      await settle(f, [postOnly, maker], [fill(postOnly, maker, ETH / 2n)]);
      const badFlags = await signed(
        f,
        f.keys.alice,
        await orderFor(f, f.alice.address as Address, OrderSide.BUY, ETH, PRICE_2000, { flags: 2 }),
      );
      await expect(settle(f, [maker, badFlags], [fill(maker, badFlags, ETH / 4n)])).to.be.revertedWithCustomError(
        f.settlement,
        "SettlementOrderFlagsInvalid",
      );
      const badSide = await signed(f, f.keys.alice, await orderFor(f, f.alice.address as Address, 2 as OrderSide, ETH));
      if (enc === "abi") {
        await expect(settle(f, [maker, badSide], [fill(maker, badSide, ETH / 4n)])).to.be.revertedWithCustomError(
          f.settlement,
          "SettlementOrderSideInvalid",
        );
      } else {
        // the packed layout has one bit for the side: a side of 2 cannot even be encoded
        expect(() => encodePackedBatch(buildSettleArgs([maker, badSide], [fill(maker, badSide, ETH / 4n)]))).to.throw(
          /side 2/,
        );
      }
    });

    it("rejects a batch that leaves a balance short", async () => {
      const f = await loadFixture(deployFixture);
      const price = 2500n * USD;
      const { maker, taker } = await pair(f, 100n * ETH, 100n * ETH, price, price);
      // bob sells all his 50 WETH; alice would pay 125,000 USD and holds 100,000
      await expect(settle(f, [maker, taker], [fill(maker, taker, 50n * ETH, price)]))
        .to.be.revertedWithCustomError(f.settlement, "SettlementInsufficientBalance")
        .withArgs(f.alice.address, await f.usd.getAddress(), 100_000n * USD, 125_000n * USD);
    });

    it("settles net: a trader may pay with what the same batch credits it", async () => {
      const f = await loadFixture(deployFixture);
      // carol holds USD and no WETH: she buys 1 WETH from bob and sells 0.5 WETH to alice in one batch
      const bobSells = await signed(f, f.keys.bob, await orderFor(f, f.bob.address as Address, OrderSide.SELL, ETH));
      const carolBuys = await signed(
        f,
        f.keys.carol,
        await orderFor(f, f.carol.address as Address, OrderSide.BUY, ETH),
      );
      // her sale must come before her purchase in the batch (orders go by hash): its debit needs the purchase's
      // credit, which every credit before every debit gives it (and CommonPath.creditAndDebit's pass, order by
      // order, leaves to the Solidity path)
      let carolSells = await signed(
        f,
        f.keys.carol,
        await orderFor(f, f.carol.address as Address, OrderSide.SELL, ETH / 2n),
      );
      for (let nonce = 1_000n; BigInt(carolSells.hash) > BigInt(carolBuys.hash); nonce++) {
        carolSells = await signed(
          f,
          f.keys.carol,
          await orderFor(f, f.carol.address as Address, OrderSide.SELL, ETH / 2n, undefined, { nonce }),
        );
      }
      const aliceBuys = await signed(
        f,
        f.keys.alice,
        await orderFor(f, f.alice.address as Address, OrderSide.BUY, ETH / 2n),
      );
      const weth = await f.weth.getAddress();
      await settle(
        f,
        [bobSells, carolBuys, carolSells, aliceBuys],
        [fill(aliceBuys, carolSells, ETH / 2n), fill(bobSells, carolBuys, ETH)],
      );
      expect(await f.settlement.balanceOf(f.carol.address, weth)).to.equal(ETH - feeFor(ETH, TAKER_BPS) - ETH / 2n);
    });

    it("only the operator settles; batches are strictly sequential (replay and skip rejected)", async () => {
      const f = await loadFixture(deployFixture);
      const { maker, taker } = await pair(f);
      const args = buildSettleArgs([maker, taker], [fill(maker, taker, ETH / 4n)]);
      const asAlice =
        enc === "packed"
          ? f.settlement.connect(f.alice).settlePacked(0n, encodePackedBatch(args))
          : f.settlement.connect(f.alice).settle(0n, args.orders, args.signatures, args.fills);
      await expect(asAlice)
        .to.be.revertedWithCustomError(f.settlement, "AccessControlUnauthorizedAccount")
        .withArgs(f.alice.address, await f.settlement.OPERATOR_ROLE());
      await expect(settleRaw(f, 1n, args.orders, args.signatures, args.fills))
        .to.be.revertedWithCustomError(f.settlement, "SettlementBatchOutOfOrder")
        .withArgs(0n, 1n);
      await settleRaw(f, 0n, args.orders, args.signatures, args.fills);
      await expect(settleRaw(f, 0n, args.orders, args.signatures, args.fills))
        .to.be.revertedWithCustomError(f.settlement, "SettlementBatchOutOfOrder")
        .withArgs(1n, 0n);
      expect(await f.settlement.filledAmount(maker.hash)).to.equal(ETH / 4n);
    });

    it("is all-or-nothing: a bad last fill reverts the good ones", async () => {
      const f = await loadFixture(deployFixture);
      const { maker, taker } = await pair(f);
      await expect(
        settle(f, [maker, taker], [fill(maker, taker, ETH / 4n), fill(maker, taker, 1n)]),
      ).to.be.revertedWithCustomError(f.settlement, "SettlementFillNotExact");
      expect(await f.settlement.filledAmount(maker.hash)).to.equal(0n);
      expect(await f.settlement.balanceOf(f.bob.address, await f.weth.getAddress())).to.equal(50n * ETH);
      expect(await f.settlement.nextBatchId()).to.equal(0n);
    });

    it("rejects unsorted or duplicated orders, bad indexes and length mismatches", async () => {
      const f = await loadFixture(deployFixture);
      const { maker, taker } = await pair(f);
      const args = buildSettleArgs([maker, taker], [fill(maker, taker, ETH / 4n)]);
      const rev = [...args.orders].reverse();
      const revSig = [...args.signatures].reverse();
      await expect(settleRaw(f, 0n, rev, revSig, []))
        .to.be.revertedWithCustomError(f.settlement, "SettlementOrdersNotSorted")
        .withArgs(1n);
      await expect(
        settleRaw(f, 0n, [args.orders[0], args.orders[0]], [args.signatures[0], args.signatures[0]], []),
      ).to.be.revertedWithCustomError(f.settlement, "SettlementOrdersNotSorted");
      await expect(
        settleRaw(f, 0n, args.orders, args.signatures, [
          { makerIndex: 0, takerIndex: 2, baseAmount: ETH, price: PRICE_2000 },
        ]),
      )
        .to.be.revertedWithCustomError(f.settlement, "SettlementFillIndexOutOfRange")
        .withArgs(0n);
      if (enc === "abi") {
        await expect(settleRaw(f, 0n, args.orders, [args.signatures[0]], [])).to.be.revertedWithCustomError(
          f.settlement,
          "SettlementBatchLengthMismatch",
        );
      } else {
        const packed = encodePackedBatch(args);
        const op = f.settlement.connect(f.operator);
        await expect(op.settlePacked(0n, packed.slice(0, -2))).to.be.revertedWithCustomError(
          f.settlement,
          "SettlementPackedBatchMalformed",
        );
        await expect(op.settlePacked(0n, `${packed}00`)).to.be.revertedWithCustomError(
          f.settlement,
          "SettlementPackedBatchMalformed",
        );
        await expect(op.settlePacked(0n, "0x"))
          .to.be.revertedWithCustomError(f.settlement, "SettlementPackedBatchMalformed")
          .withArgs(0n);
        // a token index beyond the table (the first order's base token index byte is at 1 + 2*20 + 2 + 20)
        const at = 2 + 2 * (1 + 2 * 20 + 2 + 20);
        const badIndex = `${packed.slice(0, at)}07${packed.slice(at + 2)}`;
        await expect(op.settlePacked(0n, badIndex)).to.be.revertedWithCustomError(
          f.settlement,
          "SettlementPackedBatchMalformed",
        );
        await op.settlePacked(0n, packed);
      }
    });

    it("does not settle while paused", async () => {
      const f = await loadFixture(deployFixture);
      const { maker, taker } = await pair(f);
      await f.settlement.connect(f.admin).pause();
      await expect(settle(f, [maker, taker], [fill(maker, taker, ETH / 4n)])).to.be.revertedWithCustomError(
        f.settlement,
        "EnforcedPause",
      );
      await f.settlement.connect(f.admin).unpause();
      await settle(f, [maker, taker], [fill(maker, taker, ETH / 4n)]);
      expect(await ethers.provider.getBalance(await f.settlement.getAddress())).to.equal(0n);
    });
  });
