// A revoked key's agent renouncement (api-keys.ts): the owner's signed renouncement kept with the key, and
// its progress to the chain (pending -> done | failed), claimed by one sender at a time under a lease.
import { getAddress, type Hex } from "viem";
import type { Db } from "../../db";
import type { AgentRenouncement } from "../../sdk/eip712";

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

/** The renouncement as stored (jsonb): bigints as decimal text. */
export function storedRenouncement(renouncement: SignedAgentRenouncement | undefined): string | null {
  if (!renouncement) return null;
  return JSON.stringify({
    message: {
      trader: renouncement.message.trader,
      agent: renouncement.message.agent,
      nonce: renouncement.message.nonce.toString(),
      deadline: renouncement.message.deadline.toString(),
    },
    signature: renouncement.signature,
  });
}

export async function agentRevocation(db: Db, id: string): Promise<AgentRevocationState | null> {
  const r = (
    await db.query<{ status: string | null; tx: string | null; revoked: boolean }>(
      "SELECT agent_renouncement_status AS status, agent_renouncement_tx AS tx, revoked_at IS NOT NULL AS revoked FROM dex_api_keys WHERE id = $1",
      [id],
    )
  ).rows[0];
  if (!r?.revoked) return null;
  return { status: (r.status ?? "none") as AgentRevocationStatus, txHash: (r.tx as Hex | null) ?? null };
}

export async function claimRenouncement(db: Db, id: string, leaseMs: number): Promise<RenouncementClaim | null> {
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
    agentStatus: r.agent_status === "approved" || r.agent_status === "submitting" ? r.agent_status : "pending_approval",
  };
}

export async function releaseRenouncement(db: Db, id: string, txHash: Hex | null): Promise<void> {
  await db.query(
    `UPDATE dex_api_keys SET agent_renouncement_attempt_at = NULL, agent_renouncement_tx = COALESCE($2, agent_renouncement_tx)
     WHERE id = $1 AND agent_renouncement_status = 'pending'`,
    [id, txHash],
  );
}

export async function finishRenouncement(db: Db, id: string, status: "done" | "failed", txHash: Hex | null) {
  // a transaction sent by an earlier attempt stays the answer when this one needed none
  await db.query(
    `UPDATE dex_api_keys SET agent_renouncement_status = $2, agent_renouncement_tx = COALESCE($3, agent_renouncement_tx),
       agent_renouncement_attempt_at = NULL
     WHERE id = $1 AND agent_renouncement_status = 'pending'`,
    [id, status, txHash],
  );
}

export async function pendingRenouncements(db: Db, limit: number): Promise<string[]> {
  const rows = await db.query<{ id: string }>(
    "SELECT id::text AS id FROM dex_api_keys WHERE agent_renouncement_status = 'pending' ORDER BY revoked_at LIMIT $1",
    [limit],
  );
  return rows.rows.map((r) => r.id);
}
