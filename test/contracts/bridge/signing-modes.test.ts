// One verifier interface, three signing modes: native FROST (the other tests), and the custody-provider /
// custom modes through BridgeErc1271Verifier + an ERC-1271 wallet (BridgeCustodySigner stands in locally).
import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-toolbox/network-helpers";
import type { Hex } from "viem";
import { getBridgeMessageDigest } from "../../../sdk/bridge-message";
import { deployBridgeSystem } from "./helpers/bridge";

async function withCustodyMode() {
  const s = await deployBridgeSystem();
  const custodyKey = ethers.Wallet.createRandom();
  const wallet: any = await (await ethers.getContractFactory("BridgeCustodySigner")).deploy(custodyKey.address);
  const v1271: any = await (await ethers.getContractFactory("BridgeErc1271Verifier")).deploy(
    await wallet.getAddress(),
    2n,
  );
  await s.minter.setVerifier(await v1271.getAddress());
  await s.vault.setVerifier(await v1271.getAddress());
  const custodySign = (digest: Hex, key = custodyKey) => key.signingKey.sign(digest).serialized as Hex;
  return { ...s, custodyKey, wallet, v1271, custodySign };
}

describe("signing modes through IBridgeSignatureVerifier", () => {
  const amount = 10n ** 6n;

  it("custody mode: the ERC-1271 wallet's approval mints; a FROST signature no longer does", async () => {
    const s = await loadFixture(withCustodyMode);
    const nonce = await s.depositFromAlice(amount);
    const m = { ...(await s.mintMessage(nonce, s.bob.address, amount)), keyEpoch: await s.v1271.keyEpoch() };
    await expect(s.minter.mint(nonce, s.addr.token, s.bob.address, amount, s.sign(m))).to.be.revertedWithCustomError(
      s.minter,
      "BridgeSignatureInvalid",
    );
    await expect(
      s.minter.mint(nonce, s.addr.token, s.bob.address, amount, s.custodySign(getBridgeMessageDigest(m))),
    ).to.emit(s.minter, "BridgeMinted");
    expect(await s.wrapped.totalSupply()).to.equal(amount);
  });

  it("custody mode: another key's approval is refused; a new wallet (verifier of epoch 3) makes old approvals fail", async () => {
    const s = await loadFixture(withCustodyMode);
    const nonce = await s.depositFromAlice(amount);
    const m = { ...(await s.mintMessage(nonce, s.bob.address, amount)), keyEpoch: 2n };
    const digest = getBridgeMessageDigest(m);
    await expect(
      s.mint(nonce, s.bob.address, amount, s.custodySign(digest, ethers.Wallet.createRandom() as any)),
    ).to.be.revertedWithCustomError(s.minter, "BridgeSignatureInvalid");
    const oldApproval = s.custodySign(digest);
    const nextKey = ethers.Wallet.createRandom();
    const nextWallet: any = await (await ethers.getContractFactory("BridgeCustodySigner")).deploy(nextKey.address);
    const next1271: any = await (await ethers.getContractFactory("BridgeErc1271Verifier")).deploy(
      await nextWallet.getAddress(),
      3n,
    );
    await expect(s.minter.setVerifier(await next1271.getAddress())).to.emit(s.minter, "BridgeMinterVerifierSet");
    await expect(s.minter.mint(nonce, s.addr.token, s.bob.address, amount, oldApproval)).to.be.revertedWithCustomError(
      s.minter,
      "BridgeSignatureInvalid",
    );
    const fresh = getBridgeMessageDigest({ ...m, keyEpoch: 3n });
    await s.minter.mint(nonce, s.addr.token, s.bob.address, amount, s.custodySign(fresh, nextKey as any));
    expect(await s.wrapped.totalSupply()).to.equal(amount);
    await expect(
      (await ethers.getContractFactory("BridgeErc1271Verifier")).deploy(s.stranger.address, 4n),
    ).to.be.revertedWithCustomError(s.v1271, "BridgeErc1271SignerNotContract");
  });

  it("custody mode on the vault: a release approved by the wallet is queued", async () => {
    const s = await loadFixture(withCustodyMode);
    await s.depositFromAlice(amount);
    const m = { ...(await s.releaseMessage(1n, s.bob.address, amount)), keyEpoch: 2n };
    await expect(
      s.vault.queueRelease(1n, s.addr.token, s.bob.address, amount, s.custodySign(getBridgeMessageDigest(m)), "0x"),
    ).to.emit(s.vault, "BridgeReleaseQueued");
  });

  it("only the rotation role switches the signing mode, and only forward in epochs", async () => {
    const s = await loadFixture(withCustodyMode);
    await expect(s.vault.setVerifier(await s.verifier.getAddress()))
      .to.be.revertedWithCustomError(s.vault, "BridgeVaultKeyEpochNotAdvanced")
      .withArgs(2n, 1n);
    await expect(s.minter.connect(s.stranger).setVerifier(s.stranger.address)).to.be.revertedWithCustomError(
      s.minter,
      "AccessControlUnauthorizedAccount",
    );
    await expect(s.vault.connect(s.stranger).setVerifier(s.stranger.address)).to.be.revertedWithCustomError(
      s.vault,
      "AccessControlUnauthorizedAccount",
    );
  });
});
