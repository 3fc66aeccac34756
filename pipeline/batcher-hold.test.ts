// batcher.hold(), the test hook that makes "an on-chain action between match and settle" deterministic
// (test/e2e/poisoned-wallets.test.ts): while held nothing is sent, whatever the batch size or delay; on release
// everything queued is sent; releasing twice releases once; holds nest.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Hex } from "viem";
import type { SettleArgs } from "../sdk/settle-batch";
import { createBatcher, type SettleableTrade } from "./batcher";
import { fixtureSignedOrder, fixtureTrade, hashOf } from "./testing/batcher-fixture";
import type { SettleSender } from "./settle-sender";

const h = hashOf;
const signedOrder = fixtureSignedOrder;
const trade = fixtureTrade;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test("nothing leaves while held (full batches, past their delay); release sends all; holds nest; a second release is a no-op", async () => {
  const dir = mkdtempSync(join(tmpdir(), "batcher-hold-"));
  const sent: bigint[][] = [];
  const sender: SettleSender = {
    async nextBatchId() {
      return BigInt(sent.length);
    },
    async send(_id: bigint, args: SettleArgs) {
      sent.push(args.fills.map((f) => f.baseAmount));
      return { txHash: h(99), gasUsed: 1n, blockNumber: 1n };
    },
  };
  const b = createBatcher({ sender, storeFile: join(dir, "b.jsonl"), signedOrder, maxTrades: 2, maxDelayMs: 1, fsync: false });
  try {
    await b.start();
    const r1 = b.hold();
    const r2 = b.hold();
    for (const s of [1, 2, 3, 4, 5]) b.push(trade(s));
    await sleep(50);
    assert.equal(sent.length, 0, "held: not one batch, though two are full and all are past their delay");
    assert.equal(b.health().queuedTrades, 5);
    r1();
    r1();
    await sleep(50);
    assert.equal(sent.length, 0, "one hold is left (a second release of the first does not release the other)");
    r2();
    await b.drain();
    assert.deepEqual(sent, [[1n, 2n], [3n, 4n], [5n]]);
    b.push(trade(6));
    await b.drain();
    assert.deepEqual(sent.at(-1), [6n], "released: the next trade leaves on its own");
  } finally {
    await b.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
