// Identity tokens (spec 5.1): JWTs of an OpenID provider, verified against that provider's JWKS only
// (found by discovery at <issuer>/.well-known/openid-configuration): issuer, audience, expiry with a small
// clock tolerance, an algorithm allowlist. Any provider (ours in api/iam, a Keycloak, a Casdoor) is used
// by configuration alone: its issuer URL in the list, our audience in its tokens, an `owner` claim.
import {
  createRemoteJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  errors,
  jwtVerify,
  type FlattenedJWSInput,
  type JWSHeaderParameters,
  type JWTPayload,
  type JWTVerifyGetKey,
} from "jose";
import { z } from "zod";
import { ExchangeApiError, unauthorized } from "./errors";

/** RS256 and ES256 (the identity token of the shared design), EdDSA; never none, never HMAC. */
export const IDENTITY_ALGORITHMS = ["RS256", "ES256", "EdDSA"] as const;

export interface IdentityClaims {
  /** the `iss` the token was verified against (one of the configured issuers) */
  issuer: string;
  /** the user id at that issuer */
  sub: string;
  /** the user's organization id */
  owner: string;
  phone: string | null;
  email: string | null;
  scope: string;
  /** Unix seconds */
  exp: number;
}

export interface IdentityVerifier {
  /** The token's claims, or a 401 UNAUTHORIZED ExchangeApiError (503 when the issuer cannot be reached). */
  verify(token: string): Promise<IdentityClaims>;
}

const idClaim = z.string().min(1).max(256);
const claimsSchema = z.object({
  sub: idClaim,
  owner: idClaim,
  phone: z.string().max(64).optional(),
  phone_number: z.string().max(64).optional(),
  email: z.string().max(320).optional(),
  scope: z.union([z.string().max(1024), z.array(z.string().max(128)).max(64)]).optional(),
  exp: z.number(),
});

const discoverySchema = z.object({ issuer: z.string(), jwks_uri: z.string().url() });

/** Tokens above this length are refused unread (a JWT of this design is about 1 KB). */
export const MAX_TOKEN_LENGTH = 8192;
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

export interface IdentityVerifierDeps {
  issuers: readonly string[];
  audience: string;
  clockToleranceS: number;
  fetchTimeoutMs: number;
  jwksCooldownMs?: number;
  now?: () => number;
}

type KeySet = ReturnType<typeof createRemoteJWKSet>;

export function createIdentityVerifier(deps: IdentityVerifierDeps): IdentityVerifier {
  const now = deps.now ?? Date.now;
  const issuers = new Set(deps.issuers);
  const keySets = new IssuerKeySets(deps.fetchTimeoutMs, deps.jwksCooldownMs ?? 30_000);
  return {
    async verify(token) {
      const iss = trustedIssuer(token, issuers);
      const keys = await keySets.keysOf(iss);
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, keys, {
          issuer: iss,
          audience: deps.audience,
          algorithms: [...IDENTITY_ALGORITHMS],
          clockTolerance: deps.clockToleranceS,
          currentDate: new Date(now()),
          requiredClaims: ["exp", "sub"],
        }));
      } catch (e) {
        throw mapJoseError(e, iss);
      }
      return claimsOf(payload, iss);
    },
  };
}

/** The token's issuer, read before any key is fetched: a token that is not a compact JWS, signs with an
 *  algorithm outside the allowlist or names an issuer not configured is refused unverified. */
function trustedIssuer(token: string, issuers: ReadonlySet<string>): string {
  if (token.length > MAX_TOKEN_LENGTH || !COMPACT_JWS.test(token)) throw unauthorized("malformed_token");
  let alg: unknown;
  let iss: unknown;
  try {
    alg = decodeProtectedHeader(token).alg;
    iss = decodeJwt(token).iss;
  } catch (e) {
    throw unauthorized("malformed_token", undefined, e);
  }
  if (!(IDENTITY_ALGORITHMS as readonly unknown[]).includes(alg)) throw unauthorized("algorithm_not_allowed");
  if (typeof iss !== "string" || !issuers.has(iss)) throw unauthorized("unknown_issuer");
  return iss;
}

