// Cancelling an exchange order (DELETE /v1/orders/{id}): the pipeline's order off the book, then the row
// marked cancelled on the account's clock.
import { DexServiceError } from "../../../pipeline/service";
import type { AccountRecord } from "../accounts";
import { addressOf, type OrdersContext } from "./context";
import { OrderApiError } from "./errors";
import { cancelRow, type OrderRow, rowOf } from "./rows";
import { statusOf } from "./view";

/** A row older than this without its order on any partition was never placed (the partition call's time limit,
 *  the placement's catch-up and its lookup are all shorter). */
const UNPLACED_AFTER_MS = 120_000;

export const orderNotFound = (): OrderApiError => new OrderApiError("ORDER_NOT_FOUND", "order not found", {});

/** The account's row of order `id`; ORDER_NOT_FOUND when it has none. */
export async function ownRow(ctx: OrdersContext, account: AccountRecord, id: string): Promise<OrderRow> {
  const row = await rowOf(ctx, account.id, id);
  if (!row) throw orderNotFound();
  return row;
}

export async function cancelOrder(ctx: OrdersContext, account: AccountRecord, id: string) {
  const row = await ownRow(ctx, account, id);
  await cancelDex(ctx, account, row);
  const t = ctx.accountClock.now(account.id);
  await cancelRow(ctx, row.id, t);
  return { orderId: row.id, status: "CANCELLED" as const, cancelledAt: new Date(t).toISOString() };
}

/** Takes the row's order off the pipeline's book; ORDER_NOT_OPEN when it is not open there. */
export async function cancelDex(ctx: OrdersContext, account: AccountRecord, row: OrderRow): Promise<void> {
  const address = await addressOf(ctx, account.id);
  try {
    await ctx.dex.cancelOrder({ orderId: row.dex_order_id, account: address, reason: "user_cancelled" });
  } catch (err) {
    if (!(err instanceof DexServiceError && (err.code === "ORDER_NOT_OPEN" || err.code === "ORDER_NOT_FOUND")))
      throw err;
    const o = await ctx.dex.getOrder(row.dex_order_id);
    // a row whose placement never reached its partition (its answer was lost, placementOf) and can no longer
    // be under way (well past its placement's time limits): nothing to cancel
    if (
      !o &&
      err.code === "ORDER_NOT_FOUND" &&
      row.cancelled_ms === null &&
      Number(row.created_ms) < ctx.now() - UNPLACED_AFTER_MS
    )
      return;
    throw new OrderApiError("ORDER_NOT_OPEN", "only PENDING orders can be cancelled or updated", {
      status: statusOf(row, o),
    });
  }
}
