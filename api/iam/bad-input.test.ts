// Bad input on every IAM endpoint, as JSON and as a form: a 4xx with the spec error body on the IAM's own
// JSON endpoints, the OAuth error body {error, error_description} on oidc-provider's (RFC 6749 5.2);
// never a 500, and nothing changes (no user, no code).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ORGANIZATION_KEY_HEADER, PHONE_KEY_HEADER } from "./sandbox";
import { passwordGrant, phoneKeyOf, postForm, postJson, requestCode, suiteIam } from "./testing/harness";

const getJson = async (url: string) => {
  const r = await fetch(url);
  return { status: r.status, body: await r.json() };
};

describe("bad input on every IAM endpoint", () => {
  const t = suiteIam();

  const specError = (r: { status: number; body: any }, status: number, code: string) => {
    assert.equal(r.status, status, JSON.stringify(r.body));
    assert.equal(r.body.error.code, code);
    assert.equal(typeof r.body.error.message, "string");
    assert.equal(typeof r.body.error.details, "object");
    assert.doesNotMatch(JSON.stringify(r.body), /at .*\.ts:\d+/, "no stack trace");
  };
  const oauthError = (r: { status: number; body: any }, status: number, error: string) => {
    assert.equal(r.status, status, JSON.stringify(r.body));
    assert.equal(r.body.error, error);
    assert.equal(typeof r.body.error_description, "string");
  };

  it("POST /api/otp", async () => {
    const url = `${t.url}/api/otp`;
    for (const body of [
      {},
      { phone: 14155550100 },
      { phone: "4155550100" },
      { phone: "+0415555010" },
      { phone: "+1415555" },
      { phone: "+1415555010012345" },
      { phone: "+14155550100", extra: 1 },
      [],
      null,
      "x",
    ]) {
      specError(await postJson(url, body), 400, "INVALID_REQUEST");
    }
    specError(await postJson(url, "{not json"), 400, "INVALID_REQUEST");
    specError(await postForm(url, { phone: "+14155550100" }), 415, "UNSUPPORTED_MEDIA_TYPE");
    specError(await postJson(url, { phone: "+14155550100", pad: "x".repeat(20_000) }), 413, "PAYLOAD_TOO_LARGE");
    const none = await fetch(url, { method: "POST" });
    specError({ status: none.status, body: await none.json() }, 400, "INVALID_REQUEST");
    const sent = await t.db.query("SELECT 1 FROM iam_sandbox_outbox WHERE phone = $1", ["+14155550100"]);
    assert.equal(sent.rows.length, 0, "no code was sent");
    // boundaries of E.164: 8 and 15 digits pass
    assert.equal((await postJson(url, { phone: "+12345678" })).status, 200);
    assert.equal((await postJson(url, { phone: "+123456789012345" })).status, 200);
  });

  it("GET /api/sandbox/outbox", async () => {
    for (const q of [
      "",
      "phone=",
      "phone=abc",
      "phone=%2B14155550100&limit=0",
      "phone=%2B14155550100&limit=101",
      "phone=%2B14155550100&limit=x",
      "phone=%2B14155550100&other=1",
      "phone=%2B1&phone=%2B2",
    ]) {
      const r = await fetch(`${t.url}/api/sandbox/outbox?${q}`);
      specError({ status: r.status, body: await r.json() }, 400, "INVALID_REQUEST");
    }
    specError(await getJson(`${t.url}/api/sandbox/outbox?phone=%2B14155550100&limit=100`), 401, "UNAUTHORIZED");
    await requestCode(t.url, "+14155550101");
    const key = phoneKeyOf(t.url, "+14155550101")!;
    assert.equal(
      (
        await fetch(`${t.url}/api/sandbox/outbox?phone=%2B14155550101&limit=100`, {
          headers: { [PHONE_KEY_HEADER]: key },
        })
      ).status,
      200,
    );
    const unknown = await fetch(`${t.url}/api/sandbox/nothing`);
    specError({ status: unknown.status, body: await unknown.json() }, 404, "ROUTE_NOT_FOUND");
  });

  it("POST /api/sandbox/organizations and /api/sandbox/users", async () => {
    const orgs = `${t.url}/api/sandbox/organizations`;
    for (const body of [
      {},
      { name: "" },
      { name: "   " },
      { name: 5 },
      { name: "x".repeat(201) },
      { name: "a", id: "mine" },
    ])
      specError(await postJson(orgs, body), 400, "INVALID_REQUEST");
    specError(await postForm(orgs, { name: "a" }), 415, "UNSUPPORTED_MEDIA_TYPE");
    const org = await postJson(orgs, { name: "x".repeat(200) });
    assert.equal(org.status, 201);
    const users = `${t.url}/api/sandbox/users`;
    for (const body of [
      {},
      { phone: "+14155550300" },
      { phone: "bad", organizationId: org.body.data.id },
      { phone: "+14155550300", organizationId: "" },
    ]) {
      specError(await postJson(users, body), 400, "INVALID_REQUEST");
    }
    const phoneKey = phoneKeyOf(
      t.url,
      "+14155550300",
      (await postJson(`${t.url}/api/otp`, { phone: "+14155550300" })).body,
    )!;
    const keys = { [PHONE_KEY_HEADER]: phoneKey, [ORGANIZATION_KEY_HEADER]: org.body.data.sandboxOrganizationKey };
    specError(
      await postJson(users, { phone: "+14155550300", organizationId: "org_missing" }, keys),
      404,
      "ORGANIZATION_NOT_FOUND",
    );
    assert.equal(
      (await postJson(users, { phone: "+14155550300", organizationId: org.body.data.id }, keys)).status,
      201,
    );
    specError(
      await postJson(users, { phone: "+14155550300", organizationId: org.body.data.id }, keys),
      409,
      "PHONE_ALREADY_REGISTERED",
    );
  });

  it("POST /api/login/oauth/access_token (the OAuth error body)", async () => {
    const token = `${t.url}/api/login/oauth/access_token`;
    const phone = "+14155550400";
    const code = await requestCode(t.url, phone);
    const good = {
      grant_type: "password",
      client_id: "exchange-web",
      username: phone,
      password: code,
      scope: "openid profile email phone",
    };
    const without = (k: keyof typeof good) => Object.fromEntries(Object.entries(good).filter(([key]) => key !== k));
    // JSON instead of a form
    const asJson = await postJson(token, good);
    oauthError(asJson, 400, "invalid_request");
    oauthError(await postForm(token, without("grant_type")), 400, "invalid_request");
    oauthError(await postForm(token, { ...good, grant_type: "magic" }), 400, "unsupported_grant_type");
    oauthError(await postForm(token, without("client_id")), 400, "invalid_request");
    oauthError(await postForm(token, { ...good, client_id: "nobody" }), 401, "invalid_client");
    oauthError(await postForm(token, { ...good, client_id: "code-only" }), 400, "invalid_request");
    oauthError(await postForm(token, without("username")), 400, "invalid_request");
    oauthError(await postForm(token, without("password")), 400, "invalid_request");
    oauthError(await postForm(token, { ...good, username: "4155550400" }), 400, "invalid_request");
    oauthError(await postForm(token, { ...good, password: "12345" }), 400, "invalid_request");
    oauthError(await postForm(token, { ...good, password: "1234567" }), 400, "invalid_request");
    oauthError(await postForm(token, { ...good, password: "abcdef" }), 400, "invalid_request");
    oauthError(await postForm(token, { ...good, scope: "openid admin" }), 400, "invalid_scope");
    oauthError(await postForm(token, { ...good, scope: "openid\u0000" }), 400, "invalid_scope");
    const dup = await fetch(token, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `${new URLSearchParams(good)}&grant_type=password`,
    });
    oauthError({ status: dup.status, body: await dup.json() }, 400, "invalid_request");
    const garbage = await fetch(token, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "%%%&&&===",
    });
    assert.ok(garbage.status >= 400 && garbage.status < 500, String(garbage.status));
    const get = await fetch(token);
    assert.ok(get.status >= 400 && get.status < 500, String(get.status));
    // none of these used or burnt the code, nor created the user
    assert.equal(await t.iam.users.findByPhone(phone), null);
    assert.equal((await passwordGrant(t.url, phone, code)).status, 200);
  });

  it("discovery, JWKS, userinfo and the authorization endpoint with bad input: 4xx, never 500", async () => {
    const checks: [string, RequestInit?][] = [
      [`${t.url}/.well-known/openid-configuration`, { method: "POST" }],
      [`${t.url}/.well-known/jwks.json`, { method: "POST" }],
      [`${t.url}/api/userinfo`],
      [`${t.url}/api/userinfo`, { headers: { authorization: "Bearer garbage" } }],
      [`${t.url}/api/login/oauth/authorize`],
      [`${t.url}/api/login/oauth/authorize?client_id=nobody&response_type=code`],
      [
        `${t.url}/api/login/oauth/authorize?client_id=exchange-web&response_type=token&redirect_uri=http://evil.example/`,
      ],
      [
        `${t.url}/api/login/oauth/revoke`,
        { method: "POST", headers: { "content-type": "application/json" }, body: "{}" },
      ],
    ];
    for (const [url, init] of checks) {
      const r = await fetch(url, { ...init, redirect: "manual" });
      assert.ok(r.status >= 400 && r.status < 500, `${init?.method ?? "GET"} ${url}: ${r.status}`);
    }
  });
});
