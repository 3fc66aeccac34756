import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture, time } from "@nomicfoundation/hardhat-toolbox/network-helpers";
import type { Address } from "viem";
import { deployFixture, fill, orderFor, settle, signed, ETH, USD, DELAY, OrderSide, type Untyped } from "./fixtures";

describe("Settlement: custody", () => {
  it("deposit credits the internal balance and emits Deposited; depositFor credits another account", async () => {
    const f = await loadFixture(deployFixture);
    const usd = await f.usd.getAddress();
    await expect(f.settlement.connect(f.alice).deposit(usd, 5n * USD))
      .to.emit(f.settlement, "Deposited")
      .withArgs(f.alice.address, usd, 5n * USD);
    expect(await f.settlement.balanceOf(f.alice.address, usd)).to.equal(100_005n * USD);
    await expect(f.settlement.connect(f.alice).depositFor(f.dave.address, usd, 7n * USD))
      .to.emit(f.settlement, "Deposited")
      .withArgs(f.dave.address, usd, 7n * USD);
    expect(await f.settlement.balanceOf(f.dave.address, usd)).to.equal(7n * USD);
    await expect(f.settlement.connect(f.alice).deposit(usd, 0n)).to.be.revertedWithCustomError(
      f.settlement,
      "SettlementAmountZero",
    );
    await expect(f.settlement.connect(f.alice).depositFor(ethers.ZeroAddress, usd, 1n)).to.be.revertedWithCustomError(
      f.settlement,
      "SettlementZeroAddress",
    );
  });

  it("rejects a fee-on-transfer token deposit", async () => {
    const f = await loadFixture(deployFixture);
    const fot = (await (await ethers.getContractFactory("SettlementFeeOnTransferToken")).deploy()) as Untyped;
    await fot.mint(f.alice.address, 1000n);
    await fot.connect(f.alice).approve(await f.settlement.getAddress(), 1000n);
    await expect(f.settlement.connect(f.alice).deposit(await fot.getAddress(), 1000n))
      .to.be.revertedWithCustomError(f.settlement, "SettlementDepositAmountMismatch")
      .withArgs(1000n, 990n);
  });

  it("withdraws in two steps: request (no debit), wait the delay, execute", async () => {
    const f = await loadFixture(deployFixture);
    const usd = await f.usd.getAddress();
    const tx = await f.settlement.connect(f.alice).requestWithdrawal(usd, 40n * USD);
    const availableAt = BigInt((await ethers.provider.getBlock((await tx.wait())!.blockNumber))!.timestamp) + DELAY;
    await expect(tx)
      .to.emit(f.settlement, "WithdrawalRequested")
      .withArgs(f.alice.address, usd, 40n * USD, availableAt);
    expect(await f.settlement.balanceOf(f.alice.address, usd)).to.equal(100_000n * USD);
    const pending = await f.settlement.pendingWithdrawal(f.alice.address, usd);
    expect(pending.amount).to.equal(40n * USD);
    expect(pending.availableAt).to.equal(availableAt);
    await expect(f.settlement.connect(f.alice).requestWithdrawal(usd, 1n)).to.be.revertedWithCustomError(
      f.settlement,
      "SettlementWithdrawalAlreadyPending",
    );
    await expect(f.settlement.connect(f.alice).executeWithdrawal(usd))
      .to.be.revertedWithCustomError(f.settlement, "SettlementWithdrawalNotReady")
      .withArgs(availableAt);
    await time.increaseTo(availableAt);
    const before = await f.usd.balanceOf(f.alice.address);
    await expect(f.settlement.connect(f.alice).executeWithdrawal(usd))
      .to.emit(f.settlement, "WithdrawalExecuted")
      .withArgs(f.alice.address, usd, 40n * USD);
    expect(await f.usd.balanceOf(f.alice.address)).to.equal(before + 40n * USD);
    expect(await f.settlement.balanceOf(f.alice.address, usd)).to.equal(99_960n * USD);
    await expect(f.settlement.connect(f.alice).executeWithdrawal(usd)).to.be.revertedWithCustomError(
      f.settlement,
      "SettlementWithdrawalNotPending",
    );
  });

  it("cancels a pending withdrawal; refuses a request or an execution beyond the balance", async () => {
    const f = await loadFixture(deployFixture);
    const usd = await f.usd.getAddress();
    await expect(f.settlement.connect(f.alice).requestWithdrawal(usd, 100_001n * USD))
      .to.be.revertedWithCustomError(f.settlement, "SettlementInsufficientBalance")
      .withArgs(f.alice.address, usd, 100_000n * USD, 100_001n * USD);
    await expect(f.settlement.connect(f.alice).requestWithdrawal(usd, 0n)).to.be.revertedWithCustomError(
      f.settlement,
      "SettlementAmountZero",
    );
    await f.settlement.connect(f.alice).requestWithdrawal(usd, 10n * USD);
    await expect(f.settlement.connect(f.alice).cancelWithdrawal(usd))
      .to.emit(f.settlement, "WithdrawalCancelled")
      .withArgs(f.alice.address, usd, 10n * USD);
    await expect(f.settlement.connect(f.alice).cancelWithdrawal(usd)).to.be.revertedWithCustomError(
      f.settlement,
      "SettlementWithdrawalNotPending",
    );
    // the balance can fall below a pending request (a trade settled in between): execution fails by name
    const weth = await f.weth.getAddress();
    await f.settlement.connect(f.bob).requestWithdrawal(weth, 50n * ETH);
    await f.settlement.connect(f.bob).cancelWithdrawal(weth);
    await f.settlement.connect(f.admin).setWithdrawalDelay(0n);
    await f.settlement.connect(f.bob).requestWithdrawal(weth, 50n * ETH);
    const maker = await signed(f, f.keys.bob, await orderFor(f, f.bob.address as Address, OrderSide.SELL, ETH));
    const taker = await signed(f, f.keys.alice, await orderFor(f, f.alice.address as Address, OrderSide.BUY, ETH));
    await settle(f, [maker, taker], [fill(maker, taker, ETH)]);
    await expect(f.settlement.connect(f.bob).executeWithdrawal(weth))
      .to.be.revertedWithCustomError(f.settlement, "SettlementInsufficientBalance")
      .withArgs(f.bob.address, weth, 49n * ETH, 50n * ETH);
  });

  it("a token re-entering settle or executeWithdrawal during a transfer fails with ReentrancyGuardReentrantCall", async () => {
    const f = await loadFixture(deployFixture);
    const ren = (await (await ethers.getContractFactory("SettlementReentrantToken")).deploy()) as Untyped;
    const renAddress = await ren.getAddress();
    const settlementAddress = await f.settlement.getAddress();
    await ren.mint(f.alice.address, 1000n);
    await ren.connect(f.alice).approve(settlementAddress, 1000n);
    // even with the operator role, a re-entering token is stopped by the guard
    await f.settlement.connect(f.admin).grantRole(await f.settlement.OPERATOR_ROLE(), renAddress);
    const settleCall = f.settlement.interface.encodeFunctionData("settle", [0n, [], [], []]);
    await ren.arm(settlementAddress, settleCall);
    await expect(f.settlement.connect(f.alice).deposit(renAddress, 1000n)).to.be.revertedWithCustomError(
      f.settlement,
      "ReentrancyGuardReentrantCall",
    );

    await ren.arm(ethers.ZeroAddress, "0x"); // the reverted attempt rolled its own disarm back
    await f.settlement.connect(f.alice).deposit(renAddress, 1000n);
    await f.settlement.connect(f.admin).setWithdrawalDelay(0n);
    await f.settlement.connect(f.alice).requestWithdrawal(renAddress, 400n);
    await ren.arm(settlementAddress, f.settlement.interface.encodeFunctionData("executeWithdrawal", [renAddress]));
    await expect(f.settlement.connect(f.alice).executeWithdrawal(renAddress)).to.be.revertedWithCustomError(
      f.settlement,
      "ReentrancyGuardReentrantCall",
    );
    await ren.arm(settlementAddress, settleCall);
    await expect(f.settlement.connect(f.alice).executeWithdrawal(renAddress)).to.be.revertedWithCustomError(
      f.settlement,
      "ReentrancyGuardReentrantCall",
    );
    expect(await f.settlement.balanceOf(f.alice.address, renAddress)).to.equal(1000n);
  });

  it("pause stops deposits but not withdrawals", async () => {
    const f = await loadFixture(deployFixture);
    const usd = await f.usd.getAddress();
    await expect(f.settlement.connect(f.alice).pause()).to.be.revertedWithCustomError(
      f.settlement,
      "AccessControlUnauthorizedAccount",
    );
    await f.settlement.connect(f.admin).pause();
    await expect(f.settlement.connect(f.alice).deposit(usd, 1n)).to.be.revertedWithCustomError(
      f.settlement,
      "EnforcedPause",
    );
    await f.settlement.connect(f.alice).requestWithdrawal(usd, 1n * USD);
    await time.increase(DELAY);
    await f.settlement.connect(f.alice).executeWithdrawal(usd);
    expect(await f.settlement.balanceOf(f.alice.address, usd)).to.equal(99_999n * USD);
  });

  it("admin sets capped fees, delay and recipient, and withdraws collected fees to the recipient", async () => {
    const f = await loadFixture(deployFixture);
    await expect(f.settlement.connect(f.admin).setFees(5, 7)).to.emit(f.settlement, "FeesUpdated").withArgs(5, 7);
    expect(await f.settlement.fees()).to.deep.equal([5n, 7n]);
    await expect(f.settlement.connect(f.admin).setFees(101, 0))
      .to.be.revertedWithCustomError(f.settlement, "SettlementFeeTooHigh")
      .withArgs(101, 100);
    await expect(f.settlement.connect(f.alice).setFees(1, 1)).to.be.revertedWithCustomError(
      f.settlement,
      "AccessControlUnauthorizedAccount",
    );
    await expect(f.settlement.connect(f.admin).setWithdrawalDelay(8n * 86400n)).to.be.revertedWithCustomError(
      f.settlement,
      "SettlementWithdrawalDelayTooLong",
    );
    await f.settlement.connect(f.admin).setWithdrawalDelay(60n);
    expect(await f.settlement.withdrawalDelay()).to.equal(60n);
    await expect(f.settlement.connect(f.admin).setFeeRecipient(ethers.ZeroAddress)).to.be.revertedWithCustomError(
      f.settlement,
      "SettlementZeroAddress",
    );
    await f.settlement.connect(f.admin).setFeeRecipient(f.carol.address);
    expect(await f.settlement.feeRecipient()).to.equal(f.carol.address);
    const usd = await f.usd.getAddress();
    await expect(f.settlement.connect(f.admin).withdrawFees(usd, 1n))
      .to.be.revertedWithCustomError(f.settlement, "SettlementInsufficientFees")
      .withArgs(usd, 0n, 1n);
  });

  it("collected fees go to the fee recipient; the token balance still equals balances plus fees", async () => {
    const f = await loadFixture(deployFixture);
    const maker = await signed(f, f.keys.bob, await orderFor(f, f.bob.address as Address, OrderSide.SELL, ETH));
    const taker = await signed(f, f.keys.alice, await orderFor(f, f.alice.address as Address, OrderSide.BUY, ETH));
    await settle(f, [maker, taker], [fill(maker, taker, ETH)]);
    const usd = await f.usd.getAddress();
    const fees = await f.settlement.collectedFees(usd);
    expect(fees).to.be.greaterThan(0n);
    await expect(f.settlement.connect(f.alice).withdrawFees(usd, fees)).to.be.revertedWithCustomError(
      f.settlement,
      "AccessControlUnauthorizedAccount",
    );
    await expect(f.settlement.connect(f.admin).withdrawFees(usd, fees))
      .to.emit(f.settlement, "FeesWithdrawn")
      .withArgs(usd, f.feeSink.address, fees);
    expect(await f.usd.balanceOf(f.feeSink.address)).to.equal(fees);
    expect(await f.settlement.collectedFees(usd)).to.equal(0n);
    let sum = 0n;
    for (const who of [f.alice, f.bob, f.carol, f.dave]) sum += await f.settlement.balanceOf(who.address, usd);
    expect(await f.usd.balanceOf(await f.settlement.getAddress())).to.equal(sum);
  });
});
