// The batcher at the exact edge of each of its limits, against a scripted fake sender: the batch size and
// the wait (one trade / one ms before, at the limit), the retry backoff, the confirmation-interval average and
// its clamps, in-flight pipelining, what stop() and a halt leave behind, the composition store (on disk
// before the send, one record per batch), the resend after a restart, and its health and logs.
// Time-dependent rules run on a frozen Date.now; timer delays are read from a setTimeout spy.
import { afterEach, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Hex } from "viem";
import type { SettleArgs, SignedOrder } from "../../sdk/settle-batch";
import { createBatcher, type BatchRecord, type BatcherDeps } from "./batcher";
import { appendJournalRecords, readJournalContents } from "../../matcher/testing/journal-files";
import { FatalChainError, RetryableChainError } from "../errors";
import type { SettleResult, SettleSender } from "./settle-sender";
import { addressOf, fixtureSignedOrder, fixtureTrade, hashOf } from "../testing/batcher-fixture";

const h = hashOf;
/** each order its own trader, so a batch's nonce reads are per order */
const order = (n: number): SignedOrder => fixtureSignedOrder(h(n), { trader: addressOf(0x1000 + n) });
const signedOrder = (hash: Hex) => order(Number(BigInt(hash)));
const trade = fixtureTrade;
const tick = (ms = 1) => new Promise((r) => setTimeout(r, ms));
async function until(cond: () => boolean, what: string, ms = 3_000): Promise<void> {
  const end = performance.now() + ms;
  while (!cond()) {
    if (performance.now() > end) assert.fail(`timed out waiting: ${what}`);
    await tick(1);
  }
}

type Step = "ok" | "retryable" | "lost-receipt" | "hold" | FatalChainError;
/** Applies batches in id order; `script[n]` is what happens to the n-th send (default ok). */
function scripted(script: Step[] = []) {
  const applied: { batchId: bigint; seqs: number[] }[] = [];
  const sends: { batchId: bigint; seqs: number[] }[] = [];
  const held: (() => void)[] = [];
  let nextBatchIdCalls = 0;
  let closes = 0;
  let resets = 0;
  let nextBatchIdOverride: (() => Promise<bigint>) | undefined;
  const seqsOf = (args: SettleArgs) => args.fills.map((f) => Number(f.baseAmount));
  const sender: SettleSender & { onSend?: (batchId: bigint) => void } = {
    async nextBatchId() {
      nextBatchIdCalls++;
      if (nextBatchIdOverride) {
        const o = nextBatchIdOverride;
        nextBatchIdOverride = undefined;
        return o();
      }
      return BigInt(applied.length);
    },
    async send(batchId, args): Promise<SettleResult> {
      const step = script[sends.length] ?? "ok";
      sends.push({ batchId, seqs: seqsOf(args) });
      sender.onSend?.(batchId);
      if (step === "hold") await new Promise<void>((r) => held.push(r));
      if (step instanceof FatalChainError) throw step;
      if (step === "retryable") throw new RetryableChainError("fetch failed");
      if (batchId !== BigInt(applied.length))
        throw new FatalChainError("out of order", "SettlementBatchOutOfOrder", [BigInt(applied.length), batchId]);
      applied.push({ batchId, seqs: seqsOf(args) });
      if (step === "lost-receipt") throw new RetryableChainError("socket hang up");
      return { txHash: h(1000 + Number(batchId)), gasUsed: 7n + batchId, blockNumber: 1n };
    },
    reset() {
      resets++;
    },
    close() {
      closes++;
    },
  };
  return {
    sender,
    applied,
    sends,
    release: () => held.splice(0).forEach((r) => r()),
    heldCount: () => held.length,
    stats: () => ({ nextBatchIdCalls, closes, resets }),
    overrideNextBatchId: (f: () => Promise<bigint>) => (nextBatchIdOverride = f),
  };
}

function recorder() {
  const lines: { level: "info" | "warn" | "error"; o: Record<string, unknown>; m?: string }[] = [];
  return {
    lines,
    logger: {
      info: (o: object, m?: string) => void lines.push({ level: "info", o: o as Record<string, unknown>, m }),
      warn: (o: object, m?: string) => void lines.push({ level: "warn", o: o as Record<string, unknown>, m }),
      error: (o: object, m?: string) => void lines.push({ level: "error", o: o as Record<string, unknown>, m }),
    },
  };
}

