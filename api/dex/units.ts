// Exact conversion between the spec's decimal numbers and the service's integers. A JSON number is first
// written in its shortest round-trip decimal form (String(n), what the client most likely typed), then
// parsed as text; a value that is not a whole number of ticks or lots is refused, never rounded.
import type { MarketSpec } from "../../pipeline/service";
import { formatDecimal, parseExactDecimal as parseDecimalText, type ExactDecimal } from "../../sdk/decimal";
import { PRICE_SCALE } from "../../sdk/eip712";

export { PRICE_SCALE };
/** The contract's Fill keeps price and baseAmount in uint128. */
const UINT128_MAX = (1n << 128n) - 1n;
const MAX_DECIMAL_DIGITS = 60;

export type { ExactDecimal };

/** The one decimal parser (sdk/decimal.ts), bounded to what the API accepts: "12.50" -> {digits:125n, scale:1}. */
export function parseExactDecimal(input: number | string): ExactDecimal | null {
  return parseDecimalText(input, MAX_DECIMAL_DIGITS + 2);
}

/** Integer quotient of value * 10^exp / unit when exact, else null. */
function exactQuotient(d: ExactDecimal, exp: number, unit: bigint): bigint | null {
  let num = d.digits;
  let den = unit;
  if (exp >= d.scale) num *= 10n ** BigInt(exp - d.scale);
  else den *= 10n ** BigInt(d.scale - exp);
  return num % den === 0n ? num / den : null;
}

/** Decimal exponent of a contract price: contract = human * 10^(quoteDecimals + 18 - baseDecimals). */
export function priceExponent(m: MarketSpec): number {
  return m.quoteDecimals + 18 - m.baseDecimals;
}

export type GridResult =
  | { ok: true; value: bigint }
  | { ok: false; reason: "not_a_number" | "not_positive" | "off_grid" | "too_large" };

/** A decimal price (the API's) -> ticks; see contractPriceToTicks (pipeline/markets.ts) for the contract's. */
export function decimalPriceToTicks(m: MarketSpec, input: number | string): GridResult {
  const d = parseExactDecimal(input);
  if (!d) return { ok: false, reason: "not_a_number" };
  if (d.digits <= 0n) return { ok: false, reason: "not_positive" };
  const ticks = exactQuotient(d, priceExponent(m), m.tickSize);
  if (ticks === null) return { ok: false, reason: "off_grid" };
  if (ticks * m.tickSize > UINT128_MAX) return { ok: false, reason: "too_large" };
  return { ok: true, value: ticks };
}

export function sizeToLots(m: MarketSpec, input: number | string): GridResult {
  const d = parseExactDecimal(input);
  if (!d) return { ok: false, reason: "not_a_number" };
  if (d.digits <= 0n) return { ok: false, reason: "not_positive" };
  const lots = exactQuotient(d, m.baseDecimals, m.lotSize);
  if (lots === null) return { ok: false, reason: "off_grid" };
  if (lots > m.maxLots || lots * m.lotSize > UINT128_MAX) return { ok: false, reason: "too_large" };
  return { ok: true, value: lots };
}

export function ticksToPriceText(m: MarketSpec, priceTicks: bigint): string {
  return formatDecimal(priceTicks * m.tickSize, priceExponent(m));
}
export function lotsToSizeText(m: MarketSpec, sizeLots: bigint): string {
  return formatDecimal(sizeLots * m.lotSize, m.baseDecimals);
}
/** Spec number fields are computed from the exact decimal text (the nearest double). */
export const ticksToPrice = (m: MarketSpec, t: bigint): number => Number(ticksToPriceText(m, t));
export const lotsToSize = (m: MarketSpec, l: bigint): number => Number(lotsToSizeText(m, l));

export const ticksToContractPrice = (m: MarketSpec, priceTicks: bigint): bigint => priceTicks * m.tickSize;
export const lotsToBaseUnits = (m: MarketSpec, sizeLots: bigint): bigint => sizeLots * m.lotSize;

/** Quote base units of sizeLots at priceTicks, rounded up (limits are checked against the larger value). */
export function quoteUnitsCeil(m: MarketSpec, priceTicks: bigint, sizeLots: bigint): bigint {
  const n = sizeLots * m.lotSize * priceTicks * m.tickSize;
  return (n + PRICE_SCALE - 1n) / PRICE_SCALE;
}

/** Average price text of a filled quantity (quote units / base units), rounded to 18 decimals. */
export function averagePriceText(m: MarketSpec, filledQuoteUnits: bigint, filledLots: bigint): string | null {
  if (filledLots === 0n) return null;
  const exp = priceExponent(m);
  // contract price = quote * 1e18 / base; human = contract / 10^exp; keep 18 extra digits.
  const scaled = (filledQuoteUnits * PRICE_SCALE * 10n ** 18n) / (filledLots * m.lotSize);
  return formatDecimal(scaled, exp + 18);
}
