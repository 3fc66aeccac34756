import { expect } from "chai";
import { loadFixture, time } from "@nomicfoundation/hardhat-toolbox/network-helpers";
import type { Address } from "viem";
import { deployFixture, fill, orderFor, settle, signed, signerKey, ETH, OrderSide, type Fixture } from "./fixtures";

async function trade(f: Fixture) {
  const maker = await signed(f, f.keys.bob, await orderFor(f, f.bob.address as Address, OrderSide.SELL, ETH));
  const taker = await signed(f, f.keys.alice, await orderFor(f, f.alice.address as Address, OrderSide.BUY, ETH));
  return { maker, taker };
}

describe("Settlement: cancellation", () => {
  it("cancelOrder kills the order; settling it fails with SettlementOrderNonceUsed", async () => {
    const f = await loadFixture(deployFixture);
    const { maker, taker } = await trade(f);
    await expect(f.settlement.connect(f.alice).cancelOrder(taker.order.nonce))
      .to.emit(f.settlement, "OrderCancelled")
      .withArgs(f.alice.address, taker.order.nonce);
    expect(await f.settlement.isNonceUsed(f.alice.address, taker.order.nonce)).to.equal(true);
    await expect(settle(f, [maker, taker], [fill(maker, taker, ETH / 4n)]))
      .to.be.revertedWithCustomError(f.settlement, "SettlementOrderNonceUsed")
      .withArgs(f.alice.address, taker.order.nonce);
    await expect(f.settlement.connect(f.alice).cancelOrder(taker.order.nonce)).to.be.revertedWithCustomError(
      f.settlement,
      "SettlementNonceAlreadyUsed",
    );
  });

  it("cancels a partially filled order", async () => {
    const f = await loadFixture(deployFixture);
    const { maker, taker } = await trade(f);
    await settle(f, [maker, taker], [fill(maker, taker, ETH / 4n)]);
    await f.settlement.connect(f.bob).cancelOrder(maker.order.nonce);
    await expect(settle(f, [maker, taker], [fill(maker, taker, ETH / 4n)])).to.be.revertedWithCustomError(
      f.settlement,
      "SettlementOrderNonceUsed",
    );
  });

  it("cancelAllBelow kills every lower nonce, only rises, and spares higher nonces", async () => {
    const f = await loadFixture(deployFixture);
    const { maker, taker } = await trade(f);
    const min = taker.order.nonce + 1n;
    await expect(f.settlement.connect(f.alice).cancelAllBelow(min))
      .to.emit(f.settlement, "OrdersCancelledBelow")
      .withArgs(f.alice.address, min);
    expect(await f.settlement.minNonce(f.alice.address)).to.equal(min);
    await expect(settle(f, [maker, taker], [fill(maker, taker, ETH / 4n)]))
      .to.be.revertedWithCustomError(f.settlement, "SettlementOrderNonceBelowMinimum")
      .withArgs(f.alice.address, taker.order.nonce, min);
    await expect(f.settlement.connect(f.alice).cancelAllBelow(min))
      .to.be.revertedWithCustomError(f.settlement, "SettlementMinNonceNotIncreasing")
      .withArgs(min, min);
    const later = await signed(f, f.keys.alice, {
      ...(await orderFor(f, f.alice.address as Address, OrderSide.BUY, ETH)),
      nonce: min,
    });
    await settle(f, [maker, later], [fill(maker, later, ETH / 4n)]);
  });

  it("an agent may cancel for its trader; a stranger or an expired agent may not", async () => {
    const f = await loadFixture(deployFixture);
    const agent = f.signers[9];
    const expiry = BigInt(await time.latest()) + 100n;
    await f.settlement.connect(f.alice).approveAgent(agent.address, expiry);
    await expect(f.settlement.connect(agent).cancelOrderFor(f.alice.address, 7n))
      .to.emit(f.settlement, "OrderCancelled")
      .withArgs(f.alice.address, 7n);
    await expect(f.settlement.connect(agent).cancelAllBelowFor(f.alice.address, 5n)).to.emit(
      f.settlement,
      "OrdersCancelledBelow",
    );
    await expect(f.settlement.connect(f.carol).cancelOrderFor(f.alice.address, 8n))
      .to.be.revertedWithCustomError(f.settlement, "SettlementCallerNotTraderOrAgent")
      .withArgs(f.alice.address, f.carol.address);
    await time.increaseTo(expiry);
    await expect(f.settlement.connect(agent).cancelAllBelowFor(f.alice.address, 9n)).to.be.revertedWithCustomError(
      f.settlement,
      "SettlementCallerNotTraderOrAgent",
    );
    expect(signerKey(9).address).to.equal(agent.address);
  });
});
