// Signers this process has already established for an order's (digest, signature): recovered by the API's
// own check of a wallet-signed order (`recoverAndRemember`), or produced here by an API key's agent signing
// the order it is about to place (agent-signer.ts). The intake takes its answer from here instead of
// recovering the same signature a second time (with the recover pool: a message to a helper process and
// back, 5.7 % of the stack process under bench:e2e; docs/measurements.md). Only what recovery itself
// returned (or the signer's own signature) goes in, keyed by the exact digest and signature strings, so an
// answer from here is the one recoverSigner would give; anything else (a miss, an evicted or a differently
// spelt pair) is recovered as before. Each entry is taken once; at most KNOWN_SIGNERS_MAX are held (the
// oldest go first), so orders refused before the intake cannot grow it.
import type { Address, Hex } from "viem";
import { recoverSigner } from "./recover";

export const KNOWN_SIGNERS_MAX = 4096;

const known = new Map<string, Address>();

export function rememberSigner(digest: Hex, signature: Hex, signer: Address): void {
  const key = digest + signature;
  if (known.size >= KNOWN_SIGNERS_MAX && !known.has(key)) known.delete(known.keys().next().value!);
  known.set(key, signer);
}

/** The signer remembered for exactly this (digest, signature), once; undefined when none is. */
export function takeKnownSigner(digest: Hex, signature: Hex): Address | undefined {
  const key = digest + signature;
  const signer = known.get(key);
  if (signer !== undefined) known.delete(key);
  return signer;
}

/** recoverSigner, remembering a recovered signer for the intake (the API's check of a wallet-signed order). */
export function recoverAndRemember(digest: Hex, signature: Hex): Address | null {
  const signer = recoverSigner(digest, signature);
  if (signer !== null) rememberSigner(digest, signature, signer);
  return signer;
}

/** how many are held (tests) */
export const knownSignerCount = (): number => known.size;
