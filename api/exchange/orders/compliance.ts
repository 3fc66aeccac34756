// The investor rules of order creation (spec 4.A): accreditation against the asset's accreditationType, and
// the Reg CF investment limit of non-accredited investors (17 CFR 227.100(a)(2)). Money in cents (bigint).
import type { AccreditationStatus, AccreditationType as AccountAccreditationType } from "../accounts";
import { meetsAccreditation } from "../../../sdk/accreditation";

// one rule for the API and the web app that shows it before Buy
export { meetsAccreditation } from "../../../sdk/accreditation";

/** Accredited for the resale exemptions and the Reg CF limit: self-certified or verified. */
export const isAccredited = (investor: {
  accreditationStatus: AccreditationStatus;
  accreditationType: AccountAccreditationType;
}): boolean => meetsAccreditation("506b", investor);

/** 17 CFR 227.100(a)(2), as amended in 2021 (figures in cents). */
export const REG_CF_FLOOR_CENTS = 2_500_00n;
export const REG_CF_THRESHOLD_CENTS = 124_000_00n;
export const REG_CF_CAP_CENTS = 124_000_00n;
/** The window the limit covers: the 12 months before the purchase (365 days, docs/decisions/api.md). */
export const REG_CF_WINDOW_MS = 365 * 86_400_000;

/** The most a non-accredited investor may invest in Reg CF offerings over 12 months:
 *  - either annual income or net worth below $124,000: the greater of $2,500 or 5% of the greater of the two;
 *  - both at least $124,000: 10% of the greater of the two, at most $124,000.
 *  5% and 10% are rounded down to the cent. */
export function regCfLimitCents(annualIncomeCents: bigint, netWorthCents: bigint): bigint {
  const greater = annualIncomeCents > netWorthCents ? annualIncomeCents : netWorthCents;
  if (annualIncomeCents < REG_CF_THRESHOLD_CENTS || netWorthCents < REG_CF_THRESHOLD_CENTS) {
    const fivePercent = (greater * 5n) / 100n;
    return fivePercent > REG_CF_FLOOR_CENTS ? fivePercent : REG_CF_FLOOR_CENTS;
  }
  const tenPercent = (greater * 10n) / 100n;
  return tenPercent < REG_CF_CAP_CENTS ? tenPercent : REG_CF_CAP_CENTS;
}
