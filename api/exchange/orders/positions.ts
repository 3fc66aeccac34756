// The account's portfolio from its fills (spec 2.9-2.11): holdings at the chain's balances with their FIFO
// lots, and its trades as transactions; and the ledger's lots of any holder, for the eligibility registry.
import type { Address } from "viem";
import type { DexOrderWithFills, MarketSpec } from "../../../pipeline/service";
import { formatDecimal } from "../../../sdk/decimal";
import type { CatalogueAsset } from "../assets/catalogue";
import {
  assetOfMarket,
  exchangeOrderId,
  marketOf,
  marketOfSymbol,
  notional,
  onAccountClock,
  type OrdersContext,
  priceNumber,
  quantityNumber,
  usd,
} from "./context";
import { accountFills, openLocks } from "./holds";
import { type AssetFill, fifoPosition, type Lot } from "./ledger";
import { hasHold, isRestricted, restrictionEndMs } from "./resale";

/** Holdings (spec 2.9), lots (2.10) and trade transactions (2.11) of the account. */
export async function positions(ctx: OrdersContext, accountId: string) {
  const address = await ctx.custody.addressOf(accountId);
  if (!address) return { holdings: [], transactions: [] };
  const [wallFills, balances] = await Promise.all([accountFills(ctx, address), ctx.custody.balances(accountId)]);
  // one clock for the account's trades, lots, restriction ends and flags: its sandbox clock
  const all = wallFills.map((x) => ({ order: x.order, fills: onAccountClock(ctx, accountId, x.fills) }));
  const t = ctx.accountClock.now(accountId);
  const bySymbol = new Map<string, AssetFill[]>();
  for (const { order, fills } of all) bySymbol.set(order.symbol, [...(bySymbol.get(order.symbol) ?? []), ...fills]);
  const transactions = all.flatMap(({ order, fills }) => fills.map((f) => tradeTransaction(ctx, order, f)));
  const holdings = [];
  for (const asset of ctx.catalogue) {
    const m = marketOf(ctx, asset);
    if (!m) continue;
    const onChain = balances.tokens.find((x) => x.token.toLowerCase() === m.baseToken.toLowerCase())?.units ?? 0n;
    const pos = fifoPosition(bySymbol.get(m.symbol) ?? []);
    if (onChain === 0n && pos.lots.length === 0) continue;
    holdings.push(await holding(ctx, asset, m, onChain, pos, t));
  }
  transactions.sort((a, b) => b.timestamp.localeCompare(a.timestamp));
  return { holdings, transactions };
}

/** One fill of the account as a trade transaction (spec 2.11). */
function tradeTransaction(ctx: OrdersContext, order: DexOrderWithFills, f: AssetFill) {
  const asset = assetOfMarket(ctx, order.symbol);
  const m = marketOfSymbol(ctx, order.symbol);
  const price = f.fill.priceTicks * m.tickSize;
  const feeUsd = f.feeInBase ? notional(f.fill.feeUnits, price) : f.fill.feeUnits;
  return {
    id: `trd_${f.fill.tradeId.replace(/-/g, "")}_${f.side.toLowerCase()}`,
    type: "trade",
    assetId: asset?.id ?? order.symbol,
    side: f.side,
    quantity: quantityNumber(m, f.baseUnits),
    price: priceNumber(m, price),
    total: usd(f.quoteUnits),
    fee: usd(feeUsd),
    feeAsset: f.feeInBase ? (asset?.id ?? order.symbol) : "USD",
    feeQuantity: f.feeInBase ? quantityNumber(m, f.fill.feeUnits) : usd(f.fill.feeUnits),
    status: f.fill.settlement === "settled" ? "completed" : "pending",
    timestamp: new Date(f.fill.timestampMs).toISOString(),
    orderId: exchangeOrderId(order.orderId),
    txHash: f.fill.txHash,
  };
}

