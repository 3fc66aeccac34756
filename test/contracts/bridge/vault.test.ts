// BridgeVault: deposits (allow-list, fee-on-transfer refused, event carries the message), releases queued on a
// threshold signature over the recomputed RELEASE digest, challenge period, disputes, daily limit, HSM
// co-signature, pause. Every refusal is a named error and nothing is released.
import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture, time } from "@nomicfoundation/hardhat-toolbox/network-helpers";
import type { Hex } from "viem";
import { BridgeMessageKind } from "../../../sdk/bridge-message";
import {
  CHALLENGE_PERIOD_SEC,
  DAILY_LIMIT_WEI,
  HSM_THRESHOLD_WEI,
  deployBridgeSystem,
  type BridgeSystem,
  unpauseAsAdmin,
} from "./helpers/bridge";

const SECP_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const amount = 500n * 10n ** 6n;

/** Locks `lockWei` in the vault through a real deposit so that releases have funds. */
async function withLockedFunds(lockWei = 2n * DAILY_LIMIT_WEI) {
  const s = await deployBridgeSystem();
  await s.depositFromAlice(lockWei / 2n);
  await s.depositFromAlice(lockWei / 2n);
  return s;
}

async function queue(
  s: BridgeSystem,
  burnNonce: bigint,
  recipient: string,
  amountWei: bigint,
  override = {},
  hsm?: Hex,
) {
  const m = await s.releaseMessage(burnNonce, recipient, amountWei, override);
  return s.vault.connect(s.relayer).queueRelease(burnNonce, s.addr.token, recipient, amountWei, s.sign(m), hsm ?? "0x");
}

