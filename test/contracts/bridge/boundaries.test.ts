// Boundary tests of every limit in the bridge contracts (issue 11, "tests that hold every limit"): the largest
// deposit, the challenge period's last second and its end, key epochs (equal, one above, past 48 bits), the
// bucket's configuration bounds, and the wiring checks (no minter, no vault) with their named errors.
import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture, time } from "@nomicfoundation/hardhat-toolbox/network-helpers";
import {
  CHALLENGE_PERIOD_SEC,
  DAILY_LIMIT_WEI,
  DAY,
  HSM_THRESHOLD_WEI,
  deployBridgeSystem,
  type BridgeSystem,
} from "./helpers/bridge";

const amount = 500n * 10n ** 6n;

async function withLockedFunds() {
  const s = await deployBridgeSystem();
  await s.depositFromAlice(DAILY_LIMIT_WEI);
  return s;
}

async function queue(s: BridgeSystem, burnNonce: bigint, amountWei = amount) {
  const m = await s.releaseMessage(burnNonce, s.bob.address, amountWei);
  const hsm = amountWei >= HSM_THRESHOLD_WEI ? s.hsmSign(m) : "0x";
  return s.vault.connect(s.relayer).queueRelease(burnNonce, s.addr.token, s.bob.address, amountWei, s.sign(m), hsm);
}

async function readyAtOf(s: BridgeSystem, burnNonce: bigint): Promise<bigint> {
  return BigInt(await s.vault.releaseReadyAt(burnNonce));
}

async function frostVerifier(s: BridgeSystem, epoch: bigint) {
  return (await (
    await ethers.getContractFactory("BridgeFrostVerifier")
  ).deploy(epoch, s.group.publicKey.x, s.group.publicKey.y)) as any;
}

