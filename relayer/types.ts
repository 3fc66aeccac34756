// The relayer's inputs: which bridge deployment it serves, how it signs, and its tuning knobs.
import type { Address, Hex, PublicClient, WalletClient } from "viem";
import type { NonceLane } from "../runtime/nonces";

/** One vault/minter pair (a tenant's bridge). `bridge` names it in SQL ("native", "custody" ...). */
export interface RelayerDeployment {
  bridge: string;
  home: { chainId: number; vault: Address; fromBlock: bigint };
  remote: { chainId: number; minter: Address; fromBlock: bigint };
}

export interface ChainClients {
  publicClient: PublicClient;
  /** must carry the relayer's account (it pays gas for mint / queueRelease / executeRelease) */
  walletClient: WalletClient;
  /** that account's nonce lane on this chain, shared by every sender of the account (the stack's two
   *  bridge relayers send from one key); without it the submitter keeps a lane of its own */
  nonces?: NonceLane;
}

/** Where a signer must look for the event: never a digest (the signer rebuilds it from the chain). */
export interface SourceEventRef {
  kind: "MINT" | "RELEASE";
  srcChainId: number;
  nonce: bigint;
  blockNumber: bigint;
  txHash: Hex;
}

export interface BridgeSignature {
  /** the bytes the destination's verifier takes (FROST: Rx||Ry||z, 96 bytes; custody: 65-byte ECDSA) */
  signature: Hex;
  keyEpoch: number;
  digest: Hex;
  /** FROST node indices that signed (empty for other modes) */
  signers: number[];
}

/** Native (FROST cluster), custody provider or custom: the relayer only needs this. Errors with
 *  `retryable: true` are retried with backoff; others fail the transfer. */
export interface BridgeSigner {
  readonly mode: "native" | "custody" | "custom";
  sign(ref: SourceEventRef, keyEpoch: number): Promise<BridgeSignature>;
}

/** The HSM stand-in: co-signs releases at or above the token's threshold. */
export interface HsmCosigner {
  cosign(ref: SourceEventRef, keyEpoch: number): Promise<{ signature: Hex; digest: Hex }>;
}

export interface RelayerConfig {
  /** unique per relayer process: lease owner */
  relayerId: string;
  /** how often each follower asks its chain for a new block */
  pollIntervalMs: number;
  /** how often workers look for due rows when nothing woke them (new events and finished transfers do) */
  claimIntervalMs: number;
  /** blocks on top of the event's block before the relayer acts, by source chain id (the signer nodes
   *  check too); a chain not listed gets config/bridge's default (0 on the local chains, 64 elsewhere) */
  confirmations?: Readonly<Record<number, number>>;
  /** transfers processed at once (signing rounds run concurrently) */
  concurrency: number;
  /** a claimed row stays this worker's for this long; a crashed worker's rows are free again after it */
  leaseMs: number;
  /** backoff of retryable failures: first delay, doubling up to max */
  retryBaseMs: number;
  retryMaxMs: number;
  /** log range per getLogs call */
  maxBlockRange: bigint;
}

export const DEFAULT_RELAYER_CONFIG: Omit<RelayerConfig, "relayerId"> = {
  pollIntervalMs: 10,
  claimIntervalMs: 200,
  concurrency: 16,
  leaseMs: 30_000,
  retryBaseMs: 200,
  retryMaxMs: 5_000,
  maxBlockRange: 2_000n,
};
