// An exchange order as the API shows it (GET /v1/orders/{id}, the lists, the real-time order events): its
// row joined with the pipeline's order (status, fills, settlement).
import type { DexOrderWithFills } from "../../../pipeline/service";
import { formatDecimal } from "../../../sdk/decimal";
import { assetById, type ExchangeStatus, marketOf, type OrdersContext, priceNumber, quantityNumber } from "./context";
import { isOpenDexOrder, type OrderRow } from "./rows";

export function statusOf(row: OrderRow, o: DexOrderWithFills | null): ExchangeStatus {
  if (!o) return row.cancelled_ms ? "CANCELLED" : "PENDING";
  if (isOpenDexOrder(o)) return "PENDING";
  if (o.status === "filled") return "EXECUTED";
  // finished without filling completely: by its owner (an update too) CANCELLED; otherwise (a market
  // order's unfilled remainder, an expiry) EXECUTED when anything filled, else CANCELLED
  if (o.statusReason === "user_cancelled" || row.cancelled_ms !== null) return "CANCELLED";
  return o.filledLots > 0n ? "EXECUTED" : "CANCELLED";
}

/** The order's view: the row's fields, then (`full`, and its book running) its fills and settlement. */
export function present(ctx: OrdersContext, row: OrderRow, o: DexOrderWithFills | null, full: boolean) {
  const asset = assetById(ctx, row.asset_id)!;
  const m = marketOf(ctx, asset);
  const units = BigInt(row.quantity_units);
  const q = (u: bigint) => (m ? quantityNumber(m, u) : 0);
  const status = statusOf(row, o);
  const base: Record<string, unknown> = {
    orderId: row.id,
    assetId: row.asset_id,
    side: row.side,
    orderType: row.order_type,
    quantity: q(units),
    ...(row.limit_price !== null && m ? { limitPrice: priceNumber(m, BigInt(row.limit_price)) } : {}),
    ...(row.is_pre_ipo ? { isPreIPO: true } : {}),
    status,
    createdAt: new Date(Number(row.created_ms)).toISOString(),
  };
  if (!full || !m) return base;
  const filledUnits = o ? o.filledLots * m.lotSize : 0n;
  const lastFill = o?.fills.reduce((t, f) => Math.max(t, f.timestampMs), 0) ?? 0;
  const avg =
    o && filledUnits > 0n ? (o.filledQuoteUnits * 10n ** BigInt(m.baseDecimals) * 10n ** 6n) / filledUnits : null;
  return {
    ...base,
    filledQuantity: q(filledUnits),
    averagePrice: avg === null ? null : Number(formatDecimal(avg, m.quoteDecimals + 6)),
    ...(status === "EXECUTED" ? { executedAt: new Date(lastFill || o!.updatedAtMs).toISOString() } : {}),
    ...(status === "CANCELLED"
      ? { cancelledAt: new Date(row.cancelled_ms !== null ? Number(row.cancelled_ms) : o!.updatedAtMs).toISOString() }
      : {}),
    remainingQuantity: status === "PENDING" ? q(units - filledUnits) : 0,
    settlement:
      o && o.fills.length > 0 ? (o.fills.every((f) => f.settlement === "settled") ? "settled" : "pending") : null,
    ...(row.replaces ? { replaces: row.replaces } : {}),
    ...(row.replaced_by ? { replacedBy: row.replaced_by } : {}),
  };
}
