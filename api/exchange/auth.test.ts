// The exchange API's two-token authentication (spec 5.1, issue #14's token table) through real HTTP: two
// independently configured issuers (different keys, algorithms and URLs, each a real HTTP server serving
// discovery and a JWKS) and one that is not configured. Every refusal is 401 with the spec body, and a
// refused call creates nothing.
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { exportSPKI, importJWK, type CryptoKey } from "jose";
import { startExchangeHarness, type ExchangeHarness } from "./testing/harness";
import { startTestIssuer, type TestIssuer } from "./testing/test-issuer";

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");
// a fixed clock on a whole second, shared by the issuers and the API
const T0 = Math.floor(Date.now() / 1000) * 1000;
const nowS = T0 / 1000;
const now = () => T0;

async function call(h: ExchangeHarness, headers: Record<string, string>, path = "/account", method = "GET") {
  const res = await fetch(`${h.url}${path}`, { method, headers });
  const body = (await res.json()) as {
    error?: { code: string; message: string; details: Record<string, unknown> };
    data?: Record<string, unknown>;
    token?: string;
  };
  return { status: res.status, body, res };
}

async function accountRows(h: ExchangeHarness): Promise<number> {
  return Number((await h.db.query<{ n: string }>("SELECT count(*) AS n FROM exchange_accounts")).rows[0].n);
}

function assert401(
  r: { status: number; body: { error?: { code: string; message: string; details: Record<string, unknown> } } },
  reason: string,
) {
  assert.equal(r.status, 401, JSON.stringify(r.body));
  assert.equal(r.body.error?.code, "UNAUTHORIZED");
  assert.equal(typeof r.body.error?.message, "string");
  assert.equal(r.body.error?.details.reason, reason);
}

