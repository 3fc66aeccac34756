// One-time codes for a phone number: the password of the password grant and of the code flow's login.
// A code is random (crypto.randomInt), lives `otpTtlMs`, is used once, and is stored as an HMAC-SHA256
// under a sealed pepper (a 6-digit code's plain hash could be reversed by trying all 10^6). One live code
// per phone: a new request replaces the last. Limits (IamLimits): `otpRequestsPerPhone` codes per rolling
// `otpRequestWindowMs`; `maxFailedAttempts` consecutive wrong codes lock the phone for `lockoutMs` (its
// live code is deleted; while locked every attempt, even the right code, is refused, and no code is sent).
// Verification is atomic on a pool of connections too: each attempt is counted (and the lock checked and
// written) by one statement before its code is compared, so a burst is judged at most `maxFailedAttempts`
// times; the code row is deleted by the attempt that matches it, so two concurrent right codes log in once.
import { createHmac, randomInt } from "node:crypto";
import type { Db } from "../../db";
import type { Clock } from "../../runtime/clock";
import type { IamLimits } from "./config";
import { IamApiError } from "./errors";

/** Where codes go: the sandbox's outbox, or an SMS gateway in production. */
export interface OtpSender {
  send(phone: string, code: string, expiresAtMs: number): Promise<void>;
}

export type OtpVerdict =
  | { ok: true }
  | { ok: false; reason: "wrong"; attemptsLeft: number }
  /** this attempt (or an earlier one) locked the phone: retry after `retryAfterS` */
  | { ok: false; reason: "locked"; retryAfterS: number };

export interface OtpService {
  /** sends a new code; RATE_LIMIT_EXCEEDED past the per-phone limit or while locked */
  request(phone: string): Promise<{ expiresAtMs: number }>;
  verify(phone: string, code: string): Promise<OtpVerdict>;
}

interface OtpContext {
  db: Db;
  clock: Clock;
  limits: IamLimits;
  sender: OtpSender | null;
  /** HMAC-SHA256 of phone and code under the pepper */
  hash(phone: string, code: string): string;
}

export function createOtpService(o: {
  db: Db;
  clock: Clock;
  limits: IamLimits;
  pepperHex: string;
  sender: OtpSender | null;
}): OtpService {
  const pepper = Buffer.from(o.pepperHex, "hex");
  const ctx: OtpContext = {
    db: o.db,
    clock: o.clock,
    limits: o.limits,
    sender: o.sender,
    hash: (phone, code) => createHmac("sha256", pepper).update(`${phone}:${code}`).digest("hex"),
  };
  return {
    request: (phone) => requestCode(ctx, phone),
    verify: (phone, code) => verifyCode(ctx, phone, code),
  };
}

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

async function lockedUntil(db: Db, phone: string): Promise<number> {
  const r = (
    await db.query<{ locked_until_ms: string }>("SELECT locked_until_ms FROM iam_otp_failures WHERE phone = $1", [
      phone,
    ])
  ).rows[0];
  return r ? Number(r.locked_until_ms) : 0;
}

/** The gateway to send through; refuses a request while the phone is locked, without a gateway, or past
 *  the per-phone limit. */
async function allowedSender(ctx: OtpContext, phone: string, now: number): Promise<OtpSender> {
  const { db, limits } = ctx;
  const until = await lockedUntil(db, phone);
  if (until > now) {
    throw new IamApiError("RATE_LIMIT_EXCEEDED", "too many wrong codes: this phone is locked", {
      reason: "locked",
      retry_after: seconds(until - now),
    });
  }
  if (!ctx.sender)
    throw new IamApiError("SERVICE_UNAVAILABLE", "no SMS gateway is configured: codes cannot be sent", {
      reason: "no_sms_gateway",
    });
  const since = now - limits.otpRequestWindowMs;
  await db.query("DELETE FROM iam_otp_requests WHERE phone = $1 AND requested_at_ms <= $2", [phone, since]);
  const recent = (
    await db.query<{ t: string }>(
      "SELECT requested_at_ms AS t FROM iam_otp_requests WHERE phone = $1 ORDER BY requested_at_ms",
      [phone],
    )
  ).rows;
  if (recent.length >= limits.otpRequestsPerPhone) {
    const retry = Number(recent[recent.length - limits.otpRequestsPerPhone].t) + limits.otpRequestWindowMs - now;
    throw new IamApiError(
      "RATE_LIMIT_EXCEEDED",
      `at most ${limits.otpRequestsPerPhone} codes per phone per ${limits.otpRequestWindowMs / 1000} s`,
      {
        reason: "too_many_codes",
        limit: limits.otpRequestsPerPhone,
        window_ms: limits.otpRequestWindowMs,
        retry_after: seconds(retry),
      },
    );
  }
  return ctx.sender;
}

