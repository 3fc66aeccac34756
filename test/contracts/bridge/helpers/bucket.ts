// The token-bucket harness and what its property tests share: the random configurations and spend sequences,
// and a spend sent at an exact block time.
import { expect } from "chai";
import fc from "fast-check";
import { ethers } from "hardhat";
import { time } from "@nomicfoundation/hardhat-toolbox/network-helpers";

export async function deployHarness() {
  return (await ethers.getContractFactory("BridgeTokenBucketHarness")).deploy() as Promise<any>;
}

/** Sends `call` in a block mined at exactly `at`; resolves true when it succeeded, false on BridgeDailyLimitExceeded. */
export async function at(atSec: bigint, call: () => Promise<unknown>): Promise<boolean> {
  await time.setNextBlockTimestamp(atSec);
  return call().then(
    () => true,
    (e: Error) => {
      expect(e.message).to.match(/BridgeDailyLimitExceeded/);
      return false;
    },
  );
}

/** A capacity up to `capacityMax`, a refill period of 1..200,000 s, and 1..`maxLength` steps (wait 1..`waitMax` s, a
 *  raw amount 0..`amountMax`): the arguments of a bucket property. */
export function bucketRuns(capacityMax: bigint, waitMax: number, amountMax: bigint, maxLength: number) {
  return [
    fc.bigInt({ min: 1n, max: capacityMax }),
    fc.integer({ min: 1, max: 200_000 }),
    fc.array(fc.tuple(fc.integer({ min: 1, max: waitMax }), fc.bigInt({ min: 0n, max: amountMax })), {
      minLength: 1,
      maxLength,
    }),
  ] as const;
}
