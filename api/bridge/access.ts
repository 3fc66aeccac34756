// A transfer's capability: 32 random bytes (base64url) returned once by `initiate`, stored as its SHA-256,
// and required (header `X-Transfer-Token`) to read or complete that transfer. Tenants route requests by
// Host; they authorize nothing. Whoever holds the token (the initiating wallet's front end) reads the
// transfer; anyone else, including another tenant's host, gets the same 404 as for an unknown id.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** The header that carries a transfer's capability. */
export const TRANSFER_TOKEN_HEADER = "x-transfer-token";

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export function newTransferToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString("base64url");
  return { token, hash: hashTransferToken(token) };
}

export const hashTransferToken = (token: string): string => createHash("sha256").update(token).digest("hex");

/** Constant-time comparison of a presented token with the stored hash; false for anything malformed. */
export function transferTokenMatches(storedHash: string | null, presented: unknown): boolean {
  if (
    typeof storedHash !== "string" ||
    storedHash.length !== 64 ||
    typeof presented !== "string" ||
    !TOKEN_PATTERN.test(presented)
  )
    return false;
  return timingSafeEqual(Buffer.from(hashTransferToken(presented), "hex"), Buffer.from(storedHash, "hex"));
}
