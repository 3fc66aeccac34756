// Users and organizations in SQL. A phone number (E.164) is the username. The sandbox creates a user on
// the first successful login of a new phone, in a new organization of their own, unless the user was
// placed in an existing organization beforehand (POST /api/sandbox/users). Ids are opaque strings.
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { Db, SqlExecutor } from "../../db";
import type { Clock } from "../../runtime/clock";
import { IamApiError } from "./errors";

/** E.164: a plus, a country code that does not start with 0, 8 to 15 digits in all. */
export const phoneSchema = z.string().regex(/^\+[1-9]\d{7,14}$/, "a phone number in E.164 form, e.g. +14155550123");

export interface IamUser {
  id: string;
  phone: string;
  organizationId: string;
  name: string;
}

export interface IamOrganization {
  id: string;
  name: string;
}

interface UserRow {
  id: string;
  phone: string;
  organization_id: string;
  name: string;
}

const toUser = (r: UserRow): IamUser => ({ id: r.id, phone: r.phone, organizationId: r.organization_id, name: r.name });

export interface UserStore {
  findById(id: string): Promise<IamUser | null>;
  findByPhone(phone: string): Promise<IamUser | null>;
  /** the user of this phone, created with an organization of their own if none exists yet */
  loginByPhone(phone: string): Promise<{ user: IamUser; created: boolean }>;
  createOrganization(name: string): Promise<IamOrganization>;
  findOrganization(id: string): Promise<IamOrganization | null>;
  /** a new user of this phone in an existing organization (PHONE_ALREADY_REGISTERED if the phone has one) */
  addUserToOrganization(phone: string, organizationId: string, name?: string): Promise<IamUser>;
  members(organizationId: string): Promise<IamUser[]>;
}

export function createUserStore(db: Db, clock: Clock): UserStore {
  return new SqlUserStore(db, clock);
}

const USER_COLUMNS = "SELECT id, phone, organization_id, name FROM iam_users";

const byPhone = async (q: SqlExecutor, phone: string) =>
  (await q.query<UserRow>(`${USER_COLUMNS} WHERE phone = $1`, [phone])).rows[0];

class SqlUserStore implements UserStore {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  private async insertOrg(q: SqlExecutor, name: string): Promise<IamOrganization> {
    const org = { id: `org_${randomUUID()}`, name };
    await q.query("INSERT INTO iam_organizations (id, name, created_at_ms) VALUES ($1, $2, $3)", [
      org.id,
      name,
      this.clock.now(),
    ]);
    return org;
  }

  private async insertUser(q: SqlExecutor, phone: string, organizationId: string, name: string): Promise<boolean> {
    const r = await q.query(
      "INSERT INTO iam_users (id, phone, organization_id, name, created_at_ms) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (phone) DO NOTHING",
      [`usr_${randomUUID()}`, phone, organizationId, name, this.clock.now()],
    );
    return r.rowCount === 1;
  }

  async findById(id: string): Promise<IamUser | null> {
    const r = (await this.db.query<UserRow>(`${USER_COLUMNS} WHERE id = $1`, [id])).rows[0];
    return r ? toUser(r) : null;
  }

  async findByPhone(phone: string): Promise<IamUser | null> {
    const r = await byPhone(this.db, phone);
    return r ? toUser(r) : null;
  }

  async loginByPhone(phone: string): Promise<{ user: IamUser; created: boolean }> {
    const { db } = this;
    const now = this.clock.now();
    const existing = await byPhone(db, phone);
    if (existing) {
      await db.query("UPDATE iam_users SET last_login_at_ms = $2 WHERE id = $1", [existing.id, now]);
      return { user: toUser(existing), created: false };
    }
    // Two first logins of one phone at once: the unique phone keeps one user; the loser's organization
    // is rolled back with its transaction.
    const created = await db
      .transaction(async (tx) => {
        const org = await this.insertOrg(tx, `${phone}'s organization`);
        if (!(await this.insertUser(tx, phone, org.id, phone))) throw new LostRace();
        return true;
      })
      .catch((e) => {
        if (e instanceof LostRace) return false;
        throw e;
      });
    const row = await byPhone(db, phone);
    if (!row) throw new Error(`user of ${phone} vanished`);
    await db.query("UPDATE iam_users SET last_login_at_ms = $2 WHERE id = $1", [row.id, now]);
    return { user: toUser(row), created };
  }

  createOrganization(name: string): Promise<IamOrganization> {
    return this.insertOrg(this.db, name);
  }

  async findOrganization(id: string): Promise<IamOrganization | null> {
    const r = (
      await this.db.query<{ id: string; name: string }>("SELECT id, name FROM iam_organizations WHERE id = $1", [id])
    ).rows[0];
    return r ?? null;
  }

  async addUserToOrganization(phone: string, organizationId: string, name?: string): Promise<IamUser> {
    const org = (await this.db.query("SELECT 1 FROM iam_organizations WHERE id = $1", [organizationId])).rows[0];
    if (!org) throw new IamApiError("ORGANIZATION_NOT_FOUND", "no such organization", { organizationId });
    if (!(await this.insertUser(this.db, phone, organizationId, name ?? phone))) {
      throw new IamApiError("PHONE_ALREADY_REGISTERED", "this phone number already belongs to a user", { phone });
    }
    return toUser((await byPhone(this.db, phone))!);
  }

  async members(organizationId: string): Promise<IamUser[]> {
    const r = await this.db.query<UserRow>(`${USER_COLUMNS} WHERE organization_id = $1 ORDER BY created_at_ms, id`, [
      organizationId,
    ]);
    return r.rows.map(toUser);
  }
}

class LostRace extends Error {}
