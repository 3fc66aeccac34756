// The flight window's parts (batch-flights.ts) on a batch run built by hand: what a confirmation journals
// and hands to onSettled, when fill() sends, when waitForWork() arms its timer, the revert metric and the
// retry backoff of recover(). The batcher's own tests (batcher*.test.ts) drive the same code through its loop.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Hex } from "viem";
import type { SettleArgs } from "../../sdk/settle-batch";
import type { RecordLog } from "../../matcher/journal";
import { metrics } from "../../runtime/metrics";
import { FatalChainError, RetryableChainError } from "../errors";
import { done, fill, recover, waitForWork } from "./batch-flights";
import { newBatchRun, type Flight } from "./batch-run";
import type { BatchRecord, BatcherDeps, SettledBatch } from "./batch-types";
import type { SettleResult } from "./settle-sender";
import { fixtureSignedOrder, fixtureTrade, hashOf } from "../testing/batcher-fixture";

const NOW = 5_000_000;

/** A batch run at `nextId` whose store records appends (or fails them), sender scripted by `send`. */
function runWith(extra: Partial<BatcherDeps> & { failAppend?: boolean; noStore?: boolean } = {}) {
  const appended: BatchRecord[] = [];
  const settled: SettledBatch[] = [];
  const lines: { level: string; o: object; m?: string }[] = [];
  const sent: bigint[] = [];
  const logger = {
    info: (o: object, m?: string) => lines.push({ level: "info", o, m }),
    warn: (o: object, m?: string) => lines.push({ level: "warn", o, m }),
    error: (o: object, m?: string) => lines.push({ level: "error", o, m }),
  };
  const deps = {
    storeDir: "unused",
    maxTrades: 2,
    maxDelayMs: 1_000,
    maxInFlight: 2,
    logger,
    signedOrder: (h: Hex) => fixtureSignedOrder(h),
    onSettled: (s: SettledBatch) => settled.push(s),
    sender: {
      nextBatchId: async () => 0n,
      send: async (batchId: bigint): Promise<SettleResult> => {
        sent.push(batchId);
        return { txHash: hashOf(0x900), gasUsed: 1n } as SettleResult;
      },
    },
    ...extra,
  } as BatcherDeps;
  const b = newBatchRun(deps, { now: () => NOW });
  if (!extra.noStore)
    b.store = {
      append: async (c: BatchRecord) => {
        if (extra.failAppend) throw new Error("disk full");
        appended.push(c);
      },
    } as unknown as RecordLog<BatchRecord>;
  b.state = "running";
  return { b, appended, settled, lines, sent };
}

const flightOf = (batchId: bigint, seqs: number[]): Flight => ({
  batchId,
  trades: seqs.map((s) => fixtureTrade(s)),
  args: {} as SettleArgs,
  launchedAtMs: NOW - 50,
  outcome: new Promise(() => undefined),
});

const receipt = (o: Partial<SettleResult> = {}) => ({ txHash: hashOf(0xabc), gasUsed: 21_000n, ...o }) as SettleResult;

test("done: a confirmation without a journaled composition records the flight's own trades, with the transaction and its block", async () => {
  const { b, appended, settled } = runWith();
  const f = flightOf(3n, [7, 8, 9]);
  b.queue.push(...f.trades);
  b.dispatched = 3;
  done(b, f, receipt({ blockNumber: 42n }));
  await Promise.resolve();
  const expected = { batchId: "3", fromSeq: 7, toSeq: 9, tradeCount: 3, txHash: hashOf(0xabc), blockNumber: "42" };
  assert.deepEqual(appended, [expected]);
  assert.deepEqual(b.byId.get("3"), expected);
  assert.equal(b.nextId, 4n);
  assert.equal(b.lastSettledSeq, 9);
  assert.deepEqual(
    settled.map((s) => [s.batchId, s.txHash, s.gasUsed, s.stages]),
    [[3n, hashOf(0xabc), 21_000n, undefined]],
  );
});

test("done: a receipt without a block journals no block; without a store the batch still settles", async () => {
  const { b, appended } = runWith();
  const f = flightOf(0n, [1]);
  b.byId.set("0", { batchId: "0", fromSeq: 1, toSeq: 1, tradeCount: 1 });
  b.queue.push(...f.trades);
  done(b, f, receipt());
  await Promise.resolve();
  assert.deepEqual(appended, [{ batchId: "0", fromSeq: 1, toSeq: 1, tradeCount: 1, txHash: hashOf(0xabc) }]);
  assert.equal("blockNumber" in appended[0], false);

  const storeless = runWith({ noStore: true });
  storeless.b.queue.push(...f.trades);
  done(storeless.b, f, receipt({ blockNumber: 1n }));
  assert.equal(storeless.b.byId.get("0")?.txHash, hashOf(0xabc));
  assert.equal(storeless.settled.length, 1);
});

