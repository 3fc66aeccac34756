// The SDK's exchange API client against the real exchange API (its harness: PGlite, a test OpenID issuer over
// HTTP): the tenant token from an identity token, typed authenticated and sandbox calls, the spec's error body.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { startExchangeHarness, type ExchangeHarness } from "../api/exchange/testing/harness";
import { startTestIssuer, type TestIssuer } from "../api/exchange/testing/test-issuer";
import { createExchangeClient, DexApiError, exchangeTenantToken, ok } from "./index";

let issuer: TestIssuer;
let h: ExchangeHarness;
let origin: string;

before(async () => {
  issuer = await startTestIssuer({ alg: "ES256" });
  h = await startExchangeHarness({ issuers: [issuer] });
  origin = new URL(h.url).origin;
});
after(async () => {
  await h.close();
  await issuer.close();
});

test("an identity token gets a tenant token; the pair reads the account and drives the sandbox; a missing pair is 401", async () => {
  const accessToken = await issuer.sign({ sub: "sdk-user", owner: "sdk-org" });
  const tenantToken = await exchangeTenantToken(origin, accessToken);
  assert.match(tenantToken, /^[\w-]+\.[\w-]+\.[\w-]+$/);
  const ex = createExchangeClient({ baseUrl: origin, accessToken, tenantToken });
  const account = await ok(ex.GET("/v1/account"));
  assert.equal(account.data.userId, "sdk-user");
  assert.equal(account.data.orgId, "sdk-org");
  await ok(ex.POST("/v1/sandbox/kyc", { body: { status: "pending" } }));
  const again = await ok(ex.GET("/v1/account"));
  assert.equal(again.data.accountId, account.data.accountId);
  // no tenant token: 401 UNAUTHORIZED, thrown with the spec's code and reason
  const half = createExchangeClient({ baseUrl: origin, accessToken });
  await assert.rejects(
    ok(half.GET("/v1/account")),
    (e: DexApiError) => e instanceof DexApiError && e.status === 401 && e.code === "UNAUTHORIZED",
  );
  // a wrong body is refused with 400 and changes nothing
  await assert.rejects(
    ok(ex.POST("/v1/sandbox/kyc", { body: { status: "nope" } as never })),
    (e: DexApiError) => e.status === 400,
  );
});