describe("exchange API authentication: the token table", () => {
  let ours: TestIssuer; // RS256, stands for api/iam
  let other: TestIssuer; // ES256, another provider, configured beside it
  let stranger: TestIssuer; // EdDSA, not configured
  let h: ExchangeHarness;
  let alice: Awaited<ReturnType<ExchangeHarness["login"]>>;

  before(async () => {
    ours = await startTestIssuer({ alg: "RS256", now });
    other = await startTestIssuer({ alg: "ES256", now });
    stranger = await startTestIssuer({ alg: "EdDSA", now });
    h = await startExchangeHarness({ issuers: [ours, other], now, config: { jwksCooldownMs: 0 } });
    alice = await h.login(ours, "alice", "org-a");
  });
  after(async () => {
    await h.close();
    await Promise.all([ours.close(), other.close(), stranger.close()]);
  });
  /** the pair of an identity and a tenant token refused 401 for `reason` */
  const refusedWith = async (identity: string, tenant: string, reason: string) =>
    assert401(await call(h, { authorization: `Bearer ${identity}`, "tenant-authorization": tenant }), reason);

  it("a good pair is accepted, for both configured issuers, and each creates its own account once", async () => {
    const a = await call(h, alice.headers);
    assert.equal(a.status, 200, JSON.stringify(a.body));
    assert.equal(a.body.data?.userId, "alice");
    assert.equal(a.body.data?.orgId, "org-a");
    assert.equal((await call(h, alice.headers)).body.data?.accountId, a.body.data?.accountId);
    // the same sub and owner at another issuer is another user
    const b = await h.login(other, "alice", "org-a");
    const r = await call(h, b.headers);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.notEqual(r.body.data?.accountId, a.body.data?.accountId);
    assert.equal(h.custody.ensured.filter((id) => id === a.body.data?.accountId).length, 1);
  });

  it("expired: exp at the clock tolerance (30 s) ago is refused, one second later is accepted", async () => {
    const before = await accountRows(h);
    const dead = await ours.sign({ sub: "alice", owner: "org-a", exp: nowS - 30 });
    assert401(await call(h, { authorization: `Bearer ${dead}` }, "/auth/tenant-token", "POST"), "token_expired");
    await refusedWith(dead, alice.tenant, "token_expired");
    const late = await ours.sign({ sub: "alice", owner: "org-a", exp: nowS - 29 });
    assert.equal(
      (await call(h, { authorization: `Bearer ${late}`, "tenant-authorization": alice.tenant })).status,
      200,
    );
    // but no tenant token is issued for an identity token past its exp: it would be born expired
    assert401(await call(h, { authorization: `Bearer ${late}` }, "/auth/tenant-token", "POST"), "token_expired");
    assert.equal(await accountRows(h), before);
  });

  it("not yet valid: nbf 31 s ahead is refused, 30 s ahead is accepted", async () => {
    const early = await ours.sign({ sub: "alice", owner: "org-a", nbf: nowS + 31 });
    assert401(await call(h, { authorization: `Bearer ${early}` }, "/auth/tenant-token", "POST"), "token_not_yet_valid");
    const ok = await ours.sign({ sub: "alice", owner: "org-a", nbf: nowS + 30 });
    assert.equal((await call(h, { authorization: `Bearer ${ok}` }, "/auth/tenant-token", "POST")).status, 200);
  });

  it("wrong issuer: an issuer not configured, and a configured issuer's name on another issuer's key", async () => {
    const before = await accountRows(h);
    const foreign = await stranger.sign({ sub: "mallory", owner: "org-a" });
    assert401(await call(h, { authorization: `Bearer ${foreign}` }, "/auth/tenant-token", "POST"), "unknown_issuer");
    assert.equal(stranger.hits.size, 0, "a token of an unconfigured issuer makes the API fetch nothing");
    // the stranger claims to be ours: its kid is not in our JWKS
    const forged = await stranger.sign({ iss: ours.issuer, sub: "alice", owner: "org-a" });
    assert401(await call(h, { authorization: `Bearer ${forged}` }, "/auth/tenant-token", "POST"), "unknown_key");
    assert.equal(await accountRows(h), before);
  });

  it("wrong audience", async () => {
    const t = await ours.sign({ sub: "alice", owner: "org-a", aud: "some-other-api" });
    assert401(await call(h, { authorization: `Bearer ${t}`, "tenant-authorization": alice.tenant }), "wrong_audience");
  });

  it("wrong signature: a changed payload under the original signature, and a flipped signature", async () => {
    const [hd, , sig] = alice.identity.split(".");
    const claims = JSON.parse(Buffer.from(alice.identity.split(".")[1], "base64url").toString());
    const tampered = `${hd}.${b64({ ...claims, owner: "org-b" })}.${sig}`;
    assert401(await call(h, { authorization: `Bearer ${tampered}` }, "/auth/tenant-token", "POST"), "bad_signature");
    const flipped = `${hd}.${alice.identity.split(".")[1]}.${sig.startsWith("A") ? "B" : "A"}${sig.slice(1)}`;
    await refusedWith(flipped, alice.tenant, "bad_signature");
    // a tenant token's signature is checked too
    const [th, tp, ts] = alice.tenant.split(".");
    const tclaims = JSON.parse(Buffer.from(tp, "base64url").toString());
    assert401(
      await call(h, {
        authorization: `Bearer ${alice.identity}`,
        "tenant-authorization": `${th}.${b64({ ...tclaims, exp: tclaims.exp + 86400 })}.${ts}`,
      }),
      "tenant_bad_signature",
    );
  });

  it("alg none, for the identity and for the tenant token", async () => {
    const claims = { iss: ours.issuer, aud: "exchange-api", sub: "alice", owner: "org-a", iat: nowS, exp: nowS + 600 };
    const none = `${b64({ alg: "none", typ: "JWT" })}.${b64(claims)}.`;
    assert401(
      await call(h, { authorization: `Bearer ${none}` }, "/auth/tenant-token", "POST"),
      "algorithm_not_allowed",
    );
    const tclaims = JSON.parse(Buffer.from(alice.tenant.split(".")[1], "base64url").toString());
    const tnone = `${b64({ alg: "none", typ: "tenant+jwt" })}.${b64(tclaims)}.`;
    await refusedWith(alice.identity, tnone, "tenant_algorithm_not_allowed");
  });

  it("HS256 signed with the issuer's public key (the key confusion attack)", async () => {
    const pem = await exportSPKI((await importJWK(ours.key.publicJwk, "RS256")) as CryptoKey);
    const claims = { iss: ours.issuer, aud: "exchange-api", sub: "alice", owner: "org-a", iat: nowS, exp: nowS + 600 };
    for (const secret of [pem, JSON.stringify(ours.key.publicJwk)]) {
      const input = `${b64({ alg: "HS256", kid: ours.key.kid, typ: "JWT" })}.${b64(claims)}`;
      const token = `${input}.${createHmac("sha256", secret).update(input).digest("base64url")}`;
      assert401(
        await call(h, { authorization: `Bearer ${token}` }, "/auth/tenant-token", "POST"),
        "algorithm_not_allowed",
      );
    }
  });

  it("a key not in the JWKS, under its own kid and under a published kid; a rotated-in key is accepted", async () => {
    const unpublished = await ours.newKey();
    assert401(
      await call(
        h,
        { authorization: `Bearer ${await ours.sign({ sub: "alice", owner: "org-a" }, { key: unpublished })}` },
        "/auth/tenant-token",
        "POST",
      ),
      "unknown_key",
    );
    const underOurKid = await ours.sign(
      { sub: "alice", owner: "org-a" },
      { key: unpublished, header: { kid: ours.key.kid } },
    );
    assert401(await call(h, { authorization: `Bearer ${underOurKid}` }, "/auth/tenant-token", "POST"), "bad_signature");
    // key rotation: once the issuer publishes it, the same key is accepted (the JWKS is fetched again)
    ours.publish(unpublished);
    const rotated = await ours.sign({ sub: "alice", owner: "org-a" }, { key: unpublished });
    assert.equal(
      (await call(h, { authorization: `Bearer ${rotated}`, "tenant-authorization": alice.tenant })).status,
      200,
    );
  });

  it("a tenant token bound to another user, another organization or another issuer", async () => {
    const bob = await h.login(ours, "bob", "org-a");
    await refusedWith(alice.identity, bob.tenant, "tenant_token_mismatch");
    await refusedWith(bob.identity, alice.tenant, "tenant_token_mismatch");
    const aliceOrgB = await ours.sign({ sub: "alice", owner: "org-b" });
    await refusedWith(aliceOrgB, alice.tenant, "tenant_token_mismatch");
    const aliceOther = await other.sign({ sub: "alice", owner: "org-a" });
    await refusedWith(aliceOther, alice.tenant, "tenant_token_mismatch");
    // a tenant token is not an identity token, nor the reverse
    await refusedWith(alice.tenant, alice.tenant, "unknown_issuer");
    await refusedWith(alice.identity, alice.identity, "tenant_algorithm_not_allowed");
  });

  it("a missing header", async () => {
    assert401(await call(h, {}), "missing_authorization");
    assert401(await call(h, { "tenant-authorization": alice.tenant }), "missing_authorization");
    assert401(await call(h, { authorization: `Bearer ${alice.identity}` }), "missing_tenant-authorization");
    assert401(await call(h, {}, "/auth/tenant-token", "POST"), "missing_authorization");
    assert401(
      await call(h, { authorization: alice.identity }, "/auth/tenant-token", "POST"),
      "malformed_authorization",
    );
  });

  it("garbage", async () => {
    const before = await accountRows(h);
    for (const v of [
      "Bearer garbage",
      "Bearer a.b.c",
      "Bearer ....",
      "Basic YWxpY2U6cHc=",
      `Bearer ${"x".repeat(9000)}`,
      "Bearer e30.e30.",
      `Bearer ${b64("x")}.${b64("y")}.z`,
    ]) {
      const r = await call(h, { authorization: v }, "/auth/tenant-token", "POST");
      assert.equal(r.status, 401, v.slice(0, 40));
      assert.equal(r.body.error?.code, "UNAUTHORIZED");
    }
    for (const v of ["garbage", "a.b.c", "Bearer", `${"y".repeat(9000)}`]) {
      const r = await call(h, { authorization: `Bearer ${alice.identity}`, "tenant-authorization": v });
      assert.equal(r.status, 401, v.slice(0, 40));
      assert.equal(r.body.error?.code, "UNAUTHORIZED");
    }
    assert.equal(await accountRows(h), before);
  });

  it("an identity token without an owner or a sub is refused", async () => {
    assert401(
      await call(h, { authorization: `Bearer ${await ours.sign({ sub: "carol" })}` }, "/auth/tenant-token", "POST"),
      "missing_claims",
    );
    assert401(
      await call(h, { authorization: `Bearer ${await ours.sign({ owner: "org-a" })}` }, "/auth/tenant-token", "POST"),
      "invalid_claims",
    );
  });
});

