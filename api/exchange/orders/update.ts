// Updating an exchange order (PATCH /v1/orders/{id}) as a cancel-replace: the validations run for the new
// order (the old order's holds count as free), then the old order is cancelled and the new one placed; the
// answer is the new order (replaces = the old id).
import { formatDecimal } from "../../../sdk/decimal";
import type { AccountRecord } from "../accounts";
import { cancelDex, ownRow } from "./cancel";
import { assetById, marketOf, notTradeable, type OrderInput, type OrdersContext, priceScale } from "./context";
import { OrderApiError } from "./errors";
import { type PlacementQueue, placeChecked } from "./place";
import { cancelRow, linkReplacement } from "./rows";
import { validate } from "./validate";
import { present, statusOf } from "./view";

export interface OrderChange {
  quantity?: string;
  limitPrice?: string;
}

export async function updateOrder(
  ctx: OrdersContext,
  queue: PlacementQueue,
  account: AccountRecord,
  id: string,
  change: OrderChange,
) {
  const row = await ownRow(ctx, account, id);
  return queue.run(queue.keyOf(account, row.asset_id), async () => {
    const o = await ctx.dex.getOrder(row.dex_order_id);
    const status = statusOf(row, o);
    if (status !== "PENDING" || !o)
      throw new OrderApiError("ORDER_NOT_OPEN", "only PENDING orders can be cancelled or updated", { status });
    if (row.order_type !== "limit")
      throw new OrderApiError("INVALID_ORDER_TYPE", "only limit orders rest on the book and can be updated", {
        orderType: row.order_type,
      });
    const asset = assetById(ctx, row.asset_id)!;
    const m = marketOf(ctx, asset);
    if (!m) throw notTradeable(asset.id);
    const input: OrderInput = {
      assetId: row.asset_id,
      side: row.side,
      orderType: "limit",
      quantity: change.quantity ?? formatDecimal(BigInt(row.quantity_units), m.baseDecimals),
      limitPrice: change.limitPrice ?? formatDecimal(BigInt(row.limit_price!), priceScale(m)),
    };
    const c = await validate(ctx, account, input, { row, dex: o });
    await cancelDex(ctx, account, row);
    await cancelRow(ctx, row.id, ctx.now());
    const placed = await placeChecked(ctx, account, input, c, row.id);
    await linkReplacement(ctx, row.id, placed.row.id);
    return present(ctx, placed.row, placed.placed, true);
  });
}
