// Settings of the exchange API (spec 4.A, 5.1, 8). The process environment is read by config/ (the one
// config module); the stack component passes these values in. Tests and benches raise the limits.
import type { TrustProxy } from "../trust-proxy";

export interface ExchangeRateLimits {
  /** every request, per client IP, before anything else (a flood guard; spec 8 sets no figure) */
  ipPerMinute: number;
  /** spec 8 exchange API: authenticated endpoints, 300 requests/minute per user */
  authenticatedPerMinute: number;
}

export interface ExchangeApiConfig {
  /** sandbox: the sandbox endpoints exist and new accounts start KYC-approved; production: they answer 404 */
  mode: "sandbox" | "production";
  /** issuer URLs whose identity tokens are accepted; each one's JWKS is found by OIDC discovery */
  issuers: readonly string[];
  /** the `aud` identity tokens must carry */
  audience: string;
  /** seconds of clock skew allowed on exp / nbf / iat, identity and tenant tokens alike */
  clockToleranceS: number;
  /** a tenant token expires with its identity token, and never later than this after its issue */
  tenantTokenMaxLifetimeS: number;
  /** discovery document and JWKS fetches give up after this (then 503, the next call tries again) */
  identityFetchTimeoutMs: number;
  /** after a JWKS fetch, an unknown kid fetches the set again only this much later (a flood of made-up
   *  kids costs the provider one fetch per period); a rotated key is seen at most this late */
  jwksCooldownMs: number;
  /** request bodies above this are refused with 413 */
  bodyLimitBytes: number;
  /** Express "trust proxy" (false: the socket address is the client IP; a list: the proxies, such as the
   *  web server, whose X-Forwarded-For is believed) */
  trustProxy: TrustProxy;
  rateLimits: ExchangeRateLimits;
}

export const DEFAULT_EXCHANGE_RATE_LIMITS: ExchangeRateLimits = { ipPerMinute: 1200, authenticatedPerMinute: 300 };

export function exchangeApiConfig(
  o: Partial<Omit<ExchangeApiConfig, "rateLimits">> &
    Pick<ExchangeApiConfig, "issuers" | "audience"> & { rateLimits?: Partial<ExchangeRateLimits> },
): ExchangeApiConfig {
  return {
    mode: "sandbox",
    clockToleranceS: 30,
    tenantTokenMaxLifetimeS: 7200,
    identityFetchTimeoutMs: 5000,
    jwksCooldownMs: 30_000,
    bodyLimitBytes: 16 * 1024,
    trustProxy: false,
    ...o,
    rateLimits: { ...DEFAULT_EXCHANGE_RATE_LIMITS, ...o.rateLimits },
  };
}
