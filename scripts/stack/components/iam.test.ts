import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from "jose";
import { loadConfig } from "../../../config";
import { createApiLogger } from "../../../api/logger";
import { freePort } from "../../../runtime/ports";
import { passwordGrant, postJson, requestCode } from "../../../api/iam/testing/harness";
import type { StackContext } from "../types";
import { iamComponent } from "./iam";
import { IAM_ROUTES } from "../../../api/iam/provider";
import { DEFAULT_CLIENT_ID, WEB_CALLBACK_PATH } from "../../../api/iam/config";

const ctxFor = (config: ReturnType<typeof loadConfig>) =>
  ({ config, logger: createApiLogger({ level: "silent" }), started: new Map() }) as unknown as StackContext;

test("the iam stack component: issuer = config.urls.identity, a login, and a restart on the same data dir keeps the signing key, users and the tokens' validity", async () => {
  const root = mkdtempSync(join(tmpdir(), "iam-component-"));
  const env = { DATA_DIR: join(root, "data"), IAM_PORT: String(await freePort()) };
  const config = loadConfig(env);
  let handle = await iamComponent.start(ctxFor(config));
  try {
    const url = handle.urls!["identity (iam)"];
    assert.equal(url, config.urls.identity);
    assert.deepEqual(await handle.health!(), { ok: true });
    const phone = "+447700900123";
    const r = await passwordGrant(url, phone, await requestCode(url, phone));
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const jwksBefore = (await (await fetch(`${url}/.well-known/jwks.json`)).json()) as JSONWebKeySet;
    assert.equal(jwksBefore.keys.length, 1);
    assert.equal("d" in jwksBefore.keys[0], false, "the JWKS publishes public keys only");
    await handle.stop();

    handle = await iamComponent.start(ctxFor(config));
    const jwksAfter = (await (await fetch(`${url}/.well-known/jwks.json`)).json()) as JSONWebKeySet;
    assert.deepEqual(jwksAfter, jwksBefore);
    const { payload } = await jwtVerify(r.body.access_token, createLocalJWKSet(jwksAfter), {
      issuer: url,
      audience: "exchange-api",
    });
    const again = await passwordGrant(url, phone, await requestCode(url, phone));
    const payloadAgain = JSON.parse(Buffer.from(again.body.access_token.split(".")[1], "base64url").toString());
    assert.equal(payloadAgain.sub, payload.sub, "the same user after the restart");
  } finally {
    await handle.stop();
    rmSync(root, { recursive: true, force: true });
  }
});

test("production mode: no sandbox endpoints (404), no outbox, and no code is sent without an SMS gateway (503)", async () => {
  const root = mkdtempSync(join(tmpdir(), "iam-component-prod-"));
  const config = loadConfig({
    DATA_DIR: join(root, "data"),
    IAM_PORT: String(await freePort()),
    EXCHANGE_MODE: "production",
    API_KEY_ENCRYPTION_KEY: "ab".repeat(32),
    DEX_WALLET_AUTH_HOSTS: "dex.example",
  });
  const handle = await iamComponent.start(ctxFor(config));
  try {
    const url = handle.urls!["identity (iam)"];
    assert.equal(handle.urls!["iam sandbox outbox"], undefined);
    const outbox = await fetch(`${url}/api/sandbox/outbox?phone=%2B447700900123`);
    assert.equal(outbox.status, 404);
    assert.equal(((await outbox.json()) as { error: { code: string } }).error.code, "ROUTE_NOT_FOUND");
    const users = await postJson(`${url}/api/sandbox/users`, { phone: "+447700900124", organizationId: "org_x" });
    assert.equal(users.status, 404);
    const otp = await postJson(`${url}/api/otp`, { phone: "+447700900123" });
    assert.equal(otp.status, 503);
    assert.equal(otp.body.error.code, "SERVICE_UNAVAILABLE");
    assert.equal((await fetch(`${url}/.well-known/openid-configuration`)).status, 200);
  } finally {
    await handle.stop();
    rmSync(root, { recursive: true, force: true });
  }
});

test("the code flow's registered redirect URI follows WEB_PORT: the configured web app's callback is accepted, 3004's refused", async () => {
  const root = mkdtempSync(join(tmpdir(), "iam-component-web-"));
  let webPort = await freePort();
  while (webPort === 3004) webPort = await freePort();
  const config = loadConfig({
    DATA_DIR: join(root, "data"),
    IAM_PORT: String(await freePort()),
    WEB_PORT: String(webPort),
  });
  const handle = await iamComponent.start(ctxFor(config));
  try {
    const url = handle.urls!["identity (iam)"];
    const authorize = (redirectUri: string) =>
      fetch(
        `${url}${IAM_ROUTES.authorization}?${new URLSearchParams({ client_id: DEFAULT_CLIENT_ID, response_type: "code", scope: "openid", redirect_uri: redirectUri, code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", code_challenge_method: "S256", state: "s" })}`,
        { redirect: "manual" },
      );
    const ours = await authorize(`http://${config.host}:${webPort}${WEB_CALLBACK_PATH}`);
    assert.equal(ours.status, 303, await ours.text());
    assert.match(ours.headers.get("location") ?? "", /^\/interaction\//, "on to the login page");
    const fixed = await authorize(`http://127.0.0.1:3004${WEB_CALLBACK_PATH}`);
    assert.equal(fixed.status, 400);
    assert.match(await fixed.text(), /redirect_uri/);
  } finally {
    await handle.stop();
    rmSync(root, { recursive: true, force: true });
  }
});
