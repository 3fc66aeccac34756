// BridgeMinter: mint on a threshold signature over the recomputed MINT digest; every forged field refused with a
// named error and nothing minted; at-most-once per deposit (also when two relayers race); daily limit; pause; burn.
import { expect } from "chai";
import { ethers, network } from "hardhat";
import { loadFixture, time } from "@nomicfoundation/hardhat-toolbox/network-helpers";
import { getAddress, type Hex } from "viem";
import { BridgeMessageKind, getBridgeMessageDigest } from "../../../sdk/bridge-message";
import { deployBridgeSystem, unpauseAsAdmin, DAILY_LIMIT_WEI, DAY } from "./helpers/bridge";
import { createFrostGroup } from "./helpers/frost";

describe("BridgeMinter", () => {
  const amount = 250n * 10n ** 6n;

  it("mints once on a valid 3-of-5 FROST signature and emits BridgeMinted", async () => {
    const s = await loadFixture(deployBridgeSystem);
    const nonce = await s.depositFromAlice(amount);
    const m = await s.mintMessage(nonce, s.bob.address, amount);
    await expect(s.minter.connect(s.relayer).mint(nonce, s.addr.token, s.bob.address, amount, s.sign(m)))
      .to.emit(s.minter, "BridgeMinted")
      .withArgs(nonce, s.addr.token, s.bob.address, s.addr.wrapped, amount, 1n);
    expect(await s.wrapped.balanceOf(s.bob.address)).to.equal(amount);
    expect(await s.wrapped.totalSupply()).to.equal(amount);
    expect(await s.minter.isMinted(nonce)).to.equal(true);
    expect(await s.wrapped.decimals()).to.equal(await s.token.decimals());
  });

  describe("refuses forged messages with BridgeSignatureInvalid and mints nothing", () => {
    const forgeries: [string, (s: any) => Record<string, unknown>][] = [
      ["another destination chain", () => ({ dstChainId: 31338n })],
      ["another source chain", () => ({ srcChainId: 31338n })],
      ["another destination contract", (s) => ({ dstContract: s.stranger.address })],
      ["another source contract", (s) => ({ srcContract: s.stranger.address })],
      ["another recipient", (s) => ({ recipient: s.stranger.address })],
      ["another amount", () => ({ amountWei: amount + 1n })],
      ["another nonce", () => ({ nonce: 99n })],
      ["another token", (s) => ({ token: s.stranger.address })],
      ["the RELEASE kind", () => ({ kind: BridgeMessageKind.RELEASE })],
      ["an old key epoch", () => ({ keyEpoch: 0n })],
    ];
    for (const [name, override] of forgeries) {
      it(name, async () => {
        const s = await loadFixture(deployBridgeSystem);
        const nonce = await s.depositFromAlice(amount);
        const signed = await s.mintMessage(nonce, s.bob.address, amount, override(s) as any);
        await expect(
          s.minter.mint(nonce, s.addr.token, s.bob.address, amount, s.sign(signed)),
        ).to.be.revertedWithCustomError(s.minter, "BridgeSignatureInvalid");
        expect(await s.wrapped.totalSupply()).to.equal(0n);
        expect(await s.minter.isMinted(nonce)).to.equal(false);
      });
    }

    it("a signature by another group key", async () => {
      const s = await loadFixture(deployBridgeSystem);
      const nonce = await s.depositFromAlice(amount);
      const m = await s.mintMessage(nonce, s.bob.address, amount);
      await expect(
        s.minter.mint(nonce, s.addr.token, s.bob.address, amount, s.sign(m, createFrostGroup())),
      ).to.be.revertedWithCustomError(s.minter, "BridgeSignatureInvalid");
      expect(await s.wrapped.totalSupply()).to.equal(0n);
    });
  });

  it("after a key rotation, signatures of the old epoch (old key) fail and the new key signs the new epoch", async () => {
    const s = await loadFixture(deployBridgeSystem);
    const nonce = await s.depositFromAlice(amount);
    const oldSig = s.sign(await s.mintMessage(nonce, s.bob.address, amount));
    const next = createFrostGroup();
    const factory = await ethers.getContractFactory("BridgeFrostVerifier");
    const nextVerifier: any = await factory.deploy(2n, next.publicKey.x, next.publicKey.y);
    await expect(
      s.minter.connect(s.stranger).setVerifier(await nextVerifier.getAddress()),
    ).to.be.revertedWithCustomError(s.minter, "AccessControlUnauthorizedAccount");
    await expect(s.minter.setVerifier(await nextVerifier.getAddress())).to.emit(s.minter, "BridgeMinterVerifierSet");
    expect(await s.minter.mintDigest(nonce, s.addr.token, s.bob.address, amount)).to.equal(
      getBridgeMessageDigest(await s.mintMessage(nonce, s.bob.address, amount, { keyEpoch: 2n })),
    );
    await expect(s.minter.mint(nonce, s.addr.token, s.bob.address, amount, oldSig)).to.be.revertedWithCustomError(
      s.minter,
      "BridgeSignatureInvalid",
    );
    // the new key signing a message bound to the old epoch is refused too
    const staleEpoch = s.sign(await s.mintMessage(nonce, s.bob.address, amount, { keyEpoch: 1n }), next);
    await expect(s.minter.mint(nonce, s.addr.token, s.bob.address, amount, staleEpoch)).to.be.revertedWithCustomError(
      s.minter,
      "BridgeSignatureInvalid",
    );
    expect(await s.wrapped.totalSupply()).to.equal(0n);
    await s.minter.mint(
      nonce,
      s.addr.token,
      s.bob.address,
      amount,
      s.sign(await s.mintMessage(nonce, s.bob.address, amount, { keyEpoch: 2n }), next),
    );
    expect(await s.wrapped.totalSupply()).to.equal(amount);
    // never back to an older (or the same) epoch: the old key cannot be reinstated
    await expect(s.minter.setVerifier(await s.verifier.getAddress()))
      .to.be.revertedWithCustomError(s.minter, "BridgeMinterKeyEpochNotAdvanced")
      .withArgs(2n, 1n);
    const same: any = await factory.deploy(2n, s.group.publicKey.x, s.group.publicKey.y);
    await expect(s.minter.setVerifier(await same.getAddress()))
      .to.be.revertedWithCustomError(s.minter, "BridgeMinterKeyEpochNotAdvanced")
      .withArgs(2n, 2n);
  });

  it("the same deposit minted twice reverts with BridgeMinterDepositAlreadyMinted", async () => {
    const s = await loadFixture(deployBridgeSystem);
    const nonce = await s.depositFromAlice(amount);
    const sig = s.sign(await s.mintMessage(nonce, s.bob.address, amount));
    await s.minter.mint(nonce, s.addr.token, s.bob.address, amount, sig);
    await expect(s.minter.connect(s.relayer).mint(nonce, s.addr.token, s.bob.address, amount, sig))
      .to.be.revertedWithCustomError(s.minter, "BridgeMinterDepositAlreadyMinted")
      .withArgs(nonce);
    expect(await s.wrapped.totalSupply()).to.equal(amount);
  });

  it("two relayers racing in the same block: one mints, the other reverts with the named error", async () => {
    const s = await loadFixture(deployBridgeSystem);
    const nonce = await s.depositFromAlice(amount);
    const sigA = s.sign(await s.mintMessage(nonce, s.bob.address, amount));
    const sigB = s.sign(await s.mintMessage(nonce, s.bob.address, amount), s.group); // another signing session
    await network.provider.send("evm_setAutomine", [false]);
    try {
      const txA = await s.minter
        .connect(s.relayer)
        .mint(nonce, s.addr.token, s.bob.address, amount, sigA, { gasLimit: 300_000 });
      const txB = await s.minter
        .connect(s.stranger)
        .mint(nonce, s.addr.token, s.bob.address, amount, sigB, { gasLimit: 300_000 });
      await network.provider.send("evm_mine", []);
      const [ra, rb] = await Promise.all([
        txA.wait().catch((e: any) => e.receipt),
        txB.wait().catch((e: any) => e.receipt),
      ]);
      expect(ra.blockNumber).to.equal(rb.blockNumber);
      expect([ra.status, rb.status].sort()).to.deep.equal([0, 1]);
      const failed = ra.status === 0 ? txA : txB;
      const trace = await network.provider.send("debug_traceTransaction", [
        failed.hash,
        { disableStorage: true, disableStack: true },
      ]);
      const errorSelector = s.minter.interface.getError("BridgeMinterDepositAlreadyMinted")!.selector;
      expect(String(trace.returnValue).replace(/^0x/, "").slice(0, 8)).to.equal(errorSelector.slice(2));
    } finally {
      await network.provider.send("evm_setAutomine", [true]);
    }
    expect(await s.wrapped.totalSupply()).to.equal(amount);
  });

  it("over the daily limit reverts with BridgeDailyLimitExceeded; the bucket refills with time", async () => {
    const s = await loadFixture(deployBridgeSystem);
    const big = DAILY_LIMIT_WEI - amount;
    const over = amount * 10n; // 2,500 tokens: the bucket refills ~11.6 tokens a second
    const n1 = await s.depositFromAlice(big);
    const n2 = await s.depositFromAlice(over);
    await s.minter.mint(n1, s.addr.token, s.bob.address, big, s.sign(await s.mintMessage(n1, s.bob.address, big)));
    const sig2 = s.sign(await s.mintMessage(n2, s.bob.address, over));
    await expect(s.minter.mint(n2, s.addr.token, s.bob.address, over, sig2)).to.be.revertedWithCustomError(
      s.minter,
      "BridgeDailyLimitExceeded",
    );
    expect(await s.wrapped.totalSupply()).to.equal(big);
    expect(await s.minter.isMinted(n2)).to.equal(false);
    await time.increase(DAY / 100); // refills 1% of the capacity: 10,000 tokens
    await s.minter.mint(n2, s.addr.token, s.bob.address, over, sig2);
    expect(await s.wrapped.totalSupply()).to.equal(big + over);
  });

  it("a mint while paused reverts with BridgeMinterOperationPaused and mints nothing", async () => {
    const s = await loadFixture(deployBridgeSystem);
    const nonce = await s.depositFromAlice(amount);
    const sig = s.sign(await s.mintMessage(nonce, s.bob.address, amount));
    await expect(s.minter.connect(s.guardian).pause())
      .to.emit(s.minter, "BridgeMinterPaused")
      .withArgs(s.guardian.address);
    await expect(s.minter.mint(nonce, s.addr.token, s.bob.address, amount, sig)).to.be.revertedWithCustomError(
      s.minter,
      "BridgeMinterOperationPaused",
    );
    expect(await s.wrapped.totalSupply()).to.equal(0n);
    await expect(s.minter.connect(s.stranger).pause()).to.be.revertedWithCustomError(
      s.minter,
      "BridgeMinterCallerNotGuardian",
    );
    await unpauseAsAdmin(s, s.minter);
    await s.minter.mint(nonce, s.addr.token, s.bob.address, amount, sig);
    expect(await s.wrapped.totalSupply()).to.equal(amount);
  });

  it("malformed signatures reach the verifier's named errors and mint nothing", async () => {
    const s = await loadFixture(deployBridgeSystem);
    const nonce = await s.depositFromAlice(amount);
    const good = s.sign(await s.mintMessage(nonce, s.bob.address, amount));
    const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
    const zN = `${good.slice(0, 130)}${N.toString(16)}` as Hex;
    const offCurve = `${good.slice(0, 66)}${"00".repeat(31)}01${good.slice(130)}` as Hex;
    await expect(s.minter.mint(nonce, s.addr.token, s.bob.address, amount, "0x"))
      .to.be.revertedWithCustomError(s.verifier, "FrostSignatureLengthInvalid")
      .withArgs(0);
    await expect(s.minter.mint(nonce, s.addr.token, s.bob.address, amount, good.slice(0, 132)))
      .to.be.revertedWithCustomError(s.verifier, "FrostSignatureLengthInvalid")
      .withArgs(65);
    await expect(s.minter.mint(nonce, s.addr.token, s.bob.address, amount, `0x${"00".repeat(96)}`))
      .to.be.revertedWithCustomError(s.verifier, "FrostScalarOutOfRange")
      .withArgs(0);
    await expect(s.minter.mint(nonce, s.addr.token, s.bob.address, amount, zN))
      .to.be.revertedWithCustomError(s.verifier, "FrostScalarOutOfRange")
      .withArgs(N);
    await expect(s.minter.mint(nonce, s.addr.token, s.bob.address, amount, offCurve)).to.be.revertedWithCustomError(
      s.verifier,
      "FrostPointNotOnCurve",
    );
    expect(await s.wrapped.totalSupply()).to.equal(0n);
  });

  it("burn destroys the caller's wrapped tokens and emits BridgeBurned with the RELEASE message fields", async () => {
    const s = await loadFixture(deployBridgeSystem);
    await s.mintToBob(amount);
    await expect(s.minter.connect(s.bob).burn(s.addr.wrapped, 40n, s.alice.address))
      .to.emit(s.minter, "BridgeBurned")
      .withArgs(1n, s.addr.wrapped, s.bob.address, s.addr.token, s.alice.address, 40n, s.chainId, s.addr.vault);
    await expect(s.minter.connect(s.bob).burn(s.addr.wrapped, 2n, s.alice.address))
      .to.emit(s.minter, "BridgeBurned")
      .withArgs(2n, s.addr.wrapped, s.bob.address, s.addr.token, s.alice.address, 2n, s.chainId, s.addr.vault);
    expect(await s.wrapped.totalSupply()).to.equal(amount - 42n);
    await expect(s.minter.connect(s.bob).burn(s.addr.token, 1n, s.alice.address)).to.be.revertedWithCustomError(
      s.minter,
      "BridgeMinterWrappedTokenUnknown",
    );
    await expect(s.minter.connect(s.bob).burn(s.addr.wrapped, 0n, s.alice.address)).to.be.revertedWithCustomError(
      s.minter,
      "BridgeMinterAmountZero",
    );
    await expect(s.minter.connect(s.bob).burn(s.addr.wrapped, 1n, ethers.ZeroAddress)).to.be.revertedWithCustomError(
      s.minter,
      "BridgeMinterRecipientZero",
    );
    await expect(s.minter.connect(s.stranger).burn(s.addr.wrapped, 1n, s.alice.address)).to.be.revertedWithCustomError(
      s.wrapped,
      "ERC20InsufficientBalance",
    );
    await expect(s.wrapped.connect(s.bob).mint(s.bob.address, 1n)).to.be.revertedWithCustomError(
      s.wrapped,
      "BridgeWrappedTokenCallerNotMinter",
    );
    await expect(s.wrapped.connect(s.bob).burn(s.bob.address, 1n)).to.be.revertedWithCustomError(
      s.wrapped,
      "BridgeWrappedTokenCallerNotMinter",
    );
  });

  it("mintDigest equals the SDK digest; a token without a wrapped twin is refused", async () => {
    const s = await loadFixture(deployBridgeSystem);
    expect(await s.minter.mintDigest(7n, s.addr.token, s.bob.address, amount)).to.equal(
      getBridgeMessageDigest(await s.mintMessage(7n, s.bob.address, amount)),
    );
    const sig = s.sign(await s.mintMessage(1n, s.bob.address, amount, { token: getAddress(s.stranger.address) }));
    await expect(s.minter.mint(1n, s.stranger.address, s.bob.address, amount, sig)).to.be.revertedWithCustomError(
      s.minter,
      "BridgeMinterTokenNotRegistered",
    );
  });
});