describe("BridgeVault", () => {
  describe("deposit", () => {
    it("locks the tokens and emits BridgeDeposited with everything the MINT message needs", async () => {
      const s = await loadFixture(withLockedFunds);
      const before = await s.token.balanceOf(s.addr.vault);
      await expect(s.vault.connect(s.alice).deposit(s.addr.token, amount, s.bob.address, s.chainId))
        .to.emit(s.vault, "BridgeDeposited")
        .withArgs(3n, s.addr.token, s.alice.address, s.bob.address, amount, s.chainId, s.addr.minter);
      expect(await s.token.balanceOf(s.addr.vault)).to.equal(before + amount);
    });

    it("refuses a fee-on-transfer token, a token off the allow-list, another chain, zero or too large amounts", async () => {
      const s = await loadFixture(withLockedFunds);
      const fee: any = await (await ethers.getContractFactory("SettlementFeeOnTransferToken")).deploy();
      await fee.mint(s.alice.address, 10n ** 24n);
      await fee.connect(s.alice).approve(s.addr.vault, ethers.MaxUint256);
      await expect(
        s.vault.connect(s.alice).deposit(await fee.getAddress(), 1000n, s.bob.address, s.chainId),
      ).to.be.revertedWithCustomError(s.vault, "BridgeVaultTokenNotAllowed");
      await s.vault.configureToken(await fee.getAddress(), true, 10n ** 20n, 10n ** 20n, 10n ** 20n, 86_400);
      await expect(s.vault.connect(s.alice).deposit(await fee.getAddress(), 1000n, s.bob.address, s.chainId))
        .to.be.revertedWithCustomError(s.vault, "BridgeVaultTransferAmountMismatch")
        .withArgs(await fee.getAddress(), 1000n, 990n);
      await expect(s.vault.connect(s.alice).deposit(s.addr.token, amount, s.bob.address, 31338n))
        .to.be.revertedWithCustomError(s.vault, "BridgeVaultChainUnsupported")
        .withArgs(31338n);
      await expect(
        s.vault.connect(s.alice).deposit(s.addr.token, 0n, s.bob.address, s.chainId),
      ).to.be.revertedWithCustomError(s.vault, "BridgeVaultAmountOutOfRange");
      await expect(
        s.vault.connect(s.alice).deposit(s.addr.token, DAILY_LIMIT_WEI + 1n, s.bob.address, s.chainId),
      ).to.be.revertedWithCustomError(s.vault, "BridgeVaultAmountOutOfRange");
      await expect(
        s.vault.connect(s.alice).deposit(s.addr.token, amount, ethers.ZeroAddress, s.chainId),
      ).to.be.revertedWithCustomError(s.vault, "BridgeVaultRecipientZero");
    });
  });

  describe("release lifecycle", () => {
    it("queues, refuses execution before the challenge period ends, then pays exactly once", async () => {
      const s = await loadFixture(withLockedFunds);
      const tx = await queue(s, 1n, s.bob.address, amount);
      const readyAt =
        BigInt((await ethers.provider.getBlock(tx.blockNumber!))!.timestamp) + BigInt(CHALLENGE_PERIOD_SEC);
      await expect(tx)
        .to.emit(s.vault, "BridgeReleaseQueued")
        .withArgs(1n, s.addr.token, s.bob.address, amount, readyAt, 1n);
      await expect(s.vault.executeRelease(1n, s.addr.token, s.bob.address, amount))
        .to.be.revertedWithCustomError(s.vault, "BridgeVaultChallengePeriodActive")
        .withArgs(1n, readyAt);
      expect(await s.token.balanceOf(s.bob.address)).to.equal(0n);
      await time.increaseTo(readyAt);
      await expect(s.vault.executeRelease(1n, s.addr.token, s.stranger.address, amount)).to.be.revertedWithCustomError(
        s.vault,
        "BridgeVaultReleaseNotQueued",
      );
      await expect(s.vault.executeRelease(1n, s.addr.token, s.bob.address, amount - 1n)).to.be.revertedWithCustomError(
        s.vault,
        "BridgeVaultReleaseNotQueued",
      );
      await expect(s.vault.connect(s.stranger).executeRelease(1n, s.addr.token, s.bob.address, amount))
        .to.emit(s.vault, "BridgeReleaseExecuted")
        .withArgs(1n, s.addr.token, s.bob.address, amount);
      expect(await s.token.balanceOf(s.bob.address)).to.equal(amount);
      await expect(s.vault.executeRelease(1n, s.addr.token, s.bob.address, amount)).to.be.revertedWithCustomError(
        s.vault,
        "BridgeVaultReleaseAlreadyExecuted",
      );
      expect((await s.vault.getRelease(1n)).status).to.equal(3n);
    });

    it("the same burn is never queued twice", async () => {
      const s = await loadFixture(withLockedFunds);
      await queue(s, 1n, s.bob.address, amount);
      await expect(queue(s, 1n, s.bob.address, amount))
        .to.be.revertedWithCustomError(s.vault, "BridgeVaultBurnAlreadyReleased")
        .withArgs(1n);
    });

    it("a guardian dispute during the period stops the release for good; the funds stay locked", async () => {
      const s = await loadFixture(withLockedFunds);
      await queue(s, 1n, s.bob.address, amount);
      const locked = await s.token.balanceOf(s.addr.vault);
      await expect(s.vault.connect(s.stranger).disputeRelease(1n)).to.be.revertedWithCustomError(
        s.vault,
        "BridgeVaultCallerNotGuardian",
      );
      await expect(s.vault.connect(s.guardian).disputeRelease(1n))
        .to.emit(s.vault, "BridgeReleaseDisputed")
        .withArgs(1n, s.guardian.address);
      await time.increase(CHALLENGE_PERIOD_SEC + 1);
      await expect(s.vault.executeRelease(1n, s.addr.token, s.bob.address, amount))
        .to.be.revertedWithCustomError(s.vault, "BridgeVaultReleaseDisputed")
        .withArgs(1n);
      await expect(queue(s, 1n, s.bob.address, amount)).to.be.revertedWithCustomError(
        s.vault,
        "BridgeVaultBurnAlreadyReleased",
      );
      expect(await s.token.balanceOf(s.addr.vault)).to.equal(locked);
      expect(await s.token.balanceOf(s.bob.address)).to.equal(0n);
    });

    it("a dispute after the challenge period is refused", async () => {
      const s = await loadFixture(withLockedFunds);
      await queue(s, 1n, s.bob.address, amount);
      await time.increase(CHALLENGE_PERIOD_SEC);
      await expect(s.vault.connect(s.guardian).disputeRelease(1n)).to.be.revertedWithCustomError(
        s.vault,
        "BridgeVaultChallengePeriodOver",
      );
      await expect(s.vault.connect(s.guardian).disputeRelease(2n)).to.be.revertedWithCustomError(
        s.vault,
        "BridgeVaultReleaseNotQueued",
      );
    });
  });

  describe("refuses forged RELEASE messages with BridgeSignatureInvalid and queues nothing", () => {
    const forgeries: [string, (s: any) => Record<string, unknown>][] = [
      ["another destination chain", () => ({ dstChainId: 31338n })],
      ["another destination contract", (s) => ({ dstContract: s.stranger.address })],
      ["another source contract", (s) => ({ srcContract: s.addr.vault })],
      ["another recipient", (s) => ({ recipient: s.stranger.address })],
      ["another amount", () => ({ amountWei: amount * 2n })],
      ["the MINT kind", () => ({ kind: BridgeMessageKind.MINT })],
      ["an old key epoch", () => ({ keyEpoch: 0n })],
    ];
    for (const [name, override] of forgeries) {
      it(name, async () => {
        const s = await loadFixture(withLockedFunds);
        await expect(queue(s, 1n, s.bob.address, amount, override(s))).to.be.revertedWithCustomError(
          s.vault,
          "BridgeSignatureInvalid",
        );
        expect((await s.vault.getRelease(1n)).status).to.equal(0n);
      });
    }
  });

  it("over the daily limit reverts with BridgeDailyLimitExceeded", async () => {
    const s = await loadFixture(withLockedFunds);
    const hsmOk = async (nonce: bigint, a: bigint) => s.hsmSign(await s.releaseMessage(nonce, s.bob.address, a));
    const big = DAILY_LIMIT_WEI - amount;
    await queue(s, 1n, s.bob.address, big, {}, await hsmOk(1n, big));
    await expect(queue(s, 2n, s.bob.address, amount * 10n)).to.be.revertedWithCustomError(
      s.vault,
      "BridgeDailyLimitExceeded",
    );
    expect((await s.vault.getRelease(2n)).status).to.equal(0n);
  });

  describe("HSM co-signature at or above the threshold", () => {
    const large = HSM_THRESHOLD_WEI;
    it("missing: BridgeVaultHsmSignatureMissing", async () => {
      const s = await loadFixture(withLockedFunds);
      await expect(queue(s, 1n, s.bob.address, large))
        .to.be.revertedWithCustomError(s.vault, "BridgeVaultHsmSignatureMissing")
        .withArgs(large, HSM_THRESHOLD_WEI);
    });
    it("by the wrong key, over another digest, high-s or malformed: BridgeVaultHsmSignatureInvalid", async () => {
      const s = await loadFixture(withLockedFunds);
      const m = await s.releaseMessage(1n, s.bob.address, large);
      const wrongKey = s.hsmSign(m, ethers.Wallet.createRandom() as any);
      const otherDigest = s.hsmSign(await s.releaseMessage(1n, s.bob.address, large - 1n));
      const good = ethers.Signature.from(s.hsmSign(m));
      const highS = ethers.concat([
        good.r,
        ethers.toBeHex(SECP_N - BigInt(good.s), 32),
        good.v === 27 ? "0x1c" : "0x1b",
      ]) as Hex;
      for (const bad of [wrongKey, otherDigest, highS, "0x1234" as Hex]) {
        await expect(queue(s, 1n, s.bob.address, large, {}, bad)).to.be.revertedWithCustomError(
          s.vault,
          "BridgeVaultHsmSignatureInvalid",
        );
      }
      expect((await s.vault.getRelease(1n)).status).to.equal(0n);
      await expect(queue(s, 1n, s.bob.address, large, {}, s.hsmSign(m))).to.emit(s.vault, "BridgeReleaseQueued");
    });
    it("below the threshold no co-signature is needed", async () => {
      const s = await loadFixture(withLockedFunds);
      await expect(queue(s, 1n, s.bob.address, large - 1n)).to.emit(s.vault, "BridgeReleaseQueued");
    });
  });

  it("pause stops deposits, queueing and executing; only the admin unpauses", async () => {
    const s = await loadFixture(withLockedFunds);
    await queue(s, 1n, s.bob.address, amount);
    await time.increase(CHALLENGE_PERIOD_SEC);
    await expect(s.vault.connect(s.stranger).pause()).to.be.revertedWithCustomError(
      s.vault,
      "BridgeVaultCallerNotGuardian",
    );
    await expect(s.vault.connect(s.guardian).pause())
      .to.emit(s.vault, "BridgeVaultPaused")
      .withArgs(s.guardian.address);
    await expect(
      s.vault.connect(s.alice).deposit(s.addr.token, amount, s.bob.address, s.chainId),
    ).to.be.revertedWithCustomError(s.vault, "BridgeVaultOperationPaused");
    await expect(queue(s, 2n, s.bob.address, amount)).to.be.revertedWithCustomError(
      s.vault,
      "BridgeVaultOperationPaused",
    );
    await expect(s.vault.executeRelease(1n, s.addr.token, s.bob.address, amount)).to.be.revertedWithCustomError(
      s.vault,
      "BridgeVaultOperationPaused",
    );
    await unpauseAsAdmin(s, s.vault);
    await s.vault.executeRelease(1n, s.addr.token, s.bob.address, amount);
    expect(await s.token.balanceOf(s.bob.address)).to.equal(amount);
  });

  it("releaseDigest equals the SDK digest", async () => {
    const s = await loadFixture(withLockedFunds);
    const { getBridgeMessageDigest } = await import("../../../sdk/bridge-message");
    expect(await s.vault.releaseDigest(9n, s.addr.token, s.bob.address, amount)).to.equal(
      getBridgeMessageDigest(await s.releaseMessage(9n, s.bob.address, amount)),
    );
  });
});
