// What the relayer calls to get the HSM co-signature of a release (see hsm.ts for the service).
import type { Address, Hex } from "viem";
import { callJson } from "./http";
import type { SigningRequestInput } from "./source-events";

export interface HsmCoSignature {
  /** the digest the HSM rebuilt from the burn on chain (equal to the FROST digest of the same epoch) */
  digest: Hex;
  /** 65 bytes r || s || v, low-s, v in {27, 28}, over `digest` itself (no EIP-191 prefix) */
  signature: Hex;
  signer: Address;
  message: Record<string, string>;
}

/** Throws MpcError: HSM_AMOUNT_BELOW_THRESHOLD, HSM_KIND_UNSUPPORTED, SOURCE_EVENT_NOT_FOUND / _NOT_FINAL,
 *  SIGNER_UNREACHABLE (retryable) ... */
export function requestHsmCoSignature(opts: {
  url: string;
  request: SigningRequestInput;
  keyEpoch: bigint | number;
  timeoutMs?: number;
}) {
  const request = JSON.parse(JSON.stringify(opts.request, (_k, v) => (typeof v === "bigint" ? v.toString() : v)));
  return callJson<HsmCoSignature>(
    `${opts.url}/v1/cosign`,
    { request, keyEpoch: String(opts.keyEpoch) },
    opts.timeoutMs ?? 5_000,
  );
}
