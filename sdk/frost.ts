// FROST(secp256k1, SHA-256) (RFC 9591) as the bridge uses it: noble's ciphersuite plus the encodings a
// Solidity verifier needs (the group key and R as compressed 33 bytes and as x/y words, z as a word).
// The protocol math is noble's; this file only converts formats.
import { secp256k1, secp256k1_FROST } from "@noble/curves/secp256k1.js";
import { bytesToHex, hexToBytes } from "@noble/curves/utils.js";
import type { Hex } from "viem";

export const frost = secp256k1_FROST;
/** RFC 9591 section 6.5 contextString; the challenge DST is this + "chal". */
export const FROST_CONTEXT_STRING = "FROST-secp256k1-SHA256-v1";

const Point = secp256k1.Point;
const N = Point.Fn.ORDER;

export interface CurvePointWords {
  /** SEC1 compressed, 33 bytes */
  compressed: Hex;
  /** affine x, 32-byte big-endian word */
  x: Hex;
  /** affine y, 32-byte big-endian word */
  y: Hex;
  /** y mod 2 (the compressed prefix is 0x02 + yParity) */
  yParity: 0 | 1;
}

/** A FROST signature split for on-chain verification: R (group commitment) and z (response scalar). */
export interface FrostSignatureWords {
  R: CurvePointWords;
  /** 32-byte big-endian word, 0 < z < n */
  z: Hex;
  /** RFC 9591 SerializeElement(R) || SerializeScalar(z): 65 bytes */
  bytes: Hex;
  /** R.x || R.y || z, 96 bytes: the encoding contracts/bridge's BridgeFrostVerifier decodes */
  evm: Hex;
}

const word = (v: bigint): Hex => `0x${v.toString(16).padStart(64, "0")}`;
export const toHex = (b: Uint8Array): Hex => `0x${bytesToHex(b)}`;
export const fromHex = (h: string): Uint8Array<ArrayBuffer> =>
  new Uint8Array(hexToBytes(h.startsWith("0x") ? h.slice(2) : h));

/** Parses a compressed or uncompressed secp256k1 point (throws off the curve) into its words. */
export function describePoint(point: Uint8Array | string): CurvePointWords {
  const p = Point.fromBytes(typeof point === "string" ? fromHex(point) : point);
  const { x, y } = p.toAffine();
  return { compressed: toHex(p.toBytes(true)), x: word(x), y: word(y), yParity: Number(y & 1n) as 0 | 1 };
}

/** The group public key in every format a verifier may want. */
export const describeGroupKey = describePoint;

export function splitFrostSignature(sig: Uint8Array | string): FrostSignatureWords {
  const bytes = typeof sig === "string" ? fromHex(sig) : sig;
  if (bytes.length !== 65) throw new Error(`FROST signature must be 65 bytes, got ${bytes.length}`);
  const z = BigInt(toHex(bytes.subarray(33)));
  if (z === 0n || z >= N) throw new Error("FROST signature scalar out of range");
  const R = describePoint(bytes.subarray(0, 33));
  return { R, z: word(z), bytes: toHex(bytes), evm: `0x${R.x.slice(2)}${R.y.slice(2)}${word(z).slice(2)}` };
}

/** Verifies a 65-byte FROST signature over a 32-byte digest under a compressed group key. */
export function verifyFrostSignature(sig: Uint8Array | string, digest: Hex, groupPublicKey: Hex): boolean {
  try {
    return frost.verify(typeof sig === "string" ? fromHex(sig) : sig, fromHex(digest), fromHex(groupPublicKey));
  } catch {
    return false;
  }
}

/** Node index 1..n -> the RFC 9591 identifier (the scalar i, 32 bytes hex, no 0x). */
export const identifierOf = (index: number): string => frost.Identifier.fromNumber(index);
export const indexOfIdentifier = (identifier: string): number => Number(BigInt(`0x${identifier}`));
