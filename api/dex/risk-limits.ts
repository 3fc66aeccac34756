// The optional limits of an API key (spec 5.4), checked before an order placed with the key reaches the
// service. Definitions (docs/decisions.md "DEX API"):
//  - position limit: the notional (quote currency) of the key's open orders in one market, remaining
//    size x limit price, plus the new order's notional, may not exceed the limit. An order without a limit
//    price counts at its trigger price, else at the best opposite price of the book.
//  - daily loss limit: over the fills of the key's orders since 00:00 UTC, per market, cash flow (sells
//    minus buys minus fees) plus the net base quantity marked at the last trade price; when the summed
//    loss has reached the limit, the key places no more orders that day (cancels still work).
// Amounts are compared as quote-currency values scaled by 1e18, so markets of different quote decimals
// add up; all seeded markets quote in USD.
import { ApiError } from "../errors";
import type { ApiKeyRecord } from "../auth/api-keys";
import { DEX_OPEN_STATUSES, type MarketSpec, type DexOrderIntent, type DexService } from "../../pipeline/service";
import { PRICE_SCALE } from "./units";
import { formatDecimal } from "../../sdk/decimal";

const MAX_ORDERS_SCANNED = 10_000;

/** quote value scaled by 1e18 of sizeLots at priceTicks (rounded up) */
export function notionalE18(m: MarketSpec, priceTicks: bigint, sizeLots: bigint): bigint {
  const quoteUnitsTimes1e18 = sizeLots * m.lotSize * priceTicks * m.tickSize; // quote units * 1e18
  const scale = 10n ** BigInt(m.quoteDecimals);
  return (quoteUnitsTimes1e18 + scale - 1n) / scale;
}

const e18Text = (v: bigint) => formatDecimal(v, 18);

export async function checkPositionLimit(
  service: DexService,
  m: MarketSpec,
  key: ApiKeyRecord,
  intent: DexOrderIntent,
): Promise<void> {
  if (key.positionLimitE18 === null) return;
  const open = await service.listOrders({
    account: key.owner,
    apiKeyId: key.id,
    statuses: DEX_OPEN_STATUSES,
    symbol: m.symbol,
    limit: MAX_ORDERS_SCANNED,
  });
  let exposure = 0n;
  for (const o of open) {
    const price = o.priceTicks ?? o.triggerPriceTicks;
    if (price !== null) exposure += notionalE18(m, price, o.sizeLots - o.filledLots);
  }
  let price = intent.priceTicks ?? intent.triggerPriceTicks;
  if (price === null) {
    const book = await service.getOrderBook(m.symbol, 1);
    const best = intent.side === "buy" ? book?.asks[0] : book?.bids[0];
    if (!best)
      throw new ApiError("FORBIDDEN", "no reference price to check the position limit", {
        reason: "position_limit_no_price",
      });
    price = best.priceTicks;
  }
  const after = exposure + notionalE18(m, price, intent.sizeLots);
  if (after > key.positionLimitE18) {
    throw new ApiError("FORBIDDEN", "order would exceed the API key's position limit", {
      reason: "position_limit_exceeded",
      limit: e18Text(key.positionLimitE18),
      open_notional: e18Text(exposure),
      would_be: e18Text(after),
    });
  }
}

export function startOfUtcDayMs(nowMs: number): number {
  return nowMs - (nowMs % 86_400_000);
}

export async function checkDailyLossLimit(
  service: DexService,
  markets: readonly MarketSpec[],
  key: ApiKeyRecord,
  nowMs: number,
): Promise<void> {
  if (key.dailyLossLimitE18 === null) return;
  const since = startOfUtcDayMs(nowMs);
  const orders = await service.listOrders({
    account: key.owner,
    apiKeyId: key.id,
    sinceMs: since,
    limit: MAX_ORDERS_SCANNED,
  });
  const bySymbol = new Map(markets.map((m) => [m.symbol, m]));
  const perMarket = new Map<string, { cashE18: bigint; baseUnits: bigint; lastPriceTicks: bigint }>();
  for (const o of orders) {
    const m = bySymbol.get(o.symbol);
    if (!m) continue;
    for (const f of o.fills) {
      if (f.timestampMs < since) continue;
      const acc = perMarket.get(o.symbol) ?? { cashE18: 0n, baseUnits: 0n, lastPriceTicks: f.priceTicks };
      const value = notionalE18(m, f.priceTicks, f.sizeLots);
      const base = f.sizeLots * m.lotSize;
      if (o.side === "buy") {
        acc.cashE18 -= value;
        acc.baseUnits += base;
      } else {
        acc.cashE18 += value;
        acc.baseUnits -= base;
      }
      if (f.feeToken.toLowerCase() === m.quoteToken.toLowerCase())
        acc.cashE18 -= f.feeUnits * 10n ** BigInt(18 - m.quoteDecimals);
      else acc.baseUnits -= f.feeUnits;
      perMarket.set(o.symbol, acc);
    }
  }
  let pnlE18 = 0n;
  for (const [symbol, acc] of perMarket) {
    const m = bySymbol.get(symbol)!;
    const stats = await service.getMarketStats(symbol);
    const mark = stats?.lastPriceTicks ?? acc.lastPriceTicks;
    // value of baseUnits at mark: baseUnits * price(contract) / 1e18 quote units, scaled to 1e18
    const markValueE18 = (acc.baseUnits * mark * m.tickSize * 10n ** BigInt(18 - m.quoteDecimals)) / PRICE_SCALE;
    pnlE18 += acc.cashE18 + markValueE18;
  }
  if (-pnlE18 >= key.dailyLossLimitE18) {
    throw new ApiError("FORBIDDEN", "the API key's daily loss limit is reached", {
      reason: "daily_loss_limit_reached",
      limit: e18Text(key.dailyLossLimitE18),
      loss_today: e18Text(-pnlE18),
    });
  }
}
