// Groups matched trades into settle batches (by count and by time) and settles each exactly once, in order.
// Up to `maxInFlight` batches are on their way at once (batch k+1 is sent while the chain executes k), in
// batch-id order: the sender delivers sends in call order. Before a batch is sent its composition (batch
// id -> trade seq range) is on disk; after a crash the contract's nextBatchId says which batches landed, and
// the first one that did not is re-sent with the same trades. When a batch fails, every batch behind it
// ends first; the ones that landed count, the rest are re-sent in order with the same trades (retryable).
// A revert that one trader's order causes (pipeline/settle/poison.ts: a nonce cancelled on chain, an agent revoked,
// a contract wallet that changed its answer, a balance withdrawn...) does not stop the venue: the batcher
// finds the order(s) (the error's arguments; eth_call of sub-batches when the error names only a trader
// with several orders), has the matcher journal the decision and cancel them (`onRejected`), drops their
// trades and rebuilds the batch from what is left (same batch id, a new composition on disk). Any other
// revert halts the batcher (it logs the decoded error and reports it to health).
import type { Hex } from "viem";
import { buildSettleArgs, type SettleArgs, type SignedOrder } from "../../sdk/settle-batch";
import { openRecordLog, type RecordLog } from "../../matcher/journal";
import { FatalChainError } from "../errors";
import { isOrderAttributable, suspectOrders } from "./poison";
import type { SettleResult, SettleSender } from "./settle-sender";

export interface SettleableTrade {
  /** the engine event sequence number of the trade (strictly increasing) */
  seq: number;
  makerHash: Hex;
  takerHash: Hex;
  baseAmount: bigint;
  price: bigint;
  /** ms timestamp when the trade was acknowledged (for latency figures) */
  matchedAtMs: number;
}

export interface BatchRecord {
  batchId: string;
  fromSeq: number;
  toSeq: number;
  tradeCount: number;
}

export interface SettledBatch {
  batchId: bigint;
  trades: SettleableTrade[];
  txHash: Hex;
  gasUsed: bigint;
  settledAtMs: number;
}

export type BatcherState = "starting" | "running" | "retrying" | "halted" | "stopped";

export interface BatcherHealth {
  state: BatcherState;
  nextBatchId: string;
  queuedTrades: number;
  lastSettledSeq: number;
  lastError?: string;
  /** orders cancelled since start because the contract refused them (their trades dropped) */
  rejectedOrders: number;
}

export interface BatcherDeps {
  sender: SettleSender;
  /** directory of the journal of batch compositions (matcher/journal; a `batches.jsonl` of the previous
   *  version found there is carried in once) */
  storeDir: string;
  signedOrder(hash: Hex): SignedOrder | undefined;
  maxTrades: number;
  maxDelayMs: number;
  /** batches sent and not yet confirmed, at most (default 2; 1 = one at a time) */
  maxInFlight?: number;
  logger?: {
    info(o: object, m?: string): void;
    error(o: object, m?: string): void;
    warn(o: object, m?: string): void;
  };
  onSettled?(b: SettledBatch): void;
  onHalt?(reason: string): void;
  /** Orders the contract refuses (hash, error name): the matcher journals the decision, cancels them and
   *  answers every unsettled trade seq it drops (resolves once the decision is durable). Absent: every
   *  revert halts. */
  onRejected?(orders: { hash: Hex; error: string }[]): Promise<number[]>;
  /** trade seqs a journaled decision dropped (the resend after a restart does not wait for them) */
  isDropped?(seq: number): boolean;
  /** Whether a settle of these trades fits the per-transaction gas cap (contract wallets' orders carry an
   *  ERC-1271 stipend each); absent = any batch of `maxTrades` fits. A new batch is cut short until it does. */
  fitsGasCap?(trades: readonly SettleableTrade[]): boolean;
  fsync?: boolean;
}

