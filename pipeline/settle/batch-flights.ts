// The flight window: up to `maxInFlight` batches on their way at once, persisted before they are sent and
// handed to the sender in batch-id order; a confirmation settles the oldest; after a failure every flight
// ends first, the ones that landed count, the rest are re-sent in order (or quarantined, or the batcher halts).
import type { Hex } from "viem";
import type { SettleArgs } from "../../sdk/settle-batch";
import { FatalChainError } from "../errors";
import { argsFor, takeBatch } from "./batch-building";
import { quarantine } from "./batch-quarantine";
import { notifyDrained, type BatchRun, type Flight } from "./batch-run";
import type { BatchRecord, SettleableTrade } from "./batch-types";
import type { SettleResult } from "./settle-sender";
import { isOrderAttributable } from "./poison";
import { metrics } from "../../runtime/metrics";

/** Persists the composition (unless it is already on disk), then hands the batch to the sender in order. */
export function launch(
  b: BatchRun,
  batchId: bigint,
  trades: SettleableTrade[],
  args: SettleArgs,
  persist: boolean,
): Flight {
  let persisted: Promise<void> = Promise.resolve();
  if (persist) {
    const rec: BatchRecord = {
      batchId: batchId.toString(),
      fromSeq: trades[0].seq,
      toSeq: trades[trades.length - 1].seq,
      tradeCount: trades.length,
    };
    persisted = b.store!.append(rec);
    b.byId.set(rec.batchId, rec);
  }
  const gate = b.dispatchTail.then(() => persisted);
  b.dispatchTail = gate.catch(() => undefined);
  const outcome = gate
    .then(() => b.deps.sender.send(batchId, args))
    .then(
      (ok) => ({ ok }),
      (err: unknown) => ({ err }),
    );
  return { batchId, trades, args, launchedAtMs: b.clock.now(), outcome };
}

/** The oldest flight landed: its trades leave the queue, onSettled hears of it. `receipt` null: the chain
 *  counted the batch but its receipt was lost (the next start finds its transaction from the chain). */
export function done(b: BatchRun, flight: Flight, receipt: SettleResult | null): void {
  const { batchId, trades, launchedAtMs } = flight;
  const txHash = receipt?.txHash ?? ("0x" as Hex);
  if (receipt) confirm(b, batchId, trades, receipt);
  const now = b.clock.now();
  if (b.lastConfirmAt > 0 && b.queue.length > trades.length)
    b.confirmEveryMs = 0.8 * b.confirmEveryMs + 0.2 * (now - b.lastConfirmAt);
  b.lastConfirmAt = now;
  b.queue.splice(0, trades.length);
  b.dispatched -= trades.length;
  b.lastSettledSeq = trades[trades.length - 1].seq;
  b.nextId = batchId + 1n;
  if (b.state === "retrying") b.state = "running";
  b.deps.onSettled?.({
    batchId,
    trades,
    txHash,
    gasUsed: receipt?.gasUsed ?? 0n,
    settledAtMs: b.clock.now(),
    ...(receipt?.sentAtMs !== undefined && receipt.answeredAtMs !== undefined
      ? { stages: { launchedAtMs, sentAtMs: receipt.sentAtMs, answeredAtMs: receipt.answeredAtMs } }
      : {}),
  });
  notifyDrained(b);
}

/** Journals a batch's confirmation (its composition with the transaction and block) in the batch store, so
 *  that a restart gives its trades' fills their settlement and transaction back. Not awaited: the batch
 *  is settled whatever happens to this write; a confirmation lost to a crash is found on the chain at the
 *  next start (batch-confirmations.ts). A failed write fails the store, hence the next batch's launch. */
function confirm(b: BatchRun, batchId: bigint, trades: SettleableTrade[], receipt: SettleResult): void {
  const id = batchId.toString();
  const composed = b.byId.get(id);
  const rec: BatchRecord = {
    batchId: id,
    fromSeq: composed?.fromSeq ?? trades[0].seq,
    toSeq: composed?.toSeq ?? trades[trades.length - 1].seq,
    tradeCount: composed?.tradeCount ?? trades.length,
    txHash: receipt.txHash,
    ...(receipt.blockNumber !== undefined ? { blockNumber: receipt.blockNumber.toString() } : {}),
  };
  b.byId.set(id, rec);
  b.store
    ?.append(rec)
    .catch((err: Error) => b.log?.warn({ batchId: id, err: err.message }, "batch confirmation not journaled"));
}

