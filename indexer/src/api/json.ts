// Row -> JSON for the REST reads: money as decimal strings, block numbers and times as numbers.
import type schema from "ponder:schema";
import { candleJsonOf } from "../../lib/candles";

type Row<T extends { $inferSelect: unknown }> = T["$inferSelect"];

const str = (v: bigint | null) => (v === null ? null : v.toString());
const num = (v: bigint | null) => (v === null ? null : Number(v));

export function errorBody(code: string, message: string, details: Record<string, unknown>) {
  return { error: { code, message, details } };
}

export function tradeJson(t: Row<typeof schema.trade>) {
  return {
    id: t.id,
    txHash: t.txHash,
    logIndex: t.logIndex,
    tradeIndex: t.tradeIndex,
    batchId: t.batchId.toString(),
    pair: t.pair,
    baseToken: t.baseToken,
    quoteToken: t.quoteToken,
    maker: t.maker,
    taker: t.taker,
    makerOrderHash: t.makerOrderHash,
    takerOrderHash: t.takerOrderHash,
    takerIsBuy: t.takerIsBuy,
    price: t.price.toString(),
    baseAmount: t.baseAmount.toString(),
    quoteAmount: t.quoteAmount.toString(),
    makerFee: t.makerFee.toString(),
    makerFeeToken: t.makerFeeToken,
    takerFee: t.takerFee.toString(),
    takerFeeToken: t.takerFeeToken,
    blockNumber: Number(t.blockNumber),
    timestamp: Number(t.timestamp),
  };
}

export function candleJson(c: Row<typeof schema.candle>) {
  return candleJsonOf(c.bucketStartMs, c);
}

export function transferJson(t: Row<typeof schema.bridgeTransfer>) {
  return {
    id: t.id,
    kind: t.kind,
    status: t.status,
    srcChainId: Number(t.srcChainId),
    srcContract: t.srcContract,
    nonce: t.nonce.toString(),
    dstChainId: num(t.dstChainId),
    dstContract: t.dstContract,
    token: t.token,
    sender: t.sender,
    recipient: t.recipient,
    amount: str(t.amount),
    srcTxHash: t.srcTxHash,
    srcTimestamp: num(t.srcTimestamp),
    dstTxHash: t.dstTxHash,
    completedAt: num(t.completedAt),
    queuedAt: num(t.queuedAt),
    releasableAt: num(t.releasableAt),
    disputedAt: num(t.disputedAt),
    updatedAt: Number(t.updatedAt),
  };
}