describe("exchange API authentication: the identity provider unreachable", () => {
  it("answers 503 and tries discovery again on the next call", async () => {
    const down = await startTestIssuer({ now });
    const h = await startExchangeHarness({ issuers: [down], now });
    try {
      const token = await down.sign({ sub: "dave", owner: "org-d" });
      await down.close();
      const r = await call(h, { authorization: `Bearer ${token}` }, "/auth/tenant-token", "POST");
      assert.equal(r.status, 503);
      assert.equal(r.body.error?.code, "SERVICE_UNAVAILABLE");
    } finally {
      await h.close();
    }
  });
});

describe("exchange API rate limit (spec 8: 300 authenticated requests/minute per user)", () => {
  it("the limit's last request passes, the next is 429 RATE_LIMIT_EXCEEDED; X-RateLimit-* on every answer", async () => {
    const iss = await startTestIssuer({ now });
    const h = await startExchangeHarness({ issuers: [iss], now, rateLimits: { authenticatedPerMinute: 4 } });
    try {
      const u = await h.login(iss, "erin", "org-e"); // 1
      for (let i = 2; i <= 4; i++) {
        const r = await call(h, u.headers);
        assert.equal(r.status, 200);
        assert.equal(r.res.headers.get("x-ratelimit-limit"), "4");
        assert.equal(r.res.headers.get("x-ratelimit-remaining"), String(4 - i));
        assert.ok(Number(r.res.headers.get("x-ratelimit-reset")) > 0);
      }
      const over = await call(h, u.headers);
      assert.equal(over.status, 429);
      assert.equal(over.body.error?.code, "RATE_LIMIT_EXCEEDED");
      // another user is not limited by erin's calls
      assert.equal((await call(h, (await h.login(iss, "frank", "org-e")).headers)).status, 200);
    } finally {
      await h.close();
      await iss.close();
    }
  });
});

