// A tiny OpenID issuer for tests: a real HTTP server serving discovery and a JWKS, signing identity tokens
// with jose. Several can run at once with their own keys and issuer URLs (the "another provider replaces
// ours by configuration alone" case). Test code only.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from "jose";

export type TestAlg = "RS256" | "ES256" | "EdDSA";

export interface TestKey {
  kid: string;
  alg: TestAlg;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

export interface TestIssuer {
  /** the issuer URL (`iss`), no trailing slash */
  issuer: string;
  /** the key it signs with by default (published in its JWKS) */
  key: TestKey;
  /** signs `claims` (iss, iat, exp = now + 3600, aud "exchange-api" unless given); `key` may be unpublished */
  sign(
    claims: JWTPayload & { owner?: string; phone?: string },
    opts?: { key?: TestKey; header?: Record<string, unknown> },
  ): Promise<string>;
  /** a key pair it does not publish */
  newKey(alg?: TestAlg): Promise<TestKey>;
  /** publishes `key` (as a key rotation does) */
  publish(key: TestKey): void;
  /** requests served, by path */
  hits: Map<string, number>;
  close(): Promise<void>;
}

let kidCounter = 0;
export async function makeKey(alg: TestAlg): Promise<TestKey> {
  const pair = await generateKeyPair(alg, { extractable: true });
  const kid = `test-${alg}-${++kidCounter}-${Math.random().toString(36).slice(2, 8)}`;
  return {
    kid,
    alg,
    privateKey: pair.privateKey,
    publicJwk: { ...(await exportJWK(pair.publicKey)), kid, alg, use: "sig" },
  };
}

export async function startTestIssuer(
  opts: { alg?: TestAlg; audience?: string; now?: () => number } = {},
): Promise<TestIssuer> {
  const now = opts.now ?? Date.now;
  const key = await makeKey(opts.alg ?? "RS256");
  const published: TestKey[] = [key];
  const hits = new Map<string, number>();
  let issuer = "";
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    hits.set(path, (hits.get(path) ?? 0) + 1);
    res.setHeader("content-type", "application/json");
    if (path === "/.well-known/openid-configuration") {
      res.end(
        JSON.stringify({
          issuer,
          jwks_uri: `${issuer}/jwks`,
          id_token_signing_alg_values_supported: ["RS256", "ES256", "EdDSA"],
        }),
      );
    } else if (path === "/jwks") {
      res.end(JSON.stringify({ keys: published.map((k) => k.publicJwk) }));
    } else {
      res.statusCode = 404;
      res.end("{}");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    key,
    hits,
    async sign(claims, o = {}) {
      const k = o.key ?? key;
      const iat = Math.floor(now() / 1000);
      return new SignJWT({ aud: opts.audience ?? "exchange-api", iss: issuer, iat, exp: iat + 3600, ...claims })
        .setProtectedHeader({ alg: k.alg, kid: k.kid, typ: "at+jwt", ...o.header })
        .sign(k.privateKey);
    },
    newKey: (alg) => makeKey(alg ?? key.alg),
    publish(k) {
      published.push(k);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
