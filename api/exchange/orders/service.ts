// Exchange orders (spec 2.8, 3.1, 4.A) on the DEX pipeline: each is a real Settlement order signed with the
// account's custody key and placed through the DexService on the asset's `SYMBOL-USD` book; status, fills
// and settlement are the pipeline's. The six creation validations run in the spec's order:
//   1 authentication (the router's middleware), 2 the asset exists and is tradeable, 3 accreditation,
//   4 the Reg CF investment limit, 5 ownership (SELL; and cash for BUY), 6 resale restrictions.
// The book respects the resale rule (docs/decisions/api.md "Exchange orders"): for an asset whose regime has
// a hold, the exchange never has at the same time an open SELL that gives a restricted lot and an open BUY of
// a buyer no book exemption covers; whichever arrives second is refused (RESALE_RESTRICTED). Placements of
// one asset run one at a time (a per-asset queue) so that the check and the placement are one step.
import type { SandboxClocks } from "../funding/sandbox-clock";
import { metrics, refusalReason } from "../../../runtime/metrics";
import { randomBytes, randomUUID } from "node:crypto";
import type { Address, Hex } from "viem";
import type { Db } from "../../../db";
import type { DexFill, DexOrderWithFills, DexService, MarketSpec, SettlementOrder } from "../../../pipeline/service";
import { DEX_OPEN_STATUSES, DexServiceError } from "../../../pipeline/service";
import { formatDecimal, parseDecimal } from "../../../sdk/decimal";
import type { AccountRecord } from "../accounts";
import { bookSymbolOf, CATALOGUE, type CatalogueAsset } from "../assets/catalogue";
import { isAccredited, meetsAccreditation, REG_CF_WINDOW_MS, regCfLimitCents } from "./compliance";
import { OrderApiError } from "./errors";
import { fifoPosition, lotsTakenBy, type AssetFill, type Lot } from "./ledger";
import { bookEligible, hasHold, isRestricted, restrictionEndMs } from "./resale";

const PRICE_SCALE = 10n ** 18n;
/** A resting order's signed expiry: one year (the exchange's limit orders are GTC). */
const ORDER_EXPIRY_S = 365n * 86_400n;
const DEX_LIST_LIMIT = 10_000;
/** How long a placement the chain funds waits for the pipeline's ledger to see those funds (a deposit just
 *  mined reaches it through its chain follower a moment later) before the pipeline's refusal is answered. */
const PIPELINE_CATCH_UP_MS = 10_000;
/** How long a placement whose answer a matcher partition's connection lost (DEX_PARTITIONS) is looked up on
 *  the partitions before the client is answered SERVICE_UNAVAILABLE with its row kept (the order may exist). */
const PLACEMENT_LOOKUP_MS = 15_000;
/** A row older than this without its order on any partition was never placed (the partition call's time limit,
 *  the catch-up and the lookup above are all shorter). */
const UNPLACED_AFTER_MS = 120_000;
/** A partition's connection failed after the call left (pipeline/partition/client.ts: details.sent). */
const answerLost = (err: unknown) =>
  err instanceof DexServiceError && err.code === "SERVICE_UNAVAILABLE" && err.details.sent === true;

export interface OrdersCustody {
  addressOf(accountId: string): Promise<Address | undefined>;
  /** `only`: the tokens the caller needs (the cash token is always read); absent: every token */
  balances(
    accountId: string,
    only?: readonly Address[],
  ): Promise<{
    address: string;
    tokens: { symbol: string; token: Address; units: bigint }[];
    availableCashUnits: bigint;
  }>;
  signOrder(accountId: string, order: SettlementOrder): Promise<Hex>;
}

export interface OrdersDeps {
  db: Db;
  dex: DexService;
  custody: OrdersCustody;
  catalogue?: readonly CatalogueAsset[];
  now?: () => number;
  /** the clock of the investor rules (resale holds, the Reg CF window) and of the account's dates: each
   *  account's sandbox clock (api/exchange/funding/sandbox-clock.ts), which only that account's POST
   *  /v1/sandbox/funding/advance-clock moves; a fill is dated `at` its account's clock as it stood then, so
   *  a lot's acquisition, restriction end and isRestricted read one clock. Default: `now` for every account */
  accountClock?: Pick<SandboxClocks, "now" | "at">;
  /** how long a placement whose answer a partition's connection lost is looked up (default PLACEMENT_LOOKUP_MS) */
  placementLookupMs?: number;
}

export type ExchangeStatus = "PENDING" | "EXECUTED" | "CANCELLED";
export interface OrderInput {
  assetId: string;
  side: "BUY" | "SELL";
  orderType: "market" | "limit";
  /** decimal text of asset units */
  quantity: string;
  /** decimal text of dollars; limit orders */
  limitPrice?: string;
  isPreIPO?: boolean;
}