function claimsOf(payload: JWTPayload, issuer: string): IdentityClaims {
  const claims = claimsSchema.safeParse(payload);
  if (!claims.success)
    throw unauthorized("missing_claims", "the identity token lacks a required claim (sub, owner, exp)");
  const c = claims.data;
  return {
    issuer,
    sub: c.sub,
    owner: c.owner,
    phone: c.phone ?? c.phone_number ?? null,
    email: c.email ?? null,
    scope: Array.isArray(c.scope) ? c.scope.join(" ") : (c.scope ?? ""),
    exp: c.exp,
  };
}

/** Each issuer's key set, found by discovery once; a failed discovery is forgotten, so the next call tries
 *  again. */
class IssuerKeySets {
  private readonly byIssuer = new Map<string, Promise<KeySet>>();

  constructor(
    private readonly fetchTimeoutMs: number,
    private readonly cooldownMs: number,
  ) {}

  /** The issuer's keys for jwtVerify (503 when the issuer cannot be reached). */
  async keysOf(issuer: string): Promise<JWTVerifyGetKey> {
    const jwks = await this.jwksOf(issuer).catch((cause: unknown) => {
      const message = "the identity provider cannot be reached";
      throw new ExchangeApiError("SERVICE_UNAVAILABLE", message, { issuer }, { cause });
    });
    // the key set's own failures (unreachable, timed out, not a JWKS) are 503, told apart from the token's
    return (header: JWSHeaderParameters, input: FlattenedJWSInput) =>
      jwks(header, input).catch((e: unknown) => {
        if (e instanceof errors.JWKSNoMatchingKey || e instanceof errors.JWKSMultipleMatchingKeys) throw e;
        throw new KeySetUnavailable(e);
      });
  }

  private jwksOf(issuer: string): Promise<KeySet> {
    let p = this.byIssuer.get(issuer);
    if (!p) {
      p = this.discover(issuer);
      this.byIssuer.set(issuer, p);
      p.catch(() => this.byIssuer.delete(issuer));
    }
    return p;
  }

  private async discover(issuer: string): Promise<KeySet> {
    const res = await fetch(`${issuer}/.well-known/openid-configuration`, {
      signal: AbortSignal.timeout(this.fetchTimeoutMs),
      redirect: "error",
    });
    if (res.status !== 200) throw new Error(`discovery of ${issuer} answered ${res.status}`);
    const doc = discoverySchema.parse(await res.json());
    // OpenID Connect Discovery 1.0, 4.3: the document's issuer must be the one it was fetched for
    if (doc.issuer.replace(/\/+$/, "") !== issuer) throw new Error(`discovery of ${issuer} names issuer ${doc.issuer}`);
    return createRemoteJWKSet(new URL(doc.jwks_uri), {
      timeoutDuration: this.fetchTimeoutMs,
      cooldownDuration: this.cooldownMs,
      cacheMaxAge: 600_000,
    });
  }
}

/** jose's refusals as 401 reasons; a key set that cannot be fetched is 503 (the token may be good). */
export function mapJoseError(e: unknown, issuer?: string): ExchangeApiError {
  if (e instanceof errors.JWTExpired) return unauthorized("token_expired", "the token has expired", e);
  if (e instanceof errors.JWTClaimValidationFailed) {
    const reason =
      {
        nbf: "token_not_yet_valid",
        iat: "token_not_yet_valid",
        aud: "wrong_audience",
        iss: "wrong_issuer",
        typ: "wrong_token_type",
      }[e.claim] ?? "invalid_claims";
    return unauthorized(reason, undefined, e);
  }
  if (e instanceof errors.JWSSignatureVerificationFailed) return unauthorized("bad_signature", undefined, e);
  if (e instanceof errors.JWKSNoMatchingKey || e instanceof errors.JWKSMultipleMatchingKeys)
    return unauthorized("unknown_key", undefined, e);
  if (e instanceof errors.JOSEAlgNotAllowed) return unauthorized("algorithm_not_allowed", undefined, e);
  if (e instanceof KeySetUnavailable) {
    return new ExchangeApiError(
      "SERVICE_UNAVAILABLE",
      "the identity provider's keys cannot be fetched",
      { issuer: issuer ?? null },
      { cause: e.cause },
    );
  }
  return unauthorized("invalid_token", undefined, e);
}

class KeySetUnavailable extends Error {
  constructor(cause: unknown) {
    super("key set unavailable", { cause });
  }
}
