// keccak-256 for the order path: the native addon of npm `keccak` (prebuilt for linux-x64) hashes a
// 320-byte order struct in ~2 us against ~17 us for @noble/hashes (measured here); each order needs three
// (struct hash, EIP-712 digest, signer address). @noble/hashes stays as the fallback when the native build
// cannot load (PIPELINE_NO_NATIVE_KECCAK=1 forces it; a unit test checks both agree).
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { keccak_256 } from "@noble/hashes/sha3.js";

interface KeccakState {
  initialize(rate: number, capacity: number): void;
  absorb(data: Buffer): void;
  squeeze(bytes: number): Buffer;
}

/** npm keccak's addon itself (its KeccakState class), without the package's stream wrapper per hash. */
function loadNative(): KeccakState | null {
  try {
    const keccakDir = dirname(require.resolve("keccak/package.json"));
    const State = createRequire(join(keccakDir, "bindings.js"))("node-gyp-build")(keccakDir) as new () => KeccakState;
    if (typeof State !== "function") return null;
    return new State();
  } catch {
    return null;
  }
}

const native = process.env.PIPELINE_NO_NATIVE_KECCAK === "1" ? null : loadNative();
export const keccakBackend: "native" | "noble" = native ? "native" : "noble";

export const nobleKeccak256 = (data: Uint8Array): Uint8Array => keccak_256(data);

export const keccak256Bytes: (data: Uint8Array) => Uint8Array = native
  ? (data) => {
      // keccak-256: rate 1088, capacity 512; the addon pads with keccak's 0x01 on squeeze
      native.initialize(1088, 512);
      native.absorb(Buffer.from(data.buffer, data.byteOffset, data.byteLength)); // a view, no copy
      return native.squeeze(32);
    }
  : nobleKeccak256;
