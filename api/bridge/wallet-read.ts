// A wallet's signed read of its own transfers: the portal's history in any browser, not one browser's
// localStorage. The wallet signs `walletReadMessage(tenantId, address, validUntil)` once (EIP-191; an
// ERC-1271 contract wallet through the tenant's home chain), and the page sends the three parts as headers
// on every read until `validUntil` (at most WALLET_READ_MAX_MS ahead). The signature lets its holder read
// the transfers the wallet sent on that tenant's bridge, and nothing else: no transfer is started,
// linked or released by it, and it is worth nothing on another tenant.
import { getAddress, recoverMessageAddress, type Address, type Hex, type PublicClient } from "viem";
import { z } from "zod";
import { BridgeApiError } from "./errors";
import { WALLET_READ_HEADERS, WALLET_READ_MAX_MS, walletReadMessage } from "./portal-app/messages";

export { WALLET_READ_HEADERS, WALLET_READ_MAX_MS, walletReadMessage } from "./portal-app/messages";

export interface WalletRead {
  address: Address;
  validUntil: string;
  signature: Hex;
}

const readSchema = z.object({
  address: z
    .string()
    .regex(/^0x[0-9a-fA-F]{40}$/, "expected an address")
    .transform((a) => getAddress(a)),
  validUntil: z.string().datetime({ message: "an ISO 8601 UTC time, e.g. 2026-01-01T00:00:00.000Z" }),
  signature: z
    .string()
    .regex(/^0x(?:[0-9a-fA-F]{2}){65,4096}$/, "a hex signature (65 bytes for an EOA)")
    .transform((s) => s as Hex),
});

/** The signed read in a request's headers: undefined when none of its headers is present. */
export function walletReadFrom(headers: Record<string, string | string[] | undefined>): WalletRead | undefined {
  const raw = {
    address: headers[WALLET_READ_HEADERS.address],
    validUntil: headers[WALLET_READ_HEADERS.validUntil],
    signature: headers[WALLET_READ_HEADERS.signature],
  };
  if (Object.values(raw).every((v) => v === undefined)) return undefined;
  const parsed = readSchema.safeParse(raw);
  if (!parsed.success)
    throw new BridgeApiError("UNAUTHORIZED", "the wallet's signed read is malformed", {
      headers: Object.values(WALLET_READ_HEADERS),
      issues: parsed.error.issues.map((i) => ({ field: i.path.join("."), message: i.message })),
    });
  return parsed.data;
}

/** The wallet whose signed read this is, when it is valid now for `tenantId`; UNAUTHORIZED otherwise. An EOA's
 *  signature is recovered locally; any other is asked of the chain (ERC-1271, through `chain`). */
export async function verifyWalletRead(
  read: WalletRead,
  tenantId: string,
  chain: Pick<PublicClient, "verifyMessage">,
  nowMs: number,
): Promise<Address> {
  const until = Date.parse(read.validUntil);
  if (!(until > nowMs))
    throw new BridgeApiError("UNAUTHORIZED", "the wallet's signed read has expired: sign a new one", {
      reason: "expired",
      validUntil: read.validUntil,
    });
  if (until - nowMs > WALLET_READ_MAX_MS)
    throw new BridgeApiError("UNAUTHORIZED", "a signed read is valid for at most 7 days", {
      reason: "too_long",
      validUntil: read.validUntil,
      maxMs: WALLET_READ_MAX_MS,
    });
  const message = walletReadMessage(tenantId, read.address, read.validUntil);
  const recovered = await recoverMessageAddress({ message, signature: read.signature }).catch(() => undefined);
  if (recovered === read.address) return read.address;
  let valid: boolean;
  try {
    valid = await chain.verifyMessage({ address: read.address, message, signature: read.signature });
  } catch (err) {
    throw new BridgeApiError("SERVICE_UNAVAILABLE", "cannot verify the signature on the chain now", {}, { cause: err });
  }
  if (!valid)
    throw new BridgeApiError("UNAUTHORIZED", "the read is not signed by this wallet for this bridge", {
      reason: "bad_signature",
      message,
    });
  return read.address;
}
