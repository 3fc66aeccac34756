// Groups matched trades into settle batches (by count and by time) and settles each exactly once, in order.
// Before a batch is sent its composition (batch id -> trade seq range) is on disk; after a crash the
// contract's nextBatchId says which batches landed, and the one in flight (if any) is re-sent with the same
// trades. A revert is never skipped: the batcher halts, logs the decoded error and reports it to health.
import type { Hex } from "viem";
import { buildSettleArgs, type SignedOrder } from "../sdk/settle-batch";
import { openDurableLog, type DurableLog } from "./durable-log";
import { FatalChainError } from "./errors";
import type { SettleSender } from "./settle-sender";

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
}

export interface BatcherDeps {
  sender: SettleSender;
  /** file of batch compositions (JSON lines) */
  storeFile: string;
  signedOrder(hash: Hex): SignedOrder | undefined;
  maxTrades: number;
  maxDelayMs: number;
  logger?: { info(o: object, m?: string): void; error(o: object, m?: string): void; warn(o: object, m?: string): void };
  onSettled?(b: SettledBatch): void;
  onHalt?(reason: string): void;
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
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function createBatcher(deps: BatcherDeps): Batcher {
  let store: DurableLog<BatchRecord>;
  const byId = new Map<string, BatchRecord>();
  let nextId = 0n;
  let lastSettledSeq = -1;
  /** a batch persisted but not known to be settled at start: must be re-sent with exactly these trades */
  let resend: BatchRecord | undefined;
  const queue: SettleableTrade[] = [];
  let state: BatcherState = "starting";
  let lastError: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  let loop: Promise<void> | undefined;
  let wake: (() => void) | undefined;
  let lastPushedSeq = -1;
  const drainWaiters: (() => void)[] = [];
  const log = deps.logger;

  function notifyDrained(): void {
    if (queue.length === 0 || state === "halted" || state === "stopped") drainWaiters.splice(0).forEach((r) => r());
  }

  function takeBatch(): SettleableTrade[] | null {
    if (queue.length === 0) return null;
    if (resend) {
      const upTo = queue.findIndex((t) => t.seq > resend!.toSeq);
      const n = upTo === -1 ? queue.length : upTo;
      if (n < resend.tradeCount) return null; // the replay has not re-pushed all of it yet
      return queue.slice(0, n);
    }
    const oldest = queue[0].matchedAtMs;
    if (queue.length >= deps.maxTrades || Date.now() - oldest >= deps.maxDelayMs) return queue.slice(0, deps.maxTrades);
    return null;
  }

  async function settleOne(trades: SettleableTrade[]): Promise<void> {
    const batchId = nextId;
    const rec: BatchRecord = { batchId: batchId.toString(), fromSeq: trades[0].seq, toSeq: trades[trades.length - 1].seq, tradeCount: trades.length };
    if (!resend) {
      await store.append(rec);
      byId.set(rec.batchId, rec);
    }
    const orders: SignedOrder[] = [];
    for (const t of trades) {
      for (const h of [t.makerHash, t.takerHash]) {
        const so = deps.signedOrder(h);
        if (!so) throw new FatalChainError(`batch ${batchId}: signed order ${h} unknown`);
        orders.push(so);
      }
    }
    const args = buildSettleArgs(
      orders,
      trades.map((t) => ({ makerHash: t.makerHash, takerHash: t.takerHash, baseAmount: t.baseAmount, price: t.price })),
    );
    let attempt = 0;
    for (;;) {
      try {
        const r = await deps.sender.send(batchId, args);
        done(batchId, trades, r.txHash, r.gasUsed);
        return;
      } catch (e) {
        if (e instanceof FatalChainError) {
          // an earlier attempt of this very batch may have landed (receipt lost): then it is done
          const onChain = await deps.sender.nextBatchId().catch(() => batchId);
          if (onChain > batchId) {
            done(batchId, trades, "0x" as Hex, 0n);
            return;
          }
          throw e;
        }
        attempt += 1;
        state = "retrying";
        lastError = (e as Error).message;
        log?.warn({ batchId: batchId.toString(), attempt, err: lastError }, "settle failed, retrying");
        await sleep(Math.min(5_000, 25 * 2 ** Math.min(attempt, 8)));
        const onChain = await deps.sender.nextBatchId().catch(() => batchId);
        if (onChain > batchId) {
          done(batchId, trades, "0x" as Hex, 0n);
          return;
        }
        if (state !== "retrying") return; // stopped meanwhile
        state = "running";
      }
    }
  }

  function done(batchId: bigint, trades: SettleableTrade[], txHash: Hex, gasUsed: bigint): void {
    queue.splice(0, trades.length);
    lastSettledSeq = trades[trades.length - 1].seq;
    nextId = batchId + 1n;
    resend = undefined;
    if (state === "retrying") state = "running";
    deps.onSettled?.({ batchId, trades, txHash, gasUsed, settledAtMs: Date.now() });
    notifyDrained();
  }

  async function run(): Promise<void> {
    while (state === "running" || state === "retrying") {
      const batch = takeBatch();
      if (!batch) {
        await new Promise<void>((r) => {
          wake = r;
          if (queue.length > 0) timer = setTimeout(r, Math.max(1, deps.maxDelayMs - (Date.now() - queue[0].matchedAtMs)));
        });
        wake = undefined;
        if (timer) clearTimeout(timer);
        timer = undefined;
        continue;
      }
      try {
        await settleOne(batch);
      } catch (e) {
        state = "halted";
        lastError = (e as Error).message;
        const fe = e as FatalChainError;
        log?.error({ batchId: nextId.toString(), fromSeq: batch[0].seq, toSeq: batch[batch.length - 1].seq, revert: fe.revertName, args: fe.revertArgs?.map(String), err: lastError }, "batcher halted: a batch cannot settle");
        deps.onHalt?.(lastError);
        notifyDrained();
      }
    }
  }

  return {
    async start() {
      store = openDurableLog<BatchRecord>(deps.storeFile, { fsync: deps.fsync ?? true });
      for (const r of store.records) byId.set(r.batchId, r);
      nextId = await deps.sender.nextBatchId();
      const prev = byId.get((nextId - 1n).toString());
      if (nextId > 0n && !prev) throw new Error(`batch store ${deps.storeFile} lacks batch ${nextId - 1n} that the chain settled`);
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
      lastPushedSeq = t.seq;
      queue.push(t);
      if (wake && (queue.length >= deps.maxTrades || queue.length === 1 || resend)) wake();
    },
    drain() {
      if (queue.length === 0 || state === "halted") return Promise.resolve();
      return new Promise((r) => drainWaiters.push(r));
    },
    async stop() {
      state = "stopped";
      wake?.();
      await loop?.catch(() => undefined);
      store?.close();
      notifyDrained();
    },
    health() {
      return { state, nextBatchId: nextId.toString(), queuedTrades: queue.length, lastSettledSeq, lastError };
    },
  };
}
