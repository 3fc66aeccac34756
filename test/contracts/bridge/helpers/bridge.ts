// One in-process Hardhat chain plays both sides: the "remote" minter is configured with the home chain id
// (the chain it really runs on), so every digest is checked with real block.chainid values; signatures made for
// another chain id (31338) must fail. The two-chain wiring is exercised by scripts/deploy-bridge.ts.
import { expect } from "chai";
import { ethers } from "hardhat";
import type { Hex } from "viem";
import { BridgeMessageKind, getBridgeMessageDigest, type BridgeMessage } from "../../../../sdk/bridge-message";
import { createFrostGroup, frostSign, type FrostGroup } from "./frost";

export const DAY = 86_400;
export const CHALLENGE_PERIOD_SEC = 3_600;
export const DAILY_LIMIT_WEI = 1_000_000n * 10n ** 6n; // 1,000,000 tokens of 6 decimals
export const HSM_THRESHOLD_WEI = 100_000n * 10n ** 6n;

export async function deployBridgeSystem() {
  const [admin, guardian, alice, bob, relayer, stranger] = await ethers.getSigners();
  const hsm = ethers.Wallet.createRandom();
  const group = createFrostGroup(3, 5);
  const chainId = (await ethers.provider.getNetwork()).chainId;

  const verifier: any = await (await ethers.getContractFactory("BridgeFrostVerifier")).deploy(
    1n,
    group.publicKey.x,
    group.publicKey.y,
  );
  const token: any = await (await ethers.getContractFactory("BridgeTestToken")).deploy("Demo USD", "USD", 6);
  const vault: any = await (await ethers.getContractFactory("BridgeVault")).deploy(
    admin.address,
    await verifier.getAddress(),
    chainId,
    hsm.address,
    CHALLENGE_PERIOD_SEC,
  );
  const minter: any = await (await ethers.getContractFactory("BridgeMinter")).deploy(
    admin.address,
    await verifier.getAddress(),
    chainId,
  );
  await vault.setMinter(await minter.getAddress());
  await minter.setVault(await vault.getAddress());
  await vault.configureToken(await token.getAddress(), true, DAILY_LIMIT_WEI, HSM_THRESHOLD_WEI, DAILY_LIMIT_WEI, DAY);
  await minter.createWrappedToken(await token.getAddress(), "Bridged Demo USD", "USD.b", 6, DAILY_LIMIT_WEI, DAY);
  const wrapped: any = await ethers.getContractAt(
    "BridgeWrappedToken",
    await minter.wrappedTokenOf(await token.getAddress()),
  );
  await vault.grantRole(await vault.GUARDIAN_ROLE(), guardian.address);
  await minter.grantRole(await minter.GUARDIAN_ROLE(), guardian.address);
  await token.mint(alice.address, 10n * DAILY_LIMIT_WEI);
  await token.connect(alice).approve(await vault.getAddress(), ethers.MaxUint256);

  const addr = {
    vault: (await vault.getAddress()) as Hex,
    minter: (await minter.getAddress()) as Hex,
    token: (await token.getAddress()) as Hex,
    wrapped: (await wrapped.getAddress()) as Hex,
  };

  /** A message from `src` to `dst` on this one test chain (override fields to forge a wrong one). */
  const message =
    (kind: BridgeMessageKind, src: Hex, dst: Hex) =>
    async (
      nonce: bigint,
      recipient: string,
      amountWei: bigint,
      o: Partial<BridgeMessage> = {},
    ): Promise<BridgeMessage> => ({
      kind,
      srcChainId: chainId,
      srcContract: src,
      dstChainId: chainId,
      dstContract: dst,
      nonce,
      token: addr.token,
      recipient: recipient as Hex,
      amountWei,
      keyEpoch: await verifier.keyEpoch(),
      ...o,
    });
  /** The MINT message the minter recomputes for a deposit. */
  const mintMessage = message(BridgeMessageKind.MINT, addr.vault, addr.minter);
  /** The RELEASE message the vault recomputes for a burn. */
  const releaseMessage = message(BridgeMessageKind.RELEASE, addr.minter, addr.vault);
  const sign = (m: BridgeMessage, g: FrostGroup = group): Hex => frostSign(g, getBridgeMessageDigest(m));
  const hsmSign = (m: BridgeMessage, wallet = hsm): Hex =>
    wallet.signingKey.sign(getBridgeMessageDigest(m)).serialized as Hex;

  /** Deposits from alice and returns the deposit nonce. */
  const depositFromAlice = async (amountWei: bigint, recipient = bob.address): Promise<bigint> => {
    await vault.connect(alice).deposit(addr.token, amountWei, recipient, chainId);
    return BigInt(await vault.depositCount());
  };

  /** The minter's mint of deposit `nonce` (of the test token) to `recipient`, with `signature`. */
  const mint = (nonce: bigint, recipient: string, amountWei: bigint, signature: Hex) =>
    minter.mint(nonce, addr.token, recipient, amountWei, signature);

  /** Deposits `amountWei` from alice and mints it to bob with the group's signature; the deposit nonce. */
  const mintToBob = async (amountWei: bigint): Promise<bigint> => {
    const nonce = await depositFromAlice(amountWei);
    await mint(nonce, bob.address, amountWei, sign(await mintMessage(nonce, bob.address, amountWei)));
    return nonce;
  };

  return {
    admin,
    guardian,
    alice,
    bob,
    relayer,
    stranger,
    hsm,
    group,
    chainId,
    verifier,
    token,
    vault,
    minter,
    wrapped,
    addr,
    mintMessage,
    releaseMessage,
    sign,
    hsmSign,
    depositFromAlice,
    mint,
    mintToBob,
  };
}

export type BridgeSystem = Awaited<ReturnType<typeof deployBridgeSystem>>;

/** Only the admin unpauses `c` (the vault or the minter): the guardian's unpause is refused, then the admin's. */
export async function unpauseAsAdmin(s: BridgeSystem, c: any) {
  await expect(c.connect(s.guardian).unpause()).to.be.revertedWithCustomError(c, "AccessControlUnauthorizedAccount");
  await c.unpause();
}
