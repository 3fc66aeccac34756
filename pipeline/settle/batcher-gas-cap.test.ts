// A batch whose settle the per-transaction gas cap cannot carry (many ERC-1271 wallets' orders, each with its
// stipend budgeted) would run out of gas and revert without data, which halts the venue: the batcher cuts a
// new batch short until it fits (`fitsGasCap`), and sends the rest in the next batch. Boundaries: a batch
// whose budget is exactly the cap goes whole; one wallet order more and its last trade waits.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SettleArgs } from "../../sdk/settle-batch";
import { createBatcher, type SettleableTrade } from "./batcher";
import { fixtureSignedOrder, fixtureTrade, hashOf } from "../testing/batcher-fixture";
import {
  ERC1271_SETTLE_GAS,
  SETTLE_GAS_CAP,
  settleGasLimit,
  settleGasWanted,
  type SettleSender,
} from "./settle-sender";

const h = hashOf;
const signedOrder = fixtureSignedOrder;
const trade = fixtureTrade;

/** Budget of `n` trades of two orders each, every order a contract wallet's. */
const budget = (n: number) => settleGasWanted(2 * n, n, 2 * n);

test("settleGasWanted / settleGasLimit: the limit is the budget up to the cap, the cap beyond", () => {
  assert.equal(settleGasWanted(2, 1, 0), 200_000n + 80_000n + 40_000n);
  assert.equal(settleGasWanted(2, 1, 2) - settleGasWanted(2, 1, 0), 2n * ERC1271_SETTLE_GAS);
  assert.equal(settleGasLimit(2, 1, 2), settleGasWanted(2, 1, 2));
  assert.equal(settleGasLimit(200, 100, 200), SETTLE_GAS_CAP);
});

async function batchesFor(trades: number, fits: (t: readonly SettleableTrade[]) => boolean): Promise<number[]> {
  const dir = mkdtempSync(join(tmpdir(), "batcher-gas-cap-"));
  const sizes: number[] = [];
  const sender: SettleSender = {
    async nextBatchId() {
      return BigInt(sizes.length);
    },
    async send(_id: bigint, args: SettleArgs) {
      sizes.push(args.fills.length);
      return { txHash: h(99), gasUsed: 1n, blockNumber: 1n };
    },
  };
  const b = createBatcher({
    sender,
    storeDir: join(dir, "b"),
    signedOrder,
    maxTrades: 100,
    maxDelayMs: 1,
    maxInFlight: 1,
    fsync: false,
    fitsGasCap: fits,
  });
  try {
    await b.start();
    const hold = b.hold();
    for (let s = 1; s <= trades; s++) b.push(trade(s));
    hold();
    await b.drain();
    return sizes;
  } finally {
    await b.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

test("a batch of contract wallets' orders is cut to what the gas cap carries; the rest goes next, nothing is lost", async () => {
  let fitting = 1;
  while (budget(fitting + 1) <= SETTLE_GAS_CAP) fitting += 1;
  assert.ok(fitting < 100, `the cap carries ${fitting} all-wallet trades: fewer than a full batch`);
  const fits = (t: readonly SettleableTrade[]) => budget(t.length) <= SETTLE_GAS_CAP;
  const sizes = await batchesFor(100, fits);
  assert.equal(sizes[0], fitting, "the first batch is exactly as large as the cap allows");
  assert.ok(sizes.every((n) => n <= fitting));
  assert.equal(
    sizes.reduce((a, n) => a + n, 0),
    100,
    "every trade is sent once",
  );
});

test("at the boundary: a batch whose budget is exactly the cap goes whole; one unit over and its last trade waits", async () => {
  const whole = await batchesFor(10, (t) => t.length <= 10);
  assert.deepEqual(whole, [10]);
  const cut = await batchesFor(10, (t) => t.length <= 9);
  assert.deepEqual(cut, [9, 1]);
  const noCheck = await batchesFor(10, () => true);
  assert.deepEqual(noCheck, [10]);
});
