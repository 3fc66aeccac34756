// The exchange's facts as the eligibility registry takes them (pure: no chain): an investor's accreditation,
// a hold end in seconds, a holder's lots as recordLots' arguments, refused here when the registry would refuse
// them (contracts/exchange/compliance/EligibilityRegistry.sol). The chain calls are client.ts's.
import type { AccreditationStatus, AccreditationType as AccountAccreditationType } from "../accounts";
import { isAccredited, meetsAccreditation } from "../orders/compliance";
import type { RegistryAccreditation } from "./regime";

/** Most lots the registry keeps per holder and token (EligibilityRegistry.MAX_LOTS). */
export const MAX_LOTS = 64;
const MAX_UINT192 = (1n << 192n) - 1n;

export interface RestrictedLot {
  /** base units of the asset token */
  amountBaseUnits: bigint;
  /** the end of the lot's hold (resale.ts restrictionEndMs), epoch milliseconds */
  holdEndMs: number;
}

export interface InvestorEligibility {
  accreditation: RegistryAccreditation;
  usPerson: boolean;
}

export class ComplianceError extends Error {
  constructor(
    message: string,
    /** the registry's custom error, when it refused the call */
    readonly revert?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "ComplianceError";
  }
}

/** A hold end in whole seconds, rounded up: the chain never frees a lot before the exchange does. */
export const holdEndSeconds = (ms: number): bigint => {
  if (!Number.isSafeInteger(ms) || ms < 0) throw new ComplianceError(`hold end ${ms} is not a time in milliseconds`);
  return BigInt(Math.ceil(ms / 1000));
};

/** The lots as recordLots takes them, refused here when the registry would refuse them. */
export function registryLotArgs(
  sequence: bigint,
  lots: readonly RestrictedLot[],
): { amount: bigint; holdEnd: bigint }[] {
  if (sequence <= 0n || sequence >= 1n << 64n)
    throw new ComplianceError(`lots sequence ${sequence} is outside 1..2^64-1`);
  if (lots.length > MAX_LOTS)
    throw new ComplianceError(`${lots.length} lots: the registry keeps at most ${MAX_LOTS} per holder and token`);
  return lots.map((l, i) => {
    if (l.amountBaseUnits <= 0n || l.amountBaseUnits > MAX_UINT192)
      throw new ComplianceError(`lot ${i}: amount ${l.amountBaseUnits} is outside 1..2^192-1`);
    return { amount: l.amountBaseUnits, holdEnd: holdEndSeconds(l.holdEndMs) };
  });
}

/** The registry's accreditation of an exchange investor: the book's rule (orders/compliance.ts), the strongest
 *  status it meets. */
export function registryAccreditation(investor: {
  accreditationStatus: AccreditationStatus;
  accreditationType: AccountAccreditationType;
}): RegistryAccreditation {
  if (meetsAccreditation("506c", investor)) return "verified506c";
  return isAccredited(investor) ? "selfCertified506b" : "none";
}