interface OrderRow {
  id: string;
  account_id: string;
  dex_order_id: string;
  asset_id: string;
  side: "BUY" | "SELL";
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

export interface InvestorProfile {
  annualIncomeCents: bigint;
  netWorthCents: bigint;
  usPerson: boolean;
}

/** The exchange's order id of a pipeline order id: `ord_` and the uuid's 32 hex digits. */
export const exchangeOrderId = (dexOrderId: string): string => `ord_${dexOrderId.replace(/-/g, "")}`;
export const ORDER_ID_RE = /^ord_[0-9a-f]{32}$/;

/** Dollars of demo USD base units (6 decimals) as a JSON number (exact decimal text first). */
const usd = (units: bigint): number => Number(formatDecimal(units, 6));

export function createOrders(deps: OrdersDeps) {
  const { db, dex } = deps;
  const catalogue = deps.catalogue ?? CATALOGUE;
  const now = deps.now ?? Date.now;
  const accountClock: Pick<SandboxClocks, "now" | "at"> = deps.accountClock ?? {
    now: () => now(),
    at: (_id, wallMs) => wallMs,
  };
  /** the account's fills dated on its clock */
  const onAccountClock = (accountId: string, fills: AssetFill[]): AssetFill[] =>
    fills.map((f) => ({ ...f, fill: { ...f.fill, timestampMs: accountClock.at(accountId, f.fill.timestampMs) } }));
  const queues = new Map<string, Promise<unknown>>();

  /** Runs `fn` after every earlier placement of the same asset. */
  function serial<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = queues.get(key) ?? Promise.resolve();
    const run = prev.then(fn, fn);
    const tail = run.catch(() => undefined);
    queues.set(key, tail);
    void tail.then(() => {
      if (queues.get(key) === tail) queues.delete(key);
    });
    return run;
  }

  const assetById = (id: string) => catalogue.find((a) => a.id === id);
  /** What placements run one at a time: those of one asset with a resale hold (the book's resale rule spans
   *  every account: the check and the placement are one step), else those of one account (its balances and
   *  holds). Placements of different accounts on a freely tradeable asset run side by side. */
  const placementKey = (account: AccountRecord, assetId: string) => {
    const asset = assetById(assetId);
    return asset && hasHold(asset.regime) ? `asset:${asset.id}` : `account:${account.id}`;
  };
  function marketOf(a: CatalogueAsset): MarketSpec | null {
    const s = bookSymbolOf(a);
    return s ? (dex.listMarkets().find((m) => m.symbol === s) ?? null) : null;
  }
  const assetOfMarket = (symbol: string) => catalogue.find((a) => bookSymbolOf(a) === symbol);
  const quantityNumber = (m: MarketSpec, units: bigint) => Number(formatDecimal(units, m.baseDecimals));
  const priceScale = (m: MarketSpec) => m.quoteDecimals + 18 - m.baseDecimals;
  const priceNumber = (m: MarketSpec, contractPrice: bigint) => Number(formatDecimal(contractPrice, priceScale(m)));
  const notional = (base: bigint, price: bigint) => (base * price) / PRICE_SCALE;
  const lockFor = (base: bigint, price: bigint) => (base * price + PRICE_SCALE - 1n) / PRICE_SCALE;

  async function addressOf(accountId: string): Promise<Address> {
    const a = await deps.custody.addressOf(accountId);
    if (!a) throw new OrderApiError("SERVICE_UNAVAILABLE", "the account's custody is not ready", {});
    return a;
  }

  async function profileOf(account: AccountRecord): Promise<InvestorProfile> {
    const r = await db.query<{ annual_income_cents: string; net_worth_cents: string; us_person: boolean }>(
      "SELECT annual_income_cents::text, net_worth_cents::text, us_person FROM exchange_investor_profiles WHERE account_id = $1",
      [account.id],
    );
    const row = r.rows[0];
    // no profile yet: nothing declared (the $2,500 floor applies); a US person when the phone is +1 (NANP)
    if (!row) return { annualIncomeCents: 0n, netWorthCents: 0n, usPerson: (account.phone ?? "+1").startsWith("+1") };
    return {
      annualIncomeCents: BigInt(row.annual_income_cents),
      netWorthCents: BigInt(row.net_worth_cents),
      usPerson: row.us_person,
    };
  }

  async function setProfile(accountId: string, p: InvestorProfile): Promise<void> {
    await db.query(
      `INSERT INTO exchange_investor_profiles (account_id, annual_income_cents, net_worth_cents, us_person) VALUES ($1, $2, $3, $4)
       ON CONFLICT (account_id) DO UPDATE SET annual_income_cents = $2, net_worth_cents = $3, us_person = $4, updated_at = now()`,
      [accountId, p.annualIncomeCents.toString(), p.netWorthCents.toString(), p.usPerson],
    );
  }

  const COLS =
    "id, account_id, dex_order_id::text, asset_id, side, order_type, quantity_units::text, limit_price::text, is_pre_ipo, max_cost_units::text, restricted_sell, book_eligible, open, created_ms::text, cancelled_ms::text, replaces, replaced_by";

  async function rowOf(accountId: string, id: string): Promise<OrderRow | undefined> {
    if (!ORDER_ID_RE.test(id)) return undefined;
    return (
      await db.query<OrderRow>(`SELECT ${COLS} FROM exchange_orders WHERE id = $1 AND account_id = $2`, [id, accountId])
    ).rows[0];
  }

