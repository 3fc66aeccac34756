// What the order form shows before signing, pure (tested in node): the default worst price of an order
// without a limit price (the best opposite price moved by a default slippage, on the tick), and the
// estimated cost and fee with their units. Integers only: decimals are exact (sdk/decimal).
import { formatDecimal, parseExactDecimal } from "../../sdk/decimal";
import { stepsText, toSteps, type MarketInfo } from "./order";

/** The slippage a market-type order allows by default, in basis points (1 %). */
export const DEFAULT_SLIPPAGE_BPS = 100;

/** The worst price for a `side` order from `reference` (best ask for a buy, best bid for a sell): `bps`
 *  beyond it, rounded away from the reference to the tick (a buy never signs less than the slippage). */
export function worstPrice(
  side: "buy" | "sell",
  reference: string,
  tick: string,
  bps = DEFAULT_SLIPPAGE_BPS,
): string | null {
  const r = toSteps(reference, tick, "nearest", "price");
  if ("error" in r) return null;
  const steps =
    side === "buy" ? (r.steps * BigInt(10_000 + bps) + 9_999n) / 10_000n : (r.steps * BigInt(10_000 - bps)) / 10_000n;
  return steps > 0n ? stepsText(steps, tick) : null;
}

function mul(a: string, b: string): { digits: bigint; scale: number } | null {
  const x = parseExactDecimal(a);
  const y = parseExactDecimal(b);
  return x && y ? { digits: x.digits * y.digits, scale: x.scale + y.scale } : null;
}

/** Cuts a decimal to `decimals` places (toward zero). */
function cut(v: { digits: bigint; scale: number }, decimals: number): string {
  const digits =
    v.scale > decimals ? v.digits / 10n ** BigInt(v.scale - decimals) : v.digits * 10n ** BigInt(decimals - v.scale);
  return formatDecimal(digits, decimals);
}

export interface Estimate {
  /** price x size, in the quote token */
  cost: string;
  /** the taker fee, in the token the order receives */
  fee: string;
  feeToken: string;
}

/** The estimated cost and taker fee of `size` at `price` (both rounded already): a buy receives the base
 *  token and pays its fee in it, a sell receives the quote token and pays its fee in that. */
export function estimate(m: MarketInfo, side: "buy" | "sell", price: string, size: string): Estimate | null {
  const cost = mul(price, size);
  if (!cost) return null;
  const bps = BigInt(m.fees.taker_bps);
  if (side === "buy") {
    const s = parseExactDecimal(size)!;
    return {
      cost: cut(cost, m.quote.decimals),
      fee: cut({ digits: s.digits * bps, scale: s.scale + 4 }, m.base.decimals),
      feeToken: m.base.symbol,
    };
  }
  return {
    cost: cut(cost, m.quote.decimals),
    fee: cut({ digits: cost.digits * bps, scale: cost.scale + 4 }, m.quote.decimals),
    feeToken: m.quote.symbol,
  };
}

export { group as groupDigits, amountText, shortHash } from "./format";
