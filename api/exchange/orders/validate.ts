// The creation validations 2-6 of an exchange order, in the spec's order (1, authentication, is the router's
// middleware): 2 the asset exists and is tradeable, 3 accreditation, 4 the Reg CF investment limit,
// 5 ownership (SELL; and cash for BUY), 6 resale restrictions. Each step throws the spec's refusal; what
// passes is the order as it will be signed (Checked).
import type { Address } from "viem";
import type { DexOrderWithFills, MarketSpec } from "../../../pipeline/service";
import { formatDecimal, parseDecimal } from "../../../sdk/decimal";
import type { AccountRecord } from "../accounts";
import type { CatalogueAsset } from "../assets/catalogue";
import { isAccredited, meetsAccreditation, regCfLimitCents } from "./compliance";
import {
  addressOf,
  assetById,
  lockFor,
  marketOf,
  notTradeable,
  type OrderInput,
  type OrdersContext,
  priceNumber,
  priceScale,
  quantityNumber,
  usd,
} from "./context";
import { OrderApiError } from "./errors";
import { openLocks, positionOf, regCfUsedUnits, remainingLock } from "./holds";
import { lotsTakenBy } from "./ledger";
import { type InvestorProfile, profileOf } from "./profiles";
import { bookEligible, hasHold, isRestricted, restrictionEndMs } from "./resale";
import { openRowsOfAsset, type OrderRow } from "./rows";

/** An order that passed validations 2-6: what placing it needs. */
export interface Checked {
  /** the account's custody address (the order's trader) */
  address: Address;
  asset: CatalogueAsset;
  market: MarketSpec;
  units: bigint;
  /** the signed order's price (the limit, or a market order's cap) */
  price: bigint;
  maxCost: bigint;
  restrictedSell: boolean;
  bookEligible: boolean;
}

/** An order an update replaces: its holds count as free. */
export interface Releasing {
  row: OrderRow;
  dex: DexOrderWithFills;
}

/** What the steps after the order's own form read. */
interface Order {
  account: AccountRecord;
  input: OrderInput;
  releasing?: Releasing;
  asset: CatalogueAsset;
  market: MarketSpec;
  units: bigint;
  maxCost: bigint;
  address: Address;
}

/** Validations 2-6 (1 is the router's). `releasing`: an order an update replaces (its holds count as free). */
export async function validate(
  ctx: OrdersContext,
  account: AccountRecord,
  input: OrderInput,
  releasing?: Releasing,
): Promise<Checked> {
  if (account.kycStatus !== "approved")
    throw new OrderApiError("FORBIDDEN", "identity verification (KYC) is not approved", {
      reason: "kyc_required",
      kycStatus: account.kycStatus,
    });
  const { asset, market } = tradeableAsset(ctx, input);
  const units = parseQuantity(market, input.quantity);
  const price =
    input.orderType === "limit"
      ? parsePrice(market, input.limitPrice!)
      : await marketCap(ctx, market, input.side, units);
  const maxCost = input.side === "BUY" ? lockFor(units, price) : 0n;
  const address = await addressOf(ctx, account.id);
  const order: Order = { account, input, releasing, asset, market, units, maxCost, address };
  checkAccreditation(order);
  // the investor profile (income, net worth, US person) matters only where a hold applies (the Reg CF limit,
  // the book's resale rule); a freely tradeable asset's order does not read it
  const profile = hasHold(asset.regime) ? await profileOf(ctx, account) : null;
  const accredited = isAccredited(account);
  if (input.side === "BUY" && asset.regime === "reg-cf" && !accredited) await checkRegCfLimit(ctx, order, profile!);
  const heldOfSide = await checkFunds(ctx, order);
  // (no hold: no exemption exists, bookEligible is false whoever buys)
  const eligible = profile ? bookEligible(asset.regime, { accredited, usPerson: profile.usPerson }) : false;
  const restrictedSell = hasHold(asset.regime) ? await checkResale(ctx, order, eligible, heldOfSide) : false;
  return { address, asset, market, units, price, maxCost, restrictedSell, bookEligible: eligible };
}