  /** The account's fills of one market with their sides, from the pipeline. */
  async function accountFills(
    address: Address,
    symbol?: string,
  ): Promise<{ order: DexOrderWithFills; fills: AssetFill[] }[]> {
    const orders = await dex.listOrders({ account: address, limit: DEX_LIST_LIMIT, symbol });
    const markets = new Map(dex.listMarkets().map((m) => [m.symbol, m]));
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

  /** Refreshes the `open` cache of rows the pipeline finished; returns the rows still open. */
  async function stillOpen(rows: OrderRow[]): Promise<OrderRow[]> {
    const out: OrderRow[] = [];
    for (const r of rows) {
      const o = await dex.getOrder(r.dex_order_id);
      if (o && (o.status === "open" || o.status === "partially_filled" || o.status === "pending_trigger")) out.push(r);
      else await db.query("UPDATE exchange_orders SET open = false WHERE id = $1", [r.id]);
    }
    return out;
  }

  async function openRowsOfAsset(assetId: string, where: string): Promise<OrderRow[]> {
    const r = await db.query<OrderRow>(
      `SELECT ${COLS} FROM exchange_orders WHERE asset_id = $1 AND open AND ${where}`,
      [assetId],
    );
    return stillOpen(r.rows);
  }

  function parseQuantity(m: MarketSpec, q: string): bigint {
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

  function parsePrice(m: MarketSpec, p: string): bigint {
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
  async function marketCap(m: MarketSpec, side: "BUY" | "SELL", units: bigint): Promise<bigint> {
    if (side === "SELL") return m.tickSize;
    const book = await dex.getOrderBook(m.symbol);
    let left = units / m.lotSize;
    let cap = m.tickSize;
    for (const l of book?.asks ?? []) {
      cap = l.priceTicks * m.tickSize;
      left -= l.sizeLots;
      if (left <= 0n) break;
    }
    return cap;
  }

  interface Checked {
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

  /** Validations 2-6 (1 is the router's). `releasing`: an order an update replaces (its holds count as free). */
  async function validate(
    account: AccountRecord,
    input: OrderInput,
    releasing?: { row: OrderRow; dex: DexOrderWithFills },
  ): Promise<Checked> {
    if (account.kycStatus !== "approved")
      throw new OrderApiError("FORBIDDEN", "identity verification (KYC) is not approved", {
        reason: "kyc_required",
        kycStatus: account.kycStatus,
      });
    // 2. the asset exists and is tradeable
    const asset = assetById(input.assetId);
    if (!asset) throw new OrderApiError("ASSET_NOT_FOUND", "asset not found", { assetId: input.assetId });
    const market = marketOf(asset);
    if (!market)
      throw new OrderApiError("ASSET_NOT_TRADEABLE", "this asset is listed but not tradeable", { assetId: asset.id });
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
    const units = parseQuantity(market, input.quantity);
    const price =
      input.orderType === "limit" ? parsePrice(market, input.limitPrice!) : await marketCap(market, input.side, units);
    const maxCost = input.side === "BUY" ? lockFor(units, price) : 0n;
    const address = await addressOf(account.id);

    // 3. accreditation (the buyer's requirement of spec 4.A)
    if (input.side === "BUY" && !meetsAccreditation(asset.accreditationType, account)) {
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
    // the investor profile (income, net worth, US person) matters only where a hold applies (the Reg CF limit,
    // the book's resale rule); a freely tradeable asset's order does not read it
    const profile = hasHold(asset.regime) ? await profileOf(account) : null;
    const accredited = isAccredited(account);

    // 4. the Reg CF investment limit of a non-accredited investor
    if (input.side === "BUY" && asset.regime === "reg-cf" && !accredited) {
      const limitUnits = regCfLimitCents(profile!.annualIncomeCents, profile!.netWorthCents) * 10n ** 4n;
      const used = await regCfUsedUnits(account.id, address, releasing?.row.id);
      if (used + maxCost > limitUnits) {
        throw new OrderApiError(
          "ACCREDITATION_REQUIRED",
          "the Reg CF investment limit of a non-accredited investor would be passed (17 CFR 227.100(a)(2))",
          {
            reason: "reg_cf_investment_limit",
            limit: usd(limitUnits),
            used: usd(used),
            requested: usd(maxCost),
            available: usd(limitUnits > used ? limitUnits - used : 0n),
          },
        );
      }
    }

    // 5. ownership (SELL) and cash (BUY): the chain's balances less what open orders hold
    const [balances, locks] = await Promise.all([
      deps.custody.balances(account.id, [market.baseToken, market.quoteToken]),
      openLocks(address, account.id),
    ]);
    const locked = (token: Address) => locks.get(token.toLowerCase()) ?? 0n;
    const releasedLock = releasing ? remainingLock(market, releasing.dex) : 0n;
    if (input.side === "BUY") {
      const held = locked(market.quoteToken) - (releasing?.row.side === "BUY" ? releasedLock : 0n);
      const available = balances.availableCashUnits - held;
      if (maxCost > available) {
        throw new OrderApiError("INSUFFICIENT_BALANCE", "not enough buying power", {
          required: usd(maxCost),
          available: usd(available > 0n ? available : 0n),
          asset: "USD",
        });
      }
    } else {
      const onChain =
        balances.tokens.find((t) => t.token.toLowerCase() === market.baseToken.toLowerCase())?.units ?? 0n;
      const held = locked(market.baseToken) - (releasing?.row.side === "SELL" ? releasedLock : 0n);
      const available = onChain - held;
      if (units > available) {
        throw new OrderApiError("INSUFFICIENT_BALANCE", "not enough of the asset", {
          required: quantityNumber(market, units),
          available: quantityNumber(market, available > 0n ? available : 0n),
          asset: asset.id,
        });
      }
    }

    // 6. resale restrictions
    let restrictedSell = false;
    // (no hold: no exemption exists, bookEligible is false whoever buys)
    const eligible = profile ? bookEligible(asset.regime, { accredited, usPerson: profile.usPerson }) : false;
    if (hasHold(asset.regime)) {
      const t = accountClock.now(account.id);
      if (input.side === "SELL") {
        const { lots } = await positionOf(address, market, account.id);
        const held = locked(market.baseToken) - (releasing?.row.side === "SELL" ? releasedLock : 0n);
        const taken = lotsTakenBy(lots, held, units);
        const restricted = taken.filter((x) => isRestricted(asset.regime, x.lot.acquiredAtMs, t));
        restrictedSell = restricted.length > 0;
        if (restrictedSell) {
          const ineligible = (await openRowsOfAsset(asset.id, "side = 'BUY' AND NOT book_eligible")).filter(
            (r) => r.id !== releasing?.row.id,
          );
          if (ineligible.length > 0) {
            throw new OrderApiError(
              "RESALE_RESTRICTED",
              "this sell gives lots within their restriction hold, and buyers no exemption covers are on the book",
              {
                reason: "ineligible_buyers_on_book",
                regime: asset.regime,
                restrictedQuantity: quantityNumber(
                  market,
                  restricted.reduce((s, x) => s + x.units, 0n),
                ),
                restrictionEndDate: new Date(
                  restrictionEndMs(asset.regime, restricted.at(-1)!.lot.acquiredAtMs),
                ).toISOString(),
              },
            );
          }
        }
      } else if (!eligible) {
        const restricted = (await openRowsOfAsset(asset.id, "side = 'SELL' AND restricted_sell")).filter(
          (r) => r.id !== releasing?.row.id,
        );
        if (restricted.length > 0) {
          throw new OrderApiError(
            "RESALE_RESTRICTED",
            "restricted lots on this book may only go to buyers an exemption covers",
            {
              reason: "restricted_lots_on_book",
              regime: asset.regime,
            },
          );
        }
      }
    }
    return { address, asset, market, units, price, maxCost, restrictedSell, bookEligible: eligible };
  }

  /** What the account's open orders hold, per token (lower-case address): the sum of each order's
   *  remainingLock, which is the pipeline ledger's lock of that order (buyLockFor(remaining, limit) for a buy,
   *  the remaining base for a sell, recomputed after each fill). Read from the pipeline's orders in memory:
   *  DexService.getBalances would also read every token's chain balance, one call after another.
   *  A market whose matcher partition is down (DEX_PARTITIONS) cannot tell its orders' state: each open
   *  exchange order of it counts with its whole hold at placement, never less than what it holds now, so that
   *  the other partitions' markets keep trading without overstating what is available. */
  async function openLocks(address: Address, accountId: string): Promise<Map<string, bigint>> {
    const markets = dex.listMarkets();
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
    const unavailable = (err: unknown) => err instanceof DexServiceError && err.code === "SERVICE_UNAVAILABLE";
    try {
      addOrders(await dex.listOrders({ account: address, statuses: DEX_OPEN_STATUSES, limit: DEX_LIST_LIMIT }));
      return out;
    } catch (err) {
      if (!unavailable(err)) throw err;
    }
    // market by market: each one's owner only
    const down = new Set<string>();
    await Promise.all(
      markets.map(async (m) => {
        try {
          addOrders(
            await dex.listOrders({
              account: address,
              symbol: m.symbol,
              statuses: DEX_OPEN_STATUSES,
              limit: DEX_LIST_LIMIT,
            }),
          );
        } catch (err) {
          if (!unavailable(err)) throw err;
          down.add(m.symbol);
        }
      }),
    );
    const assets = catalogue.filter((a) => down.has(bookSymbolOf(a) ?? "")).map((a) => a.id);
    if (assets.length === 0) return out;
    const rows = await db.query<{
      asset_id: string;
      side: "BUY" | "SELL";
      quantity_units: string;
      max_cost_units: string;
    }>(
      "SELECT asset_id, side, quantity_units::text, max_cost_units::text FROM exchange_orders WHERE account_id = $1 AND open AND asset_id = ANY($2)",
      [accountId, assets],
    );
    for (const r of rows.rows) {
      const m = bySymbol.get(bookSymbolOf(assetById(r.asset_id)!)!)!;
      add(
        r.side === "BUY" ? m.quoteToken : m.baseToken,
        BigInt(r.side === "BUY" ? r.max_cost_units : r.quantity_units),
      );
    }
    return out;
  }

  /** What an open order still holds in the pipeline (quote for a buy, base for a sell). */
  function remainingLock(m: MarketSpec, o: DexOrderWithFills): bigint {
    if (!(o.status === "open" || o.status === "partially_filled" || o.status === "pending_trigger")) return 0n;
    const left = (o.sizeLots - o.filledLots) * m.lotSize;
    return o.side === "buy" ? lockFor(left, (o.priceTicks ?? 0n) * m.tickSize) : left;
  }

  /** Reg CF investment used in the window: executed buys' cost (fills in the last 12 months) and what open
   *  buys may still spend. */
  async function regCfUsedUnits(accountId: string, _address: Address, excluding?: string): Promise<bigint> {
    const since = accountClock.now(accountId) - REG_CF_WINDOW_MS;
    const cfAssets = catalogue.filter((a) => a.regime === "reg-cf").map((a) => a.id);
    const rows = (
      await db.query<OrderRow>(
        `SELECT ${COLS} FROM exchange_orders WHERE account_id = $1 AND side = 'BUY' AND asset_id = ANY($2)`,
        [accountId, cfAssets],
      )
    ).rows;
    let used = 0n;
    for (const r of rows) {
      if (r.id === excluding) continue;
      const o = await dex.getOrder(r.dex_order_id);
      if (!o) continue;
      const m = dex.listMarkets().find((x) => x.symbol === o.symbol)!;
      const spent = o.fills
        .filter((f) => accountClock.at(accountId, f.timestampMs) >= since)
        .reduce((s, f) => s + notional(f.sizeLots * m.lotSize, f.priceTicks * m.tickSize), 0n);
      used += spent + remainingLock(m, o);
    }
    return used;
  }

  /** the FIFO position of `address` in `m`, its fills dated on `accountId`'s clock */
  async function positionOf(address: Address, m: MarketSpec, accountId: string) {
    const fills = (await accountFills(address, m.symbol)).flatMap((x) => x.fills);
    return fifoPosition(onAccountClock(accountId, fills));
  }

  function statusOf(row: OrderRow, o: DexOrderWithFills | null): ExchangeStatus {
    if (!o) return row.cancelled_ms ? "CANCELLED" : "PENDING";
    if (o.status === "open" || o.status === "partially_filled" || o.status === "pending_trigger") return "PENDING";
    if (o.status === "filled") return "EXECUTED";
    // finished without filling completely: by its owner (an update too) CANCELLED; otherwise (a market
    // order's unfilled remainder, an expiry) EXECUTED when anything filled, else CANCELLED
    if (o.statusReason === "user_cancelled" || row.cancelled_ms !== null) return "CANCELLED";
    return o.filledLots > 0n ? "EXECUTED" : "CANCELLED";
  }

  function present(row: OrderRow, o: DexOrderWithFills | null, full: boolean) {
    const asset = assetById(row.asset_id)!;
    const m = marketOf(asset);
    const units = BigInt(row.quantity_units);
    const q = (u: bigint) => (m ? quantityNumber(m, u) : 0);
    const status = statusOf(row, o);
    const base: Record<string, unknown> = {
      orderId: row.id,
      assetId: row.asset_id,
      side: row.side,
      orderType: row.order_type,
      quantity: q(units),
      ...(row.limit_price !== null && m ? { limitPrice: priceNumber(m, BigInt(row.limit_price)) } : {}),
      ...(row.is_pre_ipo ? { isPreIPO: true } : {}),
      status,
      createdAt: new Date(Number(row.created_ms)).toISOString(),
    };
    if (!full || !m) return base;
    const filledUnits = o ? o.filledLots * m.lotSize : 0n;
    const lastFill = o?.fills.reduce((t, f) => Math.max(t, f.timestampMs), 0) ?? 0;
    const avg =
      o && filledUnits > 0n ? (o.filledQuoteUnits * 10n ** BigInt(m.baseDecimals) * 10n ** 6n) / filledUnits : null;
    return {
      ...base,
      filledQuantity: q(filledUnits),
      averagePrice: avg === null ? null : Number(formatDecimal(avg, m.quoteDecimals + 6)),
      ...(status === "EXECUTED" ? { executedAt: new Date(lastFill || o!.updatedAtMs).toISOString() } : {}),
      ...(status === "CANCELLED"
        ? { cancelledAt: new Date(row.cancelled_ms !== null ? Number(row.cancelled_ms) : o!.updatedAtMs).toISOString() }
        : {}),
      remainingQuantity: status === "PENDING" ? q(units - filledUnits) : 0,
      settlement:
        o && o.fills.length > 0 ? (o.fills.every((f) => f.settlement === "settled") ? "settled" : "pending") : null,
      ...(row.replaces ? { replaces: row.replaces } : {}),
      ...(row.replaced_by ? { replacedBy: row.replaced_by } : {}),
    };
  }

  async function placeChecked(account: AccountRecord, input: OrderInput, c: Checked, replaces?: string) {
    const { address } = c;
    const dexOrderId = randomUUID();
    const id = exchangeOrderId(dexOrderId);
    const createdMs = now();
    const order: SettlementOrder = {
      trader: address,
      baseToken: c.market.baseToken,
      quoteToken: c.market.quoteToken,
      side: input.side === "BUY" ? 0 : 1,
      price: c.price,
      amount: c.units,
      expiry: BigInt(Math.floor(createdMs / 1000)) + ORDER_EXPIRY_S,
      // random 62-bit nonces: one per order, never reused (a refused order's nonce is simply abandoned)
      nonce: randomBytes(8).readBigUInt64BE() >> 2n,
      flags: 0,
    };
    const signature = await deps.custody.signOrder(account.id, order);
    const inserted = await db.query<OrderRow>(
      `INSERT INTO exchange_orders (id, account_id, dex_order_id, asset_id, side, order_type, quantity_units, limit_price, is_pre_ipo, max_cost_units, restricted_sell, book_eligible, created_ms, replaces)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) RETURNING ${COLS}`,
      [
        id,
        account.id,
        dexOrderId,
        c.asset.id,
        input.side,
        input.orderType,
        c.units.toString(),
        input.orderType === "limit" ? c.price.toString() : null,
        c.asset.category === "pre-ipo",
        c.maxCost.toString(),
        c.restrictedSell,
        c.bookEligible,
        createdMs,
        replaces ?? null,
      ],
    );
    let placed: DexOrderWithFills;
    const until = Date.now() + PIPELINE_CATCH_UP_MS;
    const placeOnce = () =>
      dex.placeOrder({
        kind: "signed",
        orderId: dexOrderId,
        clientOrderId: id,
        symbol: c.market.symbol,
        side: input.side === "BUY" ? "buy" : "sell",
        type: input.orderType,
        timeInForce: input.orderType === "market" ? "ioc" : "gtc",
        priceTicks: input.orderType === "limit" ? c.price / c.market.tickSize : null,
        triggerPriceTicks: null,
        sizeLots: c.units / c.market.lotSize,
        expiresAtMs: null,
        receivedAtMs: createdMs,
        trader: address,
        order,
        signature,
      });
    try {
      // the chain funds it (validation 5): a refusal for funds is the pipeline's ledger lagging the chain
      for (;;) {
        try {
          placed = await placeOnce();
          break;
        } catch (err) {
          if (!(err instanceof DexServiceError && err.code === "INSUFFICIENT_BALANCE") || Date.now() > until) throw err;
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    } catch (err) {
      // the answer was lost on its way back from a matcher partition (DEX_PARTITIONS): the order may be on the book
      const found = answerLost(err) ? await placementOf(dexOrderId) : null;
      if (found === undefined) throw err; // still unknown: the row stays, its order shows once its partition answers
      if (found === null) {
        // refused by the pipeline (or never sent to its partition): nothing was placed, the row goes
        await db.query("DELETE FROM exchange_orders WHERE id = $1", [id]);
        throw err;
      }
      placed = found;
    }
    let row = inserted.rows[0];
    if (!(placed.status === "open" || placed.status === "partially_filled")) {
      await db.query("UPDATE exchange_orders SET open = false WHERE id = $1", [id]);
      row = { ...row, open: false };
    }
    return { row, placed };
  }

  /** A placement whose answer was lost (a partition's connection dropped after the call left): the order as
   *  every partition answers within PLACEMENT_LOOKUP_MS; null when none has it; undefined when still unknown. */
  async function placementOf(dexOrderId: string): Promise<DexOrderWithFills | null | undefined> {
    const until = Date.now() + (deps.placementLookupMs ?? PLACEMENT_LOOKUP_MS);
    for (;;) {
      try {
        return await dex.getOrder(dexOrderId);
      } catch {
        if (Date.now() > until) return undefined;
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  }

  async function cancelDex(account: AccountRecord, row: OrderRow): Promise<void> {
    const address = await addressOf(account.id);
    try {
      await dex.cancelOrder({ orderId: row.dex_order_id, account: address, reason: "user_cancelled" });
    } catch (err) {
      if (err instanceof DexServiceError && (err.code === "ORDER_NOT_OPEN" || err.code === "ORDER_NOT_FOUND")) {
        const o = await dex.getOrder(row.dex_order_id);
        // a row whose placement never reached its partition (its answer was lost, placementOf) and can no longer
        // be under way (well past its placement's time limits): nothing to cancel
        if (
          !o &&
          err.code === "ORDER_NOT_FOUND" &&
          row.cancelled_ms === null &&
          Number(row.created_ms) < now() - UNPLACED_AFTER_MS
        )
          return;
        throw new OrderApiError("ORDER_NOT_OPEN", "only PENDING orders can be cancelled or updated", {
          status: statusOf(row, o),
        });
      }
      throw err;
    }
  }

  return {
    profileOf,
    setProfile,

    async create(account: AccountRecord, input: OrderInput) {
      try {
        const created = await serial(placementKey(account, input.assetId), async () => {
          const c = await validate(account, input);
          const { row, placed } = await placeChecked(account, input, c);
          return present(row, placed, true);
        });
        metrics.ordersAccepted.inc("exchange");
        return created;
      } catch (e) {
        metrics.ordersRefused.inc("exchange", refusalReason(e));
        throw e;
      }
    },

    async get(account: AccountRecord, id: string) {
      const row = await rowOf(account.id, id);
      if (!row) throw new OrderApiError("ORDER_NOT_FOUND", "order not found", {});
      return present(row, await dex.getOrder(row.dex_order_id), true);
    },

    async list(account: AccountRecord, q: { status: ExchangeStatus | "ALL"; assetId?: string; limit: number }) {
      const address = await addressOf(account.id);
      const rows = (
        await db.query<OrderRow>(
          `SELECT ${COLS} FROM exchange_orders WHERE account_id = $1 AND ($2::text IS NULL OR asset_id = $2) ORDER BY created_ms DESC, id DESC`,
          [account.id, q.assetId ?? null],
        )
      ).rows;
      const byId = new Map(
        (await dex.listOrders({ account: address, limit: DEX_LIST_LIMIT })).map((o) => [o.orderId, o]),
      );
      const out = [];
      for (const r of rows) {
        const o = byId.get(r.dex_order_id) ?? (await dex.getOrder(r.dex_order_id));
        const v = present(r, o, true);
        if (q.status === "ALL" || v.status === q.status) out.push(v);
        if (out.length >= q.limit) break;
      }
      return out;
    },

    async cancel(account: AccountRecord, id: string) {
      const row = await rowOf(account.id, id);
      if (!row) throw new OrderApiError("ORDER_NOT_FOUND", "order not found", {});
      await cancelDex(account, row);
      const t = accountClock.now(account.id);
      await db.query("UPDATE exchange_orders SET cancelled_ms = $2, open = false WHERE id = $1", [row.id, t]);
      return { orderId: row.id, status: "CANCELLED" as const, cancelledAt: new Date(t).toISOString() };
    },

    /** Cancel-replace: the validations run for the new order (the old order's holds count as free), then the
     *  old order is cancelled and the new one placed; the answer is the new order (replaces = the old id). */
    async update(account: AccountRecord, id: string, change: { quantity?: string; limitPrice?: string }) {
      const row = await rowOf(account.id, id);
      if (!row) throw new OrderApiError("ORDER_NOT_FOUND", "order not found", {});
      return serial(placementKey(account, row.asset_id), async () => {
        const o = await dex.getOrder(row.dex_order_id);
        const status = statusOf(row, o);
        if (status !== "PENDING" || !o)
          throw new OrderApiError("ORDER_NOT_OPEN", "only PENDING orders can be cancelled or updated", { status });
        if (row.order_type !== "limit")
          throw new OrderApiError("INVALID_ORDER_TYPE", "only limit orders rest on the book and can be updated", {
            orderType: row.order_type,
          });
        const asset = assetById(row.asset_id)!;
        const m = marketOf(asset);
        if (!m)
          throw new OrderApiError("ASSET_NOT_TRADEABLE", "this asset is listed but not tradeable", {
            assetId: asset.id,
          });
        const input: OrderInput = {
          assetId: row.asset_id,
          side: row.side,
          orderType: "limit",
          quantity: change.quantity ?? formatDecimal(BigInt(row.quantity_units), m.baseDecimals),
          limitPrice: change.limitPrice ?? formatDecimal(BigInt(row.limit_price!), priceScale(m)),
        };
        const c = await validate(account, input, { row, dex: o });
        await cancelDex(account, row);
        await db.query("UPDATE exchange_orders SET cancelled_ms = $2, open = false WHERE id = $1", [row.id, now()]);
        const placed = await placeChecked(account, input, c, row.id);
        await db.query("UPDATE exchange_orders SET replaced_by = $2 WHERE id = $1", [row.id, placed.row.id]);
        return present(placed.row, placed.placed, true);
      });
    },

    /** Order-status events to their owner (spec 6.4): every pipeline order event of an exchange order gives
     *  `publish(owner, "order", the order as GET /v1/orders/{id} shows it)`; once all of an order's fills are
     *  settled on chain, `publish(owner, "settlement", {orderId, status, filledQuantity, txHashes})`. Returns
     *  the unsubscribe function. */
    watch(
      publish: (
        owner: { issuer: string; orgId: string; userId: string },
        event: "order" | "settlement",
        data: Record<string, unknown>,
      ) => void,
    ): () => void {
      let stopped = false;
      const settling = new Set<string>();
      const ownerOf = async (dexOrderId: string) =>
        (
          await db.query<OrderRow & { issuer: string; org_id: string; user_id: string }>(
            `SELECT ${COLS.split(", ")
              .map((c) => `o.${c}`)
              .join(
                ", ",
              )}, a.issuer, a.org_id, a.user_id FROM exchange_orders o JOIN exchange_accounts a ON a.id::text = o.account_id WHERE o.dex_order_id = $1`,
            [dexOrderId],
          )
        ).rows[0];
      const onOrder = async (dexOrderId: string) => {
        // the row is written before the placement: an event of an exchange order always finds it
        const row = await ownerOf(dexOrderId);
        if (!row || stopped) return;
        const owner = { issuer: row.issuer, orgId: row.org_id, userId: row.user_id };
        const o = await dex.getOrder(dexOrderId);
        const view = present(row, o, true);
        publish(owner, "order", view);
        if (!o || o.fills.length === 0 || settling.has(dexOrderId) || view.status === "PENDING") return;
        // the pipeline emits no event when a batch settles: the finished order is read until its fills are
        settling.add(dexOrderId);
        const until = Date.now() + 300_000;
        for (;;) {
          if (stopped) return;
          const cur = await dex.getOrder(dexOrderId);
          if (cur?.fills.every((f) => f.settlement === "settled")) {
            publish(owner, "settlement", {
              orderId: row.id,
              status: statusOf(row, cur),
              filledQuantity: (present(row, cur, true) as { filledQuantity?: number }).filledQuantity,
              txHashes: [...new Set(cur.fills.map((f) => f.txHash).filter((h) => h !== null))],
            });
            break;
          }
          if (Date.now() > until) break;
          await new Promise((r) => setTimeout(r, 250));
        }
        settling.delete(dexOrderId);
      };
      const unsubscribe = dex.subscribe((e) => {
        if (e.kind !== "order") return;
        void onOrder(e.order.orderId).catch(() => undefined);
      });
      return () => {
        stopped = true;
        unsubscribe();
      };
    },

    /** The ledger's lots of `holder` (any address with fills) in the asset whose token is `token`, for the
     *  eligibility registry: each lot's units and hold end (restrictionEndMs; none for a regime without a
     *  hold), oldest first; `settled` false while any of its fills there waits for its batch on chain. */
    async ledgerLots(
      token: Address,
      holder: Address,
    ): Promise<{
      regime: CatalogueAsset["regime"];
      settled: boolean;
      lots: { units: bigint; holdEndMs: number }[];
    } | null> {
      const asset = catalogue.find((a) => {
        const m = marketOf(a);
        return m !== null && m.baseToken.toLowerCase() === token.toLowerCase();
      });
      const m = asset ? marketOf(asset) : null;
      if (!asset || !m) return null;
      const fills = (await accountFills(holder, m.symbol)).flatMap((x) => x.fills);
      const { lots } = fifoPosition(fills);
      return {
        regime: asset.regime,
        settled: fills.every((f) => f.fill.settlement === "settled"),
        lots: hasHold(asset.regime)
          ? lots.map((l) => ({ units: l.units, holdEndMs: restrictionEndMs(asset.regime, l.acquiredAtMs) }))
          : [],
      };
    },

    /** USD base units that the account's open buy orders hold in the pipeline. */
    async openBuyHolds(accountId: string): Promise<bigint> {
      const address = await deps.custody.addressOf(accountId);
      if (!address) return 0n;
      const usdToken = dex.listMarkets()[0]?.quoteToken;
      if (!usdToken) return 0n;
      return (await openLocks(address, accountId)).get(usdToken.toLowerCase()) ?? 0n;
    },

    /** Holdings (spec 2.9), lots (2.10) and trade transactions (2.11) of the account. */
    async positions(accountId: string) {
      const address = await deps.custody.addressOf(accountId);
      if (!address) return { holdings: [], transactions: [] };
      const [wallFills, balances] = await Promise.all([accountFills(address), deps.custody.balances(accountId)]);
      // one clock for the account's trades, lots, restriction ends and flags: its sandbox clock
      const all = wallFills.map((x) => ({ order: x.order, fills: onAccountClock(accountId, x.fills) }));
      const t = accountClock.now(accountId);
      const holdings = [];
      const transactions = [];
      const bySymbol = new Map<string, AssetFill[]>();
      for (const { order, fills } of all) {
        const list = bySymbol.get(order.symbol) ?? [];
        list.push(...fills);
        bySymbol.set(order.symbol, list);
        const asset = assetOfMarket(order.symbol);
        const m = dex.listMarkets().find((x) => x.symbol === order.symbol)!;
        for (const f of fills) {
          const price = f.fill.priceTicks * m.tickSize;
          const feeUsd = f.feeInBase ? notional(f.fill.feeUnits, price) : f.fill.feeUnits;
          transactions.push({
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
          });
        }
      }
      for (const asset of catalogue) {
        const m = marketOf(asset);
        if (!m) continue;
        const onChain = balances.tokens.find((x) => x.token.toLowerCase() === m.baseToken.toLowerCase())?.units ?? 0n;
        const pos = fifoPosition(bySymbol.get(m.symbol) ?? []);
        if (onChain === 0n && pos.lots.length === 0) continue;
        const cost = pos.lots.reduce((s, l) => s + l.costUnits, 0n);
        const lotUnits = pos.lots.reduce((s, l) => s + l.units, 0n);
        const stats = await dex.getMarketStats(m.symbol);
        const last = stats?.lastPriceTicks != null ? stats.lastPriceTicks * m.tickSize : null;
        const value = last === null ? null : notional(onChain, last);
        // cost of the chain's units at the lots' average cost (units from elsewhere count at that average)
        const avgCost = lotUnits > 0n ? (cost * 10n ** BigInt(m.baseDecimals)) / lotUnits : 0n;
        const heldCost = (avgCost * onChain) / 10n ** BigInt(m.baseDecimals);
        const pnl = value === null ? null : value - heldCost;
        holdings.push({
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
            isRestricted: isRestricted(asset.regime, l.acquiredAtMs, t),
            offeringType: asset.offeringType,
            regime: asset.regime,
            costBasis: usd(l.costUnits),
            quantityUnits: l.units.toString(),
          })),
        });
      }
      transactions.sort((a, b) => b.timestamp.localeCompare(a.timestamp));
      return { holdings, transactions };
    },
  };
}

export type Orders = ReturnType<typeof createOrders>;
export type { DexFill };