describe("Bridge boundaries", () => {
  it("a deposit of exactly maxDepositWei is taken; one unit more is out of range; zero is out of range", async () => {
    const s = await loadFixture(deployBridgeSystem);
    const v = s.vault.connect(s.alice);
    await expect(v.deposit(s.addr.token, DAILY_LIMIT_WEI + 1n, s.bob.address, s.chainId))
      .to.be.revertedWithCustomError(s.vault, "BridgeVaultAmountOutOfRange")
      .withArgs(DAILY_LIMIT_WEI + 1n, DAILY_LIMIT_WEI);
    await expect(v.deposit(s.addr.token, 0n, s.bob.address, s.chainId))
      .to.be.revertedWithCustomError(s.vault, "BridgeVaultAmountOutOfRange")
      .withArgs(0n, DAILY_LIMIT_WEI);
    await expect(v.deposit(s.addr.token, DAILY_LIMIT_WEI, s.bob.address, s.chainId)).to.emit(
      s.vault,
      "BridgeDeposited",
    );
    await expect(v.deposit(s.addr.token, 1n, s.bob.address, s.chainId)).to.emit(s.vault, "BridgeDeposited");
  });

  it("a release can be disputed until one second before readyAt, not at it; it executes at readyAt, not one second before", async () => {
    const s = await loadFixture(withLockedFunds);
    const t = BigInt(await time.latest()) + 10n;
    const period = BigInt(CHALLENGE_PERIOD_SEC);
    await time.setNextBlockTimestamp(t);
    await queue(s, 1n);
    await time.setNextBlockTimestamp(t + 1n);
    await queue(s, 2n);
    expect(await readyAtOf(s, 1n)).to.equal(t + period);
    expect(await readyAtOf(s, 2n)).to.equal(t + 1n + period);
    await time.setNextBlockTimestamp(t + period - 1n);
    await expect(s.vault.connect(s.guardian).disputeRelease(1n))
      .to.emit(s.vault, "BridgeReleaseDisputed")
      .withArgs(1n, s.guardian.address);
    await time.setNextBlockTimestamp(t + 1n + period);
    await expect(s.vault.connect(s.guardian).disputeRelease(2n))
      .to.be.revertedWithCustomError(s.vault, "BridgeVaultChallengePeriodOver")
      .withArgs(2n, t + 1n + period);
    // a third release executes at exactly its readyAt, not one second before
    const t3 = t + 2n * period;
    await time.setNextBlockTimestamp(t3);
    await queue(s, 3n);
    await time.setNextBlockTimestamp(t3 + period - 1n);
    await expect(s.vault.executeRelease(3n, s.addr.token, s.bob.address, amount))
      .to.be.revertedWithCustomError(s.vault, "BridgeVaultChallengePeriodActive")
      .withArgs(3n, t3 + period);
    await time.setNextBlockTimestamp(t3 + period);
    await expect(s.vault.executeRelease(3n, s.addr.token, s.bob.address, amount)).to.emit(
      s.vault,
      "BridgeReleaseExecuted",
    );
    await expect(s.vault.executeRelease(1n, s.addr.token, s.bob.address, amount))
      .to.be.revertedWithCustomError(s.vault, "BridgeVaultReleaseDisputed")
      .withArgs(1n);
    await expect(s.vault.executeRelease(2n, s.addr.token, s.bob.address, amount)).to.emit(
      s.vault,
      "BridgeReleaseExecuted",
    );
  });

  it("key epochs: the same epoch is refused, one above is taken (vault and minter); the vault refuses an epoch past 48 bits", async () => {
    const s = await loadFixture(deployBridgeSystem);
    const same = await frostVerifier(s, 1n);
    const next = await frostVerifier(s, 2n);
    await expect(s.vault.setVerifier(await same.getAddress()))
      .to.be.revertedWithCustomError(s.vault, "BridgeVaultKeyEpochNotAdvanced")
      .withArgs(1n, 1n);
    await expect(s.minter.setVerifier(await same.getAddress()))
      .to.be.revertedWithCustomError(s.minter, "BridgeMinterKeyEpochNotAdvanced")
      .withArgs(1n, 1n);
    await s.vault.setVerifier(await next.getAddress());
    await s.minter.setVerifier(await next.getAddress());
    expect((await s.vault.core()).keyEpoch).to.equal(2n);
    expect((await s.minter.core()).keyEpoch).to.equal(2n);
    const tooBig = await frostVerifier(s, 2n ** 48n);
    await expect(s.vault.setVerifier(await tooBig.getAddress()))
      .to.be.revertedWithCustomError(s.vault, "BridgeVaultKeyEpochNotAdvanced")
      .withArgs(0n, 2n ** 48n);
    const largest = await frostVerifier(s, 2n ** 48n - 1n);
    await s.vault.setVerifier(await largest.getAddress());
    expect((await s.vault.core()).keyEpoch).to.equal(2n ** 48n - 1n);
  });

  it("a vault without a minter refuses deposits and releases with BridgeVaultMinterUnset", async () => {
    const s = await loadFixture(withLockedFunds);
    await s.vault.setMinter(ethers.ZeroAddress);
    await expect(
      s.vault.connect(s.alice).deposit(s.addr.token, amount, s.bob.address, s.chainId),
    ).to.be.revertedWithCustomError(s.vault, "BridgeVaultMinterUnset");
    await expect(
      s.vault.connect(s.relayer).queueRelease(1n, s.addr.token, s.bob.address, amount, "0x", "0x"),
    ).to.be.revertedWithCustomError(s.vault, "BridgeVaultMinterUnset");
    await expect(s.vault.releaseDigest(1n, s.addr.token, s.bob.address, amount)).to.be.revertedWithCustomError(
      s.vault,
      "BridgeVaultMinterUnset",
    );
  });

  it("a minter without a vault refuses mints and burns with BridgeMinterVaultUnset", async () => {
    const s = await loadFixture(deployBridgeSystem);
    await s.mintToBob(amount);
    await s.minter.setVault(ethers.ZeroAddress);
    const n2 = await s.depositFromAlice(amount);
    const sig = s.sign(await s.mintMessage(n2, s.bob.address, amount));
    await expect(s.minter.mint(n2, s.addr.token, s.bob.address, amount, sig)).to.be.revertedWithCustomError(
      s.minter,
      "BridgeMinterVaultUnset",
    );
    await expect(s.minter.connect(s.bob).burn(s.addr.wrapped, amount, s.bob.address)).to.be.revertedWithCustomError(
      s.minter,
      "BridgeMinterVaultUnset",
    );
    await expect(s.minter.mintDigest(n2, s.addr.token, s.bob.address, amount)).to.be.revertedWithCustomError(
      s.minter,
      "BridgeMinterVaultUnset",
    );
  });

  it("setLimit refuses a zero refill period and an unregistered token; createWrappedToken refuses a second registration", async () => {
    const s = await loadFixture(deployBridgeSystem);
    await expect(s.minter.setLimit(s.addr.token, 1n, 0))
      .to.be.revertedWithCustomError(s.minter, "BridgeLimitConfigInvalid")
      .withArgs(1n, 0n);
    await expect(s.minter.setLimit(s.stranger.address, 1n, 1))
      .to.be.revertedWithCustomError(s.minter, "BridgeMinterTokenNotRegistered")
      .withArgs(s.stranger.address);
    await expect(s.minter.createWrappedToken(s.addr.token, "x", "x", 6, 1n, 1))
      .to.be.revertedWithCustomError(s.minter, "BridgeMinterTokenAlreadyRegistered")
      .withArgs(s.addr.token);
    await s.minter.setLimit(s.addr.token, 1n, 1);
    await expect(s.vault.configureToken(s.addr.token, true, 1n, 1n, 1n, 0)).to.be.revertedWithCustomError(
      s.vault,
      "BridgeLimitConfigInvalid",
    );
  });

  it("the bucket takes a capacity of 2^96 - 1 and a refill period of 2^32 - 1 (the largest that fit)", async () => {
    const b: any = await (await ethers.getContractFactory("BridgeTokenBucketHarness")).deploy();
    await b.configure(2n ** 96n - 1n, 2n ** 32n - 1n);
    expect(await b.available()).to.equal(2n ** 96n - 1n);
    await b.consume(2n ** 96n - 1n);
    expect(await b.available()).to.equal(0n);
  });

  it("a burn of the whole balance works and leaves the supply at zero; the daily limit of a fresh token is full", async () => {
    const s = await loadFixture(deployBridgeSystem);
    expect(await s.minter.availableToMint(s.addr.token)).to.equal(DAILY_LIMIT_WEI);
    await s.mintToBob(amount);
    await expect(
      s.minter.connect(s.bob).burn(s.addr.wrapped, amount + 1n, s.bob.address),
    ).to.be.revertedWithCustomError(s.wrapped, "ERC20InsufficientBalance");
    await expect(s.minter.connect(s.bob).burn(s.addr.wrapped, amount, s.bob.address)).to.emit(s.minter, "BridgeBurned");
    expect(await s.minter.wrappedSupply(s.addr.token)).to.equal(0n);
    expect(await s.wrapped.totalSupply()).to.equal(0n);
  });

  it("a stranger may not pause either side; the guardian may, and only the admin unpauses", async () => {
    const s = await loadFixture(deployBridgeSystem);
    await expect(s.vault.connect(s.stranger).pause())
      .to.be.revertedWithCustomError(s.vault, "BridgeVaultCallerNotGuardian")
      .withArgs(s.stranger.address);
    await expect(s.minter.connect(s.stranger).pause())
      .to.be.revertedWithCustomError(s.minter, "BridgeMinterCallerNotGuardian")
      .withArgs(s.stranger.address);
    await s.vault.connect(s.admin).pause();
    await s.minter.connect(s.admin).pause();
    await expect(
      s.vault.connect(s.alice).deposit(s.addr.token, amount, s.bob.address, s.chainId),
    ).to.be.revertedWithCustomError(s.vault, "BridgeVaultOperationPaused");
    await expect(s.vault.connect(s.guardian).unpause()).to.be.revertedWithCustomError(
      s.vault,
      "AccessControlUnauthorizedAccount",
    );
    await s.vault.connect(s.admin).unpause();
    await s.minter.connect(s.admin).unpause();
    await expect(s.vault.connect(s.alice).deposit(s.addr.token, amount, s.bob.address, s.chainId)).to.emit(
      s.vault,
      "BridgeDeposited",
    );
    expect(DAY).to.equal(86_400);
  });
});

