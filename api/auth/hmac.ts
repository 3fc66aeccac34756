// The signed scheme of spec 5.2: X-SIGNATURE = lower-case hex HMAC-SHA256(secret, timestamp + METHOD +
// path + body), where path is the request target as sent (with /v1 and the query string) and body the
// exact bytes received (empty when none).
import { createHmac, hash, timingSafeEqual } from "node:crypto";

export function signRequest(
  secret: string,
  timestamp: string,
  method: string,
  path: string,
  body: Uint8Array | string,
): string {
  return createHmac("sha256", secret)
    .update(timestamp)
    .update(method.toUpperCase())
    .update(path)
    .update(body) // a string is hashed as its UTF-8 bytes
    .digest("hex");
}

/** Constant-time equality of two strings of any length (compares their SHA-256 digests). */
export function constantTimeEqual(a: string, b: string): boolean {
  // one-shot hashes (no Hash object each): this runs once per API-key request
  return timingSafeEqual(hash("sha256", a, "buffer"), hash("sha256", b, "buffer"));
}
