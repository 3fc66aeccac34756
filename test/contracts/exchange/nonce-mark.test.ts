// The nonce word's MARK (NonceBitmap): settle skips the floor read for a marked word's nonces, so every way the
// mark could outlive its guarantee (the whole word at or above the minimum nonce) is an attack tested here:
// a cancel-all passing the marked word, a mark left on the old word when it moves, a mark moved down, a first
// deposit after a cancel-all, the word at NO_MARK's index. Plus the boundaries: the word whose first nonce is the
// minimum, and the nonce and minimum-nonce limit (2^128).
import { expect } from "chai";
import { loadFixture } from "@nomicfoundation/hardhat-toolbox/network-helpers";
import type { Address } from "viem";
import { deployFixture, fill, fundedErin, nonceWordOf, orderFor, settle, signed, signerKey } from "./fixtures";
import { ENCODINGS, ETH, type Fixture, OrderSide, USD, useEncoding } from "./fixtures";

const LIMIT = 2n ** 128n;

async function sell(f: Fixture) {
  return signed(f, f.keys.bob, await orderFor(f, f.bob.address as Address, OrderSide.SELL, 10n * ETH));
}

/** Alice (or `who`) buys 0.1 ETH from a fresh maker order with `nonce`; resolves to the settle call. */
async function buyAt(f: Fixture, nonce: bigint, who = { key: f.keys.alice, address: f.alice.address }) {
  const maker = await sell(f);
  const taker = await signed(
    f,
    who.key,
    await orderFor(f, who.address as Address, OrderSide.BUY, ETH / 10n, undefined, { nonce }),
  );
  return settle(f, [maker, taker], [fill(maker, taker, ETH / 10n)]);
}

async function expectBelowMinimum(f: Fixture, nonce: bigint, min: bigint) {
  await expect(buyAt(f, nonce))
    .to.be.revertedWithCustomError(f.settlement, "SettlementOrderNonceBelowMinimum")
    .withArgs(f.alice.address, nonce, min);
}

for (const enc of ENCODINGS)
  describe(`Settlement: nonce word marks (${enc})`, () => {
    before(() => useEncoding(enc));

    it("a cancel-all up to a marked word's first nonce keeps its mark; one past it clears the mark", async () => {
      const f = await loadFixture(deployFixture);
      await buyAt(f, 130n); // word 1 (127..253) takes the mark from word 0
      await f.settlement.connect(f.alice).cancelAllBelow(127n);
      await expectBelowMinimum(f, 5n, 127n); // word 0 lost its mark when it moved
      await buyAt(f, 131n); // word 1 kept it
      await f.settlement.connect(f.alice).cancelAllBelow(128n);
      expect(await f.settlement.minNonce(f.alice.address)).to.equal(128n);
      await expectBelowMinimum(f, 127n, 128n); // word 1 lost it: its first nonce is dead
      await buyAt(f, 132n);
    });

    it("the mark only moves up: a lower word keeps reading the minimum", async () => {
      const f = await loadFixture(deployFixture);
      await buyAt(f, 300n); // word 2 (254..380)
      await buyAt(f, 140n); // word 1: read the minimum, the mark stays on word 2
      await f.settlement.connect(f.alice).cancelAllBelow(254n);
      await expectBelowMinimum(f, 141n, 254n);
      await buyAt(f, 301n);
    });

    it("settle moves the mark only to a word wholly at or above the minimum", async () => {
      const f = await loadFixture(deployFixture);
      await f.settlement.connect(f.alice).cancelAllBelow(200n); // clears word 0's mark
      await buyAt(f, 210n); // word 1 starts at 127 < 200: not marked
      await expectBelowMinimum(f, 199n, 200n);
      await buyAt(f, 254n); // word 2 starts at 254: marked
      await f.settlement.connect(f.alice).cancelAllBelow(254n); // keeps word 2's mark
      await expectBelowMinimum(f, 253n, 254n);
      await buyAt(f, 255n);
    });

    it("a word whose first nonce is the minimum takes the mark (the boundary)", async () => {
      const f = await loadFixture(deployFixture);
      await f.settlement.connect(f.alice).cancelAllBelow(254n);
      await buyAt(f, 260n); // word 2 starts at 254, the minimum itself
      expect((await nonceWordOf(f, f.alice.address, 260n)) >> 255n).to.equal(1n);
      expect(await f.settlement.minNonce(f.alice.address)).to.equal(254n);
    });

    it("a first deposit after a cancel-all does not mark word 0", async () => {
      const f = await loadFixture(deployFixture);
      const erin = await fundedErin(f, 10_000n * USD);
      const usd = await f.usd.getAddress();
      await f.settlement.connect(erin).cancelAllBelow(5n);
      await f.settlement.connect(erin).deposit(usd, 10_000n * USD);
      const who = { key: signerKey(7), address: erin.address };
      await expect(buyAt(f, 4n, who))
        .to.be.revertedWithCustomError(f.settlement, "SettlementOrderNonceBelowMinimum")
        .withArgs(erin.address, 4n, 5n);
      await buyAt(f, 5n, who);
    });
  });

describe("Settlement: the nonce limit (2^128)", () => {
  before(() => useEncoding("abi"));

  it("the minimum nonce rises to 2^128 at most; orders carry nonces below it", async () => {
    const f = await loadFixture(deployFixture);
    await expect(buyAt(f, LIMIT)).to.be.revertedWithCustomError(f.settlement, "SettlementOrderEncodingInvalid");
    await buyAt(f, LIMIT - 1n);
    await expect(f.settlement.connect(f.alice).cancelAllBelow(LIMIT + 1n))
      .to.be.revertedWithCustomError(f.settlement, "SettlementMinNonceTooLarge")
      .withArgs(LIMIT + 1n, LIMIT);
    await f.settlement.connect(f.alice).cancelAllBelow(LIMIT);
    expect(await f.settlement.minNonce(f.alice.address)).to.equal(LIMIT);
    await expectBelowMinimum(f, LIMIT - 2n, LIMIT);
  });

  it('the word at index 2^64 - 1 (NO_MARK, "no word marked") never takes the mark', async () => {
    const f = await loadFixture(deployFixture);
    const first = (2n ** 64n - 1n) * 127n; // the word's first nonce
    await buyAt(f, first + 1n);
    expect((await nonceWordOf(f, f.alice.address, first)) >> 255n).to.equal(0n);
    // so a cancel-all past it is read by its next order (a mark there would outlive the floor naming no word)
    await f.settlement.connect(f.alice).cancelAllBelow(first + 10n);
    await expectBelowMinimum(f, first + 2n, first + 10n);
    await buyAt(f, first + 10n);
  });
});
