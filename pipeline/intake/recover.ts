// Signer recovery straight on the EIP-712 digest. Native libsecp256k1 (npm `secp256k1`) recovers in
// ~90 us on this machine against ~1,900 us for @noble/curves and ~2,400 us for viem's
// recoverTypedDataAddress (pipeline/intake/recover.bench.ts), which decides whether 2,000 orders/s fit on
// one core. @noble/curves stays as the fallback when the native build cannot load.
import { secp256k1 as nobleSecp } from "@noble/curves/secp256k1.js";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import type { Address, Hex } from "viem";
import { parseStrictEcdsaSignature } from "../../sdk/signature";
import { keccak256Bytes } from "../../runtime/keccak";

interface NativeSecp256k1 {
  ecdsaRecover(sig: Uint8Array, recid: number, msg32: Uint8Array, compressed: boolean): Uint8Array;
  ecdsaSign(msg32: Uint8Array, privateKey: Uint8Array): { signature: Uint8Array; recid: number };
}

function loadNative(): NativeSecp256k1 | null {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require("secp256k1/bindings") as NativeSecp256k1;
  } catch {
    return null;
  }
}

const native = process.env.PIPELINE_NO_NATIVE_SECP === "1" ? null : loadNative();
export const recoveryBackend: "native" | "noble" = native ? "native" : "noble";

/** The address that produced `signature` over `digest`, or null when the signature breaks the contract's
 *  rule (sdk/signature.ts: 65 bytes, v exactly 27 or 28, 1 <= r < n, 1 <= s <= n/2) or does not recover.
 *  A signature the contract would refuse must never be accepted here: it would revert a whole batch. */
export function recoverSigner(digest: Hex, signature: Hex): Address | null {
  if (digest.length !== 66) return null;
  const parsed = parseStrictEcdsaSignature(signature);
  if (!parsed.ok) return null;
  const recovery = parsed.sig.recoveryId;
  let sig: Uint8Array;
  let msg: Uint8Array;
  try {
    sig = hexToBytes(signature.slice(2));
    msg = hexToBytes(digest.slice(2));
  } catch {
    return null;
  }
  try {
    let uncompressed: Uint8Array;
    if (native) {
      uncompressed = native.ecdsaRecover(sig.subarray(0, 64), recovery, msg, false);
    } else {
      const rec = new Uint8Array(65);
      rec[0] = recovery;
      rec.set(sig.subarray(0, 64), 1);
      const pub = nobleSecp.recoverPublicKey(rec, msg, { prehash: false });
      uncompressed = nobleSecp.Point.fromBytes(pub).toBytes(false);
    }
    return `0x${bytesToHex(keccak256Bytes(uncompressed.subarray(1)).subarray(12))}` as Address;
  } catch {
    return null;
  }
}

/** Signs a 32-byte digest (RFC 6979, low-s): 64 bytes r||s and the recovery id. Native when it loads. */
export function signDigest(digest: Uint8Array, privateKey: Uint8Array): { signature: Uint8Array; recid: number } {
  if (native) return native.ecdsaSign(digest, privateKey);
  const sig = nobleSecp.sign(digest, privateKey, { prehash: false, format: "recovered" });
  // "recovered": recovery byte first, then r||s
  return { signature: sig.subarray(1, 65), recid: sig[0] };
}

/** signDigest over a hex digest and key, as the contract takes it: 65 bytes r||s||v (v = 27 + recovery id). */
export function signDigestHex(digest: Hex, privateKey: Hex): Hex {
  const sig = signDigest(hexToBytes(digest.slice(2)), hexToBytes(privateKey.slice(2)));
  return `0x${bytesToHex(sig.signature)}${(27 + sig.recid).toString(16)}` as Hex;
}
