// Races on the identity provider's single-use state, on a real Postgres server (the stack with
// DATABASE_URL, a pool of connections) and on PGlite (the default): a burst of one-time-code guesses is
// judged at most `maxFailedAttempts` times before the lock refuses the rest, and an authorization code or
// a refresh token redeemed twice at once is one redemption and one reuse (the grant revoked), never two
// live token families.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import * as oidc from "openid-client";
import { createDb, type Db } from "../../db";
import { startPostgresServer } from "../../test/support/external-parts";
import { DEFAULT_IAM_LIMITS } from "./config";
import { passwordGrant, postForm, requestCode, startTestIam, TEST_REDIRECT, type TestIam } from "./testing/harness";
import { login } from "./testing/code-flow";

const N = DEFAULT_IAM_LIMITS.maxFailedAttempts;
const BURST = 20;
const wrongGuesses = (code: string, count: number) =>
  Array.from({ length: count }, (_, i) => String((Number(code) + 1 + i) % 1_000_000).padStart(6, "0"));

function raceSuite(engine: "postgres" | "pglite", makeDb: () => Promise<Db>): void {
  describe(`races on ${engine}`, () => {
    let t: TestIam;
    let db: Db;
    let config: oidc.Configuration;
    let n = 0;
    const phone = () => `+1415558${engine === "postgres" ? 1 : 2}${String(++n).padStart(3, "0")}`;
    before(async () => {
      db = await makeDb();
      t = await startTestIam({ db });
      config = await oidc.discovery(new URL(t.url), "exchange-web", undefined, oidc.None(), {
        execute: [oidc.allowInsecureRequests],
      });
    });
    after(async () => {
      await t?.stop();
      await db?.close();
    });

    it(`a burst of ${BURST} wrong codes: exactly ${N} are judged (${N - 1} wrong, the ${N}th locks), the rest refused; then the right code is refused too`, async () => {
      for (let round = 0; round < 3; round++) {
        const p = phone();
        const code = await requestCode(t.url, p);
        const rs = await Promise.all(wrongGuesses(code, BURST).map((g) => passwordGrant(t.url, p, g)));
        const wrong = rs.filter((r) => r.status === 400);
        const refused = rs.filter((r) => r.status === 429);
        assert.equal(
          wrong.length,
          N - 1,
          `round ${round}: judged wrong ${wrong.length} times: ${rs.map((r) => r.status).join(",")}`,
        );
        assert.equal(refused.length, BURST - (N - 1));
        const left = wrong.map((r) => Number(/(\d+) attempts left/.exec(String(r.body.error_description))?.[1])).sort();
        assert.deepEqual(
          left,
          Array.from({ length: N - 1 }, (_, i) => i + 1),
          "each count of attempts left once",
        );
        for (const r of refused) assert.equal(r.body.error, "rate_limit_exceeded");
        assert.equal((await passwordGrant(t.url, p, code)).status, 429, "locked: the right code is refused");
      }
    });

    it(`the right code inside a burst of wrong ones: logged in at most once, each count of attempts left answered at most once per run of failures`, async () => {
      for (let round = 0; round < 3; round++) {
        const p = phone();
        const code = await requestCode(t.url, p);
        const guesses = wrongGuesses(code, BURST - 1);
        guesses.splice(round * 7, 0, code);
        const rs = await Promise.all(guesses.map((g) => passwordGrant(t.url, p, g)));
        const ok = rs.filter((r) => r.status === 200).length;
        assert.ok(ok <= 1, `logged in ${ok} times`);
        // every judged guess was against the one live code or none: at most N per run of consecutive failures,
        // so the wrong answers count down N-1..1 at most once before and once after a success
        const left = rs
          .filter((r) => r.status === 400)
          .map((r) => Number(/(\d+) attempts left/.exec(String(r.body.error_description))?.[1]));
        for (let v = 1; v < N; v++)
          assert.ok(
            left.filter((x) => x === v).length <= 1 + ok,
            `${v} attempts left answered ${left.filter((x) => x === v).length} times`,
          );
      }
    });

    it("two concurrent grants with the same right code: exactly one logs in", async () => {
      const p = phone();
      const code = await requestCode(t.url, p);
      const rs = await Promise.all([passwordGrant(t.url, p, code), passwordGrant(t.url, p, code)]);
      assert.deepEqual(rs.map((r) => r.status).sort(), [200, 400]);
    });

    const tokenRequest = (fields: Record<string, string>) =>
      postForm(`${t.url}/api/login/oauth/access_token`, { client_id: "exchange-web", ...fields });
    const refresh = (rt: string) => tokenRequest({ grant_type: "refresh_token", refresh_token: rt });

    it("an authorization code redeemed twice at once: at most one answer has tokens, and its refresh token is dead (the grant revoked)", async () => {
      for (let round = 0; round < 3; round++) {
        const { callback, codeVerifier } = await login(t.url, config, { scope: "openid trading", phone: phone() });
        const code = callback.searchParams.get("code")!;
        const redeem = () =>
          tokenRequest({
            grant_type: "authorization_code",
            code,
            code_verifier: codeVerifier,
            redirect_uri: TEST_REDIRECT,
          });
        const rs = await Promise.all([redeem(), redeem()]);
        assert.ok(rs.filter((r) => r.status === 200).length <= 1, `both redeemed: ${rs.map((r) => r.status)}`);
        for (const r of rs.filter((x) => x.status !== 200)) assert.equal(r.body.error, "invalid_grant");
        for (const r of rs.filter((x) => x.status === 200)) {
          const again = await refresh(r.body.refresh_token);
          assert.equal(again.status, 400, "the family of a code used twice is revoked");
          assert.equal(again.body.error, "invalid_grant");
        }
      }
    });

    it("one refresh token redeemed twice at once: at most one answer has tokens, and no token family stays alive", async () => {
      for (let round = 0; round < 3; round++) {
        const { callback, codeVerifier, state } = await login(t.url, config, {
          scope: "openid trading",
          phone: phone(),
        });
        const tokens = await oidc.authorizationCodeGrant(config, callback, {
          pkceCodeVerifier: codeVerifier,
          expectedState: state,
        });
        const rs = await Promise.all([refresh(tokens.refresh_token!), refresh(tokens.refresh_token!)]);
        assert.ok(rs.filter((r) => r.status === 200).length <= 1, `both refreshed: ${rs.map((r) => r.status)}`);
        for (const r of rs.filter((x) => x.status !== 200)) assert.equal(r.body.error, "invalid_grant");
        for (const r of rs.filter((x) => x.status === 200)) {
          const again = await refresh(r.body.refresh_token);
          assert.equal(again.status, 400, "the family of a refresh token used twice is revoked");
        }
      }
    });
  });
}

let server: Awaited<ReturnType<typeof startPostgresServer>> | undefined;
after(async () => {
  await server?.stop();
});
raceSuite("postgres", async () => {
  server ??= await startPostgresServer();
  return createDb({ databaseUrl: server.url, schema: "iam" });
});
raceSuite("pglite", () => createDb());
