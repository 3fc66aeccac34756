// Service integers -> the spec's JSON (snake_case; numbers computed from the exact decimals; amounts
// that may exceed 2^53 as decimal strings).
import type { ApiKeyRecord } from "../auth/api-keys";
import type {
  DexBalance,
  DexBookSnapshot,
  DexFill,
  MarketSpec,
  DexOrder,
  DexOrderWithFills,
  DexTrade,
} from "../../pipeline/service";
import { averagePriceText, lotsToSize, ticksToPrice } from "./units";
import { formatDecimal } from "../../sdk/decimal";

export function presentBook(m: MarketSpec, b: DexBookSnapshot) {
  return {
    symbol: b.symbol,
    bids: b.bids.map((l) => ({ price: ticksToPrice(m, l.priceTicks), size: lotsToSize(m, l.sizeLots) })),
    asks: b.asks.map((l) => ({ price: ticksToPrice(m, l.priceTicks), size: lotsToSize(m, l.sizeLots) })),
    timestamp: b.timestampMs,
    sequence: b.sequence,
  };
}

export function presentOrder(m: MarketSpec, o: DexOrder) {
  const avg = averagePriceText(m, o.filledQuoteUnits, o.filledLots);
  return {
    order_id: o.orderId,
    client_order_id: o.clientOrderId,
    symbol: o.symbol,
    side: o.side,
    type: o.type,
    price: o.priceTicks === null ? null : ticksToPrice(m, o.priceTicks),
    trigger_price: o.triggerPriceTicks === null ? null : ticksToPrice(m, o.triggerPriceTicks),
    size: lotsToSize(m, o.sizeLots),
    filled_size: lotsToSize(m, o.filledLots),
    average_price: avg === null ? null : Number(avg),
    time_in_force: o.timeInForce,
    status: o.status,
    status_reason: o.statusReason,
    created_at: o.createdAtMs,
    updated_at: o.updatedAtMs,
    expires_at: o.expiresAtMs,
    hidden: o.hidden ?? false,
    iceberg_visible_size: o.icebergVisibleLots ? lotsToSize(m, o.icebergVisibleLots) : null,
  };
}

export function presentFill(m: MarketSpec, f: DexFill, feeDecimals: number) {
  return {
    trade_id: f.tradeId,
    price: ticksToPrice(m, f.priceTicks),
    size: lotsToSize(m, f.sizeLots),
    liquidity: f.liquidity,
    fee: formatDecimal(f.feeUnits, feeDecimals),
    fee_token: f.feeToken,
    timestamp: f.timestampMs,
    settlement: f.settlement,
    tx_hash: f.txHash,
  };
}

export function presentOrderWithFills(m: MarketSpec, o: DexOrderWithFills) {
  const feeDecimals = (f: DexFill) =>
    f.feeToken.toLowerCase() === m.baseToken.toLowerCase() ? m.baseDecimals : m.quoteDecimals;
  return { ...presentOrder(m, o), fills: o.fills.map((f) => presentFill(m, f, feeDecimals(f))) };
}

export function presentTrade(m: MarketSpec, t: DexTrade) {
  return {
    trade_id: t.tradeId,
    symbol: t.symbol,
    price: ticksToPrice(m, t.priceTicks),
    size: lotsToSize(m, t.sizeLots),
    side: t.takerSide,
    timestamp: t.timestampMs,
  };
}

export function presentBalance(b: DexBalance) {
  return {
    asset: b.asset,
    token: b.token,
    decimals: b.decimals,
    available: formatDecimal(b.availableUnits, b.decimals),
    locked: formatDecimal(b.lockedUnits, b.decimals),
    on_chain: formatDecimal(b.onChainUnits, b.decimals),
    pending_withdrawal: formatDecimal(b.pendingWithdrawalUnits, b.decimals),
  };
}

export function presentApiKey(k: ApiKeyRecord) {
  return {
    id: k.id,
    api_key: k.apiKey,
    label: k.label,
    permissions: k.permissions,
    ip_allowlist: k.ipAllowlist,
    position_limit: k.positionLimitE18 === null ? null : formatDecimal(k.positionLimitE18, 18),
    daily_loss_limit: k.dailyLossLimitE18 === null ? null : formatDecimal(k.dailyLossLimitE18, 18),
    agent_address: k.agentAddress,
    agent_status: k.agentStatus,
    created_at: k.createdAtMs,
    revoked_at: k.revokedAtMs,
  };
}
