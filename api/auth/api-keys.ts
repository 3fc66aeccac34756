// API keys in SQL: the secret and the agent private key are sealed with AES-256-GCM; the secret is
// returned in plaintext exactly once, by create().
import { randomBytes, randomUUID } from "node:crypto";
import { getAddress, type Address, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { Db } from "../../db";
import { agentAccount, type AgentAccount } from "../../pipeline/service";
import { systemClock, type Clock } from "../../runtime/clock";
import type { AgentRenouncement } from "../../sdk/eip712";
import type { SecretBox } from "./secret-box";

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

/** The agent's own signed renouncement of its on-chain approval, stored when its key is revoked. */
export interface SignedAgentRenouncement {
  message: AgentRenouncement;
  signature: Hex;
}

/** Where a revoked key's on-chain agent revocation stands: `pending` (not yet confirmed on chain: being sent
 *  or retried), `done` (the agent holds no approval on chain; `txHash` is the renouncement, null when none
 *  had to be sent), `failed` (the contract refused the renouncement: the approval lapses at its expiry),
 *  `none` (nothing was stored: a key revoked before renouncements existed). */
export type AgentRevocationStatus = "pending" | "done" | "failed" | "none";

export interface AgentRevocationState {
  status: AgentRevocationStatus;
  txHash: Hex | null;
}

/** A stored renouncement taken for one attempt (see claimRenouncement). */
export interface RenouncementClaim extends SignedAgentRenouncement {
  id: string;
  /** the key's agent approval state at the claim: "submitting" means an approval may still land */
  agentStatus: "pending_approval" | "submitting" | "approved";
}

export interface NewApiKey {
  owner: Address;
  label: string;
  permissions: ApiKeyPermission[];
  ipAllowlist: string[];
  positionLimitE18: bigint | null;
  dailyLossLimitE18: bigint | null;
}

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
  const secretAad = (id: string) => `dex-api-key-secret:${id}`;
  const agentAad = (id: string) => `dex-api-key-agent:${id}`;
  const byApiKey = new Map<string, { value: { record: ApiKeyRecord; secret: string } | null; until: number }>();
  const agents = new Map<string, { value: AgentAccount | null; until: number }>();
  // One query per key at a time: when a cached entry expires under load, every order of that key in flight
  // waits for the same lookup instead of each sending its own (bench:e2e: 190 queries in 7 s for 4 keys,
  // each key's orders stalled behind them). `epoch` moves on at every forget(): a lookup started before a
  // change (revocation, approval) answers its own callers but is not remembered.
  const pendingKeys = new Map<string, Promise<{ record: ApiKeyRecord; secret: string } | null>>();
  const pendingAgents = new Map<string, Promise<AgentAccount | null>>();
  let epoch = 0;
  // The agent account of a key by id, with the ciphertext it came from (the same bytes open to the same key),
  // so that a cache refresh does not derive the account again (privateKeyToAccount: ~1 ms of pure JS).
  // Dropped by forget(), as the cache entry is: a revoked key's agent does not stay in memory.
  const agentAccounts = new Map<string, { sealed: string; account: AgentAccount }>();
  const forget = (id: string) => {
    epoch++;
    agents.delete(id);
    agentAccounts.delete(id);
    pendingAgents.delete(id);
    for (const [k, v] of byApiKey) if (v.value?.record.id === id) byApiKey.delete(k);
    pendingKeys.clear();
  };
  /** `lookup` once per `k` at a time; its answer remembered unless forget() ran meanwhile */
  const singleFlight = <V>(
    pending: Map<string, Promise<V>>,
    k: string,
    lookup: () => Promise<V>,
    keep: (value: V) => void,
  ): Promise<V> => {
    const running = pending.get(k);
    if (running) return running;
    const started = epoch;
    const p = lookup().then(
      (value) => {
        if (pending.get(k) === p) pending.delete(k);
        if (epoch === started) keep(value);
        return value;
      },
      (err: unknown) => {
        if (pending.get(k) === p) pending.delete(k);
        throw err;
      },
    );
    pending.set(k, p);
    return p;
  };
  const cached = <V>(m: Map<string, { value: V; until: number }>, k: string): { value: V } | undefined => {
    const hit = m.get(k);
    if (hit && hit.until > clock.now()) return hit;
    if (hit) m.delete(k);
    return undefined;
  };
  const remember = <V>(m: Map<string, { value: V; until: number }>, k: string, value: V): V => {
    if (cacheTtlMs > 0) {
      if (m.size > 10_000) m.clear();
      m.set(k, { value, until: clock.now() + cacheTtlMs });
    }
    return value;
  };
  const revokedListeners = new Set<(id: string) => void>();
  const store: ApiKeyStore = {
    async create(input) {
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
    },
    async findByApiKey(apiKey) {
      const hit = cached(byApiKey, apiKey);
      if (hit) return hit.value;
      return singleFlight(
        pendingKeys,
        apiKey,
        async () => {
          const r = (
            await db.query<Row>(`SELECT ${COLUMNS} FROM dex_api_keys WHERE api_key = $1 AND revoked_at IS NULL`, [
              apiKey,
            ])
          ).rows[0];
          return r ? { record: toRecord(r), secret: box.open(r.secret_ciphertext, secretAad(r.id)) } : null;
        },
        // Unknown keys are not cached: a flood of random keys must not fill memory.
        (value) => value && remember(byApiKey, apiKey, value),
      );
    },
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
    async agentOf(id) {
      const hit = cached(agents, id);
      if (hit) return hit.value;
      return singleFlight(
        pendingAgents,
        id,
        async () => {
          const started = epoch;
          const r = (
            await db.query<Row>(`SELECT ${COLUMNS} FROM dex_api_keys WHERE id = $1 AND revoked_at IS NULL`, [id])
          ).rows[0];
          if (!r) return null;
          const known = agentAccounts.get(id);
          if (known && known.sealed === r.agent_key_ciphertext) return known.account;
          const account = agentAccount(box.open(r.agent_key_ciphertext, agentAad(r.id)) as `0x${string}`);
          if (epoch === started) {
            if (agentAccounts.size >= 10_000) agentAccounts.clear();
            agentAccounts.set(id, { sealed: r.agent_key_ciphertext, account });
          }
          return account;
        },
        (value) => value && remember(agents, id, value),
      );
    },
    async claimAgentApproval(id) {
      const r = await db.query(
        "UPDATE dex_api_keys SET agent_status = 'submitting' WHERE id = $1 AND agent_status = 'pending_approval' AND revoked_at IS NULL",
        [id],
      );
      forget(id);
      return r.rowCount === 1;
    },
    async releaseAgentApproval(id) {
      await db.query(
        "UPDATE dex_api_keys SET agent_status = 'pending_approval' WHERE id = $1 AND agent_status = 'submitting'",
        [id],
      );
      forget(id);
    },
    async markAgentApproved(id) {
      await db.query("UPDATE dex_api_keys SET agent_status = 'approved' WHERE id = $1", [id]);
      forget(id);
    },
    async revoke(id, renouncement) {
      forget(id);
      const stored = renouncement
        ? JSON.stringify({
            message: {
              trader: renouncement.message.trader,
              agent: renouncement.message.agent,
              nonce: renouncement.message.nonce.toString(),
              deadline: renouncement.message.deadline.toString(),
            },
            signature: renouncement.signature,
          })
        : null;
      const r = await db.query(
        `UPDATE dex_api_keys SET revoked_at = now(), agent_key_ciphertext = '', agent_renouncement = $2::jsonb,
           agent_renouncement_status = CASE WHEN $2::jsonb IS NULL THEN NULL ELSE 'pending' END
         WHERE id = $1 AND revoked_at IS NULL`,
        [id, stored],
      );
      forget(id);
      if (r.rowCount !== 1) return false;
      for (const l of revokedListeners) {
        try {
          l(id);
        } catch {
          // a listener's failure is its own; the key is revoked either way
        }
      }
      return true;
    },
    async agentRevocation(id) {
      const r = (
        await db.query<{ status: string | null; tx: string | null; revoked: boolean }>(
          "SELECT agent_renouncement_status AS status, agent_renouncement_tx AS tx, revoked_at IS NOT NULL AS revoked FROM dex_api_keys WHERE id = $1",
          [id],
        )
      ).rows[0];
      if (!r?.revoked) return null;
      return { status: (r.status ?? "none") as AgentRevocationStatus, txHash: (r.tx as Hex | null) ?? null };
    },
    async claimRenouncement(id, leaseMs) {
      const r = (
        await db.query<{ id: string; r: { message: Record<string, string>; signature: Hex }; agent_status: string }>(
          `UPDATE dex_api_keys SET agent_renouncement_attempt_at = now()
           WHERE id = $1 AND agent_renouncement_status = 'pending'
             AND (agent_renouncement_attempt_at IS NULL OR agent_renouncement_attempt_at <= now() - make_interval(secs => $2::float8 / 1000))
           RETURNING id::text AS id, agent_renouncement AS r, agent_status`,
          [id, leaseMs],
        )
      ).rows[0];
      if (!r) return null;
      const raw = typeof r.r === "string" ? (JSON.parse(r.r) as typeof r.r) : r.r;
      return {
        id: r.id,
        message: {
          trader: getAddress(raw.message.trader),
          agent: getAddress(raw.message.agent),
          nonce: BigInt(raw.message.nonce),
          deadline: BigInt(raw.message.deadline),
        },
        signature: raw.signature,
        agentStatus:
          r.agent_status === "approved" || r.agent_status === "submitting" ? r.agent_status : "pending_approval",
      };
    },
    async releaseRenouncement(id, txHash) {
      await db.query(
        `UPDATE dex_api_keys SET agent_renouncement_attempt_at = NULL, agent_renouncement_tx = COALESCE($2, agent_renouncement_tx)
         WHERE id = $1 AND agent_renouncement_status = 'pending'`,
        [id, txHash],
      );
    },
    async finishRenouncement(id, status, txHash) {
      // a transaction sent by an earlier attempt stays the answer when this one needed none
      await db.query(
        `UPDATE dex_api_keys SET agent_renouncement_status = $2, agent_renouncement_tx = COALESCE($3, agent_renouncement_tx),
           agent_renouncement_attempt_at = NULL
         WHERE id = $1 AND agent_renouncement_status = 'pending'`,
        [id, status, txHash],
      );
    },
    async pendingRenouncements(limit) {
      const rows = await db.query<{ id: string }>(
        "SELECT id::text AS id FROM dex_api_keys WHERE agent_renouncement_status = 'pending' ORDER BY revoked_at LIMIT $1",
        [limit],
      );
      return rows.rows.map((r) => r.id);
    },
    onRevoked(listener) {
      revokedListeners.add(listener);
      return () => revokedListeners.delete(listener);
    },
  };
  return store;
}
