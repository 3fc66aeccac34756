// The batcher's store as start() opens it (durable by default, a previous version's batches.jsonl carried
// in) and a hold released when no loop waits for work.
import { afterEach, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openRecordLog, type OpenRecordLog } from "../../matcher/journal";
import { createBatcher, type BatcherDeps } from "./batcher";
import type { SettleSender } from "./settle-sender";
import { fixtureSignedOrder } from "../testing/batcher-fixture";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function storeDir(): string {
  const d = mkdtempSync(join(tmpdir(), "batcher-store-"));
  dirs.push(d);
  return join(d, "b");
}

const chainAt = (nextBatchId: bigint): SettleSender => ({
  nextBatchId: async () => nextBatchId,
  send: async () => assert.fail("nothing is due"),
});

const deps = (dir: string, extra: Partial<BatcherDeps> = {}): BatcherDeps => ({
  sender: chainAt(0n),
  storeDir: dir,
  signedOrder: fixtureSignedOrder,
  maxTrades: 10,
  maxDelayMs: 60_000,
  ...extra,
});

test("start: the batch store is opened with fsync unless told otherwise", async () => {
  const opened: (boolean | undefined)[] = [];
  const spy: OpenRecordLog = (options) => {
    opened.push(options.fsync);
    return openRecordLog({ ...options, fsync: false });
  };
  for (const fsync of [undefined, false, true]) {
    const b = createBatcher(deps(storeDir(), { openStore: spy, ...(fsync === undefined ? {} : { fsync }) }));
    await b.start();
    await b.stop();
  }
  assert.deepEqual(opened, [true, false, true]);
});

test("start: a previous version's batches.jsonl is carried into the store: the chain's last batch is found in it", async () => {
  const dir = storeDir();
  mkdirSync(dir, { recursive: true });
  const lines = [
    { batchId: "0", fromSeq: 1, toSeq: 4, tradeCount: 4 },
    { batchId: "1", fromSeq: 5, toSeq: 9, tradeCount: 3 },
  ];
  writeFileSync(join(dir, "batches.jsonl"), lines.map((l) => `${JSON.stringify(l)}\n`).join(""));
  const b = createBatcher(deps(dir, { sender: chainAt(2n), fsync: false }));
  assert.deepEqual(await b.start(), {
    lastSettledSeq: 9,
    settled: [
      { batchId: 0n, fromSeq: 1, toSeq: 4, txHash: null },
      { batchId: 1n, fromSeq: 5, toSeq: 9, txHash: null },
    ],
  });
  await b.stop();
});

test("hold: releasing it before the start, or twice, is harmless", async () => {
  const b = createBatcher(deps(storeDir(), { fsync: false }));
  const release = b.hold();
  release();
  release();
  await b.start();
  assert.equal(b.health().state, "running");
  await b.stop();
});
