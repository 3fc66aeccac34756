// A nonce is marked FINISHED when its order is admitted to a batch (the word's one write for the order) and
// reopened at the end of the batch when the order was not filled whole (NonceBitmap, BatchSettlement._finish).
// Through both entry points (settlePacked admits these orders the common way, settle the Solidity way): an order
// the batch carries without a fill keeps its nonce open and its word as it was, also when a filled order of the
// same trader shares the word, and settles in a later batch; a second order with a nonce already admitted in
// the batch is refused.
import { expect } from "chai";
import { loadFixture } from "@nomicfoundation/hardhat-toolbox/network-helpers";
import type { Address } from "viem";
import type { Order } from "../../../sdk/eip712";
import { deployFixture, fill, nonceWordOf, orderFor, settle, signed } from "./fixtures";
import { ENCODINGS, ETH, type Fixture, OrderSide, useEncoding } from "./fixtures";

const EXPIRY = 2n ** 40n;
const at = (nonce: bigint): Partial<Order> => ({ nonce, expiry: EXPIRY });

async function orderOf(
  f: Fixture,
  who: "alice" | "bob" | "carol" | "dave",
  side: OrderSide,
  amount: bigint,
  nonce: bigint,
) {
  return signed(f, f.keys[who], await orderFor(f, f[who].address as Address, side, amount, undefined, at(nonce)));
}

for (const encoding of ENCODINGS) {
  describe(`Settlement (${encoding}): a nonce finished at admission, reopened when its order is not filled whole`, () => {
    beforeEach(() => useEncoding(encoding));

    it("an order carried without a fill keeps its nonce and word, beside a filled order sharing the word", async () => {
      const f = await loadFixture(deployFixture);
      const bob = await orderOf(f, "bob", OrderSide.SELL, ETH, 1n);
      const alice = await orderOf(f, "alice", OrderSide.BUY, ETH, 2n);
      // Alice's second buy (word 0 too) and Carol's buy ride in the batch with no fill
      const aliceIdle = await orderOf(f, "alice", OrderSide.BUY, ETH, 3n);
      const carolIdle = await orderOf(f, "carol", OrderSide.BUY, ETH, 4n);
      const carolWord = await nonceWordOf(f, f.carol.address, 4n);
      const aliceWord = await nonceWordOf(f, f.alice.address, 3n);
      await (await settle(f, [bob, alice, aliceIdle, carolIdle], [fill(bob, alice, ETH)])).wait();
      expect(await f.settlement.isNonceUsed(f.alice.address, 2n)).to.equal(true);
      expect(await f.settlement.isNonceUsed(f.alice.address, 3n)).to.equal(false);
      expect(await f.settlement.isNonceUsed(f.carol.address, 4n)).to.equal(false);
      expect(await nonceWordOf(f, f.carol.address, 4n)).to.equal(carolWord);
      // Alice's word gained nonce 2's FINISHED bit (bit 4) and nothing else
      expect(await nonceWordOf(f, f.alice.address, 3n)).to.equal(aliceWord | (1n << 4n));
      // both idle orders settle later, whole, and their nonces are then spent
      const dave = await orderOf(f, "dave", OrderSide.SELL, 2n * ETH, 5n);
      await (
        await settle(f, [dave, aliceIdle, carolIdle], [fill(dave, aliceIdle, ETH), fill(dave, carolIdle, ETH)], 1n)
      ).wait();
      expect(await f.settlement.isNonceUsed(f.alice.address, 3n)).to.equal(true);
      expect(await f.settlement.isNonceUsed(f.carol.address, 4n)).to.equal(true);
      expect(await f.settlement.filledAmount(aliceIdle.hash)).to.equal(0n);
    });

    it("refuses a second order with a nonce already admitted in the batch", async () => {
      const f = await loadFixture(deployFixture);
      const bob = await orderOf(f, "bob", OrderSide.SELL, 2n * ETH, 1n);
      const alice = await orderOf(f, "alice", OrderSide.BUY, ETH, 7n);
      // the same nonce, another order (another amount)
      const aliceTwin = await orderOf(f, "alice", OrderSide.BUY, ETH / 2n, 7n);
      await expect(settle(f, [bob, alice, aliceTwin], [fill(bob, alice, ETH), fill(bob, aliceTwin, ETH / 2n)]))
        .to.be.revertedWithCustomError(f.settlement, "SettlementOrderNonceUsed")
        .withArgs(f.alice.address, 7n);
      // one of them alone settles
      await (await settle(f, [bob, alice], [fill(bob, alice, ETH)])).wait();
      expect(await f.settlement.isNonceUsed(f.alice.address, 7n)).to.equal(true);
    });
  });
}