describe("exchange API tenant token lifetime", () => {
  it("a tenant token lives 7200 s at most even when its identity token lives longer: at +7229 s accepted, at +7230 s refused", async () => {
    let t = T0;
    const clock = () => t;
    const iss = await startTestIssuer({ now: clock });
    const h = await startExchangeHarness({ issuers: [iss], now: clock });
    try {
      const identity = await iss.sign({ sub: "gina", owner: "org-g", exp: nowS + 4 * 3600 });
      const issued = await call(h, { authorization: `Bearer ${identity}` }, "/auth/tenant-token", "POST");
      const claims = JSON.parse(Buffer.from(issued.body.token!.split(".")[1], "base64url").toString());
      assert.equal(claims.exp - claims.iat, 7200);
      assert.deepEqual([claims.sub, claims.owner, claims.idp], ["gina", "org-g", iss.issuer]);
      const headers = { authorization: `Bearer ${identity}`, "tenant-authorization": issued.body.token! };
      t = T0 + (7200 + 29) * 1000;
      assert.equal((await call(h, headers)).status, 200);
      t = T0 + (7200 + 30) * 1000;
      assert401(await call(h, headers), "tenant_token_expired");
      // a new tenant token for the same, still valid, identity token
      assert.equal((await call(h, { authorization: `Bearer ${identity}` }, "/auth/tenant-token", "POST")).status, 200);
    } finally {
      await h.close();
      await iss.close();
    }
  });
});
