// Funding methods and their limits (spec 8 "Funding limits"), and the simulated bank's calendar. Amounts are
// demo USD base units (6 decimals). A "day" of a daily limit is the UTC calendar day of the funding clock at
// the transfer's creation; deposits and withdrawals are counted apart, per method; failed transfers do not
// count. Business days are Monday to Friday, UTC, no holidays.
import { USD_UNIT } from "../custody/custody";

export type FundingMethod = "ach" | "wire" | "instant";
export const FUNDING_METHODS = ["ach", "wire", "instant"] as const;

export interface MethodRule {
  /** smallest amount of one transfer */
  minUnits: bigint;
  /** most per UTC day per account and direction; null: no maximum */
  dailyMaxUnits: bigint | null;
}

export const METHOD_RULES: Readonly<Record<FundingMethod, MethodRule>> = {
  ach: { minUnits: 10n * USD_UNIT, dailyMaxUnits: 250_000n * USD_UNIT },
  wire: { minUnits: 1_000n * USD_UNIT, dailyMaxUnits: null },
  instant: { minUnits: 10n * USD_UNIT, dailyMaxUnits: 10_000n * USD_UNIT },
};

/** ACH takes "1-3 business days": the sandbox always takes the longest, so integrations meet it. */
export const ACH_BUSINESS_DAYS = 3;
/** A wire completes the same business day, at this UTC hour (a 5 pm New York cut-off in winter). */
export const WIRE_CUTOFF_UTC_HOUR = 22;

const DAY_MS = 86_400_000;

/** The UTC calendar day (YYYY-MM-DD) of `ms`. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function isBusinessDay(ms: number): boolean {
  const d = new Date(ms).getUTCDay();
  return d !== 0 && d !== 6;
}

function startOfUtcDay(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

/** `ms` moved forward to the start of the next business day when it falls on a weekend. */
function onBusinessDay(ms: number): number {
  let t = ms;
  while (!isBusinessDay(t)) t = startOfUtcDay(t) + DAY_MS;
  return t;
}

/** `n` business days after `ms` (a weekend start counts from the next Monday, 00:00 UTC). */
export function addBusinessDays(ms: number, n: number): number {
  let t = onBusinessDay(ms);
  for (let i = 0; i < n; i++) {
    t += DAY_MS;
    while (!isBusinessDay(t)) t += DAY_MS;
  }
  return t;
}

/** When the simulated bank completes a transfer of `method` made at `createdMs`. */
export function completesAt(method: FundingMethod, createdMs: number): number {
  switch (method) {
    case "instant":
      return createdMs;
    case "ach":
      return addBusinessDays(createdMs, ACH_BUSINESS_DAYS);
    case "wire": {
      // before the cut-off of a business day: that day's cut-off; otherwise the next business day's
      const cutoff = (ms: number) => startOfUtcDay(ms) + WIRE_CUTOFF_UTC_HOUR * 3_600_000;
      if (isBusinessDay(createdMs) && createdMs < cutoff(createdMs)) return cutoff(createdMs);
      return cutoff(addBusinessDays(startOfUtcDay(createdMs), isBusinessDay(createdMs) ? 1 : 0));
    }
  }
}
