// Batch building: which trades form the next batch (a resend after a start first, else by count and by
// age, cut short to fit the gas cap) and the settle arguments of a batch from its trades' signed orders.
import { buildSettleArgs, type SettleArgs, type SignedOrder } from "../../sdk/settle-batch";
import { FatalChainError } from "../errors";
import type { BatchRun } from "./batch-run";
import type { BatcherDeps, SettleableTrade } from "./batch-types";

/** The next batch to send from the trades behind the flights, or null when none is due yet. */
export function takeBatch(b: BatchRun): SettleableTrade[] | null {
  const avail = b.queue.length - b.dispatched;
  if (avail <= 0) return null;
  if (b.holds > 0 && !b.resend) return null;
  if (b.resend) {
    if (b.dispatched > 0) return null; // only ever the first batch after a start
    const upTo = b.queue.findIndex((t) => t.seq > b.resend!.toSeq);
    const n = upTo === -1 ? b.queue.length : upTo;
    // trades of the record a journaled decision dropped never come back: the resend goes without them
    let gone = 0;
    if (b.deps.isDropped)
      for (let seq = b.resend.fromSeq; seq <= b.resend.toSeq; seq++) if (b.deps.isDropped(seq)) gone += 1;
    if (n < b.resend.tradeCount - gone) return null; // the replay has not re-pushed all of it yet
    if (n === 0) {
      b.resend = undefined; // every trade of it was dropped: nothing to re-send
      return takeBatch(b);
    }
    return b.queue.slice(0, n);
  }
  const oldest = b.queue[b.dispatched].matchedAtMs;
  if (avail >= b.deps.maxTrades || b.clock.now() - oldest >= b.deps.maxDelayMs) {
    const batch = b.queue.slice(b.dispatched, b.dispatched + b.deps.maxTrades);
    // a batch the gas cap cannot carry would revert without data (out of gas), which halts: cut it short
    while (batch.length > 1 && b.deps.fitsGasCap && !b.deps.fitsGasCap(batch)) batch.pop();
    return batch;
  }
  return null;
}

export function argsFor(b: BatchRun, batchId: bigint, trades: SettleableTrade[]): SettleArgs {
  const orders: SignedOrder[] = [];
  for (const t of trades) {
    for (const h of [t.makerHash, t.takerHash]) {
      const so = b.deps.signedOrder(h);
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
    })),
  );
}

/** The distinct signed orders of these trades. */
export function ordersOf(b: BatchRun, trades: SettleableTrade[]) {
  const seen = new Map<string, NonNullable<ReturnType<BatcherDeps["signedOrder"]>>>();
  for (const t of trades)
    for (const h of [t.makerHash, t.takerHash]) {
      const so = b.deps.signedOrder(h);
      if (so) seen.set(h.toLowerCase(), so);
    }
  return [...seen.values()];
}
