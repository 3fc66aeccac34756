// Settle lanes (one per matcher partition, docs/decisions/pipeline.md "Partitions"): a batch id's top 8 bits
// name its lane; each lane is its own strict sequence, so two partitions' operators settle without waiting for
// or racing each other, and no batch applies twice or is skipped within its lane.
import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-toolbox/network-helpers";
import type { Address } from "viem";
import { buildSettleArgs } from "../../../sdk/settle-batch";
import { deployFixture, fill, orderFor, settleRaw, signed } from "./fixtures";
import { ENCODINGS, ETH, type Fixture, OrderSide, useEncoding } from "./fixtures";
import { anyValue } from "@nomicfoundation/hardhat-chai-matchers/withArgs";

const LANE = (l: bigint) => l << 56n;

async function trade(f: Fixture, amount = ETH / 100n) {
  const maker = await signed(f, f.keys.bob, await orderFor(f, f.bob.address as Address, OrderSide.SELL, amount));
  const taker = await signed(f, f.keys.alice, await orderFor(f, f.alice.address as Address, OrderSide.BUY, amount));
  return buildSettleArgs([maker, taker], [fill(maker, taker, amount)]);
}
const send = (f: Fixture, id: bigint, a: Awaited<ReturnType<typeof trade>>) =>
  settleRaw(f, id, a.orders, a.signatures, a.fills);

for (const enc of ENCODINGS)
  describe(`Settlement: settle lanes (${enc})`, () => {
    before(() => useEncoding(enc));

    it("each lane starts at lane << 56 and counts on its own; lane 0 is nextBatchId()", async () => {
      const f = await loadFixture(deployFixture);
      expect(await f.settlement.nextBatchIdOfLane(0)).to.equal(0n);
      expect(await f.settlement.nextBatchIdOfLane(1)).to.equal(LANE(1n));
      expect(await f.settlement.nextBatchIdOfLane(255)).to.equal(LANE(255n));
      await send(f, LANE(1n), await trade(f));
      await send(f, 0n, await trade(f));
      await send(f, LANE(1n) + 1n, await trade(f));
      await expect(send(f, LANE(255n), await trade(f)))
        .to.emit(f.settlement, "BatchSettled")
        .withArgs(LANE(255n), 1n, anyValue, anyValue);
      expect(await f.settlement.nextBatchIdOfLane(1)).to.equal(LANE(1n) + 2n);
      expect(await f.settlement.nextBatchIdOfLane(0)).to.equal(1n);
      expect(await f.settlement.nextBatchId()).to.equal(1n);
      expect(await f.settlement.nextBatchIdOfLane(255)).to.equal(LANE(255n) + 1n);
      expect(await f.settlement.nextBatchIdOfLane(2)).to.equal(LANE(2n));
    });

    it("within a lane a replay or a skip is refused with the lane's expected id", async () => {
      const f = await loadFixture(deployFixture);
      const a = await trade(f);
      await expect(send(f, LANE(3n) + 1n, a))
        .to.be.revertedWithCustomError(f.settlement, "SettlementBatchOutOfOrder")
        .withArgs(LANE(3n), LANE(3n) + 1n);
      await send(f, LANE(3n), a);
      await expect(send(f, LANE(3n), await trade(f)))
        .to.be.revertedWithCustomError(f.settlement, "SettlementBatchOutOfOrder")
        .withArgs(LANE(3n) + 1n, LANE(3n));
      // the last id below lane 1 is lane 0's, refused as out of lane 0's order
      await expect(send(f, LANE(1n) - 1n, await trade(f)))
        .to.be.revertedWithCustomError(f.settlement, "SettlementBatchOutOfOrder")
        .withArgs(0n, LANE(1n) - 1n);
      // the highest id: lane 255's last, out of its order
      await expect(send(f, 2n ** 64n - 1n, await trade(f)))
        .to.be.revertedWithCustomError(f.settlement, "SettlementBatchOutOfOrder")
        .withArgs(LANE(255n), 2n ** 64n - 1n);
    });

    it("a lane is the operator role's like lane 0: anyone else is refused", async () => {
      const f = await loadFixture(deployFixture);
      const a = await trade(f);
      const [, , , , , , stranger] = await ethers.getSigners();
      await expect(
        f.settlement.connect(stranger).settle(LANE(1n), a.orders, a.signatures, a.fills),
      ).to.be.revertedWithCustomError(f.settlement, "AccessControlUnauthorizedAccount");
    });
  });
