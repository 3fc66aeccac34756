// Signature variants at every edge of the contract's ECDSA rule (sdk/signature.ts), built from one valid
// signature: shared by the unit test and the Hardhat test that feeds the same variants to the contract.
import { SECP256K1_HALF_N, SECP256K1_N } from "./signature";

export interface SignatureCase {
  name: string;
  signature: `0x${string}`;
}

const word = (x: bigint) => x.toString(16).padStart(64, "0");
const byte = (x: number) => x.toString(16).padStart(2, "0");

/** Every edge case from a valid 65-byte signature `sig` (v = 27 or 28). */
export function signatureEdgeCases(sig: `0x${string}`): SignatureCase[] {
  const r = BigInt(`0x${sig.slice(2, 66)}`);
  const s = BigInt(`0x${sig.slice(66, 130)}`);
  const v = parseInt(sig.slice(130, 132), 16);
  const make = (rr: bigint, ss: bigint, vv: number, tail = ""): `0x${string}` =>
    `0x${word(rr)}${word(ss)}${byte(vv)}${tail}`;
  return [
    { name: "valid (v as signed)", signature: sig },
    { name: "v flipped (27 <-> 28)", signature: make(r, s, v === 27 ? 28 : 27) },
    { name: "v = 0 (v - 27)", signature: make(r, s, v - 27) },
    { name: "v = 1 (other parity)", signature: make(r, s, 28 - v) },
    { name: "v = 26", signature: make(r, s, 26) },
    { name: "v = 29", signature: make(r, s, 29) },
    { name: "v = 27", signature: make(r, s, 27) },
    { name: "v = 28", signature: make(r, s, 28) },
    { name: "s = n/2 (largest low s)", signature: make(r, SECP256K1_HALF_N, v) },
    { name: "s = n/2 + 1 (smallest high s)", signature: make(r, SECP256K1_HALF_N + 1n, v) },
    { name: "s = n - s (mirror image)", signature: make(r, SECP256K1_N - s, v === 27 ? 28 : 27) },
    { name: "s = 0", signature: make(r, 0n, v) },
    { name: "s = 1", signature: make(r, 1n, v) },
    { name: "r = 0", signature: make(0n, s, v) },
    { name: "r = n", signature: make(SECP256K1_N, s, v) },
    { name: "r = n - 1", signature: make(SECP256K1_N - 1n, s, v) },
    { name: "length 64", signature: sig.slice(0, 130) as `0x${string}` },
    { name: "length 66", signature: `${sig}00` },
  ];
}
