// settlePacked's common path (CommonPath.sol) and the Solidity path it falls back to agree: one batch mixing
// common orders with every case the common path hands over (an agent's signature, a maker partially filled
// in an earlier batch, a nonce in an unmarked word that takes the mark, an order left partially filled) ends
// in the same state and the same BatchSettled data through both entry points (the ABI `settle` never takes the
// common admission). Then each order's nonce is spent exactly as far as it was filled: replaying the batch fails.
// And a fill the common path refuses is named by the first check that fails, each earlier check passing at its
// exact boundary (so the Solidity checks behind the common path are held at their boundaries too).
import { expect } from "chai";
import { loadFixture } from "@nomicfoundation/hardhat-toolbox/network-helpers";
import type { Address } from "viem";
import { MIN_FILL_UNITS, type Order } from "../../../sdk/eip712";
import type { SignedOrder } from "../../../sdk/settle-batch";
import { deployFixture, fill, orderFor, settle, signed, signerKey } from "./fixtures";
import { type Encoding, ENCODINGS, ETH, type Fixture, OrderSide, useEncoding } from "./fixtures";

/** Fixed fields, so both runs sign the very same orders. */
const EXPIRY = 2n ** 40n;
const at = (nonce: bigint): Partial<Order> => ({ nonce, expiry: EXPIRY });

interface Run {
  snapshot: unknown[];
  orders: SignedOrder[];
  eventData: string;
}

async function runBatches(enc: Encoding): Promise<Run> {
  useEncoding(enc);
  const f: Fixture = await loadFixture(deployFixture);
  const agent = signerKey(11);
  await f.settlement.connect(f.carol).approveAgent(agent.address, EXPIRY);
  const order = async (
    key: Parameters<typeof signed>[1],
    trader: { address: string },
    side: OrderSide,
    amount: bigint,
    nonce: bigint,
  ) => signed(f, key, await orderFor(f, trader.address as Address, side, amount, undefined, at(nonce)));
  // batch 1: Bob's sell is half filled (its nonce gets the PARTIAL hint)
  const bobHalf = await order(f.keys.bob, f.bob, OrderSide.SELL, 2n * ETH, 1n);
  const aliceFirst = await order(f.keys.alice, f.alice, OrderSide.BUY, ETH, 2n);
  await settle(f, [bobHalf, aliceFirst], [fill(bobHalf, aliceFirst, ETH)]);
  // batch 2: the rest of Bob's sell to Carol's agent; Dave in word 3 (unmarked); Alice and Bob the common way,
  // Bob's second sell left partially filled
  const carolByAgent = await order(agent, f.carol, OrderSide.BUY, ETH, 3n);
  const daveHigh = await order(f.keys.dave, f.dave, OrderSide.SELL, ETH, 127n * 3n + 5n);
  const aliceCommon = await order(f.keys.alice, f.alice, OrderSide.BUY, ETH, 4n);
  const bobCommon = await order(f.keys.bob, f.bob, OrderSide.SELL, ETH, 5n);
  const aliceSmall = await order(f.keys.alice, f.alice, OrderSide.BUY, ETH / 2n, 6n);
  const orders = [bobHalf, carolByAgent, daveHigh, aliceCommon, bobCommon, aliceSmall];
  const tx = await settle(f, orders, [
    fill(bobHalf, carolByAgent, ETH),
    fill(daveHigh, aliceCommon, ETH),
    fill(bobCommon, aliceSmall, ETH / 2n),
  ]);
  const receipt = await tx.wait();
  const log = receipt.logs.find((l: { fragment?: { name: string } }) => l.fragment?.name === "BatchSettled");
  const tokens = [await f.usd.getAddress(), await f.weth.getAddress()];
  const traders = [f.alice, f.bob, f.carol, f.dave].map((s) => s.address);
  const snapshot: unknown[] = [];
  for (const t of traders) {
    for (const token of tokens) snapshot.push(await f.settlement.balanceOf(t, token));
    snapshot.push(await f.settlement.minNonce(t));
    for (const n of [1n, 2n, 3n, 4n, 5n, 6n, 127n * 3n + 5n]) snapshot.push(await f.settlement.isNonceUsed(t, n));
  }
  for (const token of tokens) snapshot.push(await f.settlement.collectedFees(token));
  for (const o of [...orders, aliceFirst]) snapshot.push(await f.settlement.filledAmount(o.hash));
  // exactly once: the same batch again is refused (its complete orders' nonces are spent)
  await expect(settle(f, orders, [fill(bobHalf, carolByAgent, ETH)])).to.be.revertedWithCustomError(
    f.settlement,
    "SettlementOrderNonceUsed",
  );
  return { snapshot, orders, eventData: log.data };
}

describe("Settlement: the common path and its fallbacks agree", () => {
  it("one mixed batch ends in the same state and event through settlePacked and settle", async () => {
    const abi = await runBatches("abi");
    const packed = await runBatches("packed");
    expect(packed.orders.map((o) => o.hash)).to.deep.equal(abi.orders.map((o) => o.hash));
    expect(packed.snapshot).to.deep.equal(abi.snapshot);
    expect(packed.eventData).to.equal(abi.eventData);
  });
});

for (const enc of ENCODINGS)
  describe(`Settlement: the checks behind the common path, at their boundaries (${enc})`, () => {
    before(() => useEncoding(enc));

    it("a fill at both limits and the minimum fill exactly, completing its maker, that overfills its taker is refused as overfilled", async () => {
      const f = await loadFixture(deployFixture);
      // one quote unit per base unit, so the minimum base amount is also the minimum quote amount
      const price = 10n ** 18n;
      const maker = await signed(
        f,
        f.keys.bob,
        await orderFor(f, f.bob.address as Address, OrderSide.SELL, MIN_FILL_UNITS, price),
      );
      const taker = await signed(
        f,
        f.keys.alice,
        await orderFor(f, f.alice.address as Address, OrderSide.BUY, MIN_FILL_UNITS - 1n, price),
      );
      await expect(settle(f, [maker, taker], [fill(maker, taker, MIN_FILL_UNITS, price)]))
        .to.be.revertedWithCustomError(f.settlement, "SettlementOrderOverfilled")
        .withArgs(taker.hash, MIN_FILL_UNITS - 1n, MIN_FILL_UNITS);
    });
  });
