import { openRecordLog } from "../../matcher/journal";
import { systemClock } from "../../runtime/clock";
import type { FatalChainError } from "../errors";
import { settledAtStart, type SettledBatchRecord } from "./batch-confirmations";
import { done, fill, recover, waitForWork } from "./batch-flights";
import { newBatchRun, notifyDrained, type BatchRun } from "./batch-run";

export type {
  BatchRecord,
  BatcherDeps,
  BatcherHealth,
  BatcherState,
  SettleableTrade,
  SettledBatch,
} from "./batch-types";
import type { BatchRecord, BatcherDeps, BatcherHealth, SettleableTrade } from "./batch-types";

export interface Batcher {
  /** Reads nextBatchId and the store; returns the last settled trade seq: the caller re-pushes every trade
   *  after it (from the journal replay) before new ones; and every batch the chain settled before this
   *  start with its transaction (batch-confirmations.ts), for the fills the journal replay rebuilt. */
  start(): Promise<{ lastSettledSeq: number; settled: SettledBatchRecord[] }>;
  push(trade: SettleableTrade): void;
  /** Resolves once every trade pushed so far is settled (or the batcher halted/stopped). */
  drain(): Promise<void>;
  stop(): Promise<void>;
  health(): BatcherHealth;
  /** Recent time between two confirmed batches while trades were waiting (ms, 10..1000; 10 before any). */
  confirmIntervalMs(): number;
  /** Ends a retry's backoff now (the home chain is back: pipeline.ts wires its availability's onUp here);
   *  nothing when no retry is waiting. */
  retryNow(): void;
  /** Tests: no new batch leaves until the returned release is called (batches already sent go on; a resend
   *  after a start is not held). Makes "on-chain action between match and settle" races deterministic. */
  hold(): () => void;
}

/** The batch store of the previous version (JSON lines), carried into the journal once. */
const LEGACY_STORE = "batches.jsonl";

/** Sends what is due, settles what lands, recovers from failures; halts on what cannot settle. */
async function run(b: BatchRun): Promise<void> {
  while (b.state === "running" || b.state === "retrying") {
    try {
      fill(b);
      if (b.flights.length === 0) {
        await waitForWork(b);
        continue;
      }
      const oldest = b.flights[0];
      const next =
        b.flights.length < b.maxInFlight ? await Promise.race([oldest.outcome, waitForWork(b)]) : await oldest.outcome;
      if (next === "wake") continue;
      if ("ok" in next) {
        b.flights.shift();
        done(b, oldest, next.ok);
        continue;
      }
      await recover(b);
    } catch (e) {
      halt(b, e);
    } finally {
      b.wake = undefined;
      if (b.timer) clearTimeout(b.timer);
      b.timer = undefined;
    }
  }
  // stopping: what is on its way still counts when it lands
  if (b.state === "stopped")
    for (const f of b.flights) {
      const o = await f.outcome;
      if (!("ok" in o)) break;
      done(b, f, o.ok);
    }
}

function halt(b: BatchRun, e: unknown): void {
  b.state = "halted";
  b.lastError = (e as Error).message;
  const fe = e as FatalChainError;
  const batch = b.flights[0]?.trades ?? b.queue.slice(b.dispatched, b.dispatched + 1);
  b.log?.error(
    {
      batchId: (b.flights[0]?.batchId ?? b.nextId).toString(),
      fromSeq: batch[0]?.seq,
      toSeq: batch[batch.length - 1]?.seq,
      revert: fe.revertName,
      args: fe.revertArgs?.map(String),
      err: b.lastError,
    },
    "batcher halted: a batch cannot settle",
  );
  b.deps.onHalt?.(b.lastError);
  notifyDrained(b);
}

/** Opens the store, reads nextBatchId, finds the batch to re-send and the settled batches' transactions,
 *  starts the loop. */
async function start(b: BatchRun): Promise<{ lastSettledSeq: number; settled: SettledBatchRecord[] }> {
  const { deps } = b;
  const store = (b.store = await (deps.openStore ?? openRecordLog)<BatchRecord>({
    dir: deps.storeDir,
    fsync: deps.fsync ?? true,
    replay: (r) => b.byId.set(r.c.batchId, r.c),
    legacy: { file: LEGACY_STORE, convert: (line) => ({ c: line as BatchRecord }) },
  }));
  let prev: BatchRecord | undefined;
  try {
    b.nextId = await deps.sender.nextBatchId();
    prev = b.byId.get((b.nextId - 1n).toString());
    if (b.nextId > (deps.firstBatchId ?? 0n) && !prev)
      throw new Error(`batch store ${deps.storeDir} lacks batch ${b.nextId - 1n} that the chain settled`);
  } catch (err) {
    await store.close().catch(() => undefined);
    throw err;
  }
  b.lastSettledSeq = prev ? prev.toSeq : -1;
  b.resend = b.byId.get(b.nextId.toString());
  b.lastPushedSeq = b.lastSettledSeq;
  const settled = await settledAtStart(b);
  b.state = "running";
  b.log?.info(
    { nextBatchId: b.nextId.toString(), lastSettledSeq: b.lastSettledSeq, resend: b.resend },
    "batcher resumed",
  );
  b.loop = run(b);
  return { lastSettledSeq: b.lastSettledSeq, settled };
}

export function createBatcher(deps: BatcherDeps): Batcher {
  const b = newBatchRun(deps, deps.clock ?? systemClock);
  return {
    start: () => start(b),
    push(t) {
      if (t.seq <= b.lastPushedSeq) return; // already settled (or pushed): exactly once
      if (b.dropped.has(t.seq)) return; // its order was rejected meanwhile
      b.lastPushedSeq = t.seq;
      b.queue.push(t);
      const behind = b.queue.length - b.dispatched;
      if (b.wake && (behind >= deps.maxTrades || behind === 1 || b.resend)) b.wake();
    },
    drain() {
      if (b.queue.length === 0 || b.state === "halted") return Promise.resolve();
      return new Promise((r) => b.drainWaiters.push(r));
    },
    async stop() {
      b.state = "stopped";
      b.wake?.();
      b.retryNow?.();
      await b.loop?.catch(() => undefined);
      deps.sender.close?.();
      await b.store?.close().catch(() => undefined); // a failed write was already reported to its batch
      notifyDrained(b);
    },
    retryNow() {
      b.retryNow?.();
    },
    hold() {
      b.holds += 1;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        b.holds -= 1;
        b.wake?.();
      };
    },
    confirmIntervalMs() {
      return Math.min(1000, Math.max(10, Math.round(b.confirmEveryMs)));
    },
    health() {
      return {
        state: b.state,
        nextBatchId: b.nextId.toString(),
        queuedTrades: b.queue.length,
        lastSettledSeq: b.lastSettledSeq,
        lastError: b.lastError,
        rejectedOrders: b.rejectedOrders,
      };
    },
  };
}
