// Signer recovery straight on the EIP-712 digest. Native libsecp256k1 (npm `secp256k1`) recovers in
// ~90 us on this machine against ~1,900 us for @noble/curves and ~2,400 us for viem's
// recoverTypedDataAddress (pipeline/recover.bench.ts), which decides whether 2,000 orders/s fit on
// one core. @noble/curves stays as the fallback when the native build cannot load.
import { secp256k1 as nobleSecp } from "@noble/curves/secp256k1.js";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import type { Address, Hex } from "viem";
import { keccak256Bytes } from "./keccak";

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

const HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;

/** The address that produced `signature` (65 bytes r||s||v, v in {27,28} or {0,1}) over `digest`, or null
 *  when the signature is malformed, high-s (malleable; the contract rejects it too) or does not recover. */
export function recoverSigner(digest: Hex, signature: Hex): Address | null {
  if (signature.length !== 132 || digest.length !== 66) return null;
  let sig: Uint8Array;
  let msg: Uint8Array;
  try {
    sig = hexToBytes(signature.slice(2));
    msg = hexToBytes(digest.slice(2));
  } catch {
    return null;
  }
  const v = sig[64];
  const recovery = v >= 27 ? v - 27 : v;
  if (recovery !== 0 && recovery !== 1) return null;
  const s = BigInt("0x" + bytesToHex(sig.subarray(32, 64)));
  if (s === 0n || s > HALF_N) return null;
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
    return ("0x" + bytesToHex(keccak256Bytes(uncompressed.subarray(1)).subarray(12))) as Address;
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