/** 2. the asset exists and is tradeable, and the order's form fits it */
function tradeableAsset(ctx: OrdersContext, input: OrderInput): { asset: CatalogueAsset; market: MarketSpec } {
  const asset = assetById(ctx, input.assetId);
  if (!asset) throw new OrderApiError("ASSET_NOT_FOUND", "asset not found", { assetId: input.assetId });
  const market = marketOf(ctx, asset);
  if (!market) throw notTradeable(asset.id);
  const preIpo = asset.category === "pre-ipo";
  if (input.isPreIPO !== undefined && input.isPreIPO !== preIpo) {
    throw new OrderApiError(
      "INVALID_ORDER_TYPE",
      preIpo ? "a pre-IPO asset takes isPreIPO: true" : "isPreIPO is only for pre-IPO assets",
      { field: "isPreIPO", assetId: asset.id, category: asset.category },
    );
  }
  if (input.orderType === "limit" && input.limitPrice === undefined)
    throw new OrderApiError("INVALID_REQUEST", "limitPrice is required for limit orders", { field: "limitPrice" });
  if (input.orderType === "market" && input.limitPrice !== undefined)
    throw new OrderApiError("INVALID_REQUEST", "limitPrice is only for limit orders", { field: "limitPrice" });
  return { asset, market };
}

export function parseQuantity(m: MarketSpec, q: string): bigint {
  const units = parseDecimal(q, m.baseDecimals);
  if (units === null || units <= 0n || units % m.lotSize !== 0n) {
    throw new OrderApiError(
      "INVALID_REQUEST",
      `quantity must be a positive multiple of the lot ${formatDecimal(m.lotSize, m.baseDecimals)}`,
      {
        field: "quantity",
        lot: Number(formatDecimal(m.lotSize, m.baseDecimals)),
      },
    );
  }
  const lots = units / m.lotSize;
  if (lots < m.minLots || lots > m.maxLots) {
    throw new OrderApiError("INVALID_REQUEST", "quantity is outside the book's size range", {
      field: "quantity",
      min: quantityNumber(m, m.minLots * m.lotSize),
      max: quantityNumber(m, m.maxLots * m.lotSize),
    });
  }
  return units;
}

export function parsePrice(m: MarketSpec, p: string): bigint {
  const price = parseDecimal(p, priceScale(m));
  if (price === null || price <= 0n || price % m.tickSize !== 0n) {
    throw new OrderApiError(
      "INVALID_REQUEST",
      `limitPrice must be a positive multiple of the tick ${formatDecimal(m.tickSize, priceScale(m))}`,
      {
        field: "limitPrice",
        tick: priceNumber(m, m.tickSize),
      },
    );
  }
  return price;
}

/** A market order's signed price: BUY, the worst ask it needs from the book now (its cap); SELL, one tick. */
async function marketCap(ctx: OrdersContext, m: MarketSpec, side: "BUY" | "SELL", units: bigint): Promise<bigint> {
  if (side === "SELL") return m.tickSize;
  const book = await ctx.dex.getOrderBook(m.symbol);
  let left = units / m.lotSize;
  let cap = m.tickSize;
  for (const l of book?.asks ?? []) {
    cap = l.priceTicks * m.tickSize;
    left -= l.sizeLots;
    if (left <= 0n) break;
  }
  return cap;
}

/** 3. accreditation (the buyer's requirement of spec 4.A) */
function checkAccreditation({ input, asset, account }: Order): void {
  if (input.side !== "BUY" || meetsAccreditation(asset.accreditationType, account)) return;
  throw new OrderApiError(
    "ACCREDITATION_REQUIRED",
    `this asset requires a ${asset.accreditationType === "506c" ? "verified (506c)" : "self-certified (506b)"} accredited investor`,
    {
      accreditationType: asset.accreditationType,
      accreditationStatus: account.accreditationStatus,
      investorAccreditationType: account.accreditationType,
    },
  );
}

