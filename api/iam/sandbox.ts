// The sandbox endpoints, as safe between users as production (docs/decisions/api.md "Sandbox possession").
// There is no SMS in the sandbox, so possession of a phone is simulated by a key: the first POST /api/otp
// for a phone no one holds answers its key once (`sandboxPhoneKey`); the outbox of that phone is read, and
// the phone placed in an organization, only with it (X-Sandbox-Phone-Key). An organization created here
// answers its key once (`sandboxOrganizationKey`); users are added to it only with it
// (X-Sandbox-Organization-Key). Keys are 32 random bytes (base64url); SHA-256 is stored, compared in
// constant time. A missing or wrong key: 401 UNAUTHORIZED, and nothing is read or changed.
//   GET  /api/sandbox/outbox?phone=&limit=           X-Sandbox-Phone-Key
//   POST /api/sandbox/organizations {name}           -> 201 {data:{id, name, sandboxOrganizationKey}}
//   POST /api/sandbox/users {phone, organizationId, name?}   X-Sandbox-Phone-Key + X-Sandbox-Organization-Key
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import express, { type RequestHandler } from "express";
import { z } from "zod";
import type { Db } from "../../db";
import type { Clock } from "../../runtime/clock";
import { IamApiError } from "./errors";
import type { createSandboxOutbox } from "./otp";
import { phoneSchema, type UserStore } from "./users";

export const PHONE_KEY_HEADER = "x-sandbox-phone-key";
export const ORGANIZATION_KEY_HEADER = "x-sandbox-organization-key";

const outboxQuery = z
  .object({ phone: phoneSchema, limit: z.coerce.number().int().min(1).max(100).default(10) })
  .strict();
const orgBody = z.object({ name: z.string().trim().min(1).max(200) }).strict();
const userBody = z
  .object({
    phone: phoneSchema,
    organizationId: z.string().min(1).max(100),
    name: z.string().trim().min(1).max(200).optional(),
  })
  .strict();

const digest = (key: string) => createHash("sha256").update(key).digest("hex");
const newKey = () => randomBytes(32).toString("base64url");
const iso = (ms: number) => new Date(ms).toISOString();

function matches(stored: string | undefined, presented: unknown): boolean {
  if (stored === undefined || typeof presented !== "string" || presented.length === 0 || presented.length > 200)
    return false;
  return timingSafeEqual(Buffer.from(stored, "hex"), Buffer.from(digest(presented), "hex"));
}

/** Where each held key is kept, and what its absence answers. */
const HELD_KEYS = {
  phone: {
    sql: "SELECT key_hash FROM iam_sandbox_phone_keys WHERE phone = $1",
    message:
      "this phone's sandbox key is required (X-Sandbox-Phone-Key: the sandboxPhoneKey of its first code request)",
    header: PHONE_KEY_HEADER,
  },
  organization: {
    sql: "SELECT key_hash FROM iam_sandbox_organization_keys WHERE organization_id = $1",
    message:
      "this organization's sandbox key is required (X-Sandbox-Organization-Key: the sandboxOrganizationKey of its creation)",
    header: ORGANIZATION_KEY_HEADER,
  },
};

export function createSandboxKeys(db: Db, clock: Clock) {
  /** throws UNAUTHORIZED (naming the header that carries it) unless `presented` is the key of `id` */
  const requireKey = async (of: keyof typeof HELD_KEYS, id: string, presented: unknown) => {
    const { sql, message, header } = HELD_KEYS[of];
    const row = (await db.query<{ key_hash: string }>(sql, [id])).rows[0];
    if (!matches(row?.key_hash, presented)) throw new IamApiError("UNAUTHORIZED", message, { header });
  };
  return {
    /** a new key for `phone` if no one holds it yet (the caller is its holder from now on), else null */
    async claimPhone(phone: string): Promise<string | null> {
      const key = newKey();
      const r = await db.query(
        "INSERT INTO iam_sandbox_phone_keys (phone, key_hash, created_at_ms) VALUES ($1, $2, $3) ON CONFLICT (phone) DO NOTHING",
        [phone, digest(key), clock.now()],
      );
      return r.rowCount === 1 ? key : null;
    },
    /** throws UNAUTHORIZED unless `presented` is the key of `phone` */
    async requirePhone(phone: string, presented: unknown): Promise<void> {
      await requireKey("phone", phone, presented);
    },
    async keyOrganization(organizationId: string): Promise<string> {
      const key = newKey();
      await db.query("INSERT INTO iam_sandbox_organization_keys (organization_id, key_hash) VALUES ($1, $2)", [
        organizationId,
        digest(key),
      ]);
      return key;
    },
    async requireOrganization(organizationId: string, presented: unknown): Promise<void> {
      await requireKey("organization", organizationId, presented);
    },
  };
}

export type SandboxKeys = ReturnType<typeof createSandboxKeys>;

/** The /api/sandbox router (mounted only in the sandbox: production answers 404 for it). */
export function createSandboxRouter(d: {
  keys: SandboxKeys;
  outbox: ReturnType<typeof createSandboxOutbox>;
  users: UserStore;
  json: RequestHandler[];
}): express.Router {
  const r = express.Router();
  r.get("/outbox", async (req, res) => {
    const q = outboxQuery.parse(req.query);
    await d.keys.requirePhone(q.phone, req.headers[PHONE_KEY_HEADER]);
    const messages = await d.outbox.read(q.phone, q.limit);
    res.json({
      data: messages.map((m) => ({ code: m.code, sentAt: iso(m.sentAtMs), expiresAt: iso(m.expiresAtMs) })),
      message: "sandbox outbox, newest first",
    });
  });
  r.post("/organizations", ...d.json, async (req, res) => {
    const { name } = orgBody.parse(req.body ?? {});
    const org = await d.users.createOrganization(name);
    res.status(201).json({
      data: { ...org, sandboxOrganizationKey: await d.keys.keyOrganization(org.id) },
      message: "organization created: keep its key, it is shown once",
    });
  });
  r.post("/users", ...d.json, async (req, res) => {
    const b = userBody.parse(req.body ?? {});
    await d.keys.requirePhone(b.phone, req.headers[PHONE_KEY_HEADER]);
    if (!(await d.users.findOrganization(b.organizationId)))
      throw new IamApiError("ORGANIZATION_NOT_FOUND", "no such organization", { organizationId: b.organizationId });
    await d.keys.requireOrganization(b.organizationId, req.headers[ORGANIZATION_KEY_HEADER]);
    res
      .status(201)
      .json({ data: await d.users.addUserToOrganization(b.phone, b.organizationId, b.name), message: "user created" });
  });
  return r;
}
