// What an account's orders hold (the buying power and the units they take from what the chain shows), its
// fills as the ledger reads them, and the Reg CF investment it used: the reads the validations and the
// portfolio share.
import type { Address } from "viem";
import { DEX_OPEN_STATUSES, type DexOrderWithFills, DexServiceError, type MarketSpec } from "../../../pipeline/service";
import { bookSymbolOf } from "../assets/catalogue";
import { REG_CF_WINDOW_MS } from "./compliance";
import {
  assetById,
  DEX_LIST_LIMIT,
  lockFor,
  marketOfSymbol,
  notional,
  onAccountClock,
  type OrdersContext,
} from "./context";
import { type AssetFill, fifoPosition } from "./ledger";
import { buyRowsOf, isOpenDexOrder, openHoldsOf } from "./rows";

/** What an open order still holds in the pipeline (quote for a buy, base for a sell). */
export function remainingLock(m: MarketSpec, o: DexOrderWithFills): bigint {
  if (!isOpenDexOrder(o)) return 0n;
  const left = (o.sizeLots - o.filledLots) * m.lotSize;
  return o.side === "buy" ? lockFor(left, (o.priceTicks ?? 0n) * m.tickSize) : left;
}

const unavailable = (err: unknown) => err instanceof DexServiceError && err.code === "SERVICE_UNAVAILABLE";

/** What the account's open orders hold, per token (lower-case address): the sum of each order's
 *  remainingLock, which is the pipeline ledger's lock of that order (buyLockFor(remaining, limit) for a buy,
 *  the remaining base for a sell, recomputed after each fill). Read from the pipeline's orders in memory:
 *  DexService.getBalances would also read every token's chain balance, one call after another.
 *  A market whose matcher partition is down (DEX_PARTITIONS) cannot tell its orders' state: each open
 *  exchange order of it counts with its whole hold at placement, never less than what it holds now, so that
 *  the other partitions' markets keep trading without overstating what is available. */
export async function openLocks(ctx: OrdersContext, address: Address, accountId: string): Promise<Map<string, bigint>> {
  const markets = ctx.dex.listMarkets();
  const bySymbol = new Map(markets.map((m) => [m.symbol, m]));
  const out = new Map<string, bigint>();
  const add = (token: Address, units: bigint) =>
    out.set(token.toLowerCase(), (out.get(token.toLowerCase()) ?? 0n) + units);
  const addOrders = (open: readonly DexOrderWithFills[]) => {
    for (const o of open) {
      const m = bySymbol.get(o.symbol);
      if (m) add(o.side === "buy" ? m.quoteToken : m.baseToken, remainingLock(m, o));
    }
  };
  const open = { account: address, statuses: DEX_OPEN_STATUSES, limit: DEX_LIST_LIMIT };
  try {
    addOrders(await ctx.dex.listOrders(open));
    return out;
  } catch (err) {
    if (!unavailable(err)) throw err;
  }
  // market by market: each one's owner only
  const down = new Set<string>();
  await Promise.all(
    markets.map(async (m) => {
      try {
        addOrders(await ctx.dex.listOrders({ ...open, symbol: m.symbol }));
      } catch (err) {
        if (!unavailable(err)) throw err;
        down.add(m.symbol);
      }
    }),
  );
  const assets = ctx.catalogue.filter((a) => down.has(bookSymbolOf(a) ?? "")).map((a) => a.id);
  if (assets.length === 0) return out;
  for (const r of await openHoldsOf(ctx, accountId, assets)) {
    const m = bySymbol.get(bookSymbolOf(assetById(ctx, r.asset_id)!)!)!;
    add(r.side === "BUY" ? m.quoteToken : m.baseToken, BigInt(r.side === "BUY" ? r.max_cost_units : r.quantity_units));
  }
  return out;
}

/** Reg CF investment used in the window: executed buys' cost (fills in the last 12 months) and what open
 *  buys may still spend. */
export async function regCfUsedUnits(ctx: OrdersContext, accountId: string, excluding?: string): Promise<bigint> {
  const since = ctx.accountClock.now(accountId) - REG_CF_WINDOW_MS;
  const cfAssets = ctx.catalogue.filter((a) => a.regime === "reg-cf").map((a) => a.id);
  let used = 0n;
  for (const r of await buyRowsOf(ctx, accountId, cfAssets)) {
    if (r.id === excluding) continue;
    const o = await ctx.dex.getOrder(r.dex_order_id);
    if (!o) continue;
    const m = marketOfSymbol(ctx, o.symbol);
    const spent = o.fills
      .filter((f) => ctx.accountClock.at(accountId, f.timestampMs) >= since)
      .reduce((s, f) => s + notional(f.sizeLots * m.lotSize, f.priceTicks * m.tickSize), 0n);
    used += spent + remainingLock(m, o);
  }
  return used;
}

/** The account's fills of one market (or all) with their sides, from the pipeline. */
export async function accountFills(
  ctx: OrdersContext,
  address: Address,
  symbol?: string,
): Promise<{ order: DexOrderWithFills; fills: AssetFill[] }[]> {
  const orders = await ctx.dex.listOrders({ account: address, limit: DEX_LIST_LIMIT, symbol });
  const markets = new Map(ctx.dex.listMarkets().map((m) => [m.symbol, m]));
  return orders.map((o) => {
    const m = markets.get(o.symbol)!;
    return {
      order: o,
      fills: o.fills.map((fill) => {
        const baseUnits = fill.sizeLots * m.lotSize;
        const price = fill.priceTicks * m.tickSize;
        return {
          fill,
          side: o.side === "buy" ? "BUY" : "SELL",
          baseUnits,
          quoteUnits: notional(baseUnits, price),
          feeInBase: fill.feeToken.toLowerCase() === m.baseToken.toLowerCase(),
        } satisfies AssetFill;
      }),
    };
  });
}

/** The FIFO position of `address` in `m`, its fills dated on `accountId`'s clock. */
export async function positionOf(ctx: OrdersContext, address: Address, m: MarketSpec, accountId: string) {
  const fills = (await accountFills(ctx, address, m.symbol)).flatMap((x) => x.fills);
  return fifoPosition(onAccountClock(ctx, accountId, fills));
}
