// An asset's trading terms, for an order form that computes before it sends (a dollar amount as a quantity,
// a cost estimate, the fee): the quantity step (lot), the price step (tick), the smallest order, and the
// Settlement contract's fee rates with what each side pays them in (docs/decisions/web.md "Exchange app:
// buy by dollars"). Decimal text, never a float: the form does exact arithmetic on it.
import type { DexFees, MarketSpec } from "../../../pipeline/service";
import { formatDecimal } from "../../../sdk/decimal";
import { priceExponent } from "../../dex/units";

export interface TradingTerms {
  /** the quantity step, asset units (decimal text) */
  lotSize: string;
  /** the price step, USD (decimal text) */
  tickSize: string;
  /** the smallest quantity an order may have, asset units (decimal text) */
  minQuantity: string;
  makerFeeBps: number;
  takerFeeBps: number;
  /** each side pays its fee in what it receives: a buy in the asset, a sell in USD */
  feeTakenIn: "received";
}

/** The terms of a market (null when the asset has no book running, or without the fee rates). */
export function tradingTermsOf(m: MarketSpec | null, fees: DexFees | undefined): TradingTerms | null {
  if (!m || !fees) return null;
  return {
    lotSize: formatDecimal(m.lotSize, m.baseDecimals),
    tickSize: formatDecimal(m.tickSize, priceExponent(m)),
    minQuantity: formatDecimal(m.minLots * m.lotSize, m.baseDecimals),
    makerFeeBps: Number(fees.makerFeeBps),
    takerFeeBps: Number(fees.takerFeeBps),
    feeTakenIn: "received",
  };
}