/** Sends every batch that is due while there is room in flight. */
export function fill(b: BatchRun): void {
  while (b.flights.length < b.maxInFlight && (b.state === "running" || b.state === "retrying")) {
    const batch = takeBatch(b);
    if (!batch) return;
    const batchId = b.nextId + BigInt(b.flights.length);
    const args = argsFor(b, batchId, batch);
    // a resend whose trades were dropped gets a new record (what it now holds)
    const isResend = b.resend !== undefined && b.resend.tradeCount === batch.length;
    b.resend = undefined;
    b.flights.push(launch(b, batchId, batch, args, !isResend));
    b.dispatched += batch.length;
  }
}

/** After a failure: let every flight end, keep the ones that landed, re-send the rest in order or halt. */
export async function recover(b: BatchRun): Promise<void> {
  let attempt = 0;
  for (;;) {
    const outcomes = await Promise.all(b.flights.map((f) => f.outcome));
    let onChain: bigint;
    try {
      onChain = await b.deps.sender.nextBatchId();
    } catch (e) {
      onChain = -1n; // unknown: retried below
      b.lastError = (e as Error).message;
    }
    if (onChain >= 0n) {
      while (b.flights.length > 0 && b.flights[0].batchId < onChain) {
        const f = b.flights.shift()!;
        const o = outcomes.shift()!;
        // landed, though its receipt may have been lost
        done(b, f, "ok" in o ? o.ok : null);
      }
      if (b.flights.length === 0) return;
      const first = outcomes[0];
      if ("ok" in first) {
        // confirmed by its receipt yet not counted by the chain's nextBatchId (a stale read): ask again
      } else if (first.err instanceof FatalChainError) {
        metrics.settleReverts.inc({ reason: first.err.revertName ?? "unknown" });
        if (!b.deps.onRejected || !isOrderAttributable(first.err.revertName)) throw first.err;
        await quarantine(b, b.flights[0], first.err);
        // nothing behind the failed batch landed either: every trade left is rebuilt into new batches
        b.flights = [];
        b.dispatched = 0;
        b.deps.sender.reset?.();
        if (b.state === "retrying") b.state = "running";
        notifyDrained(b);
        return;
      } else b.lastError = (first.err as Error).message;
    }
    attempt += 1;
    if (b.state === "stopped") return; // stop() came while the flights ended: no retry over it
    b.state = "retrying";
    b.log?.warn(
      {
        batchId: b.flights[0].batchId.toString(),
        attempt,
        inFlight: b.flights.length,
        err: b.lastError,
      },
      "settle failed, retrying",
    );
    await backoff(b, b.deps.retryBackoffMs?.(attempt) ?? Math.min(5_000, 25 * 2 ** Math.min(attempt, 8)));
    if (b.state !== "retrying") return; // stopped meanwhile
    b.deps.sender.reset?.();
    b.flights = b.flights.map((f) => launch(b, f.batchId, f.trades, f.args, false));
  }
}

/** Waits `ms`, or less when b.retryNow() is called meanwhile (the home chain came back, or stop()). */
function backoff(b: BatchRun, ms: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const end = () => {
      clearTimeout(timer);
      if (b.retryNow === end) b.retryNow = undefined;
      resolve();
    };
    const timer = setTimeout(end, ms);
    b.retryNow = end;
  });
}

/** Resolves "wake" on push/hold release/stop, or when the oldest waiting trade is due (maxDelayMs). */
export function waitForWork(b: BatchRun): Promise<"wake"> {
  return new Promise<"wake">((r) => {
    b.wake = () => r("wake");
    const behind = b.queue.length - b.dispatched;
    if (behind > 0 && b.flights.length < b.maxInFlight && !b.resend && b.holds === 0)
      b.timer = setTimeout(
        b.wake,
        Math.max(1, b.deps.maxDelayMs - (b.clock.now() - b.queue[b.dispatched].matchedAtMs)),
      );
  });
}
