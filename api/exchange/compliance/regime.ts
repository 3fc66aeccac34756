// The catalogue's resale regimes and the investor facts as the eligibility registry's enums
// (contracts/exchange/compliance/IEligibilityRegistry.sol): one mapping, used by the provisioning (each asset
// token's regime is fixed at deployment) and by the compliance client.
import type { ResaleRegime } from "../assets/catalogue";

/** IEligibilityRegistry.Regime: Free (Reg A, retail: the token never consults the registry), RegD, RegCF, RegS. */
export const REGISTRY_REGIME: Readonly<Record<ResaleRegime, number>> = {
  retail: 0,
  "reg-a": 0,
  "reg-d": 1,
  "reg-cf": 2,
  "reg-s": 3,
};

/** IEligibilityRegistry.Accreditation. */
export const REGISTRY_ACCREDITATION = { none: 0, selfCertified506b: 1, verified506c: 2 } as const;
export type RegistryAccreditation = keyof typeof REGISTRY_ACCREDITATION;
