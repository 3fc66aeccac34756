// Who is calling: an API key with its secret (spec 5.3), an API key with an HMAC signature (spec 5.2), or
// a wallet signing the request itself (EIP-191, for dApps that hold no API key). Every refusal is
// UNAUTHORIZED with details.reason; permissions and IP allowlists are checked by authorize().
import type { Request } from "express";
import { getAddress, hashMessage, recoverAddress, type Address, type Hex } from "viem";
import { parseStrictEcdsaSignature } from "../../sdk/signature";
import { ApiError } from "../errors";
import type { ApiKeyPermission, ApiKeyRecord, ApiKeyStore } from "./api-keys";
import { constantTimeEqual, signRequest } from "./hmac";
import { ipAllowed } from "./ip-allowlist";
import { ReplayCache } from "./replay-cache";

export type AuthScheme = "api_key" | "hmac" | "wallet";

export interface AuthContext {
  scheme: AuthScheme;
  /** the trading account: the key's owner or the signing wallet */
  account: Address;
  /** null for the wallet scheme */
  key: ApiKeyRecord | null;
}

export interface AcceptedSchemes {
  apiKey?: boolean;
  hmac?: boolean;
  wallet?: boolean;
}

export interface HmacParts {
  apiKey: string | undefined;
  timestamp: string | undefined;
  signature: string | undefined;
  method: string;
  path: string;
  body: Uint8Array;
}

const unauthorized = (reason: string, message: string, extra: Record<string, unknown> = {}) =>
  new ApiError("UNAUTHORIZED", message, { reason, ...extra });

export interface Authenticator {
  authenticate(req: Request, accept: AcceptedSchemes): Promise<AuthContext>;
  /** The HMAC check on its own (the WebSocket auth message uses it). */
  verifyHmac(parts: HmacParts): Promise<ApiKeyRecord>;
}

/** The text a wallet signs (EIP-191, raw bytes) for the wallet scheme: timestamp + METHOD + host + path +
 *  body, where host is the Host header the client targets (e.g. "api.example.com" or "127.0.0.1:3001")
 *  and path the request target with /v1 and the query string. The host binds a signature to one venue:
 *  it cannot be replayed against another deployment that shares wallets. */
export function walletSigningText(
  timestamp: string,
  method: string,
  host: string,
  path: string,
  body: Uint8Array | string,
): Uint8Array {
  return Buffer.concat([
    Buffer.from(`${timestamp}${method.toUpperCase()}${host}${path}`, "utf8"),
    typeof body === "string" ? Buffer.from(body, "utf8") : body,
  ]);
}

export interface AuthenticatorDeps {
  keys: ApiKeyStore;
  hmacWindowMs: number;
  walletWindowMs: number;
  /** Host headers the wallet scheme accepts (lower case, with the port when not the default); empty:
   *  whatever Host the request carries (it is still signed over). */
  walletHosts?: readonly string[];
  now?: () => number;
}

/** What the checks share: the key store, the clock, the windows and their replay caches. */
interface AuthState {
  keys: ApiKeyStore;
  now: () => number;
  hmacWindowMs: number;
  walletWindowMs: number;
  hmacReplay: ReplayCache;
  walletReplay: ReplayCache;
  walletHosts: Set<string>;
}

export function createAuthenticator(deps: AuthenticatorDeps): Authenticator {
  const now = deps.now ?? Date.now;
  const state: AuthState = {
    keys: deps.keys,
    now,
    hmacWindowMs: deps.hmacWindowMs,
    walletWindowMs: deps.walletWindowMs,
    hmacReplay: new ReplayCache(deps.hmacWindowMs, { now }),
    walletReplay: new ReplayCache(deps.walletWindowMs, { now }),
    walletHosts: new Set((deps.walletHosts ?? []).map((h) => h.toLowerCase())),
  };
  return {
    verifyHmac: (parts) => verifyHmac(state, parts),
    authenticate: (req, accept) => authenticate(state, req, accept),
  };
}

/** Picks the scheme from the headers present; a scheme the endpoint does not accept is refused. */
async function authenticate(s: AuthState, req: Request, accept: AcceptedSchemes): Promise<AuthContext> {
  const body = rawBodyOf(req);
  const apiKey = header(req, "x-api-key");
  const hasSignature = header(req, "x-signature") !== undefined;
  const hasSecret = header(req, "x-api-secret") !== undefined;
  if (apiKey !== undefined && hasSignature && hasSecret) {
    throw unauthorized("ambiguous_credentials", "send X-API-Secret or X-SIGNATURE, not both");
  }
  if (apiKey !== undefined && hasSignature) {
    if (!accept.hmac) throw unauthorized("scheme_not_accepted", "the signed scheme is not accepted here");
    const key = await verifyHmac(s, {
      apiKey,
      timestamp: header(req, "x-timestamp"),
      signature: header(req, "x-signature"),
      method: req.method,
      path: req.originalUrl,
      body,
    });
    return { scheme: "hmac", account: key.owner, key };
  }
  if (apiKey !== undefined) {
    if (!accept.apiKey)
      throw unauthorized(
        "scheme_not_accepted",
        "this endpoint needs the signed scheme (X-API-KEY, X-TIMESTAMP, X-SIGNATURE)",
      );
    const key = await verifySecret(s, apiKey, header(req, "x-api-secret"));
    return { scheme: "api_key", account: key.owner, key };
  }
  if (header(req, "x-wallet-address") !== undefined && accept.wallet) {
    return { scheme: "wallet", account: await verifyWallet(s, req, body), key: null };
  }
  throw unauthorized("missing_credentials", "authentication required");
}

