// Signing keys: sealed at rest, rotated, and a retired key kept in the JWKS until the tokens it signed
// have expired (the longest JWT lifetime plus a margin), then dropped.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from "jose";
import { createDb, type Db } from "../../db";
import { DEFAULT_TOKEN_LIFETIMES, maxJwtLifetimeMs } from "./config";
import { createIamKeys } from "./keys";
import { passwordGrant, requestCode, suiteIam, testClock, TEST_KEY_HEX } from "./testing/harness";

const jwks = async (url: string) => (await (await fetch(`${url}/.well-known/jwks.json`)).json()) as JSONWebKeySet;
const login = async (url: string, phone: string) =>
  (await passwordGrant(url, phone, await requestCode(url, phone))).body.access_token as string;

describe("signing key rotation", () => {
  const t = suiteIam({ keyRotationMs: 30 * 24 * 3600_000 });

  it("a rotation signs with the new key and keeps the old one in the JWKS until its tokens expire", async () => {
    const before = await login(t.url, "+14155550501");
    const oldKid = decodeProtectedHeader(before).kid!;
    assert.deepEqual(
      (await jwks(t.url)).keys.map((k) => k.kid),
      [oldKid],
    );

    const newKid = await t.iam.rotateSigningKey();
    assert.notEqual(newKid, oldKid);
    const after = await login(t.url, "+14155550501");
    assert.equal(decodeProtectedHeader(after).kid, newKid);
    const set = await jwks(t.url);
    assert.deepEqual(
      set.keys.map((k) => k.kid),
      [newKid, oldKid],
    );
    const local = createLocalJWKSet(set);
    await jwtVerify(before, local, { issuer: t.url, audience: "exchange-api" });
    await jwtVerify(after, local, { issuer: t.url, audience: "exchange-api" });

    // the old key stays while a token it signed can be live: dropped at exactly rotation + retain
    const retain = maxJwtLifetimeMs(t.config.tokens);
    assert.ok(retain > DEFAULT_TOKEN_LIFETIMES.passwordAccessTokenS * 1000);
    t.clock.advance(retain - 1);
    await t.iam.maintain();
    assert.deepEqual(
      (await jwks(t.url)).keys.map((k) => k.kid),
      [newKid, oldKid],
    );
    t.clock.advance(1);
    await t.iam.maintain();
    assert.deepEqual(
      (await jwks(t.url)).keys.map((k) => k.kid),
      [newKid],
    );
    await assert.rejects(
      jwtVerify(before, createLocalJWKSet(await jwks(t.url)), { issuer: t.url, audience: "exchange-api" }),
    );
  });

  it("the hourly maintenance rotates a key older than keyRotationMs", async () => {
    const [active] = (await t.iam.keys.list()).filter((k) => k.retiredAtMs === null);
    t.clock.advance(t.config.keyRotationMs - (t.clock.now() - active.createdAtMs) - 1);
    await t.iam.maintain();
    assert.equal(
      (await t.iam.keys.list()).filter((k) => k.retiredAtMs === null)[0].kid,
      active.kid,
      "1 ms before its age: kept",
    );
    t.clock.advance(1);
    await t.iam.maintain();
    const [next] = (await t.iam.keys.list()).filter((k) => k.retiredAtMs === null);
    assert.notEqual(next.kid, active.kid);
    assert.equal(decodeProtectedHeader(await login(t.url, "+14155550502")).kid, next.kid);
  });
});

describe("keys at rest", () => {
  let db: Db;
  before(async () => {
    db = await createDb();
  });
  after(() => db.close());

  it("the private key is sealed (no private scalar in SQL) and opens only with the encryption key", async () => {
    const clock = testClock();
    const keys = createIamKeys({ db, clock, encryptionKeyHex: TEST_KEY_HEX, retainMs: 1000 });
    await keys.maintain(1e12);
    const [jwk] = await keys.privateJwks();
    assert.ok(jwk.d);
    const rows = (await db.query<Record<string, string>>("SELECT * FROM iam_signing_keys")).rows;
    assert.equal(rows.length, 1);
    assert.ok(!JSON.stringify(rows).includes(jwk.d!), "the private scalar is not stored in clear");
    assert.ok(!JSON.parse(rows[0].public_jwk).d);
    const other = createIamKeys({ db, clock, encryptionKeyHex: "22".repeat(32), retainMs: 1000 });
    await assert.rejects(other.privateJwks());
    // a sealed row copied under another kid does not open (the kid is the additional data)
    await db.query(
      "INSERT INTO iam_signing_keys (kid, alg, public_jwk, private_jwk_sealed, created_at_ms) SELECT 'copy', alg, public_jwk, private_jwk_sealed, created_at_ms - 1 FROM iam_signing_keys",
    );
    await assert.rejects(keys.privateJwks());
  });
});