async function requestCode(ctx: OtpContext, phone: string): Promise<{ expiresAtMs: number }> {
  const { limits } = ctx;
  const now = ctx.clock.now();
  const sender = await allowedSender(ctx, phone, now);
  const code = String(randomInt(0, 10 ** limits.otpDigits)).padStart(limits.otpDigits, "0");
  const expiresAtMs = now + limits.otpTtlMs;
  await ctx.db.transaction(async (tx) => {
    await tx.query("INSERT INTO iam_otp_requests (phone, requested_at_ms) VALUES ($1, $2)", [phone, now]);
    await tx.query(
      `INSERT INTO iam_otp_codes (phone, code_hash, created_at_ms, expires_at_ms) VALUES ($1, $2, $3, $4)
       ON CONFLICT (phone) DO UPDATE SET code_hash = EXCLUDED.code_hash, created_at_ms = EXCLUDED.created_at_ms, expires_at_ms = EXCLUDED.expires_at_ms`,
      [phone, ctx.hash(phone, code), now, expiresAtMs],
    );
  });
  await sender.send(phone, code, expiresAtMs);
  return { expiresAtMs };
}

async function verifyCode(ctx: OtpContext, phone: string, code: string): Promise<OtpVerdict> {
  const { db, limits } = ctx;
  const now = ctx.clock.now();
  // The check of the lock and the count of this attempt are one statement (the row lock of the upsert
  // orders concurrent attempts): the attempt that reaches the limit writes the lock itself, so every
  // later attempt of a burst is refused without being judged. An expired lock restarts the count.
  const attempt = (
    await db.query<{ failures: number }>(
      `INSERT INTO iam_otp_failures AS f (phone, failures, locked_until_ms) VALUES ($1, 1, CASE WHEN 1 >= $3::integer THEN $4::bigint ELSE 0 END)
       ON CONFLICT (phone) DO UPDATE SET
         failures = CASE WHEN f.locked_until_ms > 0 THEN 1 ELSE f.failures + 1 END,
         locked_until_ms = CASE WHEN (CASE WHEN f.locked_until_ms > 0 THEN 1 ELSE f.failures + 1 END) >= $3::integer THEN $4::bigint ELSE 0 END
       WHERE f.locked_until_ms <= $2::bigint
       RETURNING failures`,
      [phone, now, limits.maxFailedAttempts, now + limits.lockoutMs],
    )
  ).rows[0];
  if (!attempt) return { ok: false, reason: "locked", retryAfterS: seconds((await lockedUntil(db, phone)) - now) };
  const failures = Number(attempt.failures);
  // single use: the attempt whose DELETE removes the row is the one that logs in
  const used = await db.query("DELETE FROM iam_otp_codes WHERE phone = $1 AND code_hash = $2 AND expires_at_ms > $3", [
    phone,
    ctx.hash(phone, code),
    now,
  ]);
  if (used.rowCount === 1) {
    // a success ends the run of failures (and the lock its own counted attempt may have written)
    await db.query("UPDATE iam_otp_failures SET failures = 0, locked_until_ms = 0 WHERE phone = $1", [phone]);
    return { ok: true };
  }
  // wrong, expired, already used or never sent: this attempt was counted above
  if (failures >= limits.maxFailedAttempts) {
    await db.query("DELETE FROM iam_otp_codes WHERE phone = $1", [phone]);
    return { ok: false, reason: "locked", retryAfterS: seconds(limits.lockoutMs) };
  }
  return { ok: false, reason: "wrong", attemptsLeft: limits.maxFailedAttempts - failures };
}

/** The sandbox's simulated SMS channel: codes land in `iam_sandbox_outbox`, read by GET /api/sandbox/outbox. */
export function createSandboxOutbox(
  db: Db,
  clock: Clock,
): OtpSender & {
  read(phone: string, limit: number): Promise<{ code: string; sentAtMs: number; expiresAtMs: number }[]>;
} {
  return {
    async send(phone, code, expiresAtMs) {
      await db.query(
        "INSERT INTO iam_sandbox_outbox (phone, code, sent_at_ms, expires_at_ms) VALUES ($1, $2, $3, $4)",
        [phone, code, clock.now(), expiresAtMs],
      );
    },
    async read(phone, limit) {
      const r = await db.query<{ code: string; sent_at_ms: string; expires_at_ms: string }>(
        "SELECT code, sent_at_ms, expires_at_ms FROM iam_sandbox_outbox WHERE phone = $1 ORDER BY id DESC LIMIT $2",
        [phone, limit],
      );
      return r.rows.map((x) => ({
        code: x.code,
        sentAtMs: Number(x.sent_at_ms),
        expiresAtMs: Number(x.expires_at_ms),
      }));
    },
  };
}
