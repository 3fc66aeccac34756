// Table updates shared by the Settlement handlers (balances, withdrawals, a batch's trades).
// This file registers no handler; Ponder loads it with the others, which is harmless.
import { sql } from "ponder";
import type { Context } from "ponder:registry";
import {
  balance,
  batch,
  candle,
  feeTotal,
  fill,
  openWithdrawals,
  order,
  trade,
  withdrawalRequest,
} from "ponder:schema";
import type { BatchRows } from "../lib/batchRows";
import type { Hex } from "../lib/trades";

type Db = Context["db"];
type SqlDb = Db["sql"];

export async function addBalance(db: Db, account: Hex, token: Hex, delta: bigint, blockNumber: bigint) {
  await db
    .insert(balance)
    .values({ account, token, amount: delta, pendingWithdrawal: 0n, updatedAtBlock: blockNumber })
    .onConflictDoUpdate((row) => ({ amount: row.amount + delta, updatedAtBlock: blockNumber }));
}

async function addPendingWithdrawal(db: Db, account: Hex, token: Hex, delta: bigint, blockNumber: bigint) {
  await db
    .insert(balance)
    .values({ account, token, amount: 0n, pendingWithdrawal: delta, updatedAtBlock: blockNumber })
    .onConflictDoUpdate((row) => ({ pendingWithdrawal: row.pendingWithdrawal + delta, updatedAtBlock: blockNumber }));
}

interface WithdrawalEvent {
  trader: Hex;
  token: Hex;
  amount: bigint;
  txHash: Hex;
  blockNumber: bigint;
  timestamp: bigint;
}

export async function openWithdrawal(db: Db, e: WithdrawalEvent & { id: string; availableAt: bigint }) {
  await db.insert(withdrawalRequest).values({
    id: e.id,
    trader: e.trader,
    token: e.token,
    amount: e.amount,
    availableAt: e.availableAt,
    status: "pending",
    requestedAt: e.timestamp,
    requestTxHash: e.txHash,
  });
  await db
    .insert(openWithdrawals)
    .values({ trader: e.trader, token: e.token, requestIds: [e.id] })
    .onConflictDoUpdate((row) => ({ requestIds: [...row.requestIds, e.id] }));
  await addPendingWithdrawal(db, e.trader, e.token, e.amount, e.blockNumber);
}

/**
 * The events of a cancel or an execution do not name the request, so the request closed is the oldest
 * open one of the same (trader, token) and amount, else the oldest open one.
 */
export async function closeWithdrawal(db: Db, status: "cancelled" | "executed", e: WithdrawalEvent) {
  const open = await db.find(openWithdrawals, { trader: e.trader, token: e.token });
  const ids = open?.requestIds ?? [];
  let closedId: string | undefined;
  let pendingAmount = 0n;
  for (const id of ids) {
    const request = await db.find(withdrawalRequest, { id });
    if (request && request.amount === e.amount) {
      closedId = id;
      pendingAmount = request.amount;
      break;
    }
  }
  if (closedId === undefined && ids.length > 0) {
    closedId = ids[0];
    pendingAmount = (await db.find(withdrawalRequest, { id: closedId! }))?.amount ?? 0n;
  }
  if (closedId !== undefined) {
    await db.update(withdrawalRequest, { id: closedId }).set({ status, closedAt: e.timestamp, closedTxHash: e.txHash });
    await db
      .update(openWithdrawals, { trader: e.trader, token: e.token })
      .set({ requestIds: ids.filter((id) => id !== closedId) });
    await addPendingWithdrawal(db, e.trader, e.token, -pendingAmount, e.blockNumber);
  }
  if (status === "executed") await addBalance(db, e.trader, e.token, -e.amount, e.blockNumber);
}

/** The rows as a JSON array with the tables' column names (snake_case); bigints as decimal strings. */
function json(rows: readonly object[]): string {
  return JSON.stringify(
    rows.map((r) =>
      Object.fromEntries(Object.entries(r).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), v])),
    ),
    (_k, v) => (typeof v === "bigint" ? v.toString() : v),
  );
}

/**
 * Writes a settle batch (lib/batchRows.ts) in ONE statement: the rows travel as JSON parameters
 * (json_populate_recordset makes them rows of each table's own type), new trade and fill rows are
 * inserted, the shared rows (orders, balances, fee totals, candles) inserted or added to what is stored,
 * and the batch row last. One statement per batch instead of one per row or per table: each raw
 * statement costs Ponder a SQL parse, a flush of its cache and a savepoint, and PGlite a round trip.
 */
export async function writeBatch(
  sqlDb: SqlDb,
  rows: BatchRows,
  batchRow: { batchId: bigint; tradeCount: bigint; txHash: Hex; blockNumber: bigint; timestamp: bigint },
) {
  const blockNumber = batchRow.blockNumber;
  const balances = rows.balances.map((b) => ({
    account: b.account,
    token: b.token,
    amount: b.delta,
    pendingWithdrawal: 0n,
    updatedAtBlock: blockNumber,
  }));
  const fees = rows.fees.map((f) => ({ token: f.token, collected: f.collected, withdrawn: 0n }));
  const from = (table: object, rowsJson: string) =>
    sql`SELECT * FROM json_populate_recordset(NULL::${table}, ${rowsJson}::json)`;
  await sqlDb.execute(sql`
    WITH
      t AS (INSERT INTO ${trade} ${from(trade, json(rows.trades))}),
      f AS (INSERT INTO ${fill} ${from(fill, json(rows.fills))}),
      o AS (
        INSERT INTO ${order} AS cur ${from(order, json(rows.orders))}
        ON CONFLICT (order_hash) DO UPDATE SET
          filled_base_amount = cur.filled_base_amount + excluded.filled_base_amount,
          filled_quote_amount = cur.filled_quote_amount + excluded.filled_quote_amount,
          fee_paid = cur.fee_paid + excluded.fee_paid,
          fill_count = cur.fill_count + excluded.fill_count,
          last_fill_at = excluded.last_fill_at
      ),
      b AS (
        INSERT INTO ${balance} AS cur ${from(balance, json(balances))}
        ON CONFLICT (account, token) DO UPDATE SET amount = cur.amount + excluded.amount, updated_at_block = excluded.updated_at_block
      ),
      fe AS (
        INSERT INTO ${feeTotal} AS cur ${from(feeTotal, json(fees))}
        ON CONFLICT (token) DO UPDATE SET collected = cur.collected + excluded.collected
      ),
      -- the batch's candle of a bucket comes after the stored one: see mergeCandle in lib/candles.ts
      c AS (
        INSERT INTO ${candle} AS cur ${from(candle, json(rows.candles))}
        ON CONFLICT (id) DO UPDATE SET
          high = GREATEST(cur.high, excluded.high),
          low = LEAST(cur.low, excluded.low),
          close = excluded.close,
          base_volume = cur.base_volume + excluded.base_volume,
          quote_volume = cur.quote_volume + excluded.quote_volume,
          trade_count = cur.trade_count + excluded.trade_count
      )
    INSERT INTO ${batch} ${from(batch, json([batchRow]))}`);
}
