// Who may buy an asset (spec 4.A): its accreditationType against the investor's accreditation. The exchange
// API enforces it on every order (api/exchange/orders/compliance.ts); the exchange web app shows it before Buy.

/** Spec 4.A: 506c needs a verified (third-party) accredited investor; 506b a self-certified one (a verified
 *  506c investor qualifies too); null (retail) nothing. */
export function meetsAccreditation(
  required: "506c" | "506b" | null,
  investor: { accreditationStatus: string; accreditationType?: string },
): boolean {
  if (required === null) return true;
  const verified = investor.accreditationStatus === "verified" && investor.accreditationType === "506c";
  const selfCertified = investor.accreditationStatus === "self_certified" && investor.accreditationType === "506b";
  // a pending verification keeps what held before it (api/exchange/accounts.ts nextAccreditation)
  const pendingKeeps506b = investor.accreditationStatus === "pending" && investor.accreditationType === "506b";
  if (required === "506c") return verified;
  return verified || selfCertified || pendingKeeps506b;
}
