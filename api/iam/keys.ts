// The IAM's token signing keys and generated secrets, in SQL, private parts sealed (AES-256-GCM,
// api/auth/secret-box.ts, the row's name as additional data) with the key that seals API-key secrets.
// Rotation: a new ES256 key signs from then on; the retired one stays in the JWKS until every token it
// signed has expired (`retainMs`: the longest JWT lifetime plus a margin), then it is dropped.
import { randomBytes } from "node:crypto";
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from "jose";
import type { Db } from "../../db";
import type { Clock } from "../../runtime/clock";
import { createSecretBox, type SecretBox } from "../auth/secret-box";

export const SIGNING_ALG = "ES256";

export interface SigningKeyInfo {
  kid: string;
  createdAtMs: number;
  retiredAtMs: number | null;
  dropAfterMs: number | null;
}

export interface IamKeys {
  /** private JWKs for oidc-provider: the signing key first, then retired keys still to be published */
  privateJwks(): Promise<JWK[]>;
  list(): Promise<SigningKeyInfo[]>;
  /** a new signing key; the previous one is retired (kept in the JWKS for `retainMs`) */
  rotate(): Promise<string>;
  /** drops retired keys past their time, creates the first key, rotates one older than `maxAgeMs`;
   *  true when the set of keys changed */
  maintain(maxAgeMs: number): Promise<boolean>;
  /** a secret generated once and kept sealed (cookie keys, the OTP pepper): 32 random bytes, hex */
  secret(name: string): Promise<string>;
}

interface KeyRow {
  kid: string;
  private_jwk_sealed: string;
  created_at_ms: string;
  retired_at_ms: string | null;
  drop_after_ms: string | null;
}

const num = (v: string | null): number | null => (v === null ? null : Number(v));

export function createIamKeys(o: { db: Db; clock: Clock; encryptionKeyHex: string; retainMs: number }): IamKeys {
  return new SqlIamKeys(o.db, o.clock, createSecretBox(o.encryptionKeyHex), o.retainMs);
}

const aadKey = (kid: string) => `iam-signing-key:${kid}`;
const aadSecret = (name: string) => `iam-secret:${name}`;

class SqlIamKeys implements IamKeys {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly box: SecretBox,
    private readonly retainMs: number,
  ) {}

  private async rows(): Promise<KeyRow[]> {
    // newest first: the first unretired key is the one that signs
    return (
      await this.db.query<KeyRow>(
        "SELECT kid, private_jwk_sealed, created_at_ms, retired_at_ms, drop_after_ms FROM iam_signing_keys ORDER BY retired_at_ms IS NOT NULL, created_at_ms DESC, kid",
      )
    ).rows;
  }

  async privateJwks(): Promise<JWK[]> {
    const now = this.clock.now();
    return (await this.rows())
      .filter((r) => r.drop_after_ms === null || Number(r.drop_after_ms) > now)
      .map((r) => JSON.parse(this.box.open(r.private_jwk_sealed, aadKey(r.kid))) as JWK);
  }

  async list(): Promise<SigningKeyInfo[]> {
    return (await this.rows()).map((r) => ({
      kid: r.kid,
      createdAtMs: Number(r.created_at_ms),
      retiredAtMs: num(r.retired_at_ms),
      dropAfterMs: num(r.drop_after_ms),
    }));
  }

  async rotate(): Promise<string> {
    const { privateKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
    const jwk = await exportJWK(privateKey);
    const kid = await calculateJwkThumbprint(jwk);
    const priv: JWK = { ...jwk, kid, alg: SIGNING_ALG, use: "sig" };
    const pub: JWK = { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y, kid, alg: SIGNING_ALG, use: "sig" };
    const now = this.clock.now();
    await this.db.transaction(async (tx) => {
      await tx.query("UPDATE iam_signing_keys SET retired_at_ms = $1, drop_after_ms = $2 WHERE retired_at_ms IS NULL", [
        now,
        now + this.retainMs,
      ]);
      await tx.query(
        "INSERT INTO iam_signing_keys (kid, alg, public_jwk, private_jwk_sealed, created_at_ms) VALUES ($1, $2, $3, $4, $5)",
        [kid, SIGNING_ALG, JSON.stringify(pub), this.box.seal(JSON.stringify(priv), aadKey(kid)), now],
      );
    });
    return kid;
  }

  async maintain(maxAgeMs: number): Promise<boolean> {
    const now = this.clock.now();
    let changed =
      (
        await this.db.query("DELETE FROM iam_signing_keys WHERE drop_after_ms IS NOT NULL AND drop_after_ms <= $1", [
          now,
        ])
      ).rowCount > 0;
    const active = (await this.rows()).find((r) => r.retired_at_ms === null);
    if (!active || Number(active.created_at_ms) + maxAgeMs <= now) {
      await this.rotate();
      changed = true;
    }
    return changed;
  }

  async secret(name: string): Promise<string> {
    const sealed = async () =>
      (await this.db.query<{ sealed: string }>("SELECT sealed FROM iam_secrets WHERE name = $1", [name])).rows[0]
        ?.sealed;
    const found = await sealed();
    if (found) return this.box.open(found, aadSecret(name));
    const value = randomBytes(32).toString("hex");
    await this.db.query("INSERT INTO iam_secrets (name, sealed) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING", [
      name,
      this.box.seal(value, aadSecret(name)),
    ]);
    // another start may have won the insert: read what is stored
    return this.box.open((await sealed())!, aadSecret(name));
  }
}
