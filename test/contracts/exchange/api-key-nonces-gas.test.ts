// Gas of settling API-key orders with the dense nonces the service now allocates (pipeline/intake/api-nonces.ts:
// 2^63, 2^63 + 1, ...) against the random 64-bit nonces it used to sign. A bot's order fully filled sets its
// nonce bit: dense nonces share one bitmap word per 128 orders, random ones create a word (20,000 gas) each.
import { expect } from "chai";
import { loadFixture } from "@nomicfoundation/hardhat-toolbox/network-helpers";
import { keccak256, toHex, type Address } from "viem";
import { createApiKeyNonces } from "../../../pipeline/intake/api-nonces";
import { deployFixture, fill, orderFor, signed, ETH, OrderSide, type Fixture } from "./fixtures";
import type { FillByHash, SignedOrder } from "../../../sdk/settle-batch";
import { buildSettleArgs, encodePackedBatch } from "../../../sdk/settle-batch";

const BATCHES = 5;
const TRADES_PER_BATCH = 20;
const FILL = ETH / 100n;

/** the nonces the service signs now: one account's consecutive API-key nonces */
function denseNonces(): () => bigint {
  const nonces = createApiKeyNonces({ isNonceUsed: () => false, minNonceOf: () => 0n });
  return () => nonces.next("0x00000000000000000000000000000000000000b0");
}

/** the nonces it signed before: 64 random bits, odd (seeded here, so the figure repeats) */
function randomNonces(): () => bigint {
  let i = 0;
  return () => BigInt(keccak256(toHex(`api-key-nonce-${i++}`)).slice(0, 18)) | 1n;
}

async function settlePacked(f: Fixture, orders: SignedOrder[], fills: FillByHash[]): Promise<bigint> {
  const tx = await f.settlement
    .connect(f.operator)
    .settlePacked(await f.settlement.nextBatchId(), encodePackedBatch(buildSettleArgs(orders, fills)));
  return (await tx.wait()).gasUsed as bigint;
}

/** Bob's bot sells (maker, nonce from `nextNonce`), Alice's wallet buys (taker, small sequential nonces);
 *  each order is fully filled by its trade. Returns the gas per trade over every batch. */
async function gasPerTrade(nextNonce: () => bigint): Promise<bigint> {
  const f = await loadFixture(deployFixture);
  const { alice, bob, keys } = f;
  // warm-up: both accounts and the fee balances have traded once (the same for both nonce schemes)
  const warmAsk = await signed(f, keys.bob, await orderFor(f, bob.address as Address, OrderSide.SELL, FILL));
  const warmBid = await signed(f, keys.alice, await orderFor(f, alice.address as Address, OrderSide.BUY, FILL));
  await settlePacked(f, [warmAsk, warmBid], [fill(warmAsk, warmBid, FILL)]);
  let gas = 0n;
  for (let b = 0; b < BATCHES; b++) {
    const orders: SignedOrder[] = [];
    const fills: FillByHash[] = [];
    for (let t = 0; t < TRADES_PER_BATCH; t++) {
      const ask = await signed(
        f,
        keys.bob,
        await orderFor(f, bob.address as Address, OrderSide.SELL, FILL, undefined, { nonce: nextNonce() }),
      );
      const bid = await signed(f, keys.alice, await orderFor(f, alice.address as Address, OrderSide.BUY, FILL));
      orders.push(ask, bid);
      fills.push(fill(ask, bid, FILL));
    }
    gas += await settlePacked(f, orders, fills);
    for (const o of orders) expect(await f.settlement.isNonceUsed(o.order.trader, o.order.nonce)).to.equal(true);
  }
  return gas / BigInt(BATCHES * TRADES_PER_BATCH);
}

describe("gas: API-key orders with dense vs random nonces (settlePacked)", () => {
  it(`dense nonces from 2^63 save a bitmap word per trade (${BATCHES} batches of ${TRADES_PER_BATCH} trades)`, async () => {
    const dense = await gasPerTrade(denseNonces());
    const random = await gasPerTrade(randomNonces());
    console.log(
      `      gas per trade, the bot's nonces random 64-bit: ${random}; dense from 2^63: ${dense}; saved ${random - dense} (${((Number(random - dense) * 100) / Number(random)).toFixed(1)} %)`,
    );
    // a fresh word costs 20,000 gas against ~2,900 for a warm one; the dense run creates 1 word, the random 100
    expect(random - dense).to.be.greaterThan(15_000n);
  });
});
