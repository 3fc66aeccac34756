// keccak-256 for the order path: the native binding of npm `keccak` (prebuilt for linux-x64) hashes a
// 192-byte order struct in ~5 us against ~17 us for @noble/hashes (measured here); each order needs three
// (struct hash, EIP-712 digest, signer address). @noble/hashes stays as the fallback when the native build
// cannot load (PIPELINE_NO_NATIVE_KECCAK=1 forces it; a unit test checks both agree).
import { keccak_256 } from "@noble/hashes/sha3.js";

type NativeKeccak = (algorithm: "keccak256") => {
  update(data: Buffer): { digest(): Buffer };
};

function loadNative(): NativeKeccak | null {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require("keccak/bindings") as NativeKeccak;
  } catch {
    return null;
  }
}

const native =
  process.env.PIPELINE_NO_NATIVE_KECCAK === "1" ? null : loadNative();
export const keccakBackend: "native" | "noble" = native ? "native" : "noble";

export const nobleKeccak256 = (data: Uint8Array): Uint8Array =>
  keccak_256(data);

export const keccak256Bytes: (data: Uint8Array) => Uint8Array = native
  ? // the binding takes Buffers only: a view over the same bytes, no copy
    (data) =>
      native("keccak256")
        .update(Buffer.from(data.buffer, data.byteOffset, data.byteLength))
        .digest()
  : nobleKeccak256;
