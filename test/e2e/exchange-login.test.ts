// Issue #14's acceptance: a new user logs in as a person would, on a whole stack (chains, the sandbox bank
// deployed by provisioning, the identity provider, the exchange API with custody): request a one-time code,
// read it from the sandbox outbox, take the password grant, get the tenant token, read GET /v1/account with
// the preloaded test funds, equal to the account's demo USD balance in Settlement on chain; then the OIDC
// code flow (openid-client) to a refreshed token that the exchange API accepts, and refresh reuse refused.
import assert from "node:assert/strict";
import { test } from "node:test";
import Ajv2020 from "ajv/dist/2020";
import { createPublicClient, http, type Address } from "viem";
import { settlementAbi } from "../../sdk/abi";
import * as oidc from "openid-client";
import { withTestStack } from "../support/test-stack";
import { DEFAULT_CLIENT_ID, WEB_CALLBACK_PATH } from "../../api/iam/config";
import { login } from "../../api/iam/testing/code-flow";
import { passwordGrant, readOutbox } from "../../api/iam/testing/harness";

test("a new user: code, outbox, password grant, tenant token, GET /v1/account equal to the chain", {
  timeout: 300_000,
}, async () => {
  await withTestStack("exchange-login-e2e-", ["iam", "exchange-api"], async ({ config, stack }) => {
    const iam = config.urls.identity;
    const api = config.urls.exchangeApi;
    const phone = "+14155550123";

    // 1. a one-time code, read from the sandbox outbox
    const otp = await fetch(`${iam}/api/otp`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ phone }),
    });
    const otpText = await otp.text();
    assert.ok(otp.status < 300, `otp: ${otp.status} ${otpText}`);
    // the phone's first code request answers its sandbox key; the outbox is read with it (and the key kept
    // for the code flow's sign-in below)
    const code = await readOutbox(iam, phone, JSON.parse(otpText));
    assert.match(code, /^\d{6}$/);

    // 2. the password grant (a form, spec 4.A)
    const grant = await passwordGrant(iam, phone, code);
    const tokens = grant.body as { access_token: string; token_type: string; expires_in: number };
    assert.equal(grant.status, 200, JSON.stringify(tokens));
    assert.equal(tokens.expires_in, 7200);

    // 3. the tenant token
    const auth = { authorization: `Bearer ${tokens.access_token}` };
    const tt = await fetch(`${api}/auth/tenant-token`, { method: "POST", headers: auth });
    const { token } = (await tt.json()) as { token: string };
    assert.equal(tt.status, 200);
    const both = { ...auth, "tenant-authorization": token };

    // 4. the account: created now, test funds preloaded, equal to the chain
    const res = await fetch(`${api}/account`, { headers: both });
    const body = (await res.json()) as { data: Record<string, unknown> };
    const account = body.data;
    assert.equal(res.status, 200, JSON.stringify(account));
    assert.equal(account.phone, phone);
    assert.equal(account.kycStatus, "approved");
    // a phone-only login: strings where spec 2.12 says string, no accreditation type while none is held, and the
    // answer is what the served OpenAPI document says (issue 30)
    assert.equal(account.email, "");
    assert.equal("accreditationType" in account, false);
    const doc = (await (await fetch(`${api}/openapi.json`)).json()) as { paths: Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addFormat("date-time", /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    const validate = ajv.compile(doc.paths["/v1/account"].get.responses["200"].content["application/json"].schema);
    assert.ok(validate(body), JSON.stringify(validate.errors));
    assert.ok(Number(account.cashBalance) > 0, "test funds preloaded");
    const home = stack.deployments.home;
    const client = createPublicClient({ transport: http(config.chains.home.rpcUrl) });
    const onChain = (await client.readContract({
      address: home.contracts.Settlement as Address,
      abi: settlementAbi,
      functionName: "balanceOf",
      args: [account.settlementAddress as Address, home.tokens.USD.address as Address],
    })) as bigint;
    assert.equal(account.cashBalanceUnits, onChain.toString());
    assert.equal(account.cashBalance, Number(onChain) / 1e6);
    assert.equal(account.buyingPower, account.cashBalance);

    // the same login again finds the same account, funds preloaded once
    const again = (
      (await (await fetch(`${api}/custody-account-info`, { headers: both })).json()) as {
        data: Record<string, unknown>;
      }
    ).data;
    assert.equal(again.accountId, account.accountId);
    assert.equal(again.cashBalanceUnits, onChain.toString());
    // without the tenant token: 401
    assert.equal((await fetch(`${api}/account`, { headers: auth })).status, 401);

    // 5. the web app's way in (spec 5.1 step 4): the OIDC code flow with PKCE, driven by openid-client from
    //    discovery; the refreshed access token is accepted by the exchange API (same user, same account);
    //    the first refresh token used again fails and takes the family with it
    const redirectUri = `${config.urls.web}${WEB_CALLBACK_PATH}`;
    const oidcConfig = await oidc.discovery(new URL(iam), DEFAULT_CLIENT_ID, undefined, oidc.None(), {
      execute: [oidc.allowInsecureRequests],
    });
    const flow = await login(iam, oidcConfig, { scope: "openid trading", phone, redirectUri });
    const codeTokens = await oidc.authorizationCodeGrant(oidcConfig, flow.callback, {
      pkceCodeVerifier: flow.codeVerifier,
      expectedState: flow.state,
    });
    assert.equal(codeTokens.expires_in, 3600);
    const refreshed = await oidc.refreshTokenGrant(oidcConfig, codeTokens.refresh_token!);
    assert.notEqual(refreshed.access_token, codeTokens.access_token);
    const auth2 = { authorization: `Bearer ${refreshed.access_token}` };
    const tt2 = await fetch(`${api}/auth/tenant-token`, { method: "POST", headers: auth2 });
    assert.equal(tt2.status, 200);
    const both2 = { ...auth2, "tenant-authorization": ((await tt2.json()) as { token: string }).token };
    const viaCodeFlow = await fetch(`${api}/account`, { headers: both2 });
    const acct2 = ((await viaCodeFlow.json()) as { data: Record<string, unknown> }).data;
    assert.equal(viaCodeFlow.status, 200, JSON.stringify(acct2));
    assert.equal(acct2.accountId, account.accountId);
    assert.equal(acct2.cashBalanceUnits, onChain.toString());
    await assert.rejects(
      oidc.refreshTokenGrant(oidcConfig, codeTokens.refresh_token!),
      (e: unknown) => e instanceof oidc.ResponseBodyError && e.error === "invalid_grant",
    );
    await assert.rejects(
      oidc.refreshTokenGrant(oidcConfig, refreshed.refresh_token!),
      (e: unknown) => e instanceof oidc.ResponseBodyError && e.error === "invalid_grant",
    );
  });
});