function checkTimestamp(s: AuthState, text: string | undefined, windowMs: number): void {
  if (!text || !/^\d{1,15}$/.test(text)) throw unauthorized("invalid_timestamp", "timestamp must be Unix milliseconds");
  const skew = Math.abs(s.now() - Number(text));
  if (skew > windowMs) {
    throw unauthorized("timestamp_outside_window", `timestamp is more than ${windowMs} ms away from server time`, {
      server_time: s.now(),
      window_ms: windowMs,
    });
  }
}

async function verifyHmac(s: AuthState, p: HmacParts): Promise<ApiKeyRecord> {
  if (!p.apiKey || !p.signature)
    throw unauthorized("missing_credentials", "X-API-KEY, X-TIMESTAMP and X-SIGNATURE are required");
  checkTimestamp(s, p.timestamp, s.hmacWindowMs);
  if (!/^[0-9a-f]{64}$/.test(p.signature))
    throw unauthorized("invalid_signature", "X-SIGNATURE must be 64 lower-case hex characters");
  const found = await s.keys.findByApiKey(p.apiKey);
  if (!found) throw unauthorized("invalid_api_key", "unknown or revoked API key");
  const expected = signRequest(found.secret, p.timestamp!, p.method, p.path, p.body);
  if (!constantTimeEqual(expected, p.signature)) throw unauthorized("invalid_signature", "signature does not match");
  if (!s.hmacReplay.firstUse(`${found.record.id}:${p.signature}`, s.now())) {
    throw unauthorized("signature_replayed", "this signature was already used");
  }
  return found.record;
}

async function verifySecret(s: AuthState, apiKey: string, secret: string | undefined): Promise<ApiKeyRecord> {
  if (!secret) throw unauthorized("missing_credentials", "X-API-Key and X-API-Secret are required");
  const found = await s.keys.findByApiKey(apiKey);
  // Compare against a dummy when the key is unknown so that timing does not reveal which keys exist.
  const ok = constantTimeEqual(found?.secret ?? "0".repeat(64), secret);
  if (!found) throw unauthorized("invalid_api_key", "unknown or revoked API key");
  if (!ok) throw unauthorized("invalid_secret", "API secret does not match");
  return found.record;
}

async function verifyWallet(s: AuthState, req: Request, body: Uint8Array): Promise<Address> {
  const addressText = header(req, "x-wallet-address");
  const timestamp = header(req, "x-wallet-timestamp");
  const signature = header(req, "x-wallet-signature");
  if (
    !addressText ||
    !/^0x[0-9a-fA-F]{40}$/.test(addressText) ||
    !signature ||
    !/^0x[0-9a-fA-F]{130}$/.test(signature)
  ) {
    throw unauthorized(
      "missing_credentials",
      "X-Wallet-Address, X-Wallet-Timestamp and X-Wallet-Signature (65 bytes hex) are required",
    );
  }
  checkTimestamp(s, timestamp, s.walletWindowMs);
  const host = (header(req, "host") ?? "").toLowerCase();
  if (!host || (s.walletHosts.size > 0 && !s.walletHosts.has(host))) {
    throw unauthorized("host_not_accepted", "the Host this request was signed for is not served here", { host });
  }
  // The contract's rule for ECDSA signatures: low s, v 27 or 28. Without it (r, n - s, v ^ 1) is a
  // second valid signature of the same message.
  const parsed = parseStrictEcdsaSignature(signature);
  if (!parsed.ok)
    throw unauthorized("invalid_signature", "wallet signature must be 65 bytes with v 27 or 28 and a low s", {
      problem: parsed.problem,
    });
  const digest = hashMessage({ raw: walletSigningText(timestamp!, req.method, host, req.originalUrl, body) });
  let signer: Address;
  try {
    signer = await recoverAddress({ hash: digest, signature: signature as Hex });
  } catch {
    throw unauthorized("invalid_signature", "wallet signature does not recover");
  }
  if (signer.toLowerCase() !== addressText.toLowerCase())
    throw unauthorized("invalid_signature", "wallet signature is not from X-Wallet-Address");
  // Keyed on who signed what, not on the signature's text: any other encoding of the same signature is
  // the same request.
  if (!s.walletReplay.firstUse(`${signer.toLowerCase()}:${digest}`, s.now()))
    throw unauthorized("signature_replayed", "this signature was already used");
  return getAddress(addressText);
}

/** Permission (null: none needed) and IP allowlist of an API key (the wallet itself has every right over
 *  its account). The allowlist applies to every request made with the key, revoking it included. */
export function authorize(ctx: AuthContext, permission: ApiKeyPermission | null, ip: string | undefined): void {
  if (!ctx.key) return;
  if (permission !== null && !ctx.key.permissions.includes(permission)) {
    throw new ApiError("FORBIDDEN", `this API key lacks the ${permission} permission`, {
      reason: "missing_permission",
      permission,
    });
  }
  if (!ipAllowed(ctx.key.ipAllowlist, ip)) {
    throw new ApiError("FORBIDDEN", "request from an address outside the key's IP allowlist", {
      reason: "ip_not_allowed",
    });
  }
}

export function header(req: Request, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

export function rawBodyOf(req: Request): Uint8Array {
  return Buffer.isBuffer(req.body) ? req.body : new Uint8Array(0);
}
