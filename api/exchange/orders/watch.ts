// Order-status events to their owner (spec 6.4), from the pipeline's order events: what the real-time feeds
// (SSE, the legacy WebSocket) send to the user an exchange order belongs to.
import type { DexOrderWithFills } from "../../../pipeline/service";
import type { OrdersContext } from "./context";
import type { OrderRow } from "./rows";
import { ownedRowOf } from "./rows";
import { present, statusOf } from "./view";

export interface OrderOwner {
  issuer: string;
  orgId: string;
  userId: string;
}

export type PublishOrderEvent = (
  owner: OrderOwner,
  event: "order" | "settlement",
  data: Record<string, unknown>,
) => void;

/** How long a finished order is read for its fills' settlement on chain. */
const SETTLEMENT_WATCH_MS = 300_000;

/** Every pipeline order event of an exchange order gives `publish(owner, "order", the order as GET
 *  /v1/orders/{id} shows it)`; once all of an order's fills are settled on chain, `publish(owner, "settlement",
 *  {orderId, status, filledQuantity, txHashes})`. Returns the unsubscribe function. */
export function watchOrders(ctx: OrdersContext, publish: PublishOrderEvent): () => void {
  let stopped = false;
  const settling = new Set<string>();
  const onOrder = async (dexOrderId: string) => {
    // the row is written before the placement: an event of an exchange order always finds it
    const row = await ownedRowOf(ctx, dexOrderId);
    if (!row || stopped) return;
    const owner = { issuer: row.issuer, orgId: row.org_id, userId: row.user_id };
    const o = await ctx.dex.getOrder(dexOrderId);
    const view = present(ctx, row, o, true);
    publish(owner, "order", view);
    if (!o || o.fills.length === 0 || settling.has(dexOrderId) || view.status === "PENDING") return;
    // the pipeline emits no event when a batch settles: the finished order is read until its fills are
    settling.add(dexOrderId);
    const settled = await settledOrder(ctx, dexOrderId, () => stopped);
    if (settled) publish(owner, "settlement", settlementEvent(ctx, row, settled));
    settling.delete(dexOrderId);
  };
  const unsubscribe = ctx.dex.subscribe((e) => {
    if (e.kind !== "order") return;
    void onOrder(e.order.orderId).catch(() => undefined);
  });
  return () => {
    stopped = true;
    unsubscribe();
  };
}

/** The order once every fill of it is settled; undefined when the watch stops or gives up first. */
async function settledOrder(
  ctx: OrdersContext,
  dexOrderId: string,
  stopped: () => boolean,
): Promise<DexOrderWithFills | undefined> {
  const until = Date.now() + SETTLEMENT_WATCH_MS;
  for (;;) {
    if (stopped()) return undefined;
    const cur = await ctx.dex.getOrder(dexOrderId);
    if (cur?.fills.every((f) => f.settlement === "settled")) return cur;
    if (Date.now() > until) return undefined;
    await new Promise((r) => setTimeout(r, 250));
  }
}

function settlementEvent(ctx: OrdersContext, row: OrderRow, cur: DexOrderWithFills): Record<string, unknown> {
  return {
    orderId: row.id,
    status: statusOf(row, cur),
    filledQuantity: (present(ctx, row, cur, true) as { filledQuantity?: number }).filledQuantity,
    txHashes: [...new Set(cur.fills.map((f) => f.txHash).filter((h) => h !== null))],
  };
}
