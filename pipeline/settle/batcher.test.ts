// The batcher's exactly-once rules against a fake chain: a persisted batch that did not land is re-sent
// with the same trades; a batch whose receipt was lost is not sent twice; a revert halts without skipping.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Hex } from "viem";
import type { SettleArgs, SignedOrder } from "../../sdk/settle-batch";
import { createBatcher } from "./batcher";
import { appendJournalRecords } from "../../matcher/testing/journal-files";
import { FatalChainError, RetryableChainError } from "../errors";
import type { SettleSender } from "./settle-sender";
import { fixtureSignedOrder, fixtureTrade, hashOf } from "../testing/batcher-fixture";
import { createChainAvailability, type SupervisedChainStatus } from "./chain-availability";
import { withTempDir } from "../../test/support/temp-dir";

const h = hashOf;
const order = (n: number): SignedOrder => fixtureSignedOrder(h(n));
const trade = fixtureTrade;

/** A chain that applies batches in id order and can fail on demand. */
function fakeChain() {
  const applied: { batchId: bigint; seqs: bigint[] }[] = [];
  let failNext: "retryable" | "lost-receipt" | "revert" | null = null;
  const sender: SettleSender = {
    async nextBatchId() {
      return BigInt(applied.length);
    },
    async send(batchId: bigint, args: SettleArgs) {
      if (batchId !== BigInt(applied.length)) throw new FatalChainError("out of order", "SettlementBatchOutOfOrder");
      const mode = failNext;
      failNext = null;
      if (mode === "retryable") throw new RetryableChainError("fetch failed");
      if (mode === "revert")
        throw new FatalChainError("settle reverted: SettlementOrderExpired", "SettlementOrderExpired");
      applied.push({ batchId, seqs: args.fills.map((f) => f.baseAmount) });
      if (mode === "lost-receipt") throw new RetryableChainError("timed out waiting for the receipt");
      return { txHash: h(99), gasUsed: 1n, blockNumber: 1n };
    },
  };
  return { sender, applied, fail: (m: typeof failNext) => (failNext = m) };
}

const withDir = (fn: (dir: string) => Promise<void>) => withTempDir("batcher-", fn);

const signedOrder = (hash: Hex) => order(Number(BigInt(hash)));

test("trades settle once, in order, across retries, a lost receipt and a restart with a batch in flight", async () => {
  await withDir(async (dir) => {
    const chain = fakeChain();
    const storeDir = join(dir, "batches");
    const b1 = createBatcher({
      sender: chain.sender,
      storeDir,
      signedOrder,
      maxTrades: 3,
      maxDelayMs: 1,
      fsync: false,
    });
    assert.equal((await b1.start()).lastSettledSeq, -1);
    chain.fail("retryable");
    for (const s of [1, 2, 3]) b1.push(trade(s));
    await b1.drain();
    chain.fail("lost-receipt");
    for (const s of [4, 5]) b1.push(trade(s));
    await b1.drain();
    assert.deepEqual(
      chain.applied.map((a) => a.seqs),
      [
        [1n, 2n, 3n],
        [4n, 5n],
      ],
    );
    await b1.stop();

    // a crash after the composition of batch 2 was persisted but before it landed: the store has it
    appendJournalRecords(storeDir, [{ batchId: "2", fromSeq: 6, toSeq: 8, tradeCount: 3 }]);
    const b2 = createBatcher({
      sender: chain.sender,
      storeDir,
      signedOrder,
      maxTrades: 2,
      maxDelayMs: 1,
      fsync: false,
    });
    assert.equal((await b2.start()).lastSettledSeq, 5);
    // the replay re-pushes everything: settled trades are ignored, batch 2 is re-sent with exactly 6..8
    for (const s of [1, 2, 3, 4, 5, 6, 7, 8, 9]) b2.push(trade(s));
    await b2.drain();
    assert.deepEqual(
      chain.applied.map((a) => a.seqs),
      [[1n, 2n, 3n], [4n, 5n], [6n, 7n, 8n], [9n]],
    );
    await b2.stop();
  });
});

test("a revert halts the batcher: the batch is not skipped and later trades wait", async () => {
  await withDir(async (dir) => {
    const chain = fakeChain();
    let halted = "";
    const b = createBatcher({
      sender: chain.sender,
      storeDir: join(dir, "b"),
      signedOrder,
      maxTrades: 2,
      maxDelayMs: 1,
      fsync: false,
      onHalt: (r) => (halted = r),
    });
    await b.start();
    chain.fail("revert");
    for (const s of [1, 2, 3]) b.push(trade(s));
    await b.drain();
    assert.equal(b.health().state, "halted");
    assert.match(halted, /SettlementOrderExpired/);
    assert.equal(chain.applied.length, 0);
    assert.equal(b.health().queuedTrades, 3);
    await b.stop();
  });
});

/** A chain that receives sends in call order (one socket) and answers each a few ms later, so that
 *  several batches are in flight; `faults` says what happens to the n-th send (0-based). */
