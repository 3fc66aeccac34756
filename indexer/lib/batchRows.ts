// The rows one settle batch writes, computed at once from its trades (its BatchSettled event, in batch order): trade
// and fill rows one per trade/side, and the rows several trades of a batch share (balances, orders, fee
// totals, candles) summed per key, so the handler writes each table with one statement per batch.
// Folding these sums into the stored rows gives exactly what applying the trades one by one gives
// (property-tested in lib.test.ts against the per-trade rules of trades.ts and candles.ts).
import {
  CANDLE_INTERVAL_NAMES,
  type CandleInterval,
  type CandleValues,
  applyTrade,
  bucketStartMs,
  candleId,
} from "./candles";
import { type Hex, type SettledTrade, pairSymbol, tradeId, tradeBalanceDeltas, tradeSides } from "./trades";

export interface BatchTrade extends SettledTrade {
  /** the batch's BatchSettled log */
  logIndex: number;
  /** the trade's place in the batch */
  tradeIndex: number;
  batchId: bigint;
  makerOrderHash: Hex;
  takerOrderHash: Hex;
  price: bigint;
}

export interface BatchContext {
  txHash: Hex;
  blockNumber: bigint;
  /** block timestamp, seconds */
  timestamp: bigint;
  symbols: ReadonlyMap<string, string>;
}

export interface OrderDelta {
  orderHash: Hex;
  trader: Hex;
  pair: string;
  isBuy: boolean;
  filledBaseAmount: bigint;
  filledQuoteAmount: bigint;
  feePaid: bigint;
  fillCount: number;
  firstFillAt: bigint;
  lastFillAt: bigint;
}

export interface CandleDelta extends CandleValues {
  id: string;
  pair: string;
  interval: CandleInterval;
  bucketStartMs: bigint;
}

export interface BatchRows {
  trades: {
    id: string;
    txHash: Hex;
    logIndex: number;
    tradeIndex: number;
    batchId: bigint;
    pair: string;
    baseToken: Hex;
    quoteToken: Hex;
    maker: Hex;
    taker: Hex;
    makerOrderHash: Hex;
    takerOrderHash: Hex;
    takerIsBuy: boolean;
    price: bigint;
    baseAmount: bigint;
    quoteAmount: bigint;
    makerFee: bigint;
    makerFeeToken: Hex;
    takerFee: bigint;
    takerFeeToken: Hex;
    blockNumber: bigint;
    timestamp: bigint;
  }[];
  fills: {
    id: string;
    tradeId: string;
    orderHash: Hex;
    trader: Hex;
    role: "maker" | "taker";
    isBuy: boolean;
    pair: string;
    price: bigint;
    baseAmount: bigint;
    quoteAmount: bigint;
    fee: bigint;
    feeToken: Hex;
    blockNumber: bigint;
    timestamp: bigint;
  }[];
  /** per order hash, in order of first appearance */
  orders: OrderDelta[];
  /** per (account, token): the sum of the batch's changes */
  balances: { account: Hex; token: Hex; delta: bigint }[];
  /** per fee token: fees collected by the batch (tokens with no fee are left out) */
  fees: { token: Hex; collected: bigint }[];
  /** per (pair, interval, bucket): the batch's trades as one candle (open = first, close = last) */
  candles: CandleDelta[];
}

export type TradeRow = BatchRows["trades"][number];

/** The trade row of one of a batch's trades (its id, pair and fee tokens added to the event's fields): the
 *  row batchRows writes, for readers that need only trades (the hot front, indexer/hot/). */
export function tradeRow(t: BatchTrade, ctx: BatchContext): TradeRow {
  const [makerSide, takerSide] = tradeSides(t);
  return {
    ...t,
    id: tradeId(ctx.txHash, t.logIndex, t.tradeIndex),
    txHash: ctx.txHash,
    pair: pairSymbol(t.baseToken, t.quoteToken, ctx.symbols),
    makerFeeToken: makerSide.feeToken,
    takerFeeToken: takerSide.feeToken,
    blockNumber: ctx.blockNumber,
    timestamp: ctx.timestamp,
  };
}

