// Markets: the grid (tick, lot) that makes every fill exact on chain, and the conversions between the API's
// decimals, the engine's integer ticks and lots, and the contract's base units.
import type { Address } from "viem";
import { MIN_FILL_UNITS, PRICE_SCALE } from "../sdk/eip712";
import { formatDecimal, parseDecimal } from "../sdk/decimal";

/** The contract's price scale: a price is quote base units per 1e18 base base units (sdk/eip712.ts). */
export { PRICE_SCALE };

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

/** A market as it crosses a process boundary in JSON: its bigints as decimal strings. */
export type MarketJson = Record<keyof MarketSpec, string | number>;

export function marketToJson(m: MarketSpec): MarketJson {
  return {
    ...m,
    tickSize: String(m.tickSize),
    lotSize: String(m.lotSize),
    minLots: String(m.minLots),
    maxLots: String(m.maxLots),
  };
}

export function marketFromJson(j: Record<string, string | number>): MarketSpec {
  return {
    symbol: String(j.symbol),
    baseToken: j.baseToken as Address,
    quoteToken: j.quoteToken as Address,
    baseDecimals: Number(j.baseDecimals),
    quoteDecimals: Number(j.quoteDecimals),
    tickSize: BigInt(j.tickSize),
    lotSize: BigInt(j.lotSize),
    minLots: BigInt(j.minLots),
    maxLots: BigInt(j.maxLots),
  };
}

/** Every fill's quote amount is baseLots*lotSize * priceTicks*tickSize / 1e18. It is an integer for every
 *  baseLots and priceTicks exactly when lotSize*tickSize is a multiple of 1e18 (take lots = ticks = 1 for
 *  "only if"; multiples of a multiple for "if"). */
export function isMarketGridExact(m: Pick<MarketSpec, "tickSize" | "lotSize">): boolean {
  return m.tickSize > 0n && m.lotSize > 0n && (m.tickSize * m.lotSize) % PRICE_SCALE === 0n;
}

/** Throws unless every fill on the grid is exact on chain and at least one lot passes the contract's minimum
 *  fill (Settlement.MIN_FILL_UNITS applies to a fill's base amount: a fill is at least one lot). */
export function assertMarketGridExact(m: MarketSpec): void {
  if (!isMarketGridExact(m)) {
    throw new Error(`market ${m.symbol}: lotSize*tickSize (${m.lotSize}*${m.tickSize}) is not a multiple of 1e18`);
  }
  if (m.lotSize < MIN_FILL_UNITS) {
    throw new Error(
      `market ${m.symbol}: lotSize ${m.lotSize} is below the on-chain minimum fill of ${MIN_FILL_UNITS} base units`,
    );
  }
}

/** The lowest price (in ticks) at which an order may rest on the book: one lot at that price is worth at least
 *  MIN_FILL_UNITS quote units. Every fill trades at the resting (maker) order's price and is at least one lot, so
 *  no fill of a market whose resting orders respect this (and whose lot respects the minimum) can be refused
 *  on chain as too small. Needs an exact grid (one lot at one tick is a whole number of quote units). */
export function minRestingPriceTicks(m: Pick<MarketSpec, "tickSize" | "lotSize">): bigint {
  const quotePerLotTick = (m.lotSize * m.tickSize) / PRICE_SCALE;
  if (quotePerLotTick <= 0n) throw new Error("minRestingPriceTicks: the grid is not exact");
  return (MIN_FILL_UNITS + quotePerLotTick - 1n) / quotePerLotTick;
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
export function contractPriceToTicks(m: MarketSpec, price: bigint): bigint | null {
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

/** Human grid of a market: the tick in quote tokens per base token, the lot in base tokens (decimal text). */
export interface HumanGrid {
  tick: string;
  lot: string;
  minLots: bigint;
  maxLots: bigint;
}

/** The seeded markets' grids. WETH-USD: tick 0.01 USD, lot 0.0001 WETH; WBTC-USD: tick 0.1 USD, lot
 *  0.00001 WBTC. With 6-decimal USD and 18-decimal base tokens tick*lot is exactly 1e18 in contract units. */
export const DEFAULT_HUMAN_GRIDS: Record<string, HumanGrid> = {
  "WETH-USD": { tick: "0.01", lot: "0.0001", minLots: 1n, maxLots: 100_000_000n },
  "WBTC-USD": { tick: "0.1", lot: "0.00001", minLots: 1n, maxLots: 100_000_000n },
};

/** Builds a market from token decimals and a human grid; throws when the grid is not exact on chain. */
export function marketFromGrid(
  symbol: string,
  base: { address: Address; decimals: number },
  quote: { address: Address; decimals: number },
  g: HumanGrid,
): MarketSpec {
  const tickSize = parseDecimal(g.tick, quote.decimals + 18 - base.decimals);
  const lotSize = parseDecimal(g.lot, base.decimals);
  if (tickSize === null || tickSize <= 0n || lotSize === null || lotSize <= 0n)
    throw new Error(`market ${symbol}: tick or lot not representable`);
  const m: MarketSpec = {
    symbol,
    baseToken: base.address,
    quoteToken: quote.address,
    baseDecimals: base.decimals,
    quoteDecimals: quote.decimals,
    tickSize,
    lotSize,
    minLots: g.minLots,
    maxLots: g.maxLots,
  };
  assertMarketGridExact(m);
  return m;
}

/** Every market whose two tokens are deployed (`tokens` by symbol, as in deployments.json): the default
 *  markets and those of `extraGrids` (the exchange API's asset books, `SYMBOL-USD`), in that order. A grid
 *  whose tokens are not deployed makes no market. */
export function marketsFromTokens(
  tokens: Record<string, { address: string; decimals: number }>,
  extraGrids: Readonly<Record<string, HumanGrid>> = {},
): MarketSpec[] {
  const out: MarketSpec[] = [];
  const grids = [
    ...Object.entries(DEFAULT_HUMAN_GRIDS),
    ...Object.entries(extraGrids).filter(([symbol]) => !(symbol in DEFAULT_HUMAN_GRIDS)),
  ];
  for (const [symbol, g] of grids) {
    const [b, q] = symbol.split("-");
    const base = tokens[b];
    const quote = tokens[q];
    if (base && quote)
      out.push(
        marketFromGrid(
          symbol,
          base as { address: Address; decimals: number },
          quote as { address: Address; decimals: number },
          g,
        ),
      );
  }
  return out;
}

/** Grids of the seeded markets for the deployed decimals (USD 6, WETH 18, WBTC 18). */
export const DEFAULT_MARKET_GRIDS: Record<
  string,
  Omit<MarketSpec, "symbol" | "baseToken" | "quoteToken">
> = Object.fromEntries(
  Object.entries(DEFAULT_HUMAN_GRIDS).map(([symbol, g]) => {
    const z = "0x0000000000000000000000000000000000000000" as Address;
    const { baseDecimals, quoteDecimals, tickSize, lotSize, minLots, maxLots } = marketFromGrid(
      symbol,
      { address: z, decimals: 18 },
      { address: z, decimals: 6 },
      g,
    );
    return [symbol, { baseDecimals, quoteDecimals, tickSize, lotSize, minLots, maxLots }];
  }),
);