/** One asset's holding (spec 2.9) with its lots (2.10): the chain's units, valued at the book's last trade. */
async function holding(
  ctx: OrdersContext,
  asset: CatalogueAsset,
  m: MarketSpec,
  onChain: bigint,
  pos: ReturnType<typeof fifoPosition>,
  nowMs: number,
) {
  const cost = pos.lots.reduce((s, l) => s + l.costUnits, 0n);
  const lotUnits = pos.lots.reduce((s, l) => s + l.units, 0n);
  const stats = await ctx.dex.getMarketStats(m.symbol);
  const last = stats?.lastPriceTicks != null ? stats.lastPriceTicks * m.tickSize : null;
  const value = last === null ? null : notional(onChain, last);
  // cost of the chain's units at the lots' average cost (units from elsewhere count at that average)
  const avgCost = lotUnits > 0n ? (cost * 10n ** BigInt(m.baseDecimals)) / lotUnits : 0n;
  const heldCost = (avgCost * onChain) / 10n ** BigInt(m.baseDecimals);
  const pnl = value === null ? null : value - heldCost;
  return {
    assetId: asset.id,
    symbol: asset.symbol,
    name: asset.name,
    type: asset.category,
    quantity: quantityNumber(m, onChain),
    averageCost: usd(avgCost),
    currentPrice: last === null ? null : priceNumber(m, last),
    marketValue: value === null ? null : usd(value),
    unrealizedPnl: pnl === null ? null : usd(pnl),
    unrealizedPnlPercent:
      pnl === null || heldCost === 0n ? null : Number(formatDecimal((pnl * 1_000_000n) / heldCost, 4)),
    realizedPnl: usd(pos.realizedPnlUnits),
    quantityUnits: onChain.toString(),
    lots: pos.lots.map((l: Lot) => ({
      quantity: quantityNumber(m, l.units),
      acquisitionDate: new Date(l.acquiredAtMs).toISOString(),
      restrictionEndDate: new Date(restrictionEndMs(asset.regime, l.acquiredAtMs)).toISOString(),
      isRestricted: isRestricted(asset.regime, l.acquiredAtMs, nowMs),
      offeringType: asset.offeringType,
      regime: asset.regime,
      costBasis: usd(l.costUnits),
      quantityUnits: l.units.toString(),
    })),
  };
}

/** The ledger's lots of `holder` (any address with fills) in the asset whose token is `token`, for the
 *  eligibility registry: each lot's units and hold end (restrictionEndMs; none for a regime without a
 *  hold), oldest first; `settled` false while any of its fills there waits for its batch on chain. */
export async function ledgerLots(
  ctx: OrdersContext,
  token: Address,
  holder: Address,
): Promise<{
  regime: CatalogueAsset["regime"];
  settled: boolean;
  lots: { units: bigint; holdEndMs: number }[];
} | null> {
  const asset = ctx.catalogue.find((a) => {
    const m = marketOf(ctx, a);
    return m !== null && m.baseToken.toLowerCase() === token.toLowerCase();
  });
  const m = asset ? marketOf(ctx, asset) : null;
  if (!asset || !m) return null;
  const fills = (await accountFills(ctx, holder, m.symbol)).flatMap((x) => x.fills);
  const { lots } = fifoPosition(fills);
  return {
    regime: asset.regime,
    settled: fills.every((f) => f.fill.settlement === "settled"),
    lots: hasHold(asset.regime)
      ? lots.map((l) => ({ units: l.units, holdEndMs: restrictionEndMs(asset.regime, l.acquiredAtMs) }))
      : [],
  };
}

/** USD base units that the account's open buy orders hold in the pipeline. */
export async function openBuyHolds(ctx: OrdersContext, accountId: string): Promise<bigint> {
  const address = await ctx.custody.addressOf(accountId);
  if (!address) return 0n;
  const usdToken = ctx.dex.listMarkets()[0]?.quoteToken;
  if (!usdToken) return 0n;
  return (await openLocks(ctx, address, accountId)).get(usdToken.toLowerCase()) ?? 0n;
}
