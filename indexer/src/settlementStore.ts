// Table updates shared by the Settlement handlers (balances, withdrawals, orders and fills, candles).
// This file registers no handler; Ponder loads it with the others, which is harmless.
import type { Context } from "ponder:registry";
import { balance, candle, fill, openWithdrawals, order, withdrawalRequest } from "ponder:schema";
import { CANDLE_INTERVAL_NAMES, applyTrade, bucketStartMs, candleId } from "../lib/candles";
import type { Hex, TradeSide } from "../lib/trades";

type Db = Context["db"];

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
    await db
      .update(withdrawalRequest, { id: closedId })
      .set({ status, closedAt: e.timestamp, closedTxHash: e.txHash });
    await db
      .update(openWithdrawals, { trader: e.trader, token: e.token })
      .set({ requestIds: ids.filter((id) => id !== closedId) });
    await addPendingWithdrawal(db, e.trader, e.token, -pendingAmount, e.blockNumber);
  }
  if (status === "executed") await addBalance(db, e.trader, e.token, -e.amount, e.blockNumber);
}

interface FillInput {
  tradeId: string;
  orderHash: Hex;
  side: TradeSide;
  pair: string;
  price: bigint;
  baseAmount: bigint;
  quoteAmount: bigint;
  blockNumber: bigint;
  timestamp: bigint;
}

export async function recordFill(db: Db, f: FillInput) {
  await db.insert(fill).values({
    id: `${f.tradeId}-${f.side.role}`,
    tradeId: f.tradeId,
    orderHash: f.orderHash,
    trader: f.side.trader,
    role: f.side.role,
    isBuy: f.side.isBuy,
    pair: f.pair,
    price: f.price,
    baseAmount: f.baseAmount,
    quoteAmount: f.quoteAmount,
    fee: f.side.fee,
    feeToken: f.side.feeToken,
    blockNumber: f.blockNumber,
    timestamp: f.timestamp,
  });
  await db
    .insert(order)
    .values({
      orderHash: f.orderHash,
      trader: f.side.trader,
      pair: f.pair,
      isBuy: f.side.isBuy,
      filledBaseAmount: f.baseAmount,
      filledQuoteAmount: f.quoteAmount,
      feePaid: f.side.fee,
      fillCount: 1,
      firstFillAt: f.timestamp,
      lastFillAt: f.timestamp,
    })
    .onConflictDoUpdate((row) => ({
      filledBaseAmount: row.filledBaseAmount + f.baseAmount,
      filledQuoteAmount: row.filledQuoteAmount + f.quoteAmount,
      feePaid: row.feePaid + f.side.fee,
      fillCount: row.fillCount + 1,
      lastFillAt: f.timestamp,
    }));
}

export async function updateCandles(
  db: Db,
  t: { pair: string; price: bigint; baseAmount: bigint; quoteAmount: bigint; timestamp: bigint },
) {
  for (const interval of CANDLE_INTERVAL_NAMES) {
    const startMs = bucketStartMs(t.timestamp, interval);
    const first = applyTrade(undefined, t);
    await db
      .insert(candle)
      .values({ id: candleId(t.pair, interval, startMs), pair: t.pair, interval, bucketStartMs: startMs, ...first })
      .onConflictDoUpdate((row) => applyTrade(row, t));
  }
}
