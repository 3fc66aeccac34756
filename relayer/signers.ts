// The relayer's signers. Native: the signer-cluster coordinator gathers 3 of 5 FROST shares from whichever nodes
// answer. Custody / custom: a stand-in for a custody provider's API that, like a signer node, finds the
// event on chain itself before approving the digest with the key behind its ERC-1271 wallet
// (BridgeCustodySigner). HSM: the co-signer service of signer-cluster/hsm.ts over HTTP.
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { MpcError } from "../signer-cluster/errors";
import { callJson } from "../signer-cluster/http";
import type { SigningCoordinator } from "../signer-cluster/coordinator";
import { createSourceEventVerifier, type BridgeChainsConfig } from "../signer-cluster/source-events";
import { frostSignatureToSolidity } from "../sdk/frost-solidity";
import type { BridgeSigner, HsmCosigner, SourceEventRef } from "./types";

const wire = (ref: SourceEventRef) => ({
  kind: ref.kind,
  srcChainId: String(ref.srcChainId),
  nonce: ref.nonce.toString(),
  blockNumber: ref.blockNumber.toString(),
  txHash: ref.txHash,
});

/** Native mode: a 3-of-5 FROST signature, encoded for BridgeFrostVerifier (Rx || Ry || z). The nodes sign
 *  under their own current epoch; a destination on another epoch (a rotation in flight) is retryable. */
export function createFrostSigner(coordinator: Pick<SigningCoordinator, "sign">): BridgeSigner {
  return {
    mode: "native",
    async sign(ref, keyEpoch) {
      const res = await coordinator.sign(wire(ref));
      if (res.epoch !== keyEpoch)
        throw new MpcError("EPOCH_MISMATCH", `the signers are on epoch ${res.epoch}, the destination on ${keyEpoch}`, {
          signers: res.epoch,
          destination: keyEpoch,
        });
      return {
        signature: frostSignatureToSolidity(res.signature.bytes),
        keyEpoch: res.epoch,
        digest: res.digest,
        signers: res.signers,
      };
    },
  };
}

/** Custody-provider stand-in: the owner key of a BridgeCustodySigner wallet. It signs the raw digest it
 *  rebuilt from the chain (OpenZeppelin ECDSA.tryRecover on the wallet side: 65 bytes, low-s). */
export function createCustodySigner(opts: {
  privateKey: Hex;
  chains: BridgeChainsConfig;
  mode?: "custody" | "custom";
}): BridgeSigner {
  const account = privateKeyToAccount(opts.privateKey);
  const verifier = createSourceEventVerifier(opts.chains);
  return {
    mode: opts.mode ?? "custody",
    async sign(ref, keyEpoch) {
      const event = await verifier.verify(
        {
          kind: ref.kind,
          srcChainId: BigInt(ref.srcChainId),
          nonce: ref.nonce,
          blockNumber: ref.blockNumber,
          txHash: ref.txHash,
        },
        BigInt(keyEpoch),
      );
      return { signature: await account.sign({ hash: event.digest }), keyEpoch, digest: event.digest, signers: [] };
    },
  };
}

/** The HSM stand-in's HTTP API (POST /v1/cosign); it finds the burn on chain itself. */
export function createHsmClient(url: string, timeoutMs = 5_000): HsmCosigner {
  return {
    async cosign(ref, keyEpoch) {
      const res = await callJson<{ signature: Hex; digest: Hex }>(
        `${url}/v1/cosign`,
        { request: wire(ref), keyEpoch: String(keyEpoch) },
        timeoutMs,
      );
      return { signature: res.signature, digest: res.digest };
    },
  };
}