/** 4. the Reg CF investment limit of a non-accredited investor */
async function checkRegCfLimit(ctx: OrdersContext, o: Order, profile: InvestorProfile): Promise<void> {
  const limitUnits = regCfLimitCents(profile.annualIncomeCents, profile.netWorthCents) * 10n ** 4n;
  const used = await regCfUsedUnits(ctx, o.account.id, o.releasing?.row.id);
  if (used + o.maxCost <= limitUnits) return;
  throw new OrderApiError(
    "ACCREDITATION_REQUIRED",
    "the Reg CF investment limit of a non-accredited investor would be passed (17 CFR 227.100(a)(2))",
    {
      reason: "reg_cf_investment_limit",
      limit: usd(limitUnits),
      used: usd(used),
      requested: usd(o.maxCost),
      available: usd(limitUnits > used ? limitUnits - used : 0n),
    },
  );
}

/** 5. ownership (SELL) and cash (BUY): the chain's balances less what open orders hold. Returns what the
 *  account's open orders hold of the order's side's token (the replaced order's hold released). */
async function checkFunds(ctx: OrdersContext, o: Order): Promise<bigint> {
  const { market, input, releasing } = o;
  const [balances, locks] = await Promise.all([
    ctx.custody.balances(o.account.id, [market.baseToken, market.quoteToken]),
    openLocks(ctx, o.address, o.account.id),
  ]);
  const token = input.side === "BUY" ? market.quoteToken : market.baseToken;
  const releasedLock = releasing?.row.side === input.side ? remainingLock(market, releasing.dex) : 0n;
  const held = (locks.get(token.toLowerCase()) ?? 0n) - releasedLock;
  if (input.side === "BUY") {
    const available = balances.availableCashUnits - held;
    if (o.maxCost > available) {
      throw new OrderApiError("INSUFFICIENT_BALANCE", "not enough buying power", {
        required: usd(o.maxCost),
        available: usd(available > 0n ? available : 0n),
        asset: "USD",
      });
    }
    return held;
  }
  const onChain = balances.tokens.find((t) => t.token.toLowerCase() === market.baseToken.toLowerCase())?.units ?? 0n;
  const available = onChain - held;
  if (o.units > available) {
    throw new OrderApiError("INSUFFICIENT_BALANCE", "not enough of the asset", {
      required: quantityNumber(market, o.units),
      available: quantityNumber(market, available > 0n ? available : 0n),
      asset: o.asset.id,
    });
  }
  return held;
}

/** 6. resale restrictions of an asset with a hold: returns whether the sell gives restricted lots.
 *  `held`: what the account's open orders hold of the sell's asset (the replaced order's released). */
async function checkResale(ctx: OrdersContext, o: Order, eligible: boolean, held: bigint): Promise<boolean> {
  const { asset, market } = o;
  if (o.input.side === "BUY") {
    if (eligible) return false;
    await refuseWhileOnBook(
      ctx,
      o,
      "side = 'SELL' AND restricted_sell",
      "restricted lots on this book may only go to buyers an exemption covers",
      { reason: "restricted_lots_on_book", regime: asset.regime },
    );
    return false;
  }
  const t = ctx.accountClock.now(o.account.id);
  const { lots } = await positionOf(ctx, o.address, market, o.account.id);
  const taken = lotsTakenBy(lots, held, o.units);
  const restricted = taken.filter((x) => isRestricted(asset.regime, x.lot.acquiredAtMs, t));
  if (restricted.length === 0) return false;
  await refuseWhileOnBook(
    ctx,
    o,
    "side = 'BUY' AND NOT book_eligible",
    "this sell gives lots within their restriction hold, and buyers no exemption covers are on the book",
    {
      reason: "ineligible_buyers_on_book",
      regime: asset.regime,
      restrictedQuantity: quantityNumber(
        market,
        restricted.reduce((s, x) => s + x.units, 0n),
      ),
      restrictionEndDate: new Date(restrictionEndMs(asset.regime, restricted.at(-1)!.lot.acquiredAtMs)).toISOString(),
    },
  );
  return true;
}

/** RESALE_RESTRICTED while an open order of the asset that `where` selects is on the book (the order this
 *  one replaces aside). */
async function refuseWhileOnBook(
  ctx: OrdersContext,
  o: Order,
  where: string,
  message: string,
  details: Record<string, unknown>,
): Promise<void> {
  const onBook = (await openRowsOfAsset(ctx, o.asset.id, where)).filter((r) => r.id !== o.releasing?.row.id);
  if (onBook.length > 0) throw new OrderApiError("RESALE_RESTRICTED", message, details);
}
