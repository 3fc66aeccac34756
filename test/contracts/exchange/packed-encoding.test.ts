// settlePacked's short forms: a fill at its maker's limit price (PackedBatch's 20-byte fill, the maker index's
// top bit set) and an EIP-2098 compact signature (64 bytes, sideAndFlags bit 7 clear). The same batch encoded
// with both and with neither (every price and every signature with its length) settles to the same balances and
// the same BatchSettled data; a fill improving on the maker's limit keeps its price; a malformed short fill (cut,
// or naming a maker out of range) and a compact signature with its parity bit flipped are refused by name.
import { expect } from "chai";
import { loadFixture } from "@nomicfoundation/hardhat-toolbox/network-helpers";
import type { Address, Hex } from "viem";
import { buildSettleArgs, encodePackedBatch, type SettleArgs } from "../../../sdk/settle-batch";
import { deployFixture, fill, orderFor, signed, ETH, OrderSide, USD, type Fixture } from "./fixtures";

/** Bob sells 1 ETH at 2,000; Alice buys at 2,000 and Carol at up to 2,010. */
async function batchArgs(f: Fixture): Promise<SettleArgs> {
  const sell = await signed(f, f.keys.bob, await orderFor(f, f.bob.address as Address, OrderSide.SELL, ETH));
  const buy = await signed(f, f.keys.alice, await orderFor(f, f.alice.address as Address, OrderSide.BUY, ETH / 2n));
  const better = await signed(
    f,
    f.keys.carol,
    await orderFor(f, f.carol.address as Address, OrderSide.BUY, ETH / 2n, 2010n * USD),
  );
  // Carol's fill at 2,005 (price carried; the batch's first fill, so the Solidity path reads it), then Alice's at
  // Bob's limit (price left out; the common path)
  return buildSettleArgs([sell, buy, better], [fill(sell, better, ETH / 4n, 2005n * USD), fill(sell, buy, ETH / 2n)]);
}

async function settledState(f: Fixture, packed: Hex) {
  const tx = await f.settlement.connect(f.operator).settlePacked(0n, packed);
  const receipt = await tx.wait();
  const balances = [];
  for (const who of [f.alice, f.bob, f.carol])
    for (const token of [f.usd, f.weth])
      balances.push(await f.settlement.balanceOf(who.address, await token.getAddress()));
  return { data: receipt.logs.map((l: { data: string }) => l.data), balances };
}

describe("Settlement: packed short forms (fill at the maker's price, compact signature)", () => {
  it("settles the same with the short forms as with every price and signature carried in full", async () => {
    const f = await loadFixture(deployFixture);
    const args = await batchArgs(f);
    const short = encodePackedBatch(args);
    const full = encodePackedBatch(args, { explicitPrices: true, explicitSignatures: true });
    // one fill at the maker's price (16 bytes) and three compact signatures (3 bytes each)
    expect((full.length - short.length) / 2).to.equal(16 + 3 * 3);
    expect(encodePackedBatch(args, { explicitSignatures: true }).length).to.equal(full.length - 2 * 16);
    const a = await settledState(f, short);
    // the same signed orders on the same fresh deployment, every price carried
    const b = await settledState(await loadFixture(deployFixture), full);
    expect(a.balances).to.deep.equal(b.balances);
    expect(a.data).to.deep.equal(b.data);
    expect(a.data.length).to.equal(1);
    // Bob sold 3/4 ETH: 1,000 USD from Alice and 501.25 from Carol, less his 10 bps
    expect(a.balances[2]).to.equal(((1000n * USD + (50125n * USD) / 100n) * 9990n) / 10000n);
  });

  it("refuses a cut fill of either length and a short fill naming a maker out of range", async () => {
    const f = await loadFixture(deployFixture);
    const packed = encodePackedBatch(await batchArgs(f));
    const op = f.settlement.connect(f.operator);
    // the batch ends with Carol's 36-byte fill, then Alice's 20-byte one
    const fills = packed.length - 2 * 36 - 2 * 20;
    const carolFill = packed.slice(fills, fills + 72);
    const aliceFill = packed.slice(fills + 72);
    expect(parseInt(aliceFill.slice(0, 4), 16) & 0x8000).to.equal(0x8000);
    expect(parseInt(carolFill.slice(0, 4), 16) & 0x8000).to.equal(0);
    // batches with one fill (the Solidity path reads it), each cut by one byte: refused at the fill's offset
    const head = packed.slice(0, fills - 4);
    const fillOffset = BigInt((head.length - 2) / 2 + 2);
    for (const cut of [aliceFill.slice(0, -2), carolFill.slice(0, -2)]) {
      await expect(op.settlePacked(0n, `${head}0001${cut}`))
        .to.be.revertedWithCustomError(f.settlement, "SettlementPackedBatchMalformed")
        .withArgs(fillOffset);
    }
    // the short fill naming order 3 of 3 (index out of range)
    const outOfRange = `8003${aliceFill.slice(4)}`;
    await expect(op.settlePacked(0n, `${head}0001${outOfRange}`))
      .to.be.revertedWithCustomError(f.settlement, "SettlementFillIndexOutOfRange")
      .withArgs(0n);
    // a byte after the last fill
    await expect(op.settlePacked(0n, `${packed}00`))
      .to.be.revertedWithCustomError(f.settlement, "SettlementPackedBatchMalformed")
      .withArgs(BigInt((packed.length - 2) / 2));
    // the same short fill, whole, settles
    await expect(op.settlePacked(0n, `${head}0001${aliceFill}`)).to.emit(f.settlement, "BatchSettled");
    expect(await f.settlement.balanceOf(f.alice.address, await f.weth.getAddress())).to.equal(
      ETH / 2n - ((ETH / 2n) * 20n + 9999n) / 10000n,
    );
  });

  it("refuses a compact signature whose parity bit is flipped, by its recovered signer", async () => {
    const f = await loadFixture(deployFixture);
    const packed = encodePackedBatch(await batchArgs(f));
    // the first order starts after the token table (1 + 2 * 20 bytes) and the order count (2); its yParityAndS
    // word is at 71 + 32 in it, its top bit the parity
    const at = 2 + 2 * (1 + 2 * 20 + 2 + 71 + 32);
    expect(parseInt(packed.slice(2 + 2 * (1 + 2 * 20 + 2 + 22), 2 + 2 * (1 + 2 * 20 + 2 + 23)), 16) & 0x80).to.equal(0);
    const flipped = (parseInt(packed.slice(at, at + 2), 16) ^ 0x80).toString(16).padStart(2, "0");
    await expect(
      f.settlement.connect(f.operator).settlePacked(0n, `${packed.slice(0, at)}${flipped}${packed.slice(at + 2)}`),
    ).to.be.revertedWithCustomError(f.settlement, "SettlementSignerNotAuthorized");
    await expect(f.settlement.connect(f.operator).settlePacked(0n, packed)).to.emit(f.settlement, "BatchSettled");
  });

  it("refuses to encode a maker index the short fill cannot carry", () => {
    const args: SettleArgs = {
      orders: [],
      signatures: [],
      fills: [{ makerIndex: 0x8000, takerIndex: 0, baseAmount: 1n, price: 1n }],
    };
    expect(() => encodePackedBatch(args)).to.throw(/maker index/);
  });
});