export interface Batcher {
  /** Reads nextBatchId and the store; returns the last settled trade seq: the caller re-pushes every trade
   *  after it (from the journal replay) before new ones. */
  start(): Promise<{ lastSettledSeq: number }>;
  push(trade: SettleableTrade): void;
  /** Resolves once every trade pushed so far is settled (or the batcher halted/stopped). */
  drain(): Promise<void>;
  stop(): Promise<void>;
  health(): BatcherHealth;
  /** Recent time between two confirmed batches while trades were waiting (ms, 10..1000; 10 before any). */
  confirmIntervalMs(): number;
  /** Tests: no new batch leaves until the returned release is called (batches already sent go on; a resend
   *  after a start is not held). Makes "on-chain action between match and settle" races deterministic. */
  hold(): () => void;
}

/** The batch store of the previous version (JSON lines), carried into the journal once. */
const LEGACY_STORE = "batches.jsonl";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function createBatcher(deps: BatcherDeps): Batcher {
  let store: RecordLog<BatchRecord> | undefined;
  const byId = new Map<string, BatchRecord>();
  const maxInFlight = Math.max(1, deps.maxInFlight ?? 2);
  /** the next batch id to be confirmed (the contract's nextBatchId once every flight landed) */
  let nextId = 0n;
  let lastSettledSeq = -1;
  /** a batch persisted but not known to be settled at start: must be re-sent with exactly these trades */
  let resend: BatchRecord | undefined;
  /** every unsettled trade in seq order; the first `dispatched` of them belong to the flights */
  const queue: SettleableTrade[] = [];
  let dispatched = 0;
  /** batches sent (or being sent), oldest first */
  let flights: Flight[] = [];
  /** sends leave in batch-id order: each waits for the previous one's hand-over to the sender */
  let dispatchTail: Promise<unknown> = Promise.resolve();
  let state: BatcherState = "starting";
  let lastError: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  let loop: Promise<void> | undefined;
  let wake: (() => void) | undefined;
  let lastPushedSeq = -1;
  const drainWaiters: (() => void)[] = [];
  /** hold() calls not yet released: while any, takeBatch() gives nothing new */
  let holds = 0;
  const log = deps.logger;
  /** moving average of the time between confirmations while busy */
  let confirmEveryMs = 10;
  let lastConfirmAt = 0;
  /** trade seqs dropped since start: a late push of one is ignored */
  const dropped = new Set<number>();
  /** orders rejected since start, for health and tests */
  let rejectedOrders = 0;

  interface Flight {
    batchId: bigint;
    trades: SettleableTrade[];
    args: SettleArgs;
    /** settles with the send's outcome; never rejects */
    outcome: Promise<{ ok: SettleResult } | { err: unknown }>;
  }

  function notifyDrained(): void {
    if (queue.length === 0 || state === "halted" || state === "stopped") drainWaiters.splice(0).forEach((r) => r());
  }

  /** The next batch to send from the trades behind the flights, or null when none is due yet. */
  function takeBatch(): SettleableTrade[] | null {
    const avail = queue.length - dispatched;
    if (avail <= 0) return null;
    if (holds > 0 && !resend) return null;
    if (resend) {
      if (dispatched > 0) return null; // only ever the first batch after a start
      const upTo = queue.findIndex((t) => t.seq > resend!.toSeq);
      const n = upTo === -1 ? queue.length : upTo;
      // trades of the record a journaled decision dropped never come back: the resend goes without them
      let gone = 0;
      if (deps.isDropped) for (let seq = resend.fromSeq; seq <= resend.toSeq; seq++) if (deps.isDropped(seq)) gone += 1;
      if (n < resend.tradeCount - gone) return null; // the replay has not re-pushed all of it yet
      if (n === 0) {
        resend = undefined; // every trade of it was dropped: nothing to re-send
        return takeBatch();
      }
      return queue.slice(0, n);
    }
    const oldest = queue[dispatched].matchedAtMs;
    if (avail >= deps.maxTrades || Date.now() - oldest >= deps.maxDelayMs) {
      const batch = queue.slice(dispatched, dispatched + deps.maxTrades);
      // a batch the gas cap cannot carry would revert without data (out of gas), which halts: cut it short
      while (batch.length > 1 && deps.fitsGasCap && !deps.fitsGasCap(batch)) batch.pop();
      return batch;
    }
    return null;
  }

  function argsFor(batchId: bigint, trades: SettleableTrade[]): SettleArgs {
    const orders: SignedOrder[] = [];
    for (const t of trades) {
      for (const h of [t.makerHash, t.takerHash]) {
        const so = deps.signedOrder(h);
        if (!so) throw new FatalChainError(`batch ${batchId}: signed order ${h} unknown`);
        orders.push(so);
      }
    }
    return buildSettleArgs(
      orders,
      trades.map((t) => ({
        makerHash: t.makerHash,
        takerHash: t.takerHash,
        baseAmount: t.baseAmount,
        price: t.price,
      }))
    );
  }

  /** Persists the composition (unless it is already on disk), then hands the batch to the sender in order. */
  function launch(batchId: bigint, trades: SettleableTrade[], args: SettleArgs, persist: boolean): Flight {
    let persisted: Promise<void> = Promise.resolve();
    if (persist) {
      const rec: BatchRecord = {
        batchId: batchId.toString(),
        fromSeq: trades[0].seq,
        toSeq: trades[trades.length - 1].seq,
        tradeCount: trades.length,
      };
      persisted = store!.append(rec);
      byId.set(rec.batchId, rec);
    }
    const gate = dispatchTail.then(() => persisted);
    dispatchTail = gate.catch(() => undefined);
    const outcome = gate
      .then(() => deps.sender.send(batchId, args))
      .then(
        (ok) => ({ ok }),
        (err: unknown) => ({ err })
      );
    return { batchId, trades, args, outcome };
  }

  function done(batchId: bigint, trades: SettleableTrade[], txHash: Hex, gasUsed: bigint): void {
    const now = Date.now();
    if (lastConfirmAt > 0 && queue.length > trades.length) confirmEveryMs = 0.8 * confirmEveryMs + 0.2 * (now - lastConfirmAt);
    lastConfirmAt = now;
    queue.splice(0, trades.length);
    dispatched -= trades.length;
    lastSettledSeq = trades[trades.length - 1].seq;
    nextId = batchId + 1n;
    if (state === "retrying") state = "running";
    deps.onSettled?.({
      batchId,
      trades,
      txHash,
      gasUsed,
      settledAtMs: Date.now(),
    });
    notifyDrained();
  }

  /** Sends every batch that is due while there is room in flight. */
  function fill(): void {
    while (flights.length < maxInFlight && (state === "running" || state === "retrying")) {
      const batch = takeBatch();
      if (!batch) return;
      const batchId = nextId + BigInt(flights.length);
      const args = argsFor(batchId, batch);
      // a resend whose trades were dropped gets a new record (what it now holds)
      const isResend = resend !== undefined && resend.tradeCount === batch.length;
      resend = undefined;
      flights.push(launch(batchId, batch, args, !isResend));
      dispatched += batch.length;
    }
  }

  function ordersOf(trades: SettleableTrade[]) {
    const seen = new Map<string, NonNullable<ReturnType<BatcherDeps["signedOrder"]>>>();
    for (const t of trades)
      for (const h of [t.makerHash, t.takerHash]) {
        const so = deps.signedOrder(h);
        if (so) seen.set(h.toLowerCase(), so);
      }
    return [...seen.values()];
  }

  /** The orders a revert names; when it names several (a trader's), the ones whose own trades revert the
   *  same way alone (eth_call), or all of them when none does alone (a shared balance). */
  async function attribute(err: FatalChainError, batchId: bigint, trades: SettleableTrade[]): Promise<Map<string, string>> {
    const suspects = suspectOrders(err.revertName, err.revertArgs, ordersOf(trades));
    const name = err.revertName!;
    const out = new Map<string, string>();
    if (suspects.length > 1 && deps.sender.simulate) {
      for (const h of suspects) {
        const own = trades.filter((t) => t.makerHash.toLowerCase() === h.toLowerCase() || t.takerHash.toLowerCase() === h.toLowerCase());
        const r = await deps.sender.simulate(batchId, argsFor(batchId, own));
        if (r && suspectOrders(r.revertName, r.revertArgs, ordersOf(own)).some((x) => x.toLowerCase() === h.toLowerCase())) out.set(h.toLowerCase(), r.revertName!);
      }
    }
    if (out.size === 0) for (const h of suspects) out.set(h.toLowerCase(), name);
    return out;
  }

  /** Removes dropped trades from the queue (in place: the first `dispatched` are reset by the caller). */
  function dropFromQueue(seqs: Iterable<number>, hashes: Set<string>): void {
    for (const seq of seqs) dropped.add(seq);
    let w = 0;
    for (let i = 0; i < queue.length; i++) {
      const t = queue[i];
      if (dropped.has(t.seq) || hashes.has(t.makerHash.toLowerCase()) || hashes.has(t.takerHash.toLowerCase())) {
        dropped.add(t.seq);
        continue;
      }
      queue[w++] = t;
    }
    queue.length = w;
  }

  /** A batch reverted because of one or more orders: find them, have the decision journaled, drop their
   *  trades; then check what is left of the batch (eth_call) until it would settle or a fatal error shows. */
  async function quarantine(flight: Flight, first: FatalChainError): Promise<void> {
    let err = first;
    let trades = flight.trades;
    for (let round = 0; round < 64; round++) {
      const bad = await attribute(err, flight.batchId, trades);
      if (bad.size === 0) throw err;
      const orders = [...bad].map(([hash, error]) => ({ hash: hash as Hex, error }));
      // durable before anything else is sent: a restart replays the same decision
      const seqs = await deps.onRejected!(orders);
      rejectedOrders += orders.length;
      const hashes = new Set(bad.keys());
      dropFromQueue(seqs, hashes);
      log?.warn({ batchId: flight.batchId.toString(), revert: err.revertName, orders, droppedTrades: seqs.length }, "settle reverted on orders the contract refuses: cancelled, their trades dropped, batch rebuilt");
      trades = trades.filter((t) => !dropped.has(t.seq));
      if (trades.length === 0 || !deps.sender.simulate) return;
      const again = await deps.sender.simulate(flight.batchId, argsFor(flight.batchId, trades));
      if (!again) return;
      if (!isOrderAttributable(again.revertName)) throw again;
      err = again;
    }
    throw err;
  }

  /** After a failure: let every flight end, keep the ones that landed, re-send the rest in order or halt. */
  async function recover(): Promise<void> {
    let attempt = 0;
    for (;;) {
      const outcomes = await Promise.all(flights.map((f) => f.outcome));
      let onChain: bigint;
      try {
        onChain = await deps.sender.nextBatchId();
      } catch (e) {
        onChain = -1n; // unknown: retried below
        lastError = (e as Error).message;
      }
      if (onChain >= 0n) {
        while (flights.length > 0 && flights[0].batchId < onChain) {
          const f = flights.shift()!;
          const o = outcomes.shift()!;
          // landed, though its receipt may have been lost
          if ("ok" in o) done(f.batchId, f.trades, o.ok.txHash, o.ok.gasUsed);
          else done(f.batchId, f.trades, "0x" as Hex, 0n);
        }
        if (flights.length === 0) return;
        const first = outcomes[0];
        if ("ok" in first) {
          // confirmed by its receipt yet not counted by the chain's nextBatchId (a stale read): ask again
        } else if (first.err instanceof FatalChainError) {
          if (!deps.onRejected || !isOrderAttributable(first.err.revertName)) throw first.err;
          await quarantine(flights[0], first.err);
          // nothing behind the failed batch landed either: every trade left is rebuilt into new batches
          flights = [];
          dispatched = 0;
          deps.sender.reset?.();
          if (state === "retrying") state = "running";
          notifyDrained();
          return;
        } else lastError = (first.err as Error).message;
      }
      attempt += 1;
      if (state === "stopped") return; // stop() came while the flights ended: no retry over it
      state = "retrying";
      log?.warn(
        {
          batchId: flights[0].batchId.toString(),
          attempt,
          inFlight: flights.length,
          err: lastError,
        },
        "settle failed, retrying"
      );
      await sleep(Math.min(5_000, 25 * 2 ** Math.min(attempt, 8)));
      if (state !== "retrying") return; // stopped meanwhile
      deps.sender.reset?.();
      flights = flights.map((f) => launch(f.batchId, f.trades, f.args, false));
    }
  }

  function waitForWork(): Promise<"wake"> {
    return new Promise<"wake">((r) => {
      wake = () => r("wake");
      const behind = queue.length - dispatched;
      if (behind > 0 && flights.length < maxInFlight && !resend && holds === 0)
        timer = setTimeout(wake, Math.max(1, deps.maxDelayMs - (Date.now() - queue[dispatched].matchedAtMs)));
    });
  }

  async function run(): Promise<void> {
    while (state === "running" || state === "retrying") {
      try {
        fill();
        if (flights.length === 0) {
          await waitForWork();
          continue;
        }
        const oldest = flights[0];
        const next = flights.length < maxInFlight ? await Promise.race([oldest.outcome, waitForWork()]) : await oldest.outcome;
        if (next === "wake") continue;
        if ("ok" in next) {
          flights.shift();
          done(oldest.batchId, oldest.trades, next.ok.txHash, next.ok.gasUsed);
          continue;
        }
        await recover();
      } catch (e) {
        state = "halted";
        lastError = (e as Error).message;
        const fe = e as FatalChainError;
        const batch = flights[0]?.trades ?? queue.slice(dispatched, dispatched + 1);
        log?.error(
          {
            batchId: (flights[0]?.batchId ?? nextId).toString(),
            fromSeq: batch[0]?.seq,
            toSeq: batch[batch.length - 1]?.seq,
            revert: fe.revertName,
            args: fe.revertArgs?.map(String),
            err: lastError,
          },
          "batcher halted: a batch cannot settle"
        );
        deps.onHalt?.(lastError);
        notifyDrained();
      } finally {
        wake = undefined;
        if (timer) clearTimeout(timer);
        timer = undefined;
      }
    }
    // stopping: what is on its way still counts when it lands
    if (state === "stopped")
      for (const f of flights) {
        const o = await f.outcome;
        if (!("ok" in o)) break;
        done(f.batchId, f.trades, o.ok.txHash, o.ok.gasUsed);
      }
  }

  return {
    async start() {
      store = await openRecordLog<BatchRecord>({
        dir: deps.storeDir,
        fsync: deps.fsync ?? true,
        replay: (r) => byId.set(r.c.batchId, r.c),
        legacy: { file: LEGACY_STORE, convert: (line) => ({ c: line as BatchRecord }) },
      });
      let prev: BatchRecord | undefined;
      try {
        nextId = await deps.sender.nextBatchId();
        prev = byId.get((nextId - 1n).toString());
        if (nextId > 0n && !prev) throw new Error(`batch store ${deps.storeDir} lacks batch ${nextId - 1n} that the chain settled`);
      } catch (err) {
        await store.close().catch(() => undefined);
        throw err;
      }
      lastSettledSeq = prev ? prev.toSeq : -1;
      resend = byId.get(nextId.toString());
      lastPushedSeq = lastSettledSeq;
      state = "running";
      log?.info({ nextBatchId: nextId.toString(), lastSettledSeq, resend }, "batcher resumed");
      loop = run();
      return { lastSettledSeq };
    },
    push(t) {
      if (t.seq <= lastPushedSeq) return; // already settled (or pushed): exactly once
      if (dropped.has(t.seq)) return; // its order was rejected meanwhile
      lastPushedSeq = t.seq;
      queue.push(t);
      const behind = queue.length - dispatched;
      if (wake && (behind >= deps.maxTrades || behind === 1 || resend)) wake();
    },
    drain() {
      if (queue.length === 0 || state === "halted") return Promise.resolve();
      return new Promise((r) => drainWaiters.push(r));
    },
    async stop() {
      state = "stopped";
      wake?.();
      await loop?.catch(() => undefined);
      deps.sender.close?.();
      await store?.close().catch(() => undefined); // a failed write was already reported to its batch
      notifyDrained();
    },
    hold() {
      holds += 1;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        holds -= 1;
        wake?.();
      };
    },
    confirmIntervalMs() {
      return Math.min(1000, Math.max(10, Math.round(confirmEveryMs)));
    },
    health() {
      return {
        state,
        nextBatchId: nextId.toString(),
        queuedTrades: queue.length,
        lastSettledSeq,
        lastError,
        rejectedOrders,
      };
    },
  };
}
