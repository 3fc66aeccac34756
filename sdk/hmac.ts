// The DEX API's HMAC scheme (spec 5.2) on the client side: X-SIGNATURE = lower-case hex
// HMAC-SHA256(secret, timestamp + METHOD + path + body), path being the request target as sent (with /v1 and
// the query string) and body the exact bytes sent (empty when none). The same function signs the WebSocket
// login (path "/ws", method GET) and gRPC calls (path "/dex.v1.TradingService/<Method>", method POST).
// Pure JavaScript (@noble/hashes): works in node and in browsers.
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, concatBytes, utf8ToBytes } from "@noble/hashes/utils.js";

export interface ApiKeyCredentials {
  apiKey: string;
  apiSecret: string;
}

/** Lower-case hex HMAC-SHA256(secret, timestamp + METHOD + path + body). */
export function hmacSignature(
  secret: string,
  timestamp: string | number,
  method: string,
  path: string,
  body: string | Uint8Array = "",
): string {
  const text = utf8ToBytes(`${timestamp}${method.toUpperCase()}${path}`);
  const bytes = typeof body === "string" ? utf8ToBytes(body) : body;
  return bytesToHex(hmac(sha256, utf8ToBytes(secret), concatBytes(text, bytes)));
}

/** The three headers of the signed scheme for one request (each signature is accepted once, within 5 s of
 *  the server's clock: `GET /v1/time` tells it). */
export function hmacHeaders(
  creds: ApiKeyCredentials,
  req: { method: string; path: string; body?: string | Uint8Array; timestamp?: number },
): Record<"X-API-KEY" | "X-TIMESTAMP" | "X-SIGNATURE", string> {
  const timestamp = String(req.timestamp ?? Date.now());
  return {
    "X-API-KEY": creds.apiKey,
    "X-TIMESTAMP": timestamp,
    "X-SIGNATURE": hmacSignature(creds.apiSecret, timestamp, req.method, req.path, req.body ?? ""),
  };
}

/** The WebSocket API's login message for an API key (send it once per connection, before private channels
 *  or orders): HMAC over timestamp + "GET" + "/ws". */
export function wsLoginMessage(creds: ApiKeyCredentials, id: string | number = "login", timestamp = Date.now()) {
  return {
    type: "auth" as const,
    id,
    api_key: creds.apiKey,
    timestamp,
    signature: hmacSignature(creds.apiSecret, timestamp, "GET", "/ws"),
  };
}
