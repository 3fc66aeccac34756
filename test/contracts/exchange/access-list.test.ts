// The batcher's EIP-2930 access list (pipeline/settle/access-list.ts) names the slots settle really touches:
// each listed slot holds what the contract says it holds (a balance, a nonce word), and a batch sent with the
// list costs exactly 100 gas a listed slot less, net of the 2,400 of the listed address (so every listed slot
// is used, and its first access is warm); the batcher lists a batch's slots from ACCESS_LIST_MIN_SLOTS on.
import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-toolbox/network-helpers";
import type { Address } from "viem";
import { buildSettleArgs, encodePackedBatch } from "../../../sdk/settle-batch";
import { orderSlots, settleAccessList } from "../../../pipeline/settle/access-list";
import { deployFixture, ETH, fill, orderFor, OrderSide, signed } from "./fixtures";

describe("Settlement: the batcher's access list", () => {
  it("names a trader's balances and the nonce word of a nonce", async () => {
    const f = await loadFixture(deployFixture);
    const usd = (await f.usd.getAddress()) as Address;
    const weth = (await f.weth.getAddress()) as Address;
    const nonce = 127n + 3n; // word 1, bit pair 3
    const [usdSlot, wethSlot, word] = orderSlots(f.bob.address as Address, [usd, weth], nonce);
    const at = async (slot: string) => BigInt(await ethers.provider.getStorage(await f.settlement.getAddress(), slot));
    await f.settlement.connect(f.bob).deposit(usd, 7n);
    expect(await at(usdSlot!)).to.equal(await f.settlement.balanceOf(f.bob.address, usd));
    expect(await at(wethSlot!)).to.equal(await f.settlement.balanceOf(f.bob.address, weth));
    expect(await at(wethSlot!)).to.equal(50n * ETH);
    expect(await at(word!)).to.equal(0n);
    await f.settlement.connect(f.bob).cancelOrder(nonce);
    expect(await at(word!)).to.equal(1n << 6n); // FINISHED of bit pair 3
  });

  it("takes 100 gas off each listed slot: every slot is used, first warm", async () => {
    let f = await loadFixture(deployFixture);
    const sell = await signed(f, f.keys.bob, await orderFor(f, f.bob.address as Address, OrderSide.SELL, ETH));
    const buy = await signed(f, f.keys.alice, await orderFor(f, f.alice.address as Address, OrderSide.BUY, ETH));
    const args = buildSettleArgs([sell, buy], [fill(sell, buy, ETH)]);
    const id = await f.settlement.nextBatchId();
    const send = (opts: object) => f.settlement.connect(f.operator).settlePacked(id, encodePackedBatch(args), opts);
    const plain = await (await send({ gasLimit: 2_000_000 })).wait();
    f = await loadFixture(deployFixture); // the same state again, the same contract
    // below ACCESS_LIST_MIN_SLOTS the batcher sends no list (it would cost more than it saves): list them here
    expect(settleAccessList((await f.settlement.getAddress()) as Address, args)).to.deep.equal([]);
    const storageKeys = args.orders.flatMap((o) => orderSlots(o.trader, [o.baseToken, o.quoteToken], o.nonce));
    const accessList = [{ address: await f.settlement.getAddress(), storageKeys }];
    const keys = BigInt(storageKeys.length);
    expect(keys).to.equal(6n);
    const listed = await (await send({ gasLimit: 2_000_000, type: 1, accessList })).wait();
    expect(plain.gasUsed - listed.gasUsed).to.equal(100n * keys - 2_400n);
  });
});