const dirs: string[] = [];
const cleanups: (() => void)[] = [];
function dir(): string {
  const d = mkdtempSync(join(tmpdir(), "batcher-edge-"));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Freezes Date.now at `t` (move it with the returned setter) for the rest of the test. */
function frozenClock(t = 1_000_000): { set(ms: number): void; now(): number } {
  const real = Date.now;
  let now = t;
  Date.now = () => now;
  cleanups.push(() => (Date.now = real));
  return { set: (ms) => (now = ms), now: () => now };
}

/** Records the delay of every setTimeout call for the rest of the test. */
function timerSpy(): number[] {
  const real = globalThis.setTimeout;
  const delays: number[] = [];
  globalThis.setTimeout = ((fn: () => void, ms?: number, ...rest: unknown[]) => {
    delays.push(ms ?? 0);
    return (real as (f: () => void, t?: number, ...a: unknown[]) => NodeJS.Timeout)(fn, ms, ...rest);
  }) as typeof setTimeout;
  cleanups.push(() => (globalThis.setTimeout = real));
  return delays;
}

function base(chain: ReturnType<typeof scripted>, extra: Partial<BatcherDeps> = {}): BatcherDeps {
  return {
    sender: chain.sender,
    storeDir: join(dir(), "b"),
    signedOrder,
    maxTrades: 10,
    maxDelayMs: 1,
    fsync: false,
    ...extra,
  };
}
const records = (storeDir: string) => readJournalContents<BatchRecord>(storeDir);

test("health before start, after start and after stop; stop() before start() is harmless", async () => {
  const chain = scripted();
  const b = createBatcher(base(chain));
  assert.deepEqual(b.health(), {
    state: "starting",
    nextBatchId: "0",
    queuedTrades: 0,
    lastSettledSeq: -1,
    lastError: undefined,
    rejectedOrders: 0,
  });
  assert.equal(b.confirmIntervalMs(), 10);
  const early = createBatcher(base(scripted()));
  await early.stop();
  assert.equal(early.health().state, "stopped");
  await b.start();
  assert.equal(b.health().state, "running");
  await b.stop();
  assert.equal(b.health().state, "stopped");
  assert.equal(chain.stats().closes, 1, "stop() closes the sender");
});

test("start: the store must hold the last batch the chain settled (batch n-1 of nextBatchId n); it resumes after that batch's trades", async () => {
  const chain = scripted();
  const d = dir();
  const storeDir = join(d, "b");
  chain.overrideNextBatchId(async () => 3n);
  const b = createBatcher(base(chain, { storeDir }));
  await assert.rejects(b.start(), { message: `batch store ${storeDir} lacks batch 2 that the chain settled` });
  appendJournalRecords(storeDir, [{ batchId: "0", fromSeq: 1, toSeq: 4, tradeCount: 4 }]);
  chain.overrideNextBatchId(async () => 1n);
  const log = recorder();
  const b2 = createBatcher(base(chain, { storeDir, logger: log.logger }));
  // the settled batch's transaction: neither in the store nor looked up (no findBatchTxs here)
  assert.deepEqual(await b2.start(), {
    lastSettledSeq: 4,
    settled: [{ batchId: 0n, fromSeq: 1, toSeq: 4, txHash: null }],
  });
  assert.deepEqual(log.lines, [
    { level: "info", o: { nextBatchId: "1", lastSettledSeq: 4, resend: undefined }, m: "batcher resumed" },
  ]);
  assert.equal(b2.health().nextBatchId, "1");
  await b2.stop();
});

test("start: settled batches come back with their transaction; one whose confirmation the store lacks (landed as the process died) is found on the chain once and journaled", async () => {
  const chain = scripted();
  const storeDir = join(dir(), "b");
  const b = createBatcher(base(chain, { storeDir, maxTrades: 2, maxInFlight: 1 }));
  for (const s of [1, 2, 3, 4]) b.push(trade(s)); // queued before the start: two full batches
  await b.start();
  await b.drain();
  await b.stop();
  assert.deepEqual(
    chain.applied.map((a) => a.seqs),
    [
      [1, 2],
      [3, 4],
    ],
  );
  // batch 2 landed, but the process died before its receipt: its composition is on disk, no confirmation
  appendJournalRecords(storeDir, [{ batchId: "2", fromSeq: 5, toSeq: 6, tradeCount: 2 }]);
  const asked: { ids: bigint[]; fromBlock: bigint | undefined }[] = [];
  const findBatchTxs: BatcherDeps["findBatchTxs"] = async (ids, fromBlock) => {
    asked.push({ ids: [...ids], fromBlock });
    return new Map([[2n, { txHash: h(2002), blockNumber: 9n }]]);
  };
  const expected = [
    { batchId: 0n, fromSeq: 1, toSeq: 2, txHash: h(1000) },
    { batchId: 1n, fromSeq: 3, toSeq: 4, txHash: h(1001) },
    { batchId: 2n, fromSeq: 5, toSeq: 6, txHash: h(2002) },
  ];
  chain.overrideNextBatchId(async () => 3n);
  const b2 = createBatcher(base(chain, { storeDir, findBatchTxs }));
  assert.deepEqual(await b2.start(), { lastSettledSeq: 6, settled: expected });
  assert.deepEqual(asked, [{ ids: [2n], fromBlock: 1n }], "searched from the block of the last confirmation before it");
  await b2.stop();
  chain.overrideNextBatchId(async () => 3n);
  const b3 = createBatcher(base(chain, { storeDir, findBatchTxs }));
  assert.deepEqual(await b3.start(), { lastSettledSeq: 6, settled: expected });
  assert.equal(asked.length, 1, "the confirmation found on the chain was journaled: not searched again");
  await b3.stop();
});

test("a batch leaves at exactly maxTrades trades, not one before (the wait not yet over)", async () => {
  const clock = frozenClock();
  const chain = scripted();
  // a wait of a minute: only the batch size (the push that completes it) can send within the test
  const b = createBatcher(base(chain, { maxTrades: 3, maxDelayMs: 60_000 }));
  await b.start();
  b.push(trade(1, clock.now()));
  b.push(trade(2, clock.now()));
  await tick(5);
  assert.equal(chain.sends.length, 0, "2 of 3 trades: not due");
  b.push(trade(3, clock.now()));
  await until(() => chain.sends.length === 1, "the batch of 3");
  assert.deepEqual(chain.sends[0].seqs, [1, 2, 3]);
  b.push(trade(4, clock.now()));
  b.push(trade(5, clock.now()));
  b.push(trade(6, clock.now()));
  b.push(trade(7, clock.now()));
  await until(() => chain.sends.length === 2, "the second batch");
  assert.deepEqual(chain.sends[1].seqs, [4, 5, 6], "at most maxTrades per batch");
  await tick(5);
  assert.equal(chain.sends.length, 2, "the 7th trade waits");
  clock.set(clock.now() + 60_000);
  await b.drain();
  assert.deepEqual(chain.sends[2].seqs, [7]);
  await b.stop();
});

test("a lone trade leaves when it has waited exactly maxDelayMs (not 1 ms before), woken by a timer set for what is left of the wait", async () => {
  const clock = frozenClock();
  const delays = timerSpy();
  const chain = scripted();
  const b = createBatcher(base(chain, { maxTrades: 10, maxDelayMs: 1_000 }));
  await b.start();
  const t0 = clock.now();
  b.push(trade(1, t0 - 990));
  await until(() => delays.includes(10), "a timer for the 10 ms left");
  clock.set(t0 + 9); // waited 999 ms
  await tick(30);
  assert.equal(chain.sends.length, 0, "999 ms: not yet");
  assert.ok(delays.includes(1), "then a timer for the last 1 ms");
  clock.set(t0 + 10); // waited 1,000 ms
  await until(() => chain.sends.length === 1, "sent at 1,000 ms");
  await b.stop();
});

test("confirmIntervalMs: 0.8/0.2 moving average of the time between confirmations while trades wait, clamped to 10..1000", async () => {
  for (const [stepMs, want] of [
    [100, 42], // first confirmation: no interval yet; then 0.8*10+0.2*100 = 28; 0.8*28+20 = 42.4; the last (nothing waiting) is not counted
    [5_000, 1_000], // 8 + 1000 = 1008: clamped
    [0, 10], // 8, 6.4: clamped up to 10
  ] as const) {
    const clock = frozenClock();
    const chain = scripted();
    chain.sender.onSend = () => clock.set(clock.now() + stepMs);
    const b = createBatcher(base(chain, { maxTrades: 1, maxInFlight: 1 }));
    await b.start();
    for (let s = 1; s <= 4; s++) b.push(trade(s));
    await b.drain();
    assert.equal(chain.applied.length, 4);
    assert.equal(b.confirmIntervalMs(), want, `step ${stepMs}`);
    await b.stop();
    for (const c of cleanups.splice(0)) c();
  }
});

test("retry backoff: 50 ms, then 100 ms (25 ms x 2^attempt) before each re-send; each attempt logged", async () => {
  const delays = timerSpy();
  const chain = scripted(["retryable", "retryable"]);
  const log = recorder();
  const settled: { batchId: bigint; txHash: Hex; gasUsed: bigint }[] = [];
  const b = createBatcher(
    base(chain, {
      logger: log.logger,
      onSettled: (x) => settled.push({ batchId: x.batchId, txHash: x.txHash, gasUsed: x.gasUsed }),
    }),
  );
  await b.start();
  b.push(trade(1));
  await b.drain();
  assert.deepEqual(
    delays.filter((d) => d >= 25),
    [50, 100],
  );
  assert.deepEqual(
    log.lines.filter((l) => l.level === "warn"),
    [1, 2].map((attempt) => ({
      level: "warn",
      o: { batchId: "0", attempt, inFlight: 1, err: "fetch failed" },
      m: "settle failed, retrying",
    })),
  );
  assert.equal(b.health().state, "running");
  assert.equal(b.health().lastError, "fetch failed");
  assert.deepEqual(settled, [{ batchId: 0n, txHash: h(1000), gasUsed: 7n }]);
  assert.ok(chain.stats().resets >= 2, "the sender is reset before each re-send");
  await b.stop();
});

test("recovery: a failed nextBatchId read is retried (the log says why), and the batch is not counted as landed", async () => {
  const chain = scripted(["retryable"]);
  chain.overrideNextBatchId(async () => 0n); // start
  const log = recorder();
  const settled: Hex[] = [];
  const b = createBatcher(base(chain, { logger: log.logger, onSettled: (x) => settled.push(x.txHash) }));
  await b.start();
  chain.overrideNextBatchId(async () => {
    throw new Error("rpc down");
  });
  b.push(trade(1));
  await b.drain();
  assert.deepEqual(
    log.lines.filter((l) => l.level === "warn").map((l) => l.o.err),
    ["rpc down"],
  );
  assert.deepEqual(
    chain.applied.map((a) => a.seqs),
    [[1]],
  );
  assert.deepEqual(settled, [h(1000)]);
  await b.stop();
});

test("recovery: a receipt-confirmed batch the chain does not count yet (a stale read) is asked again, not halted on", async () => {
  const chain = scripted(["retryable"]);
  const b = createBatcher(base(chain));
  await b.start();
  chain.sender.onSend = () => {
    // the re-send lands; the next nextBatchId read is stale (still 0)
    if (chain.sends.length === 2) chain.overrideNextBatchId(async () => 0n);
  };
  b.push(trade(1));
  await b.drain();
  assert.equal(b.health().state, "running");
  assert.deepEqual(
    chain.applied.map((a) => a.seqs),
    [[1]],
  );
  assert.equal(b.health().lastSettledSeq, 1);
  await b.stop();
});

test("stop during the retry backoff: nothing more is sent, pending drains resolve, the state stays stopped", async () => {
  const chain = scripted(Array(50).fill("retryable"));
  const log = recorder();
  const b = createBatcher(base(chain, { logger: log.logger }));
  await b.start();
  b.push(trade(1));
  let drained = false;
  const drain = b.drain().then(() => (drained = true));
  await until(() => log.lines.some((l) => l.level === "warn"), "the first retry");
  const sent = chain.sends.length;
  await b.stop();
  await drain;
  assert.ok(drained);
  await tick(120);
  assert.equal(chain.sends.length, sent, "no send after stop");
  assert.equal(b.health().state, "stopped");
  assert.equal(b.health().queuedTrades, 1);
});

test("stop with a batch in flight: it still counts when it lands; a failed one does not", async () => {
  const chain = scripted(["hold"]);
  const settled: number[] = [];
  const b = createBatcher(base(chain, { onSettled: (x) => settled.push(...x.trades.map((t) => t.seq)) }));
  await b.start();
  b.push(trade(1));
  await until(() => chain.heldCount() === 1, "in flight");
  const stopping = b.stop();
  chain.release();
  await stopping;
  assert.deepEqual(settled, [1]);
  assert.equal(b.health().lastSettledSeq, 1);
  assert.equal(b.health().state, "stopped");

  // two in flight (room for a third, so stop() wakes the loop): the first fails, so neither counts
  const failing = scripted(["hold", "hold"]);
  failing.sender.send = async () => {
    await new Promise<void>((r) => failing.release === undefined || heldFail.push(r));
    throw new RetryableChainError("socket hang up");
  };
  const heldFail: (() => void)[] = [];
  const settled2: number[] = [];
  const b2 = createBatcher(
    base(failing, { maxTrades: 1, maxInFlight: 3, onSettled: (x) => settled2.push(...x.trades.map((t) => t.seq)) }),
  );
  await b2.start();
  b2.push(trade(1));
  b2.push(trade(2));
  await until(() => heldFail.length === 2, "two in flight");
  const stopping2 = b2.stop();
  heldFail.splice(0).forEach((r) => r());
  await stopping2;
  assert.deepEqual(settled2, []);
  assert.equal(b2.health().lastSettledSeq, -1);
});

test("the composition is on disk before its send; a retry and a resend after a restart add no composition record; the receipt adds the confirmation", async () => {
  const chain = scripted(["retryable"]);
  const d = dir();
  const storeDir = join(d, "b");
  const onDiskAtSend: boolean[] = [];
  chain.sender.onSend = (id) => onDiskAtSend.push(records(storeDir).some((r) => r.batchId === id.toString()));
  const b = createBatcher(base(chain, { storeDir }));
  await b.start();
  b.push(trade(1));
  b.push(trade(2));
  await b.drain();
  await b.stop();
  assert.deepEqual(onDiskAtSend, [true, true]);
  assert.deepEqual(records(storeDir), [
    { batchId: "0", fromSeq: 1, toSeq: 2, tradeCount: 2 },
    { batchId: "0", fromSeq: 1, toSeq: 2, tradeCount: 2, txHash: h(1000), blockNumber: "1" },
  ]);

  // a crash after batch 1 was persisted: the restart re-sends exactly it, without a second record
  appendJournalRecords(storeDir, [{ batchId: "1", fromSeq: 3, toSeq: 5, tradeCount: 3 }]);
  const b2 = createBatcher(base(chain, { storeDir, maxTrades: 2, isDropped: () => false }));
  assert.equal((await b2.start()).lastSettledSeq, 2);
  b2.push(trade(3));
  b2.push(trade(4));
  await tick(10);
  assert.equal(chain.sends.length, 2, "the replay has not re-pushed the whole batch yet: nothing sent");
  b2.push(trade(5));
  await b2.drain();
  assert.deepEqual(
    chain.applied.map((a) => a.seqs),
    [
      [1, 2],
      [3, 4, 5],
    ],
    "the resend holds exactly its trades, more than maxTrades",
  );
  assert.deepEqual(records(storeDir).filter((r) => r.batchId === "1" && !r.txHash).length, 1);
  await b2.stop();
});

test("onSettled carries each batch's tx hash and gas; a batch that landed without its receipt gets 0x and 0; nextBatchId is read only to recover", async () => {
  const chain = scripted(["ok", "lost-receipt", "ok", "ok"]);
  const settled: { batchId: bigint; txHash: Hex; gasUsed: bigint }[] = [];
  const b = createBatcher(
    base(chain, {
      maxTrades: 1,
      maxInFlight: 1,
      onSettled: (x) => settled.push({ batchId: x.batchId, txHash: x.txHash, gasUsed: x.gasUsed }),
    }),
  );
  await b.start();
  for (let s = 1; s <= 4; s++) b.push(trade(s));
  await b.drain();
  assert.deepEqual(settled, [
    { batchId: 0n, txHash: h(1000), gasUsed: 7n },
    { batchId: 1n, txHash: "0x", gasUsed: 0n },
    { batchId: 2n, txHash: h(1002), gasUsed: 9n },
    { batchId: 3n, txHash: h(1003), gasUsed: 10n },
  ]);
  assert.equal(chain.stats().nextBatchIdCalls, 2, "once at start, once after the lost receipt");
  await b.stop();
});

test("two in flight: a batch landed behind one that lost its receipt keeps its own tx hash", async () => {
  const chain = scripted(["hold", "hold"]);
  chain.sender.send = ((orig) => async (id: bigint, a: SettleArgs) => {
    const r = await orig(id, a);
    if (id === 0n) throw new RetryableChainError("socket hang up");
    return r;
  })(chain.sender.send.bind(chain.sender));
  const settled: [bigint, Hex][] = [];
  const b = createBatcher(
    base(chain, { maxTrades: 1, maxInFlight: 2, onSettled: (x) => settled.push([x.batchId, x.txHash]) }),
  );
  await b.start();
  b.push(trade(1));
  b.push(trade(2));
  await until(() => chain.heldCount() === 2, "two in flight");
  chain.release();
  await b.drain();
  assert.deepEqual(settled, [
    [0n, "0x"],
    [1n, h(1001)],
  ]);
  await b.stop();
});

test("pipelining: a trade arriving while a batch is in flight leaves at once with maxInFlight 2, waits with 1", async () => {
  for (const maxInFlight of [2, 1]) {
    const chain = scripted(["hold", "hold"]);
    const b = createBatcher(base(chain, { maxTrades: 1, maxInFlight }));
    await b.start();
    b.push(trade(1));
    await until(() => chain.sends.length === 1, "first send");
    b.push(trade(2));
    if (maxInFlight === 2) await until(() => chain.sends.length === 2, "second send while the first is in flight");
    else {
      await tick(10);
      assert.equal(chain.sends.length, 1, "one at a time");
    }
    chain.release();
    // with 1 in flight the second batch leaves once the first landed (its composition and the first's
    // confirmation written): release it once it is sent
    await until(() => chain.applied.length >= 1 && chain.sends.length === 2, "landing, then the second send");
    chain.release();
    await b.drain();
    chain.release();
    assert.deepEqual(
      chain.applied.map((a) => a.seqs),
      [[1], [2]],
    );
    await b.stop();
  }
});

test("a trade arriving during a wait that is not due yet does not send; the one that fills the batch does", async () => {
  const clock = frozenClock();
  const chain = scripted(["hold"]);
  const b = createBatcher(base(chain, { maxTrades: 3, maxDelayMs: 60_000, maxInFlight: 2 }));
  await b.start();
  for (const s of [1, 2, 3]) b.push(trade(s, clock.now()));
  await until(() => chain.sends.length === 1, "first batch");
  b.push(trade(4, clock.now()));
  b.push(trade(5, clock.now()));
  await tick(10);
  assert.equal(chain.sends.length, 1);
  b.push(trade(6, clock.now()));
  await until(() => chain.sends.length === 2, "the second batch of 3, while the first is in flight");
  assert.deepEqual(chain.sends[1].seqs, [4, 5, 6]);
  chain.release();
  await b.drain();
  await b.stop();
});

test("a halt without onHalt still ends drains; drain after a halt resolves at once; the halt is logged with the batch", async () => {
  const pause = new FatalChainError("settle reverted: EnforcedPause", "EnforcedPause", []);
  const chain = scripted([pause]);
  const log = recorder();
  const b = createBatcher(base(chain, { logger: log.logger }));
  await b.start();
  b.push(trade(1));
  b.push(trade(2));
  await b.drain();
  assert.equal(b.health().state, "halted");
  assert.equal(b.health().lastError, pause.message);
  await b.drain();
  b.push(trade(3));
  await b.drain();
  assert.deepEqual(
    log.lines.filter((l) => l.level === "error"),
    [
      {
        level: "error",
        o: { batchId: "0", fromSeq: 1, toSeq: 2, revert: "EnforcedPause", args: [], err: pause.message },
        m: "batcher halted: a batch cannot settle",
      },
    ],
  );
  await b.stop();
});

test("an order the batcher cannot find halts before anything is sent, naming the batch and the order", async () => {
  const chain = scripted();
  const log = recorder();
  let halted = "";
  const b = createBatcher(
    base(chain, {
      logger: log.logger,
      signedOrder: (x) => (x === h(4) ? undefined : signedOrder(x)),
      onHalt: (r) => (halted = r),
    }),
  );
  await b.start();
  b.push(trade(1));
  b.push(trade(2)); // queued behind it: with no flight, the log names the first unsent trade only
  await b.drain();
  assert.equal(halted, `batch 0: signed order ${h(4)} unknown`);
  assert.equal(chain.sends.length, 0);
  assert.deepEqual(
    log.lines.filter((l) => l.level === "error").map((l) => l.o),
    [{ batchId: "0", fromSeq: 1, toSeq: 1, revert: undefined, args: undefined, err: halted }],
  );
  await b.stop();
});
