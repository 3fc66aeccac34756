// Batcher.hold(): a test hook that keeps new batches from leaving (the resend after a start is not held),
// released by each holder once; a timer does not fire a held batch.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { createBatcher, type BatcherDeps } from "./batcher";
import { appendJournalRecords } from "../../matcher/testing/journal-files";
import type { SettleSender } from "./settle-sender";
import { fixtureSignedOrder, fixtureTrade, hashOf } from "../testing/batcher-fixture";
import { withTempDir } from "../../test/support/temp-dir";

const h = hashOf;
const signedOrder = fixtureSignedOrder;
const trade = fixtureTrade;
const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

function chain() {
  const applied: number[][] = [];
  const sender: SettleSender = {
    async nextBatchId() {
      return BigInt(applied.length);
    },
    async send(_id, args) {
      applied.push(args.fills.map((f) => Number(f.baseAmount)));
      return { txHash: h(1), gasUsed: 1n, blockNumber: 1n };
    },
  };
  return { sender, applied };
}

const withDir = (fn: (dir: string) => Promise<void>) => withTempDir("batcher-hold-", fn);
const deps = (c: ReturnType<typeof chain>, dir: string, extra: Partial<BatcherDeps> = {}): BatcherDeps => ({
  sender: c.sender,
  storeDir: join(dir, "b"),
  signedOrder,
  maxTrades: 10,
  maxDelayMs: 1,
  fsync: false,
  ...extra,
});

test("hold(): nothing new leaves until every holder released (each release counts once), then it all goes", async () => {
  await withDir(async (dir) => {
    const c = chain();
    const b = createBatcher(deps(c, dir));
    await b.start();
    const r1 = b.hold();
    const r2 = b.hold();
    b.push(trade(1));
    b.push(trade(2));
    await tick(15);
    assert.deepEqual(c.applied, [], "held: even past maxDelayMs");
    r1();
    r1(); // a second call of the same release does nothing
    await tick(15);
    assert.deepEqual(c.applied, [], "still held by the other holder");
    r2();
    await b.drain();
    assert.deepEqual(c.applied, [[1, 2]]);
    // every hold released: a new one holds again
    const r3 = b.hold();
    b.push(trade(3));
    await tick(15);
    assert.deepEqual(c.applied, [[1, 2]]);
    r3();
    await b.drain();
    assert.deepEqual(c.applied, [[1, 2], [3]]);
    await b.stop();
  });
});

test("hold(): the resend of a persisted batch after a restart is not held", async () => {
  await withDir(async (dir) => {
    const c = chain();
    appendJournalRecords(join(dir, "b"), [{ batchId: "0", fromSeq: 1, toSeq: 2, tradeCount: 2 }]);
    const b = createBatcher(deps(c, dir));
    await b.start();
    const release = b.hold();
    b.push(trade(1));
    b.push(trade(2));
    b.push(trade(3));
    await tick(15);
    assert.deepEqual(c.applied, [[1, 2]], "the resend went; trade 3 is held");
    release();
    await b.drain();
    assert.deepEqual(c.applied, [[1, 2], [3]]);
    await b.stop();
  });
});
