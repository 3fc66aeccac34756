// Bad input on every exchange API endpoint (JSON and form bodies, wrong types, unknown fields, oversize,
// random values): a 4xx with the spec's error body, never a 500, and nothing changes.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import { startExchangeHarness, type ExchangeHarness } from "./testing/harness";
import { startTestIssuer, type TestIssuer } from "./testing/test-issuer";

const POSTS = ["/auth/tenant-token", "/sandbox/kyc", "/sandbox/accreditation/506b", "/sandbox/accreditation/506c"];
const GETS = ["/account", "/custody-account-info", "/accounts/00000000-0000-4000-8000-000000000000"];

describe("exchange API: bad input never reaches a 500", () => {
  let iss: TestIssuer;
  let h: ExchangeHarness;
  let headers: Record<string, string>;
  const snapshot = async () => (await h.db.query("SELECT * FROM exchange_accounts ORDER BY id")).rows;

  before(async () => {
    iss = await startTestIssuer();
    h = await startExchangeHarness({ issuers: [iss], config: { bodyLimitBytes: 1024 } });
    headers = (await h.login(iss, "u1", "org-1")).headers;
    await fetch(`${h.url}/account`, { headers });
  });
  after(async () => {
    await h.close();
    await iss.close();
  });

  async function send(path: string, method: string, body: string | undefined, contentType?: string, auth = true) {
    const res = await fetch(`${h.url}${path}`, {
      method,
      headers: { ...(auth ? headers : {}), ...(contentType ? { "content-type": contentType } : {}) },
      body,
    });
    const text = await res.text();
    let parsed: { error?: { code: string; message: string; details: unknown } } = {};
    try {
      parsed = JSON.parse(text);
    } catch {
      assert.fail(`not JSON: ${res.status} ${text.slice(0, 200)}`);
    }
    return { status: res.status, body: parsed, text };
  }

  const assertError = (
    r: { status: number; body: { error?: { code: string; message: string; details: unknown } }; text: string },
    status: number,
    code: string,
  ) => {
    assert.equal(r.status, status, r.text);
    assert.equal(r.body.error?.code, code);
    assert.equal(typeof r.body.error?.message, "string");
    assert.equal(typeof r.body.error?.details, "object");
    assert.doesNotMatch(r.text, /at .*\.ts:\d+|node_modules/, "no stack trace");
  };

  it("a form, text or multipart body: 415 before anything reads it (with or without tokens)", async () => {
    const before = await snapshot();
    for (const path of POSTS) {
      for (const [ct, body] of [
        ["application/x-www-form-urlencoded", "status=approved&kind=kyc"],
        ["text/plain", '{"status":"approved"}'],
        [
          "multipart/form-data; boundary=x",
          "--x\r\nContent-Disposition: form-data; name=status\r\n\r\napproved\r\n--x--",
        ],
      ]) {
        assertError(await send(path, "POST", body, ct), 415, "UNSUPPORTED_MEDIA_TYPE");
        assertError(await send(path, "POST", body, ct, false), 415, "UNSUPPORTED_MEDIA_TYPE");
      }
      assertError(await send(path, "POST", '{"status":"approved"}', undefined), 415, "UNSUPPORTED_MEDIA_TYPE");
    }
    assert.deepEqual(await snapshot(), before);
  });

  it("malformed JSON, a JSON scalar, a body over the limit (1,024 bytes: at it passes the parser, one past is 413)", async () => {
    for (const path of POSTS.slice(1)) {
      for (const body of ["{", '{"status":', "null", "5", '"approved"', "\u0000"])
        assertError(await send(path, "POST", body, "application/json"), 400, "INVALID_REQUEST");
    }
    const fill = (n: number) => JSON.stringify({ accountId: "x".repeat(n - '{"accountId":""}'.length) });
    assert.equal(fill(1024).length, 1024);
    // 1,024 bytes: parsed, then refused by validation (accountId too long), not by size
    assertError(
      await send("/sandbox/accreditation/506b", "POST", fill(1024), "application/json"),
      400,
      "INVALID_REQUEST",
    );
    assertError(
      await send("/sandbox/accreditation/506b", "POST", fill(1025), "application/json"),
      413,
      "PAYLOAD_TOO_LARGE",
    );
  });

  it("wrong types, unknown fields, values out of their sets: 400 naming the field", async () => {
    const before = await snapshot();
    const cases: Array<[string, unknown, string]> = [
      ["/sandbox/kyc", {}, "body.status"],
      ["/sandbox/kyc", { status: "APPROVED" }, "body.status"],
      ["/sandbox/kyc", { status: 1 }, "body.status"],
      ["/sandbox/kyc", { status: "approved", kind: "kyx" }, "body.kind"],
      ["/sandbox/kyc", { status: "approved", extra: true }, "body"],
      ["/sandbox/kyc", { status: "approved", accountId: 5 }, "body.accountId"],
      ["/sandbox/kyc", [], "body"],
      ["/sandbox/accreditation/506c", {}, "body.outcome"],
      ["/sandbox/accreditation/506c", { outcome: "approved" }, "body.outcome"],
      ["/sandbox/accreditation/506b", { accountId: null }, "body.accountId"],
      ["/sandbox/accreditation/506b", { self: "certify" }, "body"],
    ];
    for (const [path, body, field] of cases) {
      const r = await send(path, "POST", JSON.stringify(body), "application/json");
      assertError(r, 400, "INVALID_REQUEST");
      const issues = (r.body.error!.details as { issues: Array<{ path: string }> }).issues;
      assert.ok(
        issues.some((i) => i.path === field || (field === "body" && i.path.startsWith("body"))),
        `${path} ${JSON.stringify(body)}: ${JSON.stringify(issues)}`,
      );
    }
    assert.deepEqual(await snapshot(), before);
  });

  it("queries and bodies on GET endpoints are ignored; a JSON body on the tenant-token call is ignored", async () => {
    for (const path of GETS) {
      const res = await fetch(`${h.url}${path}?x=%00&x=1&__proto__=1`, { headers });
      assert.ok([200, 404].includes(res.status), `${path}: ${res.status}`);
    }
    const t = await send(
      "/auth/tenant-token",
      "POST",
      JSON.stringify({ sub: "someone-else", owner: "org-2" }),
      "application/json",
    );
    assert.equal(t.status, 200);
  });

  it("unknown paths and methods: 404 ROUTE_NOT_FOUND", async () => {
    assertError(await send("/nope", "GET", undefined, undefined, false), 404, "ROUTE_NOT_FOUND");
    assertError(await send("/account", "DELETE", undefined), 404, "ROUTE_NOT_FOUND");
    assertError(await send("/auth/tenant-token", "GET", undefined), 404, "ROUTE_NOT_FOUND");
  });

  it("random JSON bodies on every POST: 200, 400 or 404, never 5xx", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...POSTS), fc.jsonValue({ maxDepth: 3 }), async (path, value) => {
        const r = await send(path, "POST", JSON.stringify(value), "application/json");
        assert.ok(
          [200, 400, 404].includes(r.status),
          `${path} ${JSON.stringify(value).slice(0, 200)}: ${r.status} ${r.text.slice(0, 200)}`,
        );
      }),
      { numRuns: 150, seed: 14 },
    );
  });
});
