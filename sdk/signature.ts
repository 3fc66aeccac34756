// The one rule for an ECDSA (secp256k1) signature the Settlement contract will accept: exactly what
// OpenZeppelin's ECDSA.tryRecoverCalldata plus the ecrecover precompile accept, and no more. Off-chain
// checks (the order intake, wallet-signed API requests) use it so that nothing they take can be refused on
// chain later (a refused order reverts the whole settle batch it is in).
//   - 65 bytes r || s || v (OZ: any other length is InvalidSignatureLength);
//   - v exactly 27 or 28 (OZ does not normalise 0/1; the precompile returns zero for anything else);
//   - 1 <= r < n (the precompile returns zero otherwise);
//   - 1 <= s <= n/2 (OZ: s > n/2 is InvalidSignatureS; the precompile refuses s = 0).
// Whether (r, s, v) recovers a key at all (r must be a curve point's x) is the recoverer's job.

/** Order of the secp256k1 group. */
export const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
/** n / 2 rounded down: the largest s OpenZeppelin's ECDSA accepts. */
export const SECP256K1_HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;

export type SignatureProblem = "length" | "v" | "r" | "s_zero" | "s_high";

export interface StrictEcdsaSignature {
  r: bigint;
  s: bigint;
  v: 27 | 28;
  /** v - 27: the recovery id libsecp256k1 and noble take */
  recoveryId: 0 | 1;
}

const HEX_130 = /^0x[0-9a-fA-F]{130}$/;

/** Parses `signature` under the contract's rule: the parts, or why the contract would refuse it. */
export function parseStrictEcdsaSignature(
  signature: string,
): { ok: true; sig: StrictEcdsaSignature } | { ok: false; problem: SignatureProblem } {
  if (typeof signature !== "string" || !HEX_130.test(signature)) return { ok: false, problem: "length" };
  const r = BigInt(`0x${signature.slice(2, 66)}`);
  const s = BigInt(`0x${signature.slice(66, 130)}`);
  const v = parseInt(signature.slice(130, 132), 16);
  if (v !== 27 && v !== 28) return { ok: false, problem: "v" };
  if (r === 0n || r >= SECP256K1_N) return { ok: false, problem: "r" };
  if (s === 0n) return { ok: false, problem: "s_zero" };
  if (s > SECP256K1_HALF_N) return { ok: false, problem: "s_high" };
  return { ok: true, sig: { r, s, v, recoveryId: v === 27 ? 0 : 1 } };
}

/** Why the contract would refuse `signature` as an ECDSA signature, or null when its form is acceptable. */
export function ecdsaSignatureProblem(signature: string): SignatureProblem | null {
  const p = parseStrictEcdsaSignature(signature);
  return p.ok ? null : p.problem;
}