/** The batch's sums by key while batchRows folds its trades. */
interface BatchSums {
  readonly orders: Map<string, OrderDelta>;
  readonly balances: Map<string, { account: Hex; token: Hex; delta: bigint }>;
  readonly fees: Map<string, { token: Hex; collected: bigint }>;
  readonly candles: Map<string, CandleDelta>;
}

/** One side's fill of a trade into the order's sums and the fee token's. */
function addFill(
  sums: BatchSums,
  t: BatchTrade,
  side: ReturnType<typeof tradeSides>[number],
  orderHash: Hex,
  pair: string,
  ctx: BatchContext,
): void {
  const o = sums.orders.get(orderHash);
  if (o) {
    o.filledBaseAmount += t.baseAmount;
    o.filledQuoteAmount += t.quoteAmount;
    o.feePaid += side.fee;
    o.fillCount += 1;
    o.lastFillAt = ctx.timestamp;
  } else {
    sums.orders.set(orderHash, {
      orderHash,
      trader: side.trader,
      pair,
      isBuy: side.isBuy,
      filledBaseAmount: t.baseAmount,
      filledQuoteAmount: t.quoteAmount,
      feePaid: side.fee,
      fillCount: 1,
      firstFillAt: ctx.timestamp,
      lastFillAt: ctx.timestamp,
    });
  }
  if (side.fee !== 0n) {
    const f = sums.fees.get(side.feeToken);
    if (f) f.collected += side.fee;
    else sums.fees.set(side.feeToken, { token: side.feeToken, collected: side.fee });
  }
}

/** A trade's balance deltas and its candle in every interval, into the batch's sums. */
function addBalancesAndCandles(sums: BatchSums, t: BatchTrade, pair: string, ctx: BatchContext): void {
  for (const d of tradeBalanceDeltas(t)) {
    const k = `${d.account}:${d.token}`;
    const b = sums.balances.get(k);
    if (b) b.delta += d.delta;
    else sums.balances.set(k, { ...d });
  }
  for (const interval of CANDLE_INTERVAL_NAMES) {
    const startMs = bucketStartMs(ctx.timestamp, interval);
    const cid = candleId(pair, interval, startMs);
    const c = sums.candles.get(cid);
    if (c) Object.assign(c, applyTrade(c, t));
    else sums.candles.set(cid, { id: cid, pair, interval, bucketStartMs: startMs, ...applyTrade(undefined, t) });
  }
}

export function batchRows(trades: readonly BatchTrade[], ctx: BatchContext): BatchRows {
  const tradeRows: BatchRows["trades"] = [];
  const fills: BatchRows["fills"] = [];
  const sums: BatchSums = { orders: new Map(), balances: new Map(), fees: new Map(), candles: new Map() };
  const at = { blockNumber: ctx.blockNumber, timestamp: ctx.timestamp };
  for (const t of trades) {
    // the event's fields as they are, plus the row's own (id, pair, fee tokens, block)
    const row = tradeRow(t, ctx);
    tradeRows.push(row);
    const { id, pair } = row;
    const [makerSide, takerSide] = tradeSides(t);
    for (const [side, orderHash] of [
      [makerSide, t.makerOrderHash],
      [takerSide, t.takerOrderHash],
    ] as const) {
      fills.push({
        id: `${id}-${side.role}`,
        tradeId: id,
        orderHash,
        trader: side.trader,
        role: side.role,
        isBuy: side.isBuy,
        pair,
        price: t.price,
        baseAmount: t.baseAmount,
        quoteAmount: t.quoteAmount,
        fee: side.fee,
        feeToken: side.feeToken,
        ...at,
      });
      addFill(sums, t, side, orderHash, pair, ctx);
    }
    addBalancesAndCandles(sums, t, pair, ctx);
  }
  return {
    trades: tradeRows,
    fills,
    orders: [...sums.orders.values()],
    balances: [...sums.balances.values()],
    fees: [...sums.fees.values()],
    candles: [...sums.candles.values()],
  };
}
