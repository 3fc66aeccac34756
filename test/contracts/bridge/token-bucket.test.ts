// BridgeTokenBucket against a naive TypeScript model (fast-check): random waits and spends, the contract's
// level and its accept/refuse decisions equal the model's; configuration out of range is refused.
import { expect } from "chai";
import fc from "fast-check";
import { loadFixture, time } from "@nomicfoundation/hardhat-toolbox/network-helpers";
import { at as spendAt, bucketRuns, deployHarness } from "./helpers/bucket";

describe("BridgeTokenBucket", function () {
  this.timeout(300_000);

  it("matches the naive model over random waits and spends", async () => {
    await fc.assert(
      fc.asyncProperty(...bucketRuns(2n ** 96n - 1n, 100_000, 2n ** 96n, 12), async (capacity, period, steps) => {
        const bucket = await loadFixture(deployHarness);
        await bucket.configure(capacity, period);
        let level = capacity;
        let updatedAt = BigInt(await time.latest());
        for (const [wait, rawAmount] of steps) {
          await time.increase(wait);
          const amount = rawAmount % (capacity + capacity / 4n + 1n); // sometimes more than the capacity
          // the spend lands in the next block: one second later
          const at = BigInt(await time.latest()) + 1n;
          const refilled = level + ((at - updatedAt) * capacity) / BigInt(period);
          const availableModel = refilled > capacity ? capacity : refilled;
          const ok = await spendAt(at, () => bucket.consume(amount));
          expect(ok).to.equal(amount <= availableModel);
          if (ok) {
            level = availableModel - amount;
            updatedAt = at;
          }
          if (ok) expect(await bucket.available()).to.equal(level);
        }
      }),
      { numRuns: 25, seed: 7 },
    );
  });

  it("refuses a capacity >= 2^96 or a zero / >= 2^32 refill period", async () => {
    const bucket = await loadFixture(deployHarness);
    await expect(bucket.configure(2n ** 96n, 86_400)).to.be.revertedWithCustomError(bucket, "BridgeLimitConfigInvalid");
    await expect(bucket.configure(1n, 0)).to.be.revertedWithCustomError(bucket, "BridgeLimitConfigInvalid");
    await expect(bucket.configure(1n, 2n ** 32n)).to.be.revertedWithCustomError(bucket, "BridgeLimitConfigInvalid");
  });
});
