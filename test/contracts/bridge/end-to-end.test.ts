// The whole on-chain round trip with real FROST signatures: deposit -> mint -> burn -> queue -> challenge period
// -> release; balances exact at every step.
import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture, time } from "@nomicfoundation/hardhat-toolbox/network-helpers";
import { CHALLENGE_PERIOD_SEC, deployBridgeSystem } from "./helpers/bridge";

describe("bridge round trip (one chain playing both sides)", () => {
  it("deposit, mint, burn, challenge period, release: balances exact", async () => {
    const s = await loadFixture(deployBridgeSystem);
    const amount = 1_234_567n;
    const aliceStart = await s.token.balanceOf(s.alice.address);

    const depositTx = await s.vault.connect(s.alice).deposit(s.addr.token, amount, s.bob.address, s.chainId);
    const deposited = (await depositTx.wait()).logs
      .map((l: any) => s.vault.interface.parseLog(l))
      .find((e: any) => e?.name === "BridgeDeposited");
    const nonce = deposited.args.nonce as bigint;
    expect(await s.token.balanceOf(s.addr.vault)).to.equal(amount);

    // the relayer rebuilds the MINT message from the event alone
    const mintMsg = await s.mintMessage(nonce, deposited.args.recipient, deposited.args.amount, {
      dstContract: deposited.args.dstContract,
      dstChainId: deposited.args.dstChainId,
    });
    await s.minter
      .connect(s.relayer)
      .mint(nonce, deposited.args.token, deposited.args.recipient, deposited.args.amount, s.sign(mintMsg));
    expect(await s.wrapped.balanceOf(s.bob.address)).to.equal(amount);

    const burnTx = await s.minter.connect(s.bob).burn(s.addr.wrapped, amount, s.alice.address);
    const burned = (await burnTx.wait()).logs
      .map((l: any) => s.minter.interface.parseLog(l))
      .find((e: any) => e?.name === "BridgeBurned");
    expect(await s.wrapped.totalSupply()).to.equal(0n);

    const relMsg = await s.releaseMessage(burned.args.nonce, burned.args.recipient, burned.args.amount, {
      token: burned.args.homeToken,
      dstContract: burned.args.dstContract,
      dstChainId: burned.args.dstChainId,
    });
    await s.vault
      .connect(s.relayer)
      .queueRelease(
        burned.args.nonce,
        burned.args.homeToken,
        burned.args.recipient,
        burned.args.amount,
        s.sign(relMsg),
        "0x",
      );
    await expect(
      s.vault.executeRelease(burned.args.nonce, s.addr.token, s.alice.address, amount),
    ).to.be.revertedWithCustomError(s.vault, "BridgeVaultChallengePeriodActive");
    await time.increase(CHALLENGE_PERIOD_SEC);
    await s.vault.connect(s.relayer).executeRelease(burned.args.nonce, s.addr.token, s.alice.address, amount);

    expect(await s.token.balanceOf(s.alice.address)).to.equal(aliceStart);
    expect(await s.token.balanceOf(s.addr.vault)).to.equal(0n);
    expect(await s.wrapped.balanceOf(s.bob.address)).to.equal(0n);
    expect(await ethers.provider.getBalance(s.addr.vault)).to.equal(0n);
  });
});
