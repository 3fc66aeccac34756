// Exchange accounts (spec 2.12, 5.5): one per (identity issuer, organization, user), created on the user's
// first authenticated call. Every read and write names the caller's scope (issuer + organization): an
// account of another organization is not found, exactly as an id that does not exist.
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { Db, SqlExecutor } from "../../db";
import type { IdentityClaims } from "./identity-tokens";

export const KYC_STATUSES = ["not_started", "pending", "approved", "rejected"] as const;
export type KycStatus = (typeof KYC_STATUSES)[number];
export const ACCREDITATION_STATUSES = ["none", "self_certified", "pending", "verified", "rejected"] as const;
export type AccreditationStatus = (typeof ACCREDITATION_STATUSES)[number];
export const ACCREDITATION_TYPES = ["none", "506b", "506c"] as const;
export type AccreditationType = (typeof ACCREDITATION_TYPES)[number];

export interface AccountRecord {
  id: string;
  issuer: string;
  orgId: string;
  userId: string;
  phone: string | null;
  email: string | null;
  kycStatus: KycStatus;
  kybStatus: KycStatus;
  accreditationStatus: AccreditationStatus;
  accreditationType: AccreditationType;
  custodyReady: boolean;
  createdAt: Date;
}

/** Who asks: every query is limited to this issuer's organization. */
export interface OrgScope {
  issuer: string;
  orgId: string;
}

/** The accreditation events of the sandbox (spec 5.5): a 506(b) self-certification, the outcome of a
 *  simulated third-party 506(c) verification. */
export type AccreditationEvent =
  | { kind: "506b_self_certified" }
  | { kind: "506c_verification"; outcome: "pending" | "verified" | "rejected" };

/** The next accreditation: a verified 506(c) investor also meets 506(b), so self-certifying keeps it;
 *  a pending verification keeps what holds meanwhile; a rejected one leaves no accreditation. */
export function nextAccreditation(
  current: Pick<AccountRecord, "accreditationStatus" | "accreditationType">,
  event: AccreditationEvent,
): Pick<AccountRecord, "accreditationStatus" | "accreditationType"> {
  if (event.kind === "506b_self_certified") {
    if (current.accreditationStatus === "verified" && current.accreditationType === "506c") return current;
    return { accreditationStatus: "self_certified", accreditationType: "506b" };
  }
  switch (event.outcome) {
    case "verified":
      return { accreditationStatus: "verified", accreditationType: "506c" };
    case "rejected":
      return { accreditationStatus: "rejected", accreditationType: "none" };
    case "pending":
      return { accreditationStatus: "pending", accreditationType: current.accreditationType };
  }
}

const row = z.object({
  id: z.string(),
  issuer: z.string(),
  org_id: z.string(),
  user_id: z.string(),
  phone: z.string().nullable(),
  email: z.string().nullable(),
  kyc_status: z.enum(KYC_STATUSES),
  kyb_status: z.enum(KYC_STATUSES),
  accreditation_status: z.enum(ACCREDITATION_STATUSES),
  accreditation_type: z.enum(ACCREDITATION_TYPES),
  custody_ready: z.boolean(),
  created_at: z.coerce.date(),
});

function toRecord(r: unknown): AccountRecord {
  const x = row.parse(r);
  return {
    id: x.id,
    issuer: x.issuer,
    orgId: x.org_id,
    userId: x.user_id,
    phone: x.phone,
    email: x.email,
    kycStatus: x.kyc_status,
    kybStatus: x.kyb_status,
    accreditationStatus: x.accreditation_status,
    accreditationType: x.accreditation_type,
    custodyReady: x.custody_ready,
    createdAt: x.created_at,
  };
}

const COLUMNS =
  "id, issuer, org_id, user_id, phone, email, kyc_status, kyb_status, accreditation_status, accreditation_type, custody_ready, created_at";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface AccountStore {
  /** The identity's account, created on its first call (`initialKyc` for a new one). */
  ensure(identity: IdentityClaims, initialKyc: KycStatus): Promise<AccountRecord>;
  /** An account of the scope's organization, or null (another organization's id included). */
  get(scope: OrgScope, accountId: string): Promise<AccountRecord | null>;
  setKyc(scope: OrgScope, accountId: string, kind: "kyc" | "kyb", status: KycStatus): Promise<AccountRecord | null>;
  applyAccreditation(scope: OrgScope, accountId: string, event: AccreditationEvent): Promise<AccountRecord | null>;
  markCustodyReady(accountId: string): Promise<void>;
}

export function createAccountStore(db: Db): AccountStore {
  const byUser = async (q: SqlExecutor, i: IdentityClaims) =>
    (
      await q.query(`SELECT ${COLUMNS} FROM exchange_accounts WHERE issuer = $1 AND org_id = $2 AND user_id = $3`, [
        i.issuer,
        i.owner,
        i.sub,
      ])
    ).rows[0];
  const get = async (q: SqlExecutor, scope: OrgScope, id: string, lock = false) => {
    if (!UUID.test(id)) return null;
    const r = (
      await q.query(
        `SELECT ${COLUMNS} FROM exchange_accounts WHERE id = $1 AND issuer = $2 AND org_id = $3${lock ? " FOR UPDATE" : ""}`,
        [id, scope.issuer, scope.orgId],
      )
    ).rows[0];
    return r ? toRecord(r) : null;
  };
  return {
    async ensure(identity, initialKyc) {
      const found = await byUser(db, identity);
      if (found) return toRecord(found);
      await db.query(
        `INSERT INTO exchange_accounts (id, issuer, org_id, user_id, phone, email, kyc_status, kyb_status, accreditation_status, accreditation_type)
         VALUES ($1, $2, $3, $4, $5, $6, $7, 'not_started', 'none', 'none') ON CONFLICT (issuer, org_id, user_id) DO NOTHING`,
        [randomUUID(), identity.issuer, identity.owner, identity.sub, identity.phone, identity.email, initialKyc],
      );
      // a concurrent first call may have won the insert: both read the one row
      return toRecord(await byUser(db, identity));
    },
    get: (scope, id) => get(db, scope, id),
    async setKyc(scope, id, kind, status) {
      if (!UUID.test(id)) return null;
      const column = kind === "kyc" ? "kyc_status" : "kyb_status";
      const r = await db.query(
        `UPDATE exchange_accounts SET ${column} = $4, updated_at = now() WHERE id = $1 AND issuer = $2 AND org_id = $3 RETURNING ${COLUMNS}`,
        [id, scope.issuer, scope.orgId, status],
      );
      return r.rows[0] ? toRecord(r.rows[0]) : null;
    },
    applyAccreditation(scope, id, event) {
      return db.transaction(async (tx) => {
        const current = await get(tx, scope, id, true);
        if (!current) return null;
        const next = nextAccreditation(current, event);
        const r = await tx.query(
          `UPDATE exchange_accounts SET accreditation_status = $2, accreditation_type = $3, updated_at = now() WHERE id = $1 RETURNING ${COLUMNS}`,
          [id, next.accreditationStatus, next.accreditationType],
        );
        return toRecord(r.rows[0]);
      });
    },
    async markCustodyReady(id) {
      await db.query("UPDATE exchange_accounts SET custody_ready = true WHERE id = $1", [id]);
    },
  };
}
