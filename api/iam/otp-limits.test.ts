// One-time code limits, each at its boundary and one past it (docs/decisions/api.md, "Identity"):
// a code lives 5 min; 5 consecutive wrong codes lock the phone for 15 min; 5 codes per phone per hour;
// per IP: code requests and failed logins per 15 min.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DEFAULT_IAM_LIMITS } from "./config";
import { passwordGrant, phoneKeyOf, postJson, readOutbox, requestCode, suiteIam } from "./testing/harness";

const L = DEFAULT_IAM_LIMITS;
const wrongOf = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, "0");

describe("one-time code limits", () => {
  const t = suiteIam();
  let n = 0;
  const phone = () => `+1415556${String(++n).padStart(4, "0")}`;

  it(`a code is valid ${L.otpTtlMs / 1000} s: at ttl - 1 ms it logs in, at ttl it is expired`, async () => {
    const a = phone();
    const codeA = await requestCode(t.url, a);
    t.clock.advance(L.otpTtlMs - 1);
    assert.equal((await passwordGrant(t.url, a, codeA)).status, 200);
    const b = phone();
    const codeB = await requestCode(t.url, b);
    t.clock.advance(L.otpTtlMs);
    const r = await passwordGrant(t.url, b, codeB);
    assert.equal(r.status, 400);
    assert.equal(r.body.error, "invalid_grant");
  });

  it("a new code replaces the last: the older one no longer logs in", async () => {
    const p = phone();
    const first = await requestCode(t.url, p);
    const second = await requestCode(t.url, p);
    if (first !== second) assert.equal((await passwordGrant(t.url, p, first)).status, 400);
    assert.equal((await passwordGrant(t.url, p, second)).status, 200);
  });

  it(`${L.maxFailedAttempts - 1} wrong codes then the right one: logged in (the count restarts after a success)`, async () => {
    const p = phone();
    for (let round = 0; round < 2; round++) {
      const code = await requestCode(t.url, p);
      for (let i = 0; i < L.maxFailedAttempts - 1; i++) {
        const r = await passwordGrant(t.url, p, wrongOf(code));
        assert.equal(r.status, 400);
        assert.equal(r.body.error, "invalid_grant");
        assert.match(r.body.error_description, new RegExp(`${L.maxFailedAttempts - 1 - i} attempts left`));
      }
      assert.equal((await passwordGrant(t.url, p, code)).status, 200, `round ${round}`);
    }
  });

  it(`the ${L.maxFailedAttempts}th wrong code locks the phone for ${L.lockoutMs / 60_000} min: even the right code is refused (429), no code is sent; unlocked at the end`, async () => {
    const p = phone();
    const code = await requestCode(t.url, p);
    for (let i = 0; i < L.maxFailedAttempts - 1; i++)
      assert.equal((await passwordGrant(t.url, p, wrongOf(code))).status, 400);
    const locking = await passwordGrant(t.url, p, wrongOf(code));
    assert.equal(locking.status, 429);
    assert.equal(locking.body.error, "rate_limit_exceeded");
    assert.equal(locking.headers.get("retry-after"), String(L.lockoutMs / 1000));
    const right = await passwordGrant(t.url, p, code);
    assert.equal(right.status, 429, "locked: the right code is refused too");
    const more = await postJson(`${t.url}/api/otp`, { phone: p });
    assert.equal(more.status, 429);
    assert.equal(more.body.error.code, "RATE_LIMIT_EXCEEDED");
    assert.equal(more.body.error.details.reason, "locked");
    t.clock.advance(L.lockoutMs - 1);
    assert.equal((await passwordGrant(t.url, p, code)).status, 429, "one ms before the end: still locked");
    t.clock.advance(1);
    // the lock deleted the live code: the old one does not log in, a new one does
    const old = await passwordGrant(t.url, p, code);
    assert.equal(old.status, 400);
    const fresh = await requestCode(t.url, p);
    assert.equal((await passwordGrant(t.url, p, fresh)).status, 200);
  });

  it(`${L.otpRequestsPerPhone} codes per phone per ${L.otpRequestWindowMs / 60_000} min: the next is 429 until the first leaves the window`, async () => {
    const p = phone();
    for (let i = 0; i < L.otpRequestsPerPhone; i++) {
      assert.equal((await postJson(`${t.url}/api/otp`, { phone: p })).status, 200, `request ${i + 1}`);
      t.clock.advance(1000);
    }
    const past = await postJson(`${t.url}/api/otp`, { phone: p });
    assert.equal(past.status, 429);
    assert.equal(past.body.error.code, "RATE_LIMIT_EXCEEDED");
    assert.equal(past.body.error.details.reason, "too_many_codes");
    // the first request was L.otpRequestsPerPhone s ago: it leaves the window at exactly otpRequestWindowMs
    t.clock.advance(L.otpRequestWindowMs - L.otpRequestsPerPhone * 1000 - 1);
    assert.equal(
      (await postJson(`${t.url}/api/otp`, { phone: p })).status,
      429,
      "1 ms before the first leaves the window",
    );
    t.clock.advance(1);
    assert.equal((await postJson(`${t.url}/api/otp`, { phone: p })).status, 200);
  });

  it("two concurrent grants with the same right code: exactly one logs in", async () => {
    const p = phone();
    const code = await requestCode(t.url, p);
    const rs = await Promise.all([passwordGrant(t.url, p, code), passwordGrant(t.url, p, code)]);
    assert.deepEqual(rs.map((r) => r.status).sort(), [200, 400]);
  });
});

describe("per-IP limits", () => {
  const t = suiteIam({ limits: { otpRequestsPerIp: 3, failedLoginsPerIp: 2 } });

  it("code requests per IP: 3 pass, the 4th is 429 with the spec body and X-RateLimit headers", async () => {
    for (let i = 0; i < 3; i++) {
      const r = await postJson(`${t.url}/api/otp`, { phone: `+1415557000${i}` });
      assert.equal(r.status, 200);
      phoneKeyOf(t.url, `+1415557000${i}`, r.body);
      assert.equal(r.headers.get("x-ratelimit-remaining"), String(2 - i));
    }
    const r = await postJson(`${t.url}/api/otp`, { phone: "+14155570009" });
    assert.equal(r.status, 429);
    assert.equal(r.body.error.code, "RATE_LIMIT_EXCEEDED");
    assert.ok(Number(r.headers.get("retry-after")) > 0);
  });

  it("failed logins per IP: 2 failures pass through (400), the 3rd request is 429; successes are not counted", async () => {
    const ok = await passwordGrant(t.url, "+14155570000", await readOutbox(t.url, "+14155570000"));
    assert.equal(ok.status, 200);
    for (let i = 0; i < 2; i++) assert.equal((await passwordGrant(t.url, "+14155570001", "000000")).status, 400);
    const r = await passwordGrant(t.url, "+14155570002", "000000");
    assert.equal(r.status, 429);
    assert.equal(r.body.error, "rate_limit_exceeded");
  });
});
