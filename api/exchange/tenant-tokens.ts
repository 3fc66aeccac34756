// Tenant tokens (spec 5.1 step 2): a JWT the exchange API signs with its own ES256 key for the holder of a
// verified identity token, bound to that token's user (`sub`), organization (`owner`) and issuer (`idp`).
// Every authenticated call carries both; a tenant token presented beside another user's identity token
// is refused. It expires with the identity token it was issued for, at most `maxLifetimeS` after issue.
// The private key lives in SQL, sealed with AES-256-GCM (the API key encryption key, never stored beside
// the data); the kid is the additional data, so a sealed key copied into another row does not open.
import { randomUUID } from "node:crypto";
import {
  exportJWK,
  generateKeyPair,
  importJWK,
  jwtVerify,
  SignJWT,
  type CryptoKey,
  type JWK,
  type JWTPayload,
} from "jose";
import { z } from "zod";
import type { Db } from "../../db";
import type { SecretBox } from "../auth/secret-box";
import { ExchangeApiError, unauthorized } from "./errors";
import { mapJoseError, MAX_TOKEN_LENGTH, type IdentityClaims } from "./identity-tokens";

export const TENANT_TOKEN_ISSUER = "urn:exchange-api";
export const TENANT_TOKEN_AUDIENCE = "urn:exchange-api:tenant";
export const TENANT_TOKEN_TYPE = "tenant+jwt";
const ALG = "ES256";

export interface TenantTokens {
  /** A tenant token for this identity: `expiresAt` in Unix seconds. */
  issue(identity: IdentityClaims): Promise<{ token: string; expiresAt: number }>;
  /** Resolves when `token` is a valid tenant token bound to `identity`; otherwise a 401. */
  verify(token: string, identity: IdentityClaims): Promise<void>;
}

interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
}

const tenantClaims = z.object({ sub: z.string(), owner: z.string(), idp: z.string() });

/** Loads the signing key from `exchange_signing_keys` (creating it on the first start). */
export async function createTenantTokens(deps: {
  db: Db;
  box: SecretBox;
  maxLifetimeS: number;
  clockToleranceS: number;
  now?: () => number;
}): Promise<TenantTokens> {
  const now = deps.now ?? Date.now;
  const key = await loadOrCreateKey(deps.db, deps.box);
  return {
    async issue(identity) {
      const iat = Math.floor(now() / 1000);
      const expiresAt = Math.min(identity.exp, iat + deps.maxLifetimeS);
      if (expiresAt <= iat) throw unauthorized("token_expired", "the identity token has expired");
      const token = await new SignJWT({ owner: identity.owner, idp: identity.issuer })
        .setProtectedHeader({ alg: ALG, kid: key.kid, typ: TENANT_TOKEN_TYPE })
        .setIssuer(TENANT_TOKEN_ISSUER)
        .setAudience(TENANT_TOKEN_AUDIENCE)
        .setSubject(identity.sub)
        .setIssuedAt(iat)
        .setNotBefore(iat)
        .setExpirationTime(expiresAt)
        .setJti(randomUUID())
        .sign(key.privateKey);
      return { token, expiresAt };
    },
    async verify(token, identity) {
      if (token.length > MAX_TOKEN_LENGTH) throw unauthorized("malformed_tenant_token");
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(
          token,
          async (header) => {
            if (header.kid !== key.kid) throw unauthorized("unknown_key");
            return key.publicKey;
          },
          {
            issuer: TENANT_TOKEN_ISSUER,
            audience: TENANT_TOKEN_AUDIENCE,
            algorithms: [ALG],
            typ: TENANT_TOKEN_TYPE,
            clockTolerance: deps.clockToleranceS,
            currentDate: new Date(now()),
            requiredClaims: ["exp", "sub", "owner", "idp"],
          },
        ));
      } catch (e) {
        const mapped = e instanceof ExchangeApiError ? e : mapJoseError(e);
        throw unauthorized(`tenant_${mapped.details.reason ?? "invalid_token"}`, "invalid tenant token", e);
      }
      const c = tenantClaims.safeParse(payload);
      if (!c.success) throw unauthorized("tenant_invalid_claims", "invalid tenant token");
      if (c.data.sub !== identity.sub || c.data.owner !== identity.owner || c.data.idp !== identity.issuer) {
        throw unauthorized("tenant_token_mismatch", "the tenant token belongs to another identity");
      }
    },
  };
}

const keyRow = z.object({
  kid: z.string(),
  public_jwk: z.record(z.string(), z.unknown()),
  sealed_private_jwk: z.string(),
});

async function loadOrCreateKey(db: Db, box: SecretBox): Promise<SigningKey> {
  const select =
    "SELECT kid, public_jwk, sealed_private_jwk FROM exchange_signing_keys ORDER BY created_at, kid LIMIT 1";
  let row = (await db.query(select)).rows[0];
  if (!row) {
    const pair = await generateKeyPair(ALG, { extractable: true });
    const kid = randomUUID();
    const publicJwk = await exportJWK(pair.publicKey);
    const privateJwk = await exportJWK(pair.privateKey);
    await db.query(
      "INSERT INTO exchange_signing_keys (kid, alg, public_jwk, sealed_private_jwk) VALUES ($1, $2, $3::jsonb, $4) ON CONFLICT DO NOTHING",
      [kid, ALG, JSON.stringify(publicJwk), box.seal(JSON.stringify(privateJwk), kid)],
    );
    // two processes on one Postgres: both read the first key written
    row = (await db.query(select)).rows[0];
  }
  const r = keyRow.parse(row);
  const privateJwk = JSON.parse(box.open(r.sealed_private_jwk, r.kid)) as JWK;
  return {
    kid: r.kid,
    privateKey: (await importJWK(privateJwk, ALG)) as CryptoKey,
    publicKey: (await importJWK(r.public_jwk as JWK, ALG)) as CryptoKey,
  };
}
