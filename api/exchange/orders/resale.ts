// Resale restrictions by regime (spec 4.A's table), as pure data and functions, so that the on-chain
// eligibility registry of the asset tokens can mirror exactly the rule the exchange applies off chain.
//
//   Regime          | hold                          | exemption (who may receive a restricted lot)
//   reg-d (506b/c)  | 12 months from acquisition    | an accredited investor (unsolicited sale)
//   reg-cf          | 12 months from acquisition    | an accredited investor; a member of the seller's family
//   reg-s           | 12 months from acquisition    | a non-US investor (free trading among non-US investors)
//   reg-a, retail   | none                          | freely tradeable
//
// A lot is restricted while `now < restrictionEnd(acquiredAt)` (12 calendar months later, UTC; a 29 February
// acquisition ends on 1 March). The family exemption names a particular buyer, so it never applies on the
// anonymous book (docs/decisions/api.md "Exchange orders").
import type { ResaleRegime } from "../assets/catalogue";

export const HOLD_MONTHS: Readonly<Record<ResaleRegime, number>> = {
  "reg-d": 12,
  "reg-cf": 12,
  "reg-s": 12,
  "reg-a": 0,
  retail: 0,
};

export type ResaleExemption = "accredited-buyer" | "family-member" | "non-us-buyer";

export const EXEMPTIONS: Readonly<Record<ResaleRegime, readonly ResaleExemption[]>> = {
  "reg-d": ["accredited-buyer"],
  "reg-cf": ["accredited-buyer", "family-member"],
  "reg-s": ["non-us-buyer"],
  "reg-a": [],
  retail: [],
};

/** What the rule knows of a buyer. */
export interface BuyerFacts {
  /** self-certified (506b) or verified (506c) accredited investor */
  accredited: boolean;
  usPerson: boolean;
  /** a member of the seller's family (only a named transfer can know this; never true on the book) */
  familyOfSeller?: boolean;
}

/** The end of a lot's hold: `acquiredAtMs` plus the regime's months (calendar, UTC); equal to it when none. */
export function restrictionEndMs(regime: ResaleRegime, acquiredAtMs: number): number {
  const months = HOLD_MONTHS[regime];
  if (months === 0) return acquiredAtMs;
  const d = new Date(acquiredAtMs);
  const day = d.getUTCDate();
  const end = new Date(acquiredAtMs);
  end.setUTCDate(1);
  end.setUTCMonth(end.getUTCMonth() + months);
  const lastDay = new Date(Date.UTC(end.getUTCFullYear(), end.getUTCMonth() + 1, 0)).getUTCDate();
  // a day the target month lacks (29 Feb in a common year) rolls to the next month's first day
  if (day > lastDay) end.setUTCDate(lastDay + 1);
  else end.setUTCDate(day);
  return end.getTime();
}

export const isRestricted = (regime: ResaleRegime, acquiredAtMs: number, nowMs: number): boolean =>
  nowMs < restrictionEndMs(regime, acquiredAtMs);

/** The exemption under which `buyer` may receive a restricted lot of `regime`, or null (none applies). */
export function exemptionFor(regime: ResaleRegime, buyer: BuyerFacts): ResaleExemption | null {
  for (const e of EXEMPTIONS[regime]) {
    if (e === "accredited-buyer" && buyer.accredited) return e;
    if (e === "family-member" && buyer.familyOfSeller === true) return e;
    if (e === "non-us-buyer" && !buyer.usPerson) return e;
  }
  return null;
}

/** May a lot acquired at `acquiredAtMs` go to `buyer` now? */
export function mayTransfer(
  regime: ResaleRegime,
  acquiredAtMs: number,
  nowMs: number,
  buyer: BuyerFacts,
): { allowed: boolean; exemption: ResaleExemption | null } {
  if (!isRestricted(regime, acquiredAtMs, nowMs)) return { allowed: true, exemption: null };
  const exemption = exemptionFor(regime, buyer);
  return { allowed: exemption !== null, exemption };
}

/** On the anonymous book a buyer may receive restricted lots of `regime` when an exemption that does not
 *  name the seller applies (family never does on the book). */
export const bookEligible = (regime: ResaleRegime, buyer: BuyerFacts): boolean =>
  exemptionFor(regime, { ...buyer, familyOfSeller: false }) !== null;

/** Regimes with a hold (a lot of these can be restricted). */
export const hasHold = (regime: ResaleRegime): boolean => HOLD_MONTHS[regime] > 0;
