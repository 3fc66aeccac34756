import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from "jose";
import { passwordGrant, requestCode, suiteIam } from "./testing/harness";

describe("password grant (spec 4.A, 2.13)", () => {
  const t = suiteIam();

  it("code from the sandbox outbox -> JWT access token with owner, expires_in 7200, id_token; verifiable by the JWKS", async () => {
    const phone = "+14155550101";
    const code = await requestCode(t.url, phone);
    assert.match(code, /^\d{6}$/);
    const r = await passwordGrant(t.url, phone, code);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.token_type, "Bearer");
    assert.equal(r.body.expires_in, 7200);
    assert.equal(r.body.scope, "openid profile email phone");
    assert.equal(typeof r.body.id_token, "string");
    assert.equal(r.body.refresh_token, undefined);

    const discovery = (await (await fetch(`${t.url}/.well-known/openid-configuration`)).json()) as Record<string, any>;
    assert.equal(discovery.issuer, t.url);
    assert.equal(discovery.token_endpoint, `${t.url}/api/login/oauth/access_token`);
    const jwks = createRemoteJWKSet(new URL(discovery.jwks_uri));
    const { payload, protectedHeader } = await jwtVerify(r.body.access_token, jwks, {
      issuer: t.url,
      audience: "exchange-api",
      algorithms: ["ES256"],
    });
    assert.equal(protectedHeader.typ, "at+jwt");
    const user = await t.iam.users.findByPhone(phone);
    assert.ok(user);
    assert.equal(payload.sub, user.id);
    assert.equal(payload.owner, user.organizationId);
    assert.equal(payload.phone, phone);
    assert.equal(payload.exp! - payload.iat!, 7200);
    assert.equal(payload.nbf, payload.iat);
    assert.equal(payload.client_id, "exchange-web");

    const id = await jwtVerify(r.body.id_token, jwks, {
      issuer: t.url,
      audience: "exchange-web",
      algorithms: ["ES256"],
    });
    assert.equal(id.payload.sub, user.id);
    assert.equal(id.payload.owner, user.organizationId);
    assert.equal(id.payload.phone_number, phone);
    assert.equal(decodeProtectedHeader(r.body.id_token).kid, protectedHeader.kid);
  });

  it("a code is single-use: the second grant with it is invalid_grant", async () => {
    const phone = "+14155550102";
    const code = await requestCode(t.url, phone);
    assert.equal((await passwordGrant(t.url, phone, code)).status, 200);
    const again = await passwordGrant(t.url, phone, code);
    assert.equal(again.status, 400);
    assert.equal(again.body.error, "invalid_grant");
  });

  it("the first login creates a user in a new organization; the next login is the same user", async () => {
    const phone = "+14155550103";
    const a = await passwordGrant(t.url, phone, await requestCode(t.url, phone));
    const b = await passwordGrant(t.url, phone, await requestCode(t.url, phone));
    const subA = JSON.parse(Buffer.from(a.body.access_token.split(".")[1], "base64url").toString());
    const subB = JSON.parse(Buffer.from(b.body.access_token.split(".")[1], "base64url").toString());
    assert.equal(subA.sub, subB.sub);
    assert.equal(subA.owner, subB.owner);
    const other = await passwordGrant(t.url, "+14155550104", await requestCode(t.url, "+14155550104"));
    const subC = JSON.parse(Buffer.from(other.body.access_token.split(".")[1], "base64url").toString());
    assert.notEqual(subC.owner, subA.owner);
  });
});
