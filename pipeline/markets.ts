// Markets: the grid (tick, lot) that makes every fill exact on chain, and the conversions between the API's
// decimals, the engine's integer ticks and lots, and the contract's base units.
import type { Address } from "viem";
import { formatDecimal, parseDecimal } from "./decimal";

/** The contract's price scale: a price is quote base units per 1e18 base base units. */
export const PRICE_SCALE = 10n ** 18n;

export interface MarketSpec {
  /** "BASE-QUOTE", e.g. "WETH-USD" */
  symbol: string;
  baseToken: Address;
  quoteToken: Address;
  baseDecimals: number;
  quoteDecimals: number;
  /** contract price units (quote base units per 1e18 base units) per engine tick */
  tickSize: bigint;
  /** base units per engine lot */
  lotSize: bigint;
  minLots: bigint;
  maxLots: bigint;
}

/** Every fill's quote amount is baseLots*lotSize * priceTicks*tickSize / 1e18. It is an integer for every
 *  baseLots and priceTicks exactly when lotSize*tickSize is a multiple of 1e18 (take lots = ticks = 1 for
 *  "only if"; multiples of a multiple for "if"). */
export function isMarketGridExact(m: Pick<MarketSpec, "tickSize" | "lotSize">): boolean {
  return m.tickSize > 0n && m.lotSize > 0n && (m.tickSize * m.lotSize) % PRICE_SCALE === 0n;
}

export function assertMarketGridExact(m: MarketSpec): void {
  if (!isMarketGridExact(m)) {
    throw new Error(`market ${m.symbol}: lotSize*tickSize (${m.lotSize}*${m.tickSize}) is not a multiple of 1e18`);
  }
}

export function ticksToPrice(m: MarketSpec, priceTicks: bigint): bigint {
  return priceTicks * m.tickSize;
}

export function lotsToBase(m: MarketSpec, sizeLots: bigint): bigint {
  return sizeLots * m.lotSize;
}

/** Quote base units of `sizeLots` at `priceTicks` (exact by the grid). */
export function quoteFor(m: MarketSpec, sizeLots: bigint, priceTicks: bigint): bigint {
  return (sizeLots * m.lotSize * priceTicks * m.tickSize) / PRICE_SCALE;
}

/** Contract price -> ticks, or null when off the grid. */
export function priceToTicks(m: MarketSpec, price: bigint): bigint | null {
  return price > 0n && price % m.tickSize === 0n ? price / m.tickSize : null;
}

/** Base units -> lots, or null when off the grid. */
export function baseToLots(m: MarketSpec, amount: bigint): bigint | null {
  return amount > 0n && amount % m.lotSize === 0n ? amount / m.lotSize : null;
}

/** Human price ("2500.01" USD per WETH) -> contract price (quote units per 1e18 base units), exact or null.
 *  contract price = human * 10^quoteDecimals * 10^(18 - baseDecimals). */
export function humanPriceToContract(m: MarketSpec, text: string | number): bigint | null {
  const scale = m.quoteDecimals + 18 - m.baseDecimals;
  return parseDecimal(text, scale);
}

export function contractPriceToHuman(m: MarketSpec, price: bigint): string {
  return formatDecimal(price, m.quoteDecimals + 18 - m.baseDecimals);
}

/** Human size ("1.5" WETH) -> base units, exact or null. */
export function humanSizeToBase(m: MarketSpec, text: string | number): bigint | null {
  return parseDecimal(text, m.baseDecimals);
}

export function baseToHumanSize(m: MarketSpec, amount: bigint): string {
  return formatDecimal(amount, m.baseDecimals);
}

/** Default grids of the seeded markets (token addresses come from the deployment).
 *  WETH-USD: tick 0.01 USD/WETH = 1e4 quote units per 1e18 base units; lot 0.0001 WETH = 1e14 base units;
 *  tick*lot = 1e18. WBTC-USD (8 decimals): tick 0.01 USD/WBTC = 1e14; lot 0.0001 WBTC = 1e4; product 1e18. */
export const DEFAULT_MARKET_GRIDS: Record<string, Omit<MarketSpec, "symbol" | "baseToken" | "quoteToken">> = {
  "WETH-USD": { baseDecimals: 18, quoteDecimals: 6, tickSize: 10n ** 4n, lotSize: 10n ** 14n, minLots: 1n, maxLots: 10n ** 8n },
  "WBTC-USD": { baseDecimals: 8, quoteDecimals: 6, tickSize: 10n ** 14n, lotSize: 10n ** 4n, minLots: 1n, maxLots: 10n ** 8n },
};

/** Base units of a token with `decimals` as a decimal string (for error details and displays). */
export function formatMarketAmount(units: bigint, decimals: number): string {
  return formatDecimal(units, decimals);
}
