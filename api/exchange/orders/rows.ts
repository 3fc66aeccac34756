// The exchange's own record of its orders (table exchange_orders): one row per order, written before the
// pipeline sees the order, with what the pipeline does not keep (the asset, the order type, the hold at
// placement, the resale flags, the cancel-replace links). Status, fills and settlement stay the pipeline's.
import type { DexOrderWithFills } from "../../../pipeline/service";
import { ORDER_ID_RE, type ExchangeSide, type OrdersContext } from "./context";

export interface OrderRow {
  id: string;
  account_id: string;
  dex_order_id: string;
  asset_id: string;
  side: ExchangeSide;
  order_type: "market" | "limit";
  quantity_units: string;
  limit_price: string | null;
  is_pre_ipo: boolean;
  max_cost_units: string;
  restricted_sell: boolean;
  book_eligible: boolean;
  open: boolean;
  created_ms: string;
  cancelled_ms: string | null;
  replaces: string | null;
  replaced_by: string | null;
}

export const ORDER_COLUMNS =
  "id, account_id, dex_order_id::text, asset_id, side, order_type, quantity_units::text, limit_price::text, is_pre_ipo, max_cost_units::text, restricted_sell, book_eligible, open, created_ms::text, cancelled_ms::text, replaces, replaced_by";

/** A pipeline order still on the book (or waiting for its trigger). */
export const isOpenDexOrder = (o: DexOrderWithFills): boolean =>
  o.status === "open" || o.status === "partially_filled" || o.status === "pending_trigger";

/** The account's row of exchange order `id`; undefined for another account's order or a malformed id. */
export async function rowOf(ctx: OrdersContext, accountId: string, id: string): Promise<OrderRow | undefined> {
  if (!ORDER_ID_RE.test(id)) return undefined;
  const r = await ctx.db.query<OrderRow>(
    `SELECT ${ORDER_COLUMNS} FROM exchange_orders WHERE id = $1 AND account_id = $2`,
    [id, accountId],
  );
  return r.rows[0];
}

/** The account's rows, newest first, of one asset or (assetId null) all. */
export async function rowsOfAccount(
  ctx: OrdersContext,
  accountId: string,
  assetId: string | null,
): Promise<OrderRow[]> {
  const r = await ctx.db.query<OrderRow>(
    `SELECT ${ORDER_COLUMNS} FROM exchange_orders WHERE account_id = $1 AND ($2::text IS NULL OR asset_id = $2) ORDER BY created_ms DESC, id DESC`,
    [accountId, assetId],
  );
  return r.rows;
}

/** The account's buy rows of the given assets. */
export async function buyRowsOf(
  ctx: OrdersContext,
  accountId: string,
  assetIds: readonly string[],
): Promise<OrderRow[]> {
  const r = await ctx.db.query<OrderRow>(
    `SELECT ${ORDER_COLUMNS} FROM exchange_orders WHERE account_id = $1 AND side = 'BUY' AND asset_id = ANY($2)`,
    [accountId, assetIds],
  );
  return r.rows;
}

/** Refreshes the `open` cache of rows the pipeline finished; returns the rows still open. */
async function stillOpen(ctx: OrdersContext, rows: OrderRow[]): Promise<OrderRow[]> {
  const out: OrderRow[] = [];
  for (const r of rows) {
    const o = await ctx.dex.getOrder(r.dex_order_id);
    if (o && isOpenDexOrder(o)) out.push(r);
    else await closeRow(ctx, r.id);
  }
  return out;
}

/** The asset's rows still open that match `where` (SQL over the row's columns). */
export async function openRowsOfAsset(ctx: OrdersContext, assetId: string, where: string): Promise<OrderRow[]> {
  const r = await ctx.db.query<OrderRow>(
    `SELECT ${ORDER_COLUMNS} FROM exchange_orders WHERE asset_id = $1 AND open AND ${where}`,
    [assetId],
  );
  return stillOpen(ctx, r.rows);
}

/** The account's open rows of the given assets: what each held at placement. */
export async function openHoldsOf(
  ctx: OrdersContext,
  accountId: string,
  assetIds: readonly string[],
): Promise<{ asset_id: string; side: ExchangeSide; quantity_units: string; max_cost_units: string }[]> {
  const r = await ctx.db.query<{
    asset_id: string;
    side: ExchangeSide;
    quantity_units: string;
    max_cost_units: string;
  }>(
    "SELECT asset_id, side, quantity_units::text, max_cost_units::text FROM exchange_orders WHERE account_id = $1 AND open AND asset_id = ANY($2)",
    [accountId, assetIds],
  );
  return r.rows;
}

/** The row and its owner's identity, by the pipeline's order id. */
export async function ownedRowOf(
  ctx: OrdersContext,
  dexOrderId: string,
): Promise<(OrderRow & { issuer: string; org_id: string; user_id: string }) | undefined> {
  const columns = ORDER_COLUMNS.split(", ")
    .map((c) => `o.${c}`)
    .join(", ");
  const r = await ctx.db.query<OrderRow & { issuer: string; org_id: string; user_id: string }>(
    `SELECT ${columns}, a.issuer, a.org_id, a.user_id FROM exchange_orders o JOIN exchange_accounts a ON a.id::text = o.account_id WHERE o.dex_order_id = $1`,
    [dexOrderId],
  );
  return r.rows[0];
}

export interface NewOrderRow {
  id: string;
  accountId: string;
  dexOrderId: string;
  assetId: string;
  side: ExchangeSide;
  orderType: "market" | "limit";
  units: bigint;
  /** limit orders only */
  limitPrice: bigint | null;
  isPreIpo: boolean;
  maxCost: bigint;
  restrictedSell: boolean;
  bookEligible: boolean;
  createdMs: number;
  replaces: string | null;
}

export async function insertRow(ctx: OrdersContext, n: NewOrderRow): Promise<OrderRow> {
  const inserted = await ctx.db.query<OrderRow>(
    `INSERT INTO exchange_orders (id, account_id, dex_order_id, asset_id, side, order_type, quantity_units, limit_price, is_pre_ipo, max_cost_units, restricted_sell, book_eligible, created_ms, replaces)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) RETURNING ${ORDER_COLUMNS}`,
    [
      n.id,
      n.accountId,
      n.dexOrderId,
      n.assetId,
      n.side,
      n.orderType,
      n.units.toString(),
      n.limitPrice === null ? null : n.limitPrice.toString(),
      n.isPreIpo,
      n.maxCost.toString(),
      n.restrictedSell,
      n.bookEligible,
      n.createdMs,
      n.replaces,
    ],
  );
  return inserted.rows[0];
}

export async function deleteRow(ctx: OrdersContext, id: string): Promise<void> {
  await ctx.db.query("DELETE FROM exchange_orders WHERE id = $1", [id]);
}

/** The row's order is off the book. */
export async function closeRow(ctx: OrdersContext, id: string): Promise<void> {
  await ctx.db.query("UPDATE exchange_orders SET open = false WHERE id = $1", [id]);
}

/** The row's order was cancelled by its owner at `atMs`. */
export async function cancelRow(ctx: OrdersContext, id: string, atMs: number): Promise<void> {
  await ctx.db.query("UPDATE exchange_orders SET cancelled_ms = $2, open = false WHERE id = $1", [id, atMs]);
}

export async function linkReplacement(ctx: OrdersContext, id: string, replacedBy: string): Promise<void> {
  await ctx.db.query("UPDATE exchange_orders SET replaced_by = $2 WHERE id = $1", [id, replacedBy]);
}
