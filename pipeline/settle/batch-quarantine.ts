// Quarantine: a batch reverted because of one or more orders (pipeline/settle/poison.ts): find them (the
// error's arguments; eth_call of sub-batches when it names only a trader with several orders), have the
// matcher journal the decision and cancel them, drop their trades, and check what is left of the batch.
import type { Hex } from "viem";
import type { FatalChainError } from "../errors";
import { argsFor, ordersOf } from "./batch-building";
import type { BatchRun, Flight } from "./batch-run";
import type { SettleableTrade } from "./batch-types";
import { isOrderAttributable, suspectOrders } from "./poison";

/** The orders a revert names; when it names several (a trader's), the ones whose own trades revert the
 *  same way alone (eth_call), or all of them when none does alone (a shared balance). */
export async function attribute(
  b: BatchRun,
  err: FatalChainError,
  batchId: bigint,
  trades: SettleableTrade[],
): Promise<Map<string, string>> {
  const suspects = suspectOrders(err.revertName, err.revertArgs, ordersOf(b, trades));
  const name = err.revertName!;
  const out = new Map<string, string>();
  if (suspects.length > 1 && b.deps.sender.simulate) {
    for (const h of suspects) {
      const own = trades.filter(
        (t) => t.makerHash.toLowerCase() === h.toLowerCase() || t.takerHash.toLowerCase() === h.toLowerCase(),
      );
      const r = await b.deps.sender.simulate(batchId, argsFor(b, batchId, own));
      if (
        r &&
        suspectOrders(r.revertName, r.revertArgs, ordersOf(b, own)).some((x) => x.toLowerCase() === h.toLowerCase())
      )
        out.set(h.toLowerCase(), r.revertName!);
    }
  }
  if (out.size === 0) for (const h of suspects) out.set(h.toLowerCase(), name);
  return out;
}

/** Removes dropped trades from the queue (in place: the first `dispatched` are reset by the caller). */
export function dropFromQueue(b: BatchRun, seqs: Iterable<number>, hashes: Set<string>): void {
  for (const seq of seqs) b.dropped.add(seq);
  let w = 0;
  for (let i = 0; i < b.queue.length; i++) {
    const t = b.queue[i];
    if (b.dropped.has(t.seq) || hashes.has(t.makerHash.toLowerCase()) || hashes.has(t.takerHash.toLowerCase())) {
      b.dropped.add(t.seq);
      continue;
    }
    b.queue[w++] = t;
  }
  b.queue.length = w;
}

/** A batch reverted because of one or more orders: find them, have the decision journaled, drop their
 *  trades; then check what is left of the batch (eth_call) until it would settle or a fatal error shows. */
export async function quarantine(b: BatchRun, flight: Flight, first: FatalChainError): Promise<void> {
  let err = first;
  let trades = flight.trades;
  for (let round = 0; round < 64; round++) {
    const bad = await attribute(b, err, flight.batchId, trades);
    if (bad.size === 0) throw err;
    const orders = [...bad].map(([hash, error]) => ({ hash: hash as Hex, error }));
    // durable before anything else is sent: a restart replays the same decision
    const seqs = await b.deps.onRejected!(orders);
    b.rejectedOrders += orders.length;
    const hashes = new Set(bad.keys());
    dropFromQueue(b, seqs, hashes);
    b.log?.warn(
      { batchId: flight.batchId.toString(), revert: err.revertName, orders, droppedTrades: seqs.length },
      "settle reverted on orders the contract refuses: cancelled, their trades dropped, batch rebuilt",
    );
    trades = trades.filter((t) => !b.dropped.has(t.seq));
    if (trades.length === 0 || !b.deps.sender.simulate) return;
    const again = await b.deps.sender.simulate(flight.batchId, argsFor(b, flight.batchId, trades));
    if (!again) return;
    if (!isOrderAttributable(again.revertName)) throw again;
    err = again;
  }
  throw err;
}
