// BridgeWrappedToken is a standard ERC-20 for holders although its supply lives in the minter (packed with the
// mint bucket, see docs/decisions.md "Bridge contracts"); the native FROST key is cached by the minter and the
// vault and follows every verifier change (native -> custody -> native); the packed supply refuses to overflow.
import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture, time } from "@nomicfoundation/hardhat-toolbox/network-helpers";
import type { Hex } from "viem";
import { getBridgeMessageDigest } from "../../../sdk/bridge-message";
import { deployBridgeSystem } from "./helpers/bridge";
import { createFrostGroup } from "./helpers/frost";

describe("BridgeWrappedToken and the minter's packed ledger", () => {
  const amount = 1_000n * 10n ** 6n;

  async function withBobHolding() {
    const s = await deployBridgeSystem();
    await s.mintToBob(amount);
    return s;
  }

  it("transfer, approve and transferFrom behave as a standard ERC-20, with Transfer and Approval events", async () => {
    const s = await loadFixture(withBobHolding);
    const w = s.wrapped.connect(s.bob) as any;
    expect([await s.wrapped.name(), await s.wrapped.symbol(), await s.wrapped.decimals()]).to.deep.equal([
      "Bridged Demo USD",
      "USD.b",
      6n,
    ]);
    expect(await s.wrapped.homeToken()).to.equal(s.addr.token);
    expect(await s.wrapped.minter()).to.equal(s.addr.minter);
    await expect(w.transfer(s.stranger.address, 300n))
      .to.emit(s.wrapped, "Transfer")
      .withArgs(s.bob.address, s.stranger.address, 300n);
    await expect(w.transfer(s.stranger.address, amount))
      .to.be.revertedWithCustomError(s.wrapped, "ERC20InsufficientBalance")
      .withArgs(s.bob.address, amount - 300n, amount);
    await expect(w.transfer(ethers.ZeroAddress, 1n))
      .to.be.revertedWithCustomError(s.wrapped, "ERC20InvalidReceiver")
      .withArgs(ethers.ZeroAddress);
    await expect(w.approve(s.alice.address, 500n))
      .to.emit(s.wrapped, "Approval")
      .withArgs(s.bob.address, s.alice.address, 500n);
    await expect(w.approve(ethers.ZeroAddress, 1n)).to.be.revertedWithCustomError(s.wrapped, "ERC20InvalidSpender");
    const asAlice = s.wrapped.connect(s.alice) as any;
    await expect(asAlice.transferFrom(s.bob.address, s.alice.address, 200n))
      .to.emit(s.wrapped, "Transfer")
      .withArgs(s.bob.address, s.alice.address, 200n);
    expect(await s.wrapped.allowance(s.bob.address, s.alice.address)).to.equal(300n);
    await expect(asAlice.transferFrom(s.bob.address, s.alice.address, 301n))
      .to.be.revertedWithCustomError(s.wrapped, "ERC20InsufficientAllowance")
      .withArgs(s.alice.address, 300n, 301n);
    await w.approve(s.alice.address, ethers.MaxUint256);
    await asAlice.transferFrom(s.bob.address, s.alice.address, 100n);
    expect(await s.wrapped.allowance(s.bob.address, s.alice.address)).to.equal(ethers.MaxUint256);
    const holders = [s.bob.address, s.alice.address, s.stranger.address];
    const balances = await Promise.all(holders.map((h) => s.wrapped.balanceOf(h)));
    expect(balances).to.deep.equal([amount - 600n, 300n, 300n]);
    expect(await s.wrapped.totalSupply()).to.equal(balances.reduce((a, b) => a + b, 0n));
    // burning from a holder who received by transfer: supply and balance fall together
    await expect(s.minter.connect(s.stranger).burn(s.addr.wrapped, 300n, s.alice.address))
      .to.emit(s.wrapped, "Transfer")
      .withArgs(s.stranger.address, ethers.ZeroAddress, 300n);
    expect(await s.wrapped.totalSupply()).to.equal(amount - 300n);
    expect(await s.minter.wrappedSupply(s.addr.token)).to.equal(amount - 300n);
  });

  it("a mint emits the token's Transfer from the zero address", async () => {
    const s = await loadFixture(deployBridgeSystem);
    const nonce = await s.depositFromAlice(amount);
    await expect(s.mint(nonce, s.alice.address, amount, s.sign(await s.mintMessage(nonce, s.alice.address, amount))))
      .to.emit(s.wrapped, "Transfer")
      .withArgs(ethers.ZeroAddress, s.alice.address, amount);
  });

  it("a setLimit keeps the supply; a mint that would overflow the packed 96-bit supply reverts with BridgeMinterSupplyOverflow", async () => {
    const s = await loadFixture(withBobHolding);
    const max96 = (1n << 96n) - 1n;
    await s.minter.setLimit(s.addr.token, max96, 1);
    await time.increase(1); // setLimit keeps the level: one second at the new rate fills it
    expect(await s.wrapped.totalSupply()).to.equal(amount);
    expect(await s.minter.availableToMint(s.addr.token)).to.equal(max96);
    const big = max96 - amount;
    await s.minter.mint(
      1000n,
      s.addr.token,
      s.bob.address,
      big,
      s.sign(await s.mintMessage(1000n, s.bob.address, big)),
    );
    expect(await s.wrapped.totalSupply()).to.equal(max96);
    await time.increase(5);
    await expect(
      s.minter.mint(1001n, s.addr.token, s.bob.address, 1n, s.sign(await s.mintMessage(1001n, s.bob.address, 1n))),
    )
      .to.be.revertedWithCustomError(s.minter, "BridgeMinterSupplyOverflow")
      .withArgs(s.addr.token, max96, 1n);
    expect(await s.minter.isMinted(1001n)).to.equal(false);
    expect(await s.wrapped.totalSupply()).to.equal(max96);
  });

  it("the cached FROST key follows the verifier: native -> custody (ERC-1271 call) -> native with a new key", async () => {
    const s = await loadFixture(deployBridgeSystem);
    const custodyKey = ethers.Wallet.createRandom();
    const wallet: any = await (await ethers.getContractFactory("BridgeCustodySigner")).deploy(custodyKey.address);
    const v1271: any = await (await ethers.getContractFactory("BridgeErc1271Verifier")).deploy(
      await wallet.getAddress(),
      2n,
    );
    const next = createFrostGroup();
    const frost3: any = await (await ethers.getContractFactory("BridgeFrostVerifier")).deploy(
      3n,
      next.publicKey.x,
      next.publicKey.y,
    );
    const n1 = await s.depositFromAlice(amount);
    const n2 = await s.depositFromAlice(amount);

    await s.minter.setVerifier(await v1271.getAddress());
    await s.vault.setVerifier(await v1271.getAddress());
    expect((await s.minter.core()).verifier).to.equal(await v1271.getAddress());
    expect((await s.vault.core()).verifier).to.equal(await v1271.getAddress());
    const m1 = await s.mintMessage(n1, s.bob.address, amount, { keyEpoch: 2n });
    await expect(s.minter.mint(n1, s.addr.token, s.bob.address, amount, s.sign(m1))).to.be.revertedWithCustomError(
      s.minter,
      "BridgeSignatureInvalid",
    );
    await s.minter.mint(
      n1,
      s.addr.token,
      s.bob.address,
      amount,
      custodyKey.signingKey.sign(getBridgeMessageDigest(m1)).serialized as Hex,
    );

    await s.minter.setVerifier(await frost3.getAddress());
    await s.vault.setVerifier(await frost3.getAddress());
    expect((await s.minter.core()).keyEpoch).to.equal(3n);
    const m2 = await s.mintMessage(n2, s.bob.address, amount, { keyEpoch: 3n });
    await expect(
      s.minter.mint(
        n2,
        s.addr.token,
        s.bob.address,
        amount,
        custodyKey.signingKey.sign(getBridgeMessageDigest(m2)).serialized as Hex,
      ),
    ).to.be.revertedWithCustomError(s.verifier, "FrostSignatureLengthInvalid");
    await expect(s.minter.mint(n2, s.addr.token, s.bob.address, amount, s.sign(m2))).to.be.revertedWithCustomError(
      s.minter,
      "BridgeSignatureInvalid",
    );
    await s.minter.mint(n2, s.addr.token, s.bob.address, amount, s.sign(m2, next));
    expect(await s.wrapped.totalSupply()).to.equal(2n * amount);

    // the vault checks releases with the new cached key too
    await s.minter.connect(s.bob).burn(s.addr.wrapped, amount, s.alice.address);
    const r = { ...(await s.releaseMessage(1n, s.alice.address, amount)), keyEpoch: 3n };
    await expect(
      s.vault.queueRelease(1n, s.addr.token, s.alice.address, amount, s.sign(r), "0x"),
    ).to.be.revertedWithCustomError(s.vault, "BridgeSignatureInvalid");
    await expect(s.vault.queueRelease(1n, s.addr.token, s.alice.address, amount, s.sign(r, next), "0x")).to.emit(
      s.vault,
      "BridgeReleaseQueued",
    );
  });
});