test("done: onSettled gets the batch's stages only when the receipt says when it was sent and answered", () => {
  const { b, settled } = runWith();
  const f = flightOf(0n, [1]);
  const g = flightOf(1n, [2]);
  b.queue.push(...f.trades, ...g.trades);
  done(b, f, receipt({ sentAtMs: NOW - 40, answeredAtMs: NOW - 10 }));
  done(b, g, receipt({ sentAtMs: NOW - 40 }));
  assert.deepEqual(settled[0].stages, { launchedAtMs: NOW - 50, sentAtMs: NOW - 40, answeredAtMs: NOW - 10 });
  assert.equal("stages" in settled[1], false);
});

test("done: a confirmation the store fails to write is logged; the batch is settled all the same", async () => {
  const { b, settled, lines } = runWith({ failAppend: true });
  const f = flightOf(0n, [1]);
  b.queue.push(...f.trades);
  done(b, f, receipt());
  await new Promise((r) => setImmediate(r));
  assert.equal(settled.length, 1);
  assert.deepEqual(lines, [
    { level: "warn", o: { batchId: "0", err: "disk full" }, m: "batch confirmation not journaled" },
  ]);
});

test("fill: sends what is due while running or retrying, nothing once halted, stopped or starting", async () => {
  for (const state of ["running", "retrying", "halted", "stopped", "starting"] as const) {
    const { b, sent } = runWith();
    b.queue.push(fixtureTrade(1), fixtureTrade(2));
    b.state = state;
    fill(b);
    const launched = state === "running" || state === "retrying";
    assert.equal(b.flights.length, launched ? 1 : 0, state);
    assert.equal(b.dispatched, launched ? 2 : 0, state);
    await Promise.all(b.flights.map((f) => f.outcome));
    assert.deepEqual(sent, launched ? [0n] : [], state);
  }
});

test("waitForWork: the due-time timer is armed only with trades behind the flights, room in flight, no resend and no hold", () => {
  const armed = (setup: (b: ReturnType<typeof runWith>["b"]) => void) => {
    const { b } = runWith();
    b.queue.push(fixtureTrade(1, NOW - 100));
    setup(b);
    void waitForWork(b);
    const on = b.timer !== undefined;
    clearTimeout(b.timer);
    return on;
  };
  assert.equal(
    armed(() => undefined),
    true,
  );
  assert.equal(
    armed((b) => b.flights.push(flightOf(0n, [0]))),
    true,
    "one of two in flight",
  );
  assert.equal(
    armed((b) => b.flights.push(flightOf(0n, [0]), flightOf(1n, [0]))),
    false,
    "the window is full",
  );
  assert.equal(
    armed((b) => {
      b.resend = { batchId: "0", fromSeq: 1, toSeq: 1, tradeCount: 1 };
    }),
    false,
    "a resend waits for its trades",
  );
  assert.equal(
    armed((b) => {
      b.holds = 1;
    }),
    false,
    "held",
  );
  assert.equal(
    armed((b) => {
      b.dispatched = 1;
    }),
    false,
    "nothing behind the flights",
  );
});

const revertCount = async (reason: string) =>
  (await metrics.settleReverts.get()).values.find((v) => v.labels.reason === reason)?.value ?? 0;

test("recover: a revert is counted by its error's name (unknown without one), then halts without onRejected", async () => {
  for (const [revertName, label] of [
    ["BadSignature", "BadSignature"],
    [undefined, "unknown"],
  ] as const) {
    const { b } = runWith();
    const err = new FatalChainError("reverted", revertName);
    b.flights = [{ ...flightOf(0n, [1]), outcome: Promise.resolve({ err }) }];
    const before = await revertCount(label);
    await assert.rejects(recover(b), err);
    assert.equal(await revertCount(label), before + 1, label);
  }
});

test("recover: the retry backoff ends on its timer and leaves no stale retryNow behind", async () => {
  let reads = 0;
  const { b, sent } = runWith({
    retryBackoffMs: () => 1,
    sender: {
      nextBatchId: async () => BigInt(reads++ === 0 ? 0 : 1),
      send: async (batchId: bigint) => {
        sent.push(batchId);
        return receipt();
      },
    } as unknown as BatcherDeps["sender"],
  });
  b.queue.push(fixtureTrade(1));
  b.flights = [{ ...flightOf(0n, [1]), outcome: Promise.resolve({ err: new RetryableChainError("fetch failed") }) }];
  await recover(b);
  assert.deepEqual(sent, [0n], "re-sent once after the backoff");
  assert.equal(b.retryNow, undefined);
  assert.equal(b.state, "running");
  assert.equal(b.nextId, 1n);
});
