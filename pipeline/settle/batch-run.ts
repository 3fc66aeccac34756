// The batcher's state, shared by its parts (batch-building.ts, batch-flights.ts, batch-quarantine.ts and
// the loop in batcher.ts): the unsettled trades, the batches in flight, the batch store.
import type { SettleArgs } from "../../sdk/settle-batch";
import type { RecordLog } from "../../matcher/journal";
import type { Clock } from "../../runtime/clock";
import type { BatchRecord, BatcherDeps, BatcherState, SettleableTrade } from "./batch-types";
import type { SettleResult } from "./settle-sender";

export interface Flight {
  batchId: bigint;
  trades: SettleableTrade[];
  args: SettleArgs;
  /** the clock (ms) when the batch was formed and handed on (bench stages) */
  launchedAtMs: number;
  /** settles with the send's outcome; never rejects */
  outcome: Promise<{ ok: SettleResult } | { err: unknown }>;
}

export interface BatchRun {
  readonly deps: BatcherDeps;
  readonly clock: Clock;
  readonly log: BatcherDeps["logger"];
  /** batches sent and not yet confirmed, at most */
  readonly maxInFlight: number;
  store: RecordLog<BatchRecord> | undefined;
  readonly byId: Map<string, BatchRecord>;
  /** the next batch id to be confirmed (the contract's nextBatchId once every flight landed) */
  nextId: bigint;
  lastSettledSeq: number;
  /** a batch persisted but not known to be settled at start: must be re-sent with exactly these trades */
  resend: BatchRecord | undefined;
  /** every unsettled trade in seq order; the first `dispatched` of them belong to the flights */
  readonly queue: SettleableTrade[];
  dispatched: number;
  /** batches sent (or being sent), oldest first */
  flights: Flight[];
  /** sends leave in batch-id order: each waits for the previous one's hand-over to the sender */
  dispatchTail: Promise<unknown>;
  state: BatcherState;
  lastError: string | undefined;
  timer: NodeJS.Timeout | undefined;
  loop: Promise<void> | undefined;
  wake: (() => void) | undefined;
  /** ends the retry backoff under way now (retryNow(), stop()) */
  retryNow: (() => void) | undefined;
  lastPushedSeq: number;
  readonly drainWaiters: (() => void)[];
  /** hold() calls not yet released: while any, takeBatch() gives nothing new */
  holds: number;
  /** moving average of the time between confirmations while busy */
  confirmEveryMs: number;
  lastConfirmAt: number;
  /** trade seqs dropped since start: a late push of one is ignored */
  readonly dropped: Set<number>;
  /** orders rejected since start, for health and tests */
  rejectedOrders: number;
}

export function newBatchRun(deps: BatcherDeps, clock: Clock): BatchRun {
  return {
    deps,
    clock,
    log: deps.logger,
    maxInFlight: Math.max(1, deps.maxInFlight ?? 2),
    store: undefined,
    byId: new Map(),
    nextId: 0n,
    lastSettledSeq: -1,
    resend: undefined,
    queue: [],
    dispatched: 0,
    flights: [],
    dispatchTail: Promise.resolve(),
    state: "starting",
    lastError: undefined,
    timer: undefined,
    loop: undefined,
    wake: undefined,
    retryNow: undefined,
    lastPushedSeq: -1,
    drainWaiters: [],
    holds: 0,
    confirmEveryMs: 10,
    lastConfirmAt: 0,
    dropped: new Set(),
    rejectedOrders: 0,
  };
}

/** Wakes drain() callers once nothing is left to settle (or nothing more will be). */
export function notifyDrained(b: BatchRun): void {
  if (b.queue.length === 0 || b.state === "halted" || b.state === "stopped")
    b.drainWaiters.splice(0).forEach((r) => r());
}
