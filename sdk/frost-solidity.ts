// Turns FROST(secp256k1, SHA-256) values (RFC 9591 encodings, as @noble/curves' secp256k1_FROST produces them)
// into what the bridge contracts take: the group key as (x, y) and a signature as Rx || Ry || z (96 bytes).
// The contracts never decompress a point (no square root on chain): this module does it off chain.
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { bytesToHex, concat, hexToBytes, numberToHex, type Hex } from "viem";

/** Bytes of an RFC 9591 secp256k1 signature: SerializeElement(R) (33, compressed) || SerializeScalar(z) (32). */
export const FROST_RFC_SIGNATURE_BYTES = 65;
/** Bytes of the contracts' encoding: Rx || Ry || z. */
export const FROST_SOLIDITY_SIGNATURE_BYTES = 96;

export interface AffinePoint {
  x: bigint;
  y: bigint;
}

const toBytes = (v: Uint8Array | Hex): Uint8Array => (typeof v === "string" ? hexToBytes(v) : v);

/** Decodes a SEC1 point (33-byte compressed or 65-byte uncompressed); throws when it is not on secp256k1. */
export function decodePoint(encoded: Uint8Array | Hex): AffinePoint {
  const p = secp256k1.Point.fromBytes(toBytes(encoded));
  p.assertValidity();
  const { x, y } = p.toAffine();
  return { x, y };
}

/** The group public key as the verifier's constructor and rotateKey take it. */
export function groupPublicKeyToXY(groupPublicKey: Uint8Array | Hex | AffinePoint): AffinePoint {
  if (typeof groupPublicKey === "object" && "x" in groupPublicKey) {
    decodePoint(encodeCompressed(groupPublicKey)); // validates it is on the curve
    return groupPublicKey;
  }
  return decodePoint(groupPublicKey);
}

/** SEC1 compressed encoding (33 bytes) of an affine point. */
export function encodeCompressed(p: AffinePoint): Hex {
  return concat([p.y & 1n ? "0x03" : "0x02", numberToHex(p.x, { size: 32 })]);
}

/** RFC 9591 65-byte signature -> Rx || Ry || z (96 bytes), the `signature` argument of mint / queueRelease. */
export function frostSignatureToSolidity(signature: Uint8Array | Hex): Hex {
  const bytes = toBytes(signature);
  if (bytes.length !== FROST_RFC_SIGNATURE_BYTES) {
    throw new Error(`FROST signature must be ${FROST_RFC_SIGNATURE_BYTES} bytes, got ${bytes.length}`);
  }
  const r = decodePoint(bytes.subarray(0, 33));
  return concat([numberToHex(r.x, { size: 32 }), numberToHex(r.y, { size: 32 }), bytesToHex(bytes.subarray(33))]);
}

/** Rx || Ry || z (96 bytes) -> RFC 9591 65-byte signature. */
export function solidityToFrostSignature(signature: Hex): Hex {
  const bytes = hexToBytes(signature);
  if (bytes.length !== FROST_SOLIDITY_SIGNATURE_BYTES) {
    throw new Error(`signature must be ${FROST_SOLIDITY_SIGNATURE_BYTES} bytes, got ${bytes.length}`);
  }
  const x = BigInt(bytesToHex(bytes.subarray(0, 32)));
  const y = BigInt(bytesToHex(bytes.subarray(32, 64)));
  return concat([encodeCompressed({ x, y }), bytesToHex(bytes.subarray(64))]);
}
