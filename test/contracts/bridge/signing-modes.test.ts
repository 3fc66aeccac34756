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
  const v1271: any = await (await ethers.getContractFactory("BridgeErc1271Verifier")).deploy(s.admin.address, await wallet.getAddress());
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
    await expect(s.minter.mint(nonce, s.addr.token, s.bob.address, amount, s.sign(m))).to.be.revertedWithCustomError(s.minter, "BridgeSignatureInvalid");
    await expect(s.minter.mint(nonce, s.addr.token, s.bob.address, amount, s.custodySign(getBridgeMessageDigest(m))))
      .to.emit(s.minter, "BridgeMinted");
    expect(await s.wrapped.totalSupply()).to.equal(amount);
  });

  it("custody mode: another key's approval is refused; a new wallet advances the epoch and old approvals fail", async () => {
    const s = await loadFixture(withCustodyMode);
    const nonce = await s.depositFromAlice(amount);
    const m = { ...(await s.mintMessage(nonce, s.bob.address, amount)), keyEpoch: 1n };
    const digest = getBridgeMessageDigest(m);
    await expect(s.minter.mint(nonce, s.addr.token, s.bob.address, amount, s.custodySign(digest, ethers.Wallet.createRandom() as any)))
      .to.be.revertedWithCustomError(s.minter, "BridgeSignatureInvalid");
    const oldApproval = s.custodySign(digest);
    const nextKey = ethers.Wallet.createRandom();
    const nextWallet: any = await (await ethers.getContractFactory("BridgeCustodySigner")).deploy(nextKey.address);
    await expect(s.v1271.setSigner(await nextWallet.getAddress())).to.emit(s.v1271, "BridgeKeyEpochAdvanced").withArgs(2n);
    await expect(s.minter.mint(nonce, s.addr.token, s.bob.address, amount, oldApproval)).to.be.revertedWithCustomError(s.minter, "BridgeSignatureInvalid");
    const fresh = getBridgeMessageDigest({ ...m, keyEpoch: 2n });
    await s.minter.mint(nonce, s.addr.token, s.bob.address, amount, s.custodySign(fresh, nextKey as any));
    expect(await s.wrapped.totalSupply()).to.equal(amount);
    await expect(s.v1271.setSigner(s.stranger.address)).to.be.revertedWithCustomError(s.v1271, "BridgeErc1271SignerNotContract");
    await expect(s.v1271.connect(s.stranger).setSigner(await nextWallet.getAddress())).to.be.revertedWithCustomError(s.v1271, "AccessControlUnauthorizedAccount");
  });

  it("custody mode on the vault: a release approved by the wallet is queued", async () => {
    const s = await loadFixture(withCustodyMode);
    await s.depositFromAlice(amount);
    const m = { ...(await s.releaseMessage(1n, s.bob.address, amount)), keyEpoch: 1n };
    await expect(s.vault.queueRelease(1n, s.addr.token, s.bob.address, amount, s.custodySign(getBridgeMessageDigest(m)), "0x"))
      .to.emit(s.vault, "BridgeReleaseQueued");
  });

  it("only the admin switches the signing mode", async () => {
    const s = await loadFixture(withCustodyMode);
    await expect(s.minter.connect(s.stranger).setVerifier(s.stranger.address)).to.be.revertedWithCustomError(s.minter, "AccessControlUnauthorizedAccount");
    await expect(s.vault.connect(s.stranger).setVerifier(s.stranger.address)).to.be.revertedWithCustomError(s.vault, "AccessControlUnauthorizedAccount");
  });
});
