// What every part of the exchange's order service shares (api/exchange/orders/*.ts): its dependencies, made
// once by createOrders, and the lookups of the catalogue and the markets over them. The order's types and
// its id's form live here too, so that each part imports them from one place.
import type { Address, Hex } from "viem";
import type { Db } from "../../../db";
import type { DexService, MarketSpec, SettlementOrder } from "../../../pipeline/service";
import { formatDecimal } from "../../../sdk/decimal";
import { PRICE_SCALE } from "../../../sdk/eip712";
import { bookSymbolOf, CATALOGUE, type CatalogueAsset } from "../assets/catalogue";
import type { SandboxClocks } from "../funding/sandbox-clock";
import { OrderApiError } from "./errors";
import type { AssetFill } from "./ledger";

/** How long a placement whose answer a matcher partition's connection lost (DEX_PARTITIONS) is looked up on
 *  the partitions before the client is answered SERVICE_UNAVAILABLE with its row kept (the order may exist). */
export const PLACEMENT_LOOKUP_MS = 15_000;
/** How many of an account's pipeline orders one read returns. */
export const DEX_LIST_LIMIT = 10_000;

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

export type AccountClock = Pick<SandboxClocks, "now" | "at">;

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
  accountClock?: AccountClock;
  /** how long a placement whose answer a partition's connection lost is looked up (default PLACEMENT_LOOKUP_MS) */
  placementLookupMs?: number;
}

/** The order service's dependencies with their defaults filled in. */
export interface OrdersContext {
  readonly db: Db;
  readonly dex: DexService;
  readonly custody: OrdersCustody;
  readonly catalogue: readonly CatalogueAsset[];
  readonly now: () => number;
  readonly accountClock: AccountClock;
  readonly placementLookupMs: number;
}

export function ordersContext(deps: OrdersDeps): OrdersContext {
  const now = deps.now ?? Date.now;
  return {
    db: deps.db,
    dex: deps.dex,
    custody: deps.custody,
    catalogue: deps.catalogue ?? CATALOGUE,
    now,
    accountClock: deps.accountClock ?? { now: () => now(), at: (_id, wallMs) => wallMs },
    placementLookupMs: deps.placementLookupMs ?? PLACEMENT_LOOKUP_MS,
  };
}

export type ExchangeStatus = "PENDING" | "EXECUTED" | "CANCELLED";
export type ExchangeSide = "BUY" | "SELL";

export interface OrderInput {
  assetId: string;
  side: ExchangeSide;
  orderType: "market" | "limit";
  /** decimal text of asset units */
  quantity: string;
  /** decimal text of dollars; limit orders */
  limitPrice?: string;
  isPreIPO?: boolean;
}

/** The exchange's order id of a pipeline order id: `ord_` and the uuid's 32 hex digits. */
export const exchangeOrderId = (dexOrderId: string): string => `ord_${dexOrderId.replace(/-/g, "")}`;
export const ORDER_ID_RE = /^ord_[0-9a-f]{32}$/;

export const assetById = (ctx: OrdersContext, id: string): CatalogueAsset | undefined =>
  ctx.catalogue.find((a) => a.id === id);
export const assetOfMarket = (ctx: OrdersContext, symbol: string): CatalogueAsset | undefined =>
  ctx.catalogue.find((a) => bookSymbolOf(a) === symbol);

/** The running book of a catalogue asset; null when it has none. */
export function marketOf(ctx: OrdersContext, a: CatalogueAsset): MarketSpec | null {
  const s = bookSymbolOf(a);
  return s ? (ctx.dex.listMarkets().find((m) => m.symbol === s) ?? null) : null;
}

/** The market of a pipeline order's symbol (one the pipeline lists). */
export const marketOfSymbol = (ctx: OrdersContext, symbol: string): MarketSpec =>
  ctx.dex.listMarkets().find((m) => m.symbol === symbol)!;

export async function addressOf(ctx: OrdersContext, accountId: string): Promise<Address> {
  const a = await ctx.custody.addressOf(accountId);
  if (!a) throw new OrderApiError("SERVICE_UNAVAILABLE", "the account's custody is not ready", {});
  return a;
}

/** The account's fills dated on its clock. */
export const onAccountClock = (ctx: OrdersContext, accountId: string, fills: AssetFill[]): AssetFill[] =>
  fills.map((f) => ({ ...f, fill: { ...f.fill, timestampMs: ctx.accountClock.at(accountId, f.fill.timestampMs) } }));

/** Dollars of demo USD base units (6 decimals) as a JSON number (exact decimal text first). */
export const usd = (units: bigint): number => Number(formatDecimal(units, 6));
export const quantityNumber = (m: MarketSpec, units: bigint): number => Number(formatDecimal(units, m.baseDecimals));
/** The decimals of a contract price of `m` as dollars per asset unit. */
export const priceScale = (m: MarketSpec): number => m.quoteDecimals + 18 - m.baseDecimals;
export const priceNumber = (m: MarketSpec, contractPrice: bigint): number =>
  Number(formatDecimal(contractPrice, priceScale(m)));
export const notional = (base: bigint, price: bigint): bigint => (base * price) / PRICE_SCALE;
/** Quote a buy of `base` at `price` holds (rounded up, as the pipeline's ledger locks it). */
export const lockFor = (base: bigint, price: bigint): bigint => (base * price + PRICE_SCALE - 1n) / PRICE_SCALE;

export const notTradeable = (assetId: string): OrderApiError =>
  new OrderApiError("ASSET_NOT_TRADEABLE", "this asset is listed but not tradeable", { assetId });
