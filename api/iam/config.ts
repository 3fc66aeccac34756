// Settings of the identity provider. The process environment is read by config/ (the one config module);
// whoever starts the IAM passes these values in. Defaults are the choices recorded in
// docs/decisions/api.md ("Identity"); tests lower the limits to reach them, benches raise them.
import { WEB_CALLBACK_PATH } from "../../sdk/exchange-client";
import type { TrustProxy } from "../trust-proxy";

/** A statically registered OAuth client: public (no secret; PKCE for the code flow). */
export interface IamClient {
  clientId: string;
  /** where the code flow may send the browser back (exact match) */
  redirectUris: string[];
  /** the password grant of spec 4.A / 5.1 step 1 */
  passwordGrant: boolean;
  /** the authorization-code flow of spec 5.1 step 4 (PKCE, refresh tokens) */
  codeFlow: boolean;
}

export interface IamLimits {
  /** digits of a one-time code */
  otpDigits: number;
  /** a code's lifetime */
  otpTtlMs: number;
  /** codes one phone may request per rolling window */
  otpRequestsPerPhone: number;
  otpRequestWindowMs: number;
  /** consecutive wrong codes that lock a phone (the last one locks it) */
  maxFailedAttempts: number;
  lockoutMs: number;
  /** per client IP: POST /api/otp requests per window */
  otpRequestsPerIp: number;
  /** per client IP: failed logins (wrong or expired code, bad request) per window */
  failedLoginsPerIp: number;
  ipWindowMs: number;
}

export interface IamTokenLifetimes {
  /** spec 5.1 / 8: identity token of the password grant, 2 hours */
  passwordAccessTokenS: number;
  /** spec 5.1 / 8: OIDC code-flow token, 1 hour */
  codeFlowAccessTokenS: number;
  idTokenS: number;
  refreshTokenS: number;
  authorizationCodeS: number;
  sessionS: number;
  interactionS: number;
}

export interface IamConfig {
  mode: "sandbox" | "production";
  /** the issuer URL (`iss`), e.g. http://127.0.0.1:3003 */
  issuer: string;
  /** `aud` of access tokens: the exchange API's audience */
  audience: string;
  /** the resource indicator (RFC 8707) that names the exchange API; the default resource of every grant */
  resource: string;
  clients: IamClient[];
  limits: IamLimits;
  tokens: IamTokenLifetimes;
  /** a signing key older than this is rotated (at start and by the hourly check) */
  keyRotationMs: number;
  /** Express "trust proxy" (false: the socket address is the client IP; a list: the proxies, such as the
   *  web server, whose X-Forwarded-For is believed) */
  trustProxy: TrustProxy;
  /** request bodies above this are refused with 413 */
  bodyLimitBytes: number;
}

export const DEFAULT_IAM_LIMITS: IamLimits = {
  otpDigits: 6,
  otpTtlMs: 5 * 60_000,
  otpRequestsPerPhone: 5,
  otpRequestWindowMs: 60 * 60_000,
  maxFailedAttempts: 5,
  lockoutMs: 15 * 60_000,
  otpRequestsPerIp: 100,
  failedLoginsPerIp: 100,
  ipWindowMs: 15 * 60_000,
};

export const DEFAULT_TOKEN_LIFETIMES: IamTokenLifetimes = {
  passwordAccessTokenS: 7200,
  codeFlowAccessTokenS: 3600,
  idTokenS: 3600,
  refreshTokenS: 30 * 24 * 3600,
  authorizationCodeS: 60,
  sessionS: 24 * 3600,
  interactionS: 600,
};

/** The client `npm start` registers: the exchange web app (password grant and code flow). */
export const DEFAULT_CLIENT_ID = "exchange-web";
/** the web app's page the code flow returns to (web/server.ts serves it); the stack registers
 *  <config.urls.web><WEB_CALLBACK_PATH> */
export { WEB_CALLBACK_PATH };

export function iamConfig(
  o: Partial<Omit<IamConfig, "limits" | "tokens">> & {
    issuer: string;
    resource: string;
    limits?: Partial<IamLimits>;
    tokens?: Partial<IamTokenLifetimes>;
  },
): IamConfig {
  return {
    mode: "sandbox",
    audience: "exchange-api",
    clients: [
      {
        clientId: DEFAULT_CLIENT_ID,
        redirectUris: [`http://127.0.0.1:3004${WEB_CALLBACK_PATH}`],
        passwordGrant: true,
        codeFlow: true,
      },
    ],
    keyRotationMs: 30 * 24 * 3600_000,
    trustProxy: false,
    bodyLimitBytes: 16 * 1024,
    ...o,
    limits: { ...DEFAULT_IAM_LIMITS, ...o.limits },
    tokens: { ...DEFAULT_TOKEN_LIFETIMES, ...o.tokens },
  };
}

/** The longest lifetime of a JWT signed with a key: a retired key stays in the JWKS this long (plus a
 *  margin for clock skew), so that every token it signed can still be verified until it expires. */
export function maxJwtLifetimeMs(t: IamTokenLifetimes): number {
  return Math.max(t.passwordAccessTokenS, t.codeFlowAccessTokenS, t.idTokenS) * 1000 + 5 * 60_000;
}
