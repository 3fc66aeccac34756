// API keys in SQL: the secret and the agent private key are sealed with AES-256-GCM; the secret is
// returned in plaintext exactly once, by create().
import { randomBytes, randomUUID } from "node:crypto";
import { getAddress, type Address, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { Db } from "../../db";
import { agentAccount, type AgentAccount } from "../../pipeline/service";
import { systemClock, type Clock } from "../../runtime/clock";
import { ApiKeyCache } from "./api-key-cache";
import {
  type AgentRevocationState,
  agentRevocation,
  claimRenouncement,
  type RenouncementClaim,
  finishRenouncement,
  pendingRenouncements,
  releaseRenouncement,
  type SignedAgentRenouncement,
  storedRenouncement,
} from "./api-key-renouncements";
import type { SecretBox } from "./secret-box";

export type {
  AgentRevocationState,
  AgentRevocationStatus,
  RenouncementClaim,
  SignedAgentRenouncement,
} from "./api-key-renouncements";

export const API_KEY_PERMISSIONS = ["read", "trade", "transfer"] as const;
export type ApiKeyPermission = (typeof API_KEY_PERMISSIONS)[number];

export interface ApiKeyRecord {
  id: string;
  apiKey: string;
  owner: Address;
  label: string;
  permissions: ApiKeyPermission[];
  ipAllowlist: string[];
  /** quote-currency amounts scaled by 1e18; null = no limit */
  positionLimitE18: bigint | null;
  dailyLossLimitE18: bigint | null;
  agentAddress: Address;
  agentStatus: "pending_approval" | "approved";
  createdAtMs: number;
  revokedAtMs: number | null;
}

export type NewApiKey = Pick<
  ApiKeyRecord,
  "owner" | "label" | "permissions" | "ipAllowlist" | "positionLimitE18" | "dailyLossLimitE18"
>;

export interface ApiKeyStore {
  /** Creates the key and its agent key; the plaintext secret is returned here and never again. */
  create(input: NewApiKey): Promise<{ record: ApiKeyRecord; secret: string }>;
  /** The live (not revoked) key with its decrypted secret, or null. */
  findByApiKey(apiKey: string): Promise<{ record: ApiKeyRecord; secret: string } | null>;
  getById(id: string): Promise<ApiKeyRecord | null>;
  listByOwner(owner: Address): Promise<ApiKeyRecord[]>;
  /** The agent account that signs this key's orders (decrypted on use; natively over the order digest). */
  agentOf(id: string): Promise<AgentAccount | null>;
  /** Takes the key's one agent approval: true for the first caller while the key is live and pending,
   *  false afterwards (approved, being submitted, or revoked). Atomic across processes (one UPDATE). */
  claimAgentApproval(id: string): Promise<boolean>;
  /** Gives a claimed approval back (its submission failed before anything was spent on chain). */
  releaseAgentApproval(id: string): Promise<void>;
  markAgentApproved(id: string): Promise<void>;
  /** Sets revoked_at, wipes the sealed agent key and stores `renouncement` (the agent's signed renunciation of
   *  its on-chain approval, status `pending`), in one UPDATE: the key is never gone before what revokes its
   *  approval is stored. False when it was already revoked or does not exist (nothing changes then).
   *  Listeners of onRevoked hear of it. */
  revoke(id: string, renouncement?: SignedAgentRenouncement): Promise<boolean>;
  /** The on-chain agent revocation of a revoked key (null for an unknown or live key). */
  agentRevocation(id: string): Promise<AgentRevocationState | null>;
  /** Takes a pending renouncement for one attempt: null unless it is pending and no other attempt started
   *  within `leaseMs` (atomic across processes: one UPDATE). */
  claimRenouncement(id: string, leaseMs: number): Promise<RenouncementClaim | null>;
  /** Ends an attempt that left it pending (the next drain may try again at once), keeping `txHash` when it
   *  sent one. */
  releaseRenouncement(id: string, txHash: Hex | null): Promise<void>;
  /** Ends it for good: `done` (with its transaction, or null when none was needed) or `failed`. */
  finishRenouncement(id: string, status: "done" | "failed", txHash: Hex | null): Promise<void>;
  /** Ids of revoked keys whose renouncement is pending, oldest revocation first. */
  pendingRenouncements(limit: number): Promise<string[]>;
  /** Calls `listener(id)` after each revocation made through this store; returns the unsubscribe. */
  onRevoked(listener: (id: string) => void): () => void;
}

interface Row {
  id: string;
  api_key: string;
  owner: string;
  label: string;
  secret_ciphertext: string;
  permissions: string[];
  ip_allowlist: string[];
  position_limit_e18: string | null;
  daily_loss_limit_e18: string | null;
  agent_address: string;
  agent_key_ciphertext: string;
  agent_status: string;
  created_at_ms: string;
  revoked_at_ms: string | null;
}

const COLUMNS = `id::text AS id, api_key, owner, label, secret_ciphertext, permissions, ip_allowlist,
  position_limit_e18::text AS position_limit_e18, daily_loss_limit_e18::text AS daily_loss_limit_e18,
  agent_address, agent_key_ciphertext, agent_status,
  (extract(epoch from created_at) * 1000)::int8 AS created_at_ms,
  (extract(epoch from revoked_at) * 1000)::int8 AS revoked_at_ms`;

function toRecord(r: Row): ApiKeyRecord {
  return {
    id: r.id,
    apiKey: r.api_key,
    owner: getAddress(r.owner),
    label: r.label,
    permissions: r.permissions as ApiKeyPermission[],
    ipAllowlist: r.ip_allowlist,
    positionLimitE18: r.position_limit_e18 === null ? null : BigInt(r.position_limit_e18),
    dailyLossLimitE18: r.daily_loss_limit_e18 === null ? null : BigInt(r.daily_loss_limit_e18),
    agentAddress: getAddress(r.agent_address),
    agentStatus: r.agent_status === "approved" ? "approved" : "pending_approval",
    createdAtMs: Number(r.created_at_ms),
    revokedAtMs: r.revoked_at_ms === null ? null : Number(r.revoked_at_ms),
  };
}

/** Inserts a key with a fresh secret and agent key, both sealed. */
async function insertKey(db: Db, box: SecretBox, input: NewApiKey): Promise<{ record: ApiKeyRecord; secret: string }> {
  const id = randomUUID();
  // 16 random bytes of key id and 32 of secret, hex: unguessable, header-safe.
  const apiKey = randomBytes(16).toString("hex");
  const secret = randomBytes(32).toString("hex");
  const agentKey = generatePrivateKey();
  const agent = privateKeyToAccount(agentKey);
  const rows = await db.query<Row>(
    `INSERT INTO dex_api_keys (id, api_key, owner, label, secret_ciphertext, permissions, ip_allowlist,
       position_limit_e18, daily_loss_limit_e18, agent_address, agent_key_ciphertext, agent_status)
     VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,'pending_approval') RETURNING ${COLUMNS}`,
    [
      id,
      apiKey,
      input.owner.toLowerCase(),
      input.label,
      box.seal(secret, secretAad(id)),
      input.permissions,
      input.ipAllowlist,
      input.positionLimitE18,
      input.dailyLossLimitE18,
      agent.address.toLowerCase(),
      box.seal(agentKey, agentAad(id)),
    ],
  );
  return { record: toRecord(rows.rows[0]), secret };
}

const secretAad = (id: string) => `dex-api-key-secret:${id}`;
const agentAad = (id: string) => `dex-api-key-agent:${id}`;

type KeyWithSecret = { record: ApiKeyRecord; secret: string };

/** The live key with its decrypted secret, through the cache. Unknown keys are not cached: a flood of random
 *  keys must not fill memory. */
async function findByApiKey(db: Db, box: SecretBox, cache: ApiKeyCache<KeyWithSecret | null>, apiKey: string) {
  return cache.through(cache.byApiKey, cache.pendingKeys, apiKey, async () => {
    const r = (
      await db.query<Row>(`SELECT ${COLUMNS} FROM dex_api_keys WHERE api_key = $1 AND revoked_at IS NULL`, [apiKey])
    ).rows[0];
    return r ? { record: toRecord(r), secret: box.open(r.secret_ciphertext, secretAad(r.id)) } : null;
  });
}

/** The live key's agent account, through the cache (its derivation kept while its ciphertext is the same). */
async function agentOf(db: Db, box: SecretBox, cache: ApiKeyCache<KeyWithSecret | null>, id: string) {
  return cache.through(cache.agents, cache.pendingAgents, id, async () => {
    const started = cache.epoch;
    const r = (await db.query<Row>(`SELECT ${COLUMNS} FROM dex_api_keys WHERE id = $1 AND revoked_at IS NULL`, [id]))
      .rows[0];
    if (!r) return null;
    const known = cache.agentAccounts.get(id);
    if (known && known.sealed === r.agent_key_ciphertext) return known.account;
    const account = agentAccount(box.open(r.agent_key_ciphertext, agentAad(r.id)) as `0x${string}`);
    cache.keepAgentAccount(id, r.agent_key_ciphertext, account, started);
    return account;
  });
}

/** Revokes the key with its renouncement in one UPDATE; false when it was not live. */
async function revokeKey(db: Db, id: string, renouncement: SignedAgentRenouncement | undefined): Promise<boolean> {
  const r = await db.query(
    `UPDATE dex_api_keys SET revoked_at = now(), agent_key_ciphertext = '', agent_renouncement = $2::jsonb,
       agent_renouncement_status = CASE WHEN $2::jsonb IS NULL THEN NULL ELSE 'pending' END
     WHERE id = $1 AND revoked_at IS NULL`,
    [id, storedRenouncement(renouncement)],
  );
  return r.rowCount === 1;
}

/** `cacheTtlMs`: how long a looked-up key (and its decrypted secret and agent) is reused without a query.
 *  Revocation in this process takes effect at once; in another process sharing the database, within the
 *  TTL. 0 disables the cache. `clock` times the cache (default: the system clock). */
export function createApiKeyStore({
  db,
  box,
  cacheTtlMs = 2000,
  clock = systemClock,
}: {
  db: Db;
  box: SecretBox;
  cacheTtlMs?: number;
  clock?: Clock;
}): ApiKeyStore {
  const cache = new ApiKeyCache<KeyWithSecret | null>(cacheTtlMs, clock, (v) => v?.record.id ?? "");
  const revokedListeners = new Set<(id: string) => void>();
  /** runs an agent-state change, then forgets what the cache knew of the key */
  const changing = async <T>(id: string, change: () => Promise<T>): Promise<T> => {
    const out = await change();
    cache.forget(id);
    return out;
  };
  return {
    create: (input) => insertKey(db, box, input),
    findByApiKey: (apiKey) => findByApiKey(db, box, cache, apiKey),
    async getById(id) {
      const r = (await db.query<Row>(`SELECT ${COLUMNS} FROM dex_api_keys WHERE id = $1`, [id])).rows[0];
      return r ? toRecord(r) : null;
    },
    async listByOwner(owner) {
      const rows = await db.query<Row>(
        `SELECT ${COLUMNS} FROM dex_api_keys WHERE owner = $1 ORDER BY created_at DESC`,
        [owner.toLowerCase()],
      );
      return rows.rows.map(toRecord);
    },
    agentOf: (id) => agentOf(db, box, cache, id),
    claimAgentApproval: (id) =>
      changing(id, async () => {
        const r = await db.query(
          "UPDATE dex_api_keys SET agent_status = 'submitting' WHERE id = $1 AND agent_status = 'pending_approval' AND revoked_at IS NULL",
          [id],
        );
        return r.rowCount === 1;
      }),
    releaseAgentApproval: (id) =>
      changing(id, async () => {
        await db.query(
          "UPDATE dex_api_keys SET agent_status = 'pending_approval' WHERE id = $1 AND agent_status = 'submitting'",
          [id],
        );
      }),
    markAgentApproved: (id) =>
      changing(id, async () => {
        await db.query("UPDATE dex_api_keys SET agent_status = 'approved' WHERE id = $1", [id]);
      }),
    async revoke(id, renouncement) {
      cache.forget(id);
      const revoked = await changing(id, () => revokeKey(db, id, renouncement));
      if (!revoked) return false;
      for (const l of revokedListeners) {
        try {
          l(id);
        } catch {
          // a listener's failure is its own; the key is revoked either way
        }
      }
      return true;
    },
    agentRevocation: (id) => agentRevocation(db, id),
    claimRenouncement: (id, leaseMs) => claimRenouncement(db, id, leaseMs),
    releaseRenouncement: (id, txHash) => releaseRenouncement(db, id, txHash),
    finishRenouncement: (id, status, txHash) => finishRenouncement(db, id, status, txHash),
    pendingRenouncements: (limit) => pendingRenouncements(db, limit),
    onRevoked(listener) {
      revokedListeners.add(listener);
      return () => revokedListeners.delete(listener);
    },
  };
}
