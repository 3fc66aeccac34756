// Signers this process has already established for an order's (digest, signature): recovered by the API's
// own check of a wallet-signed order (`recoverAndRemember`), or produced by an API key's agent signing the
// order the DEX service is about to place (`signAsAgent`). The intake takes its answer from here instead of
// recovering the same signature a second time (with the recover pool: a message to a helper process and
// back; docs/measurements.md). Only what recovery itself returned (or the signer's own signature) goes in,
// keyed by the exact digest and signature strings, so an answer from here is the one recoverSigner would
// give; anything else (a miss, an evicted or a differently spelt pair) is recovered as before. Each entry is
// taken once; at most KNOWN_SIGNERS_MAX are held (the oldest go first), so orders refused before the intake
// cannot grow it. One cache per process, made by the composition root and handed to the pipeline (intake,
// DEX service) and to the DEX API's order placer: nothing is shared through module state.
import type { Address, Hex } from "viem";
import { recoverSigner } from "./recover";

export const KNOWN_SIGNERS_MAX = 4096;

export class SignerCache {
  private readonly known = new Map<string, Address>();

  remember(digest: Hex, signature: Hex, signer: Address): void {
    const key = digest + signature;
    const known = this.known;
    if (known.size >= KNOWN_SIGNERS_MAX && !known.has(key)) known.delete(known.keys().next().value!);
    known.set(key, signer);
  }

  /** The signer remembered for exactly this (digest, signature), once; undefined when none is. */
  take(digest: Hex, signature: Hex): Address | undefined {
    const key = digest + signature;
    const signer = this.known.get(key);
    if (signer !== undefined) this.known.delete(key);
    return signer;
  }

  /** recoverSigner, remembering a recovered signer for the intake (the API's check of a wallet-signed order). */
  recoverAndRemember(digest: Hex, signature: Hex): Address | null {
    const signer = recoverSigner(digest, signature);
    if (signer !== null) this.remember(digest, signature, signer);
    return signer;
  }

  /** `sign(digest)` (an agent's own signature), remembered with the agent's address (as recoverSigner
   *  spells it) for the intake. */
  signAsAgent(agent: Address, sign: (digest: Hex) => Hex, digest: Hex): Hex {
    const signature = sign(digest);
    this.remember(digest, signature, agent.toLowerCase() as Address);
    return signature;
  }

  /** how many are held */
  get size(): number {
    return this.known.size;
  }
}
