// The bridge's daily limit (issue 11, Info): the guarantee we keep is the token bucket's, stated in
// BridgeTokenBucket.sol: in any window of t seconds at most L + floor(L * t / P) leaves (L the capacity, P the
// refill period), hence at most 2L in any window of one refill period, and at most L at once. A fast-check
// property checks it over random spend sequences; boundary tests hit the limit exactly, one unit over, and
// one second before a refill completes. Reconfiguring (configureToken, setLimit) must not refill the bucket.
import { expect } from "chai";
import fc from "fast-check";
import { loadFixture, time } from "@nomicfoundation/hardhat-toolbox/network-helpers";
import { DAILY_LIMIT_WEI, DAY, HSM_THRESHOLD_WEI, deployBridgeSystem } from "./helpers/bridge";
import { at, bucketRuns, deployHarness } from "./helpers/bucket";

describe("Bridge daily limit: the guarantee and its boundaries", function () {
  this.timeout(300_000);
  const P = BigInt(DAY);
  const L = P * 1_000n; // refills exactly 1,000 units a second

  it("a full bucket gives exactly L at once, not L + 1; one second before the refill completes it holds L - rate", async () => {
    const b = await loadFixture(deployHarness);
    await b.configure(L, P);
    const t0 = BigInt(await time.latest()) + 10n;
    expect(await at(t0, () => b.consume(L + 1n))).to.equal(false);
    expect(await at(t0 + 1n, () => b.consume(L))).to.equal(true);
    expect(await b.available()).to.equal(0n);
    // refill: 1,000 units a second; one second before a full day it holds L - 1,000
    await time.increaseTo(t0 + 1n + P - 1n);
    expect(await b.available()).to.equal(L - 1_000n);
    expect(await at(t0 + 1n + P, () => b.consume(L + 1n))).to.equal(false);
    expect(await b.available()).to.equal(L);
    // the worst case of the guarantee: L at t, then L again one refill period later (2L within P + 1 seconds)
    expect(await at(t0 + 2n + P, () => b.consume(L))).to.equal(true);
    // right after: the rate only, rounded down (1 second -> 1,000; 1 unit more is refused)
    expect(await at(t0 + 3n + P, () => b.consume(1_001n))).to.equal(false);
    expect(await at(t0 + 4n + P, () => b.consume(2_000n))).to.equal(true);
  });

  it("rounds the refill down: a bucket that refills 1 unit per 3 seconds holds 0 after 2 seconds and 1 after 3", async () => {
    const b = await loadFixture(deployHarness);
    await b.configure(100n, 300n);
    const t0 = BigInt(await time.latest()) + 1n;
    expect(await at(t0, () => b.consume(100n))).to.equal(true);
    await time.increaseTo(t0 + 2n);
    expect(await b.available()).to.equal(0n);
    expect(await at(t0 + 3n, () => b.consume(2n))).to.equal(false);
    expect(await b.available()).to.equal(1n);
  });

  it("never releases more than L + floor(L * t / P) in any window of t seconds (so at most 2L in any day)", async () => {
    await fc.assert(
      fc.asyncProperty(...bucketRuns(10n ** 24n, 50_000, 10n ** 6n, 14), async (capacity, period, steps) => {
        const b = await loadFixture(deployHarness);
        await b.configure(capacity, period);
        let now = BigInt(await time.latest());
        const released: { t: bigint; amount: bigint }[] = [];
        for (const [wait, fraction] of steps) {
          now += BigInt(wait);
          // greedy most of the time: take all the bucket holds (the adversary's best strategy), else a fraction
          const avail = (await b.available()) as bigint;
          const refill = (BigInt(wait) * capacity) / BigInt(period);
          const greedyAt = avail + refill > capacity ? capacity : avail + refill;
          const amount = fraction % 3n === 0n ? (capacity * fraction) / 10n ** 6n : greedyAt;
          if (await at(now, () => b.consume(amount))) released.push({ t: now, amount });
        }
        for (let i = 0; i < released.length; i++) {
          let sum = 0n;
          for (let j = i; j < released.length; j++) {
            sum += released[j]!.amount;
            const t = released[j]!.t - released[i]!.t;
            expect(sum <= capacity + (capacity * t) / BigInt(period), `window ${t}s`).to.equal(true);
            if (t < BigInt(period)) expect(sum <= 2n * capacity).to.equal(true);
          }
        }
      }),
      { numRuns: 20, seed: 11 },
    );
  });

  it("reconfiguring keeps the level (capped at the new capacity) and never refills", async () => {
    const b = await loadFixture(deployHarness);
    await b.configure(L, P);
    const t0 = BigInt(await time.latest()) + 1n;
    expect(await at(t0, () => b.consume(L))).to.equal(true);
    // same limit again: still empty (the old code refilled to L here)
    await time.setNextBlockTimestamp(t0 + 1n);
    await b.configure(L, P);
    expect(await b.available()).to.equal(1_000n); // one second of refill at the old rate, kept
    expect(await at(t0 + 2n, () => b.consume(1_000n + 1_000n + 1n))).to.equal(false);
    // a larger limit: the level is kept, only the rate changes (2L per P: 2,000 a second)
    await time.setNextBlockTimestamp(t0 + 3n);
    await b.configure(2n * L, P);
    expect(await b.available()).to.equal(1_000n + 2_000n);
    // a smaller limit caps the level: wait until full, then halve the limit
    await time.increaseTo(t0 + 3n + P);
    expect(await b.available()).to.equal(2n * L);
    await b.configure(L / 2n, P);
    expect(await b.available()).to.equal(L / 2n);
    expect(await at(BigInt(await time.latest()) + 1n, () => b.consume(L / 2n + 1_000n))).to.equal(false);
  });

  it("BridgeVault.configureToken does not refill the release bucket", async () => {
    const s = await loadFixture(deployBridgeSystem);
    await s.depositFromAlice(DAILY_LIMIT_WEI);
    await s.depositFromAlice(DAILY_LIMIT_WEI);
    const big = DAILY_LIMIT_WEI - 1_000n;
    const m = await s.releaseMessage(1n, s.bob.address, big);
    const t0 = BigInt(await time.latest()) + 1n;
    await time.setNextBlockTimestamp(t0);
    await s.vault.connect(s.relayer).queueRelease(1n, s.addr.token, s.bob.address, big, s.sign(m), s.hsmSign(m));
    await time.setNextBlockTimestamp(t0 + 10n);
    await s.vault.configureToken(s.addr.token, true, DAILY_LIMIT_WEI, HSM_THRESHOLD_WEI, DAILY_LIMIT_WEI, DAY);
    const expected = 1_000n + (10n * DAILY_LIMIT_WEI) / BigInt(DAY);
    expect((await s.vault.tokenConfig(s.addr.token)).availableWei).to.equal(expected);
    // two seconds later: one unit over the level is refused; a second later exactly the level is released
    const rate = (n: bigint) => (n * DAILY_LIMIT_WEI) / BigInt(DAY);
    const queue = async (nonce: bigint, amount: bigint) =>
      s.vault
        .connect(s.relayer)
        .queueRelease(
          nonce,
          s.addr.token,
          s.bob.address,
          amount,
          s.sign(await s.releaseMessage(nonce, s.bob.address, amount)),
          "0x",
        );
    const over = expected + rate(2n) + 1n;
    await time.setNextBlockTimestamp(t0 + 12n);
    await expect(queue(2n, over))
      .to.be.revertedWithCustomError(s.vault, "BridgeDailyLimitExceeded")
      .withArgs(s.addr.token, over, over - 1n);
    const exact = expected + rate(3n);
    await time.setNextBlockTimestamp(t0 + 13n);
    await expect(queue(3n, exact)).to.emit(s.vault, "BridgeReleaseQueued");
    expect((await s.vault.tokenConfig(s.addr.token)).availableWei).to.equal(0n);
  });

  it("BridgeMinter.setLimit does not refill the mint bucket; a lower limit caps it", async () => {
    const s = await loadFixture(deployBridgeSystem);
    const big = DAILY_LIMIT_WEI - 1_000n;
    const n1 = await s.depositFromAlice(big);
    const t0 = BigInt(await time.latest()) + 1n;
    await time.setNextBlockTimestamp(t0);
    await s.minter.mint(n1, s.addr.token, s.bob.address, big, s.sign(await s.mintMessage(n1, s.bob.address, big)));
    await time.setNextBlockTimestamp(t0 + 10n);
    await s.minter.setLimit(s.addr.token, DAILY_LIMIT_WEI, DAY);
    const kept = 1_000n + (10n * DAILY_LIMIT_WEI) / BigInt(DAY);
    expect(await s.minter.availableToMint(s.addr.token)).to.equal(kept);
    // a lower limit than the level caps it
    await time.setNextBlockTimestamp(t0 + 11n);
    await s.minter.setLimit(s.addr.token, 500n, DAY);
    expect(await s.minter.availableToMint(s.addr.token)).to.equal(500n);
    const n2 = await s.depositFromAlice(501n);
    const sig = s.sign(await s.mintMessage(n2, s.bob.address, 501n));
    await time.setNextBlockTimestamp(BigInt(await time.latest()) + 1n); // 500 * 1 / 86,400 rounds to 0: still 500
    await expect(s.minter.mint(n2, s.addr.token, s.bob.address, 501n, sig))
      .to.be.revertedWithCustomError(s.minter, "BridgeDailyLimitExceeded")
      .withArgs(s.addr.token, 501n, 500n);
    const n3 = await s.depositFromAlice(500n);
    await s.minter.mint(n3, s.addr.token, s.bob.address, 500n, s.sign(await s.mintMessage(n3, s.bob.address, 500n)));
    expect(await s.minter.availableToMint(s.addr.token)).to.equal(0n);
    expect(await s.wrapped.totalSupply()).to.equal(big + 500n);
  });

  it("a first configuration starts full (a new token can be used at once)", async () => {
    const b = await loadFixture(deployHarness);
    await b.configure(L, P);
    expect(await b.available()).to.equal(L);
  });
});