function slowChain(faults: Record<number, "drop" | "lost-receipt" | "revert">) {
  const applied: { batchId: bigint; seqs: bigint[] }[] = [];
  let calls = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  let resets = 0;
  const sender: SettleSender = {
    async nextBatchId() {
      return BigInt(applied.length);
    },
    send(batchId: bigint, args: SettleArgs) {
      const fault = faults[calls++];
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      // arrival: the contract applies batches strictly in id order
      let outcome: () => { txHash: Hex; gasUsed: bigint; blockNumber: bigint };
      if (fault === "drop")
        outcome = () => {
          throw new RetryableChainError("socket hang up");
        };
      else if (batchId !== BigInt(applied.length))
        outcome = () => {
          throw new FatalChainError("out of order", "SettlementBatchOutOfOrder");
        };
      else if (fault === "revert")
        outcome = () => {
          throw new FatalChainError("settle reverted: SettlementOrderExpired", "SettlementOrderExpired");
        };
      else {
        applied.push({ batchId, seqs: args.fills.map((f) => f.baseAmount) });
        outcome =
          fault === "lost-receipt"
            ? () => {
                throw new RetryableChainError("socket hang up");
              }
            : () => ({ txHash: h(99), gasUsed: 1n, blockNumber: 1n });
      }
      return new Promise((resolve, reject) =>
        setTimeout(() => {
          inFlight--;
          try {
            resolve(outcome());
          } catch (e) {
            reject(e);
          }
        }, 5),
      );
    },
    reset() {
      resets++;
    },
  };
  return { sender, applied, stats: () => ({ maxInFlight, calls, resets }) };
}

/** Batches of two trades, two in flight, against `chain`. */
const twoInFlight = (chain: ReturnType<typeof slowChain>, dir: string) => ({
  sender: chain.sender,
  storeDir: join(dir, "b"),
  signedOrder,
  maxTrades: 2,
  maxDelayMs: 1,
  maxInFlight: 2,
  fsync: false,
});

test("two batches in flight: a dropped send and a lost receipt are recovered in order, each trade settled once", async () => {
  await withDir(async (dir) => {
    // send 1 (batch 1) is dropped while batch 2 follows it (and fails out of order); send 4 lands without its receipt
    const chain = slowChain({ 1: "drop", 4: "lost-receipt" });
    const settled: number[] = [];
    const b = createBatcher({
      ...twoInFlight(chain, dir),
      onSettled: (x) => settled.push(...x.trades.map((t) => t.seq)),
    });
    await b.start();
    for (let s = 1; s <= 12; s++) b.push(trade(s));
    await b.drain();
    assert.equal(b.health().state, "running");
    assert.deepEqual(
      chain.applied.map((a) => a.batchId),
      [0n, 1n, 2n, 3n, 4n, 5n],
    );
    assert.deepEqual(
      chain.applied.flatMap((a) => a.seqs),
      [1n, 2n, 3n, 4n, 5n, 6n, 7n, 8n, 9n, 10n, 11n, 12n],
    );
    assert.deepEqual(settled, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    assert.equal(chain.stats().maxInFlight, 2, "a second batch left while the first was in flight");
    assert.ok(chain.stats().resets >= 1, "the sender was reset before the re-sends");
    await b.stop();
  });
});

test("two batches in flight: a revert halts, the batch behind it does not land, nothing is skipped", async () => {
  await withDir(async (dir) => {
    const chain = slowChain({ 1: "revert" });
    let halted = "";
    const b = createBatcher({ ...twoInFlight(chain, dir), onHalt: (r) => (halted = r) });
    await b.start();
    for (let s = 1; s <= 6; s++) b.push(trade(s));
    await b.drain();
    assert.equal(b.health().state, "halted");
    assert.match(halted, /SettlementOrderExpired/);
    assert.deepEqual(
      chain.applied.map((a) => a.batchId),
      [0n],
    );
    assert.equal(b.health().nextBatchId, "1");
    assert.equal(b.health().queuedTrades, 4);
    await b.stop();
  });
});

test("the home chain back up ends the retry's backoff at once: the batch lands without waiting it out", {
  timeout: 30_000,
}, async () => {
  await withDir(async (dir) => {
    const chain = fakeChain();
    let status: SupervisedChainStatus = { state: "up", sinceMs: 0, expectedRestartMs: 1_000 };
    const onStatus: ((s: SupervisedChainStatus) => void)[] = [];
    const availability = createChainAvailability({
      chainId: 31337,
      clock: { now: () => 0 },
      supervisor: { status: () => status, onStatus: (fn) => (onStatus.push(fn), () => undefined) },
    });
    const attempts: number[] = [];
    const batcher = createBatcher({
      sender: availability.watch(chain.sender),
      storeDir: dir,
      signedOrder,
      maxTrades: 1,
      maxDelayMs: 1,
      fsync: false,
      // a backoff far longer than this test's timeout: only retryNow() can end it
      retryBackoffMs: (attempt) => (attempts.push(attempt), 10 * 60_000),
    });
    availability.onUp(() => batcher.retryNow()); // as pipeline.ts wires it
    await batcher.start();
    status = { state: "down", sinceMs: 0, expectedRestartMs: 1_000 };
    chain.fail("retryable");
    batcher.push(trade(0));
    while (attempts.length === 0) await new Promise((r) => setImmediate(r));
    assert.equal(batcher.health().state, "retrying");
    assert.equal(chain.applied.length, 0);
    status = { state: "up", sinceMs: 0, expectedRestartMs: 1_000 };
    for (const fn of onStatus) fn(status);
    await batcher.drain();
    assert.deepEqual(
      chain.applied.map((a) => a.seqs),
      [[0n]],
    );
    assert.deepEqual(attempts, [1], "one backoff, ended by the chain's up");
    assert.equal(batcher.health().state, "running");
    // nothing waiting: retryNow() is a no-op, and stop() does not wait out a backoff either
    batcher.retryNow();
    chain.fail("retryable");
    batcher.push(trade(1));
    while (attempts.length === 1) await new Promise((r) => setImmediate(r));
    await batcher.stop();
    assert.equal(batcher.health().state, "stopped");
  });
});