describe("Bridge signing mode selection (BridgeSignatureCheck.install)", () => {
  const coder = ethers.AbiCoder.defaultAbiCoder();
  async function twoFaced(_s: BridgeSystem, epoch: bigint, answer: string) {
    return (await (await ethers.getContractFactory("BridgeTwoFacedVerifier")).deploy(epoch, answer)) as any;
  }
  async function mintWith(s: BridgeSystem, signature: string) {
    const nonce = await s.depositFromAlice(amount);
    return s.minter.mint(nonce, s.addr.token, s.bob.address, amount, signature);
  }
  const forged = `0x${"11".repeat(64)}`;

  it("a verifier answering its own epoch's FROST key (96 bytes) is checked natively: a forged signature is refused", async () => {
    const s = await loadFixture(deployBridgeSystem);
    const key = coder.encode(["uint64", "uint256", "uint256"], [2n, s.group.publicKey.x, s.group.publicKey.y]);
    const v = await twoFaced(s, 2n, key);
    await s.minter.setVerifier(await v.getAddress());
    await expect(mintWith(s, forged)).to.be.reverted;
    // the genuine FROST signature still mints (native check with the cached key, epoch 2)
    const nonce = await s.depositFromAlice(amount);
    const signature = s.sign(await s.mintMessage(nonce, s.bob.address, amount, { keyEpoch: 2n }));
    await expect(s.mint(nonce, s.bob.address, amount, signature)).to.emit(s.minter, "BridgeMinted");
  });

  it("a key of another epoch, an answer of 64 or 128 bytes, or no groupKey at all means the call mode (the verifier decides)", async () => {
    const s = await loadFixture(deployBridgeSystem);
    const otherEpoch = coder.encode(["uint64", "uint256", "uint256"], [3n, s.group.publicKey.x, s.group.publicKey.y]);
    const short = coder.encode(["uint64", "uint256"], [2n, s.group.publicKey.x]);
    const long = coder.encode(
      ["uint64", "uint256", "uint256", "uint256"],
      [2n, s.group.publicKey.x, s.group.publicKey.y, 0n],
    );
    let epoch = 2n;
    for (const answer of [otherEpoch, short, long, "0x"]) {
      const v = await twoFaced(s, epoch, answer);
      await s.minter.setVerifier(await v.getAddress());
      await expect(mintWith(s, forged), `answer of ${(answer.length - 2) / 2} bytes`).to.emit(s.minter, "BridgeMinted");
      epoch += 1n;
    }
  });
});
