// The OIDC authorization-code flow with PKCE (spec 5.1 step 4), driven by openid-client (a client library
// no one here wrote) from discovery to a refreshed token; the login and consent pages driven over HTTP.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createRemoteJWKSet, jwtVerify } from "jose";
import * as oidc from "openid-client";
import { postForm, requestCode, startTestIam, TEST_REDIRECT, type TestIam } from "./testing/harness";
import { Browser, login } from "./testing/code-flow";

describe("OIDC code flow with PKCE, refresh with rotation and reuse detection (openid-client)", () => {
  let t: TestIam;
  let config: oidc.Configuration;
  before(async () => {
    t = await startTestIam();
    config = await oidc.discovery(new URL(t.url), "exchange-web", undefined, oidc.None(), {
      execute: [oidc.allowInsecureRequests],
    });
  });
  after(() => t.stop());

  it("discovery names the endpoints, S256 PKCE, ES256, the trading scope", () => {
    const m = config.serverMetadata();
    assert.equal(m.issuer, t.url);
    assert.equal(m.token_endpoint, `${t.url}/api/login/oauth/access_token`);
    assert.equal(m.authorization_endpoint, `${t.url}/api/login/oauth/authorize`);
    assert.deepEqual(m.code_challenge_methods_supported, ["S256"]);
    assert.ok(m.scopes_supported?.includes("trading"));
    assert.ok(m.grant_types_supported?.includes("password"));
    assert.deepEqual(m.id_token_signing_alg_values_supported, ["ES256"]);
  });

  it("code -> 1-hour JWT for the exchange API + refresh token; refresh rotates; a reused refresh token fails and revokes the family", async () => {
    const phone = "+14155550201";
    const { callback, codeVerifier, state } = await login(t.url, config, { scope: "openid trading", phone });
    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: codeVerifier,
      expectedState: state,
    });
    assert.equal(tokens.token_type.toLowerCase(), "bearer");
    assert.equal(tokens.expires_in, 3600);
    assert.ok(tokens.refresh_token);
    const jwks = createRemoteJWKSet(new URL(config.serverMetadata().jwks_uri!));
    const { payload } = await jwtVerify(tokens.access_token, jwks, {
      issuer: t.url,
      audience: "exchange-api",
      algorithms: ["ES256"],
    });
    const user = (await t.iam.users.findByPhone(phone))!;
    assert.equal(payload.sub, user.id);
    assert.equal(payload.owner, user.organizationId);
    assert.equal(payload.exp! - payload.iat!, 3600);
    assert.match(String(payload.scope), /\btrading\b/);
    assert.equal(tokens.claims()?.sub, user.id);
    // the response names the scopes granted: openid (an id_token came) and trading
    assert.ok(tokens.id_token);
    assert.deepEqual(tokens.scope?.split(" ").sort(), ["openid", "trading"]);

    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    assert.ok(refreshed.refresh_token);
    assert.notEqual(refreshed.refresh_token, tokens.refresh_token, "rotated");
    assert.deepEqual(refreshed.scope?.split(" ").sort(), ["openid", "trading"], "a refresh names the same grant");
    const again = await jwtVerify(refreshed.access_token, jwks, { issuer: t.url, audience: "exchange-api" });
    assert.equal(again.payload.sub, user.id);
    assert.equal(again.payload.exp! - again.payload.iat!, 3600);

    // the first refresh token again: refused, and the whole family with it
    for (const spent of [tokens.refresh_token!, refreshed.refresh_token!])
      await assert.rejects(
        oidc.refreshTokenGrant(config, spent),
        (e: unknown) => e instanceof oidc.ResponseBodyError && e.error === "invalid_grant",
      );
  });

  it("PKCE is required: an authorization request without code_challenge is refused", async () => {
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: TEST_REDIRECT,
      scope: "openid trading",
      state: oidc.randomState(),
    });
    const res = await fetch(url, { redirect: "manual" });
    assert.equal(res.status, 303);
    const loc = new URL(res.headers.get("location")!);
    assert.equal(loc.origin + loc.pathname, TEST_REDIRECT);
    assert.equal(loc.searchParams.get("error"), "invalid_request");
  });

  it("a wrong code verifier at the token endpoint is invalid_grant", async () => {
    const { callback, state } = await login(t.url, config, { scope: "openid trading", phone: "+14155550202" });
    await assert.rejects(
      oidc.authorizationCodeGrant(config, callback, {
        pkceCodeVerifier: oidc.randomPKCECodeVerifier(),
        expectedState: state,
      }),
      (e: unknown) => e instanceof oidc.ResponseBodyError && e.error === "invalid_grant",
    );
  });

  it("the login page: a wrong code re-renders the form with 400, a malformed phone 400; nothing is logged in", async () => {
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: TEST_REDIRECT,
      scope: "openid trading",
      code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
      code_challenge_method: "S256",
    });
    const browser = new Browser();
    const step = await browser.follow(await browser.get(url.href), t.url);
    const phone = "+14155550203";
    const code = await requestCode(t.url, phone);
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, "0");
    const r1 = await browser.post(`${step.url}/login`, { phone, code: wrong });
    assert.equal(r1.status, 400);
    assert.match(await r1.text(), /attempts left/);
    const r2 = await browser.post(`${step.url}/login`, { phone: "12345", code });
    assert.equal(r2.status, 400);
    const r3 = await browser.post(`${step.url}/login`, {});
    assert.equal(r3.status, 400);
    assert.equal(await t.iam.users.findByPhone(phone), null);
    // an interaction that does not exist: the spec error body, 400
    const r4 = await postForm(`${t.url}/interaction/nope/login`, { phone, code });
    assert.equal(r4.status, 400);
    assert.equal(r4.body.error.code, "INVALID_REQUEST");
  });
});
