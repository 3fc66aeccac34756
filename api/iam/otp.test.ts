// The one-time code service directly (over PGlite, a clock the test moves), each limit at its edge: the
// code's digits and lifetime, single use, one live code per phone, the per-phone request window, the
// consecutive failures that lock and how the lock ends, and what is stored (an HMAC, never the code).
// Through HTTP: otp-limits.test.ts; the same races on Postgres: races.postgres.test.ts.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createHmac } from "node:crypto";
import { createDb, type Db } from "../../db";
import { DEFAULT_IAM_LIMITS, type IamLimits } from "./config";
import { IamApiError } from "./errors";
import { createOtpService, createSandboxOutbox, type OtpSender } from "./otp";
import { testClock } from "./testing/harness";

const PEPPER = "ab".repeat(32);
const L: IamLimits = { ...DEFAULT_IAM_LIMITS, otpRequestsPerPhone: 3, maxFailedAttempts: 3 };

describe("one-time codes (OtpService)", () => {
  let db: Db;
  let n = 0;
  const phone = () => `+1415555${String(++n).padStart(4, "0")}`;
  before(async () => {
    db = await createDb();
  });
  after(() => db.close());

  function service(limits: IamLimits = L, sender?: OtpSender | null) {
    const clock = testClock(1_800_000_000_000);
    const sent: { phone: string; code: string; expiresAtMs: number }[] = [];
    const otp = createOtpService({
      db,
      clock,
      limits,
      pepperHex: PEPPER,
      sender:
        sender === undefined
          ? { send: async (p, code, expiresAtMs) => void sent.push({ phone: p, code, expiresAtMs }) }
          : sender,
    });
    return { otp, clock, sent };
  }
  const wrong = (code: string) => String((Number(code) + 1) % 10 ** L.otpDigits).padStart(L.otpDigits, "0");
  const refused = (reason: string) => (e: unknown) =>
    e instanceof IamApiError && e.code === "RATE_LIMIT_EXCEEDED" && e.details.reason === reason;

  it("a code has otpDigits digits, expires otpTtlMs after it was sent, and is stored as HMAC(pepper, phone:code) only", async () => {
    const { otp, clock, sent } = service();
    const p = phone();
    const { expiresAtMs } = await otp.request(p);
    assert.equal(expiresAtMs, clock.now() + L.otpTtlMs);
    assert.equal(sent.length, 1);
    assert.match(sent[0].code, new RegExp(`^\\d{${L.otpDigits}}$`));
    assert.equal(sent[0].expiresAtMs, expiresAtMs);
    const row = (
      await db.query<{ code_hash: string; created_at_ms: string; expires_at_ms: string }>(
        "SELECT code_hash, created_at_ms, expires_at_ms FROM iam_otp_codes WHERE phone = $1",
        [p],
      )
    ).rows[0];
    assert.equal(
      row.code_hash,
      createHmac("sha256", Buffer.from(PEPPER, "hex")).update(`${p}:${sent[0].code}`).digest("hex"),
    );
    assert.equal(Number(row.created_at_ms), clock.now());
    assert.equal(Number(row.expires_at_ms), expiresAtMs);
  });

  it("the code logs in at ttl - 1 ms, not at ttl; once only", async () => {
    const { otp, clock, sent } = service();
    const a = phone();
    await otp.request(a);
    clock.advance(L.otpTtlMs - 1);
    assert.deepEqual(await otp.verify(a, sent[0].code), { ok: true });
    assert.deepEqual(
      await otp.verify(a, sent[0].code),
      { ok: false, reason: "wrong", attemptsLeft: L.maxFailedAttempts - 1 },
      "used",
    );
    const b = phone();
    await otp.request(b);
    clock.advance(L.otpTtlMs);
    assert.deepEqual(
      await otp.verify(b, sent[1].code),
      { ok: false, reason: "wrong", attemptsLeft: L.maxFailedAttempts - 1 },
      "expired",
    );
  });

  it("a new code replaces the last; a code of another phone is wrong", async () => {
    const { otp, sent } = service();
    const p = phone();
    const q = phone();
    await otp.request(p);
    await otp.request(p);
    await otp.request(q);
    if (sent[0].code !== sent[1].code) assert.equal((await otp.verify(p, sent[0].code)).ok, false);
    if (sent[2].code !== sent[1].code) assert.equal((await otp.verify(p, sent[2].code)).ok, false, "q's code");
    assert.deepEqual(await otp.verify(p, sent[1].code), { ok: true });
  });

  it(`${L.maxFailedAttempts - 1} wrong codes count down, the right one logs in and restarts the count`, async () => {
    const { otp, sent } = service();
    const p = phone();
    for (let round = 0; round < 2; round++) {
      await otp.request(p);
      const code = sent[sent.length - 1].code;
      for (let i = 1; i < L.maxFailedAttempts; i++)
        assert.deepEqual(await otp.verify(p, wrong(code)), {
          ok: false,
          reason: "wrong",
          attemptsLeft: L.maxFailedAttempts - i,
        });
      assert.deepEqual(await otp.verify(p, code), { ok: true }, `round ${round}`);
    }
    const row = (
      await db.query<{ failures: number; locked_until_ms: string }>(
        "SELECT failures, locked_until_ms FROM iam_otp_failures WHERE phone = $1",
        [p],
      )
    ).rows[0];
    assert.deepEqual([Number(row.failures), Number(row.locked_until_ms)], [0, 0]);
  });

  it(`the ${L.maxFailedAttempts}th wrong code locks for lockoutMs: the right code and new codes are refused until the last ms; then the count starts again`, async () => {
    const { otp, clock, sent } = service();
    const p = phone();
    await otp.request(p);
    const code = sent[0].code;
    for (let i = 1; i < L.maxFailedAttempts; i++) await otp.verify(p, wrong(code));
    assert.deepEqual(await otp.verify(p, wrong(code)), {
      ok: false,
      reason: "locked",
      retryAfterS: L.lockoutMs / 1000,
    });
    assert.equal(
      (await db.query("SELECT 1 FROM iam_otp_codes WHERE phone = $1", [p])).rows.length,
      0,
      "the live code is deleted",
    );
    clock.advance(1500);
    assert.deepEqual(await otp.verify(p, code), {
      ok: false,
      reason: "locked",
      retryAfterS: Math.ceil((L.lockoutMs - 1500) / 1000),
    });
    await assert.rejects(
      otp.request(p),
      (e: unknown) =>
        refused("locked")(e) && (e as IamApiError).details.retry_after === Math.ceil((L.lockoutMs - 1500) / 1000),
    );
    clock.advance(L.lockoutMs - 1500 - 1);
    assert.deepEqual(await otp.verify(p, code), { ok: false, reason: "locked", retryAfterS: 1 }, "1 ms before the end");
    assert.equal(sent.length, 1, "no code sent while locked");
    clock.advance(1);
    // the lock ended: a guess is counted from one again, the old code is gone, a new one logs in
    assert.deepEqual(await otp.verify(p, code), { ok: false, reason: "wrong", attemptsLeft: L.maxFailedAttempts - 1 });
    await otp.request(p);
    assert.deepEqual(await otp.verify(p, sent[1].code), { ok: true });
  });

  it("a limit of one failure locks at the first wrong code", async () => {
    const { otp, sent } = service({ ...L, maxFailedAttempts: 1 });
    const p = phone();
    await otp.request(p);
    assert.deepEqual(await otp.verify(p, wrong(sent[0].code)), {
      ok: false,
      reason: "locked",
      retryAfterS: L.lockoutMs / 1000,
    });
    assert.equal((await otp.verify(p, sent[0].code)).ok, false);
  });

  it(`${L.otpRequestsPerPhone} codes per phone per window: the next is refused until the first leaves the window`, async () => {
    const { otp, clock, sent } = service();
    const p = phone();
    for (let i = 0; i < L.otpRequestsPerPhone; i++) {
      await otp.request(p);
      clock.advance(1000);
    }
    const retry = Math.ceil((L.otpRequestWindowMs - L.otpRequestsPerPhone * 1000) / 1000);
    await assert.rejects(
      otp.request(p),
      (e: unknown) =>
        refused("too_many_codes")(e) &&
        (e as IamApiError).details.limit === L.otpRequestsPerPhone &&
        (e as IamApiError).details.window_ms === L.otpRequestWindowMs &&
        (e as IamApiError).details.retry_after === retry,
    );
    clock.advance(L.otpRequestWindowMs - L.otpRequestsPerPhone * 1000 - 1);
    await assert.rejects(otp.request(p), refused("too_many_codes"));
    clock.advance(1);
    await otp.request(p);
    assert.equal(sent.length, L.otpRequestsPerPhone + 1);
    // the other phones' requests are their own
    await otp.request(phone());
  });

  it("without an SMS gateway no code is sent: SERVICE_UNAVAILABLE", async () => {
    const { otp } = service(L, null);
    await assert.rejects(
      otp.request(phone()),
      (e: unknown) =>
        e instanceof IamApiError && e.code === "SERVICE_UNAVAILABLE" && e.details.reason === "no_sms_gateway",
    );
  });

  it("the sandbox outbox keeps every code of a phone, newest first, up to the limit asked", async () => {
    const clock = testClock(1_900_000_000_000);
    const outbox = createSandboxOutbox(db, clock);
    const p = phone();
    await outbox.send(p, "111111", 5);
    clock.advance(10);
    await outbox.send(p, "222222", 6);
    await outbox.send(phone(), "333333", 7);
    assert.deepEqual(await outbox.read(p, 10), [
      { code: "222222", sentAtMs: 1_900_000_000_010, expiresAtMs: 6 },
      { code: "111111", sentAtMs: 1_900_000_000_000, expiresAtMs: 5 },
    ]);
    assert.deepEqual(
      (await outbox.read(p, 1)).map((m) => m.code),
      ["222222"],
    );
  });
});
