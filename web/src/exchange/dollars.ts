// A market buy by dollar amount (docs/decisions/web.md "Exchange app: buy by dollars"): the spec's order takes
// a quantity only, so the form turns the amount into one before it sends. It walks the live book's asks, best
// first, taking at each price as many whole lots as the amount still pays for, and stops at the first level it
// cannot take whole; the quantity is what it took (floored to the lot, never more than the amount buys). The
// exchange holds quantity x the worst price taken until the order fills, so that, like the amount itself, must
// be within buying power. Exact integers throughout: every decimal at 18 places, products at 36.
import { formatDecimal, numberToDecimalString, parseExactDecimal } from "../../../sdk/decimal";

const S = 18;
const ONE = 10n ** BigInt(S);

/** Decimal text (or a JSON number) as an integer of 1e-18 units; finer digits are cut. */
function fixed(v: string | number): bigint {
  const d = parseExactDecimal(typeof v === "number" ? (numberToDecimalString(v) ?? "0") : v);
  if (!d) return 0n;
  return d.scale > S ? d.digits / 10n ** BigInt(d.scale - S) : d.digits * 10n ** BigInt(S - d.scale);
}

export interface Level {
  price: number;
  size: number;
}

export type DollarBuy =
  | {
      ok: true;
      /** what the order sends, asset units (decimal text) */
      quantity: string;
      /** what the fills cost at the book's prices, USD (exact decimal text) */
      cost: string;
      /** what the exchange holds until it fills: quantity x the worst price taken, USD (exact decimal text) */
      hold: string;
      /** the fee in the asset at `feeBps` (exact decimal text), and what is received after it */
      fee: string;
      receive: string;
      /** the book held less than the amount buys: the quantity is everything on it */
      bookExhausted: boolean;
    }
  | { ok: false; reason: "no_asks" | "below_one_lot" | "above_buying_power"; oneLotCost?: string };

interface Walk {
  lots: bigint;
  cost: bigint;
  worst: bigint;
  left: bigint;
  exhausted: boolean;
}

/** Whole lots taken from the asks, best first, while the budget (1e-36 USD) pays for them. */
function walk(asks: readonly Level[], lot: bigint, budget: bigint): Walk {
  const w: Walk = { lots: 0n, cost: 0n, worst: 0n, left: budget, exhausted: true };
  for (const l of asks) {
    const price = fixed(l.price);
    const perLot = lot * price;
    const levelLots = fixed(l.size) / lot;
    const affordable = perLot > 0n ? w.left / perLot : 0n;
    const take = affordable < levelLots ? affordable : levelLots;
    if (take > 0n) {
      w.lots += take;
      w.cost += take * perLot;
      w.left -= take * perLot;
      w.worst = price;
    }
    if (take < levelLots) {
      w.exhausted = false;
      break;
    }
  }
  return w;
}

/**
 * The quantity a dollar amount buys at market now. `amount` is checked decimal text (at most cents), `asks`
 * the book's asks best first, `lotSize` the asset's lot (decimal text), `buyingPower` the account's (null when
 * unknown: not checked here, the exchange still checks it), `feeBps` the taker fee (paid in the asset).
 */
export function dollarBuy(
  amount: string,
  asks: readonly Level[],
  lotSize: string,
  buyingPower: number | null,
  feeBps: number,
): DollarBuy {
  const lot = fixed(lotSize);
  if (asks.length === 0 || lot <= 0n) return { ok: false, reason: "no_asks" };
  const budget = fixed(amount) * ONE;
  const oneLotCost = formatDecimal(lot * fixed(asks[0].price), 2 * S);
  if (buyingPower !== null && budget > fixed(buyingPower) * ONE)
    return { ok: false, reason: "above_buying_power", oneLotCost };
  const w = walk(asks, lot, budget);
  if (w.lots === 0n) return { ok: false, reason: "below_one_lot", oneLotCost };
  const units = w.lots * lot;
  const hold = units * w.worst;
  if (buyingPower !== null && hold > fixed(buyingPower) * ONE)
    return { ok: false, reason: "above_buying_power", oneLotCost };
  const fee = (units * BigInt(feeBps)) / 10_000n;
  return {
    ok: true,
    quantity: formatDecimal(units, S),
    cost: formatDecimal(w.cost, 2 * S),
    hold: formatDecimal(hold, 2 * S),
    fee: formatDecimal(fee, S),
    receive: formatDecimal(units - fee, S),
    bookExhausted: w.exhausted,
  };
}
