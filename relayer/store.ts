// The relayer's SQL: transfer rows keyed by (bridge, kind, nonce), per-source cursors, and leases. Every
// write by a worker is guarded by its lease, so a row whose lease expired and was claimed by another
// relayer is never written by the first one again.
import type { Address, Hex } from "viem";
import type { Db, SqlExecutor, SqlParam } from "../db";
import type { BridgeTransferStatus } from "../sdk/bridge-client";

export type TransferKind = "deposit" | "withdrawal";
/** The SDK's transfer statuses but "initiated" (the API's own, before any chain event is seen). */
export type TransferStatus = Exclude<BridgeTransferStatus, "initiated">;
export const TERMINAL_STATUSES: readonly TransferStatus[] = ["minted", "released", "disputed", "failed"];

export interface ObservedTransfer {
  bridge: string;
  kind: TransferKind;
  nonce: bigint;
  srcChainId: number;
  srcContract: Address;
  dstChainId: number;
  dstContract: Address;
  /** the HOME token (for a burn: the event's homeToken) */
  token: Address;
  sender: Address;
  recipient: Address;
  amountWei: bigint;
  srcTxHash: Hex;
  srcBlock: bigint;
}

/** A row as SQL returns it (numeric and int8 as decimal strings, timestamps as Date). */
export interface TransferRow {
  bridge: string;
  kind: TransferKind;
  nonce: string;
  status: TransferStatus;
  src_chain_id: string;
  src_contract: string;
  dst_chain_id: string;
  dst_contract: string;
  token: string;
  sender: string;
  recipient: string;
  amount_wei: string;
  src_tx_hash: string;
  src_block: string;
  key_epoch: string | null;
  signers: string | null;
  signature: string | null;
  hsm_signature: string | null;
  dst_tx_hash: string | null;
  execute_tx_hash: string | null;
  ready_at: string | null;
  attempts: number;
  next_attempt_at: Date;
  last_error: string | null;
  lease_owner: string | null;
  lease_until: Date | null;
  observed_at: Date;
  signed_at: Date | null;
  minted_at: Date | null;
  release_queued_at: Date | null;
  disputed_at: Date | null;
  released_at: Date | null;
  failed_at: Date | null;
  updated_at: Date;
}

/** Columns a worker may set (timestamps named *_at take `now()` when given `"now"`). */
export type TransferPatch = Partial<{
  status: TransferStatus;
  key_epoch: number;
  signers: string;
  signature: Hex | null;
  hsm_signature: Hex | null;
  dst_tx_hash: Hex;
  execute_tx_hash: Hex;
  ready_at: bigint;
  attempts: number;
  next_attempt_at: Date;
  last_error: string | null;
  signed_at: "now";
  minted_at: "now";
  release_queued_at: "now";
  disputed_at: "now";
  released_at: "now";
  failed_at: "now";
}>;

const PATCHABLE = new Set([
  "status",
  "key_epoch",
  "signers",
  "signature",
  "hsm_signature",
  "dst_tx_hash",
  "execute_tx_hash",
  "ready_at",
  "attempts",
  "next_attempt_at",
  "last_error",
  "signed_at",
  "minted_at",
  "release_queued_at",
  "disputed_at",
  "released_at",
  "failed_at",
]);

/** The SQL behind one relayer's rows; every method is one statement (or one per observed event). */
export class RelayerStore {
  constructor(readonly db: Db) {}

  /** Inserts newly seen events; an event already recorded (by us or another relayer) is left alone. */
  async recordObserved(tx: SqlExecutor, rows: ObservedTransfer[]): Promise<number> {
    let inserted = 0;
    for (const r of rows) {
      const res = await tx.query(
        `INSERT INTO bridge_relayer_transfers
           (bridge, kind, nonce, status, src_chain_id, src_contract, dst_chain_id, dst_contract, token, sender, recipient, amount_wei, src_tx_hash, src_block)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
         ON CONFLICT (bridge, kind, nonce) DO NOTHING`,
        observedParams(r),
      );
      inserted += res.rowCount;
    }
    return inserted;
  }

  async getCursor(tx: SqlExecutor, bridge: string, chainId: number, contract: Address): Promise<bigint | undefined> {
    const r = await tx.query<{ next_block: string }>(
      "SELECT next_block FROM bridge_relayer_cursors WHERE bridge = $1 AND chain_id = $2 AND contract = $3",
      [bridge, chainId, contract.toLowerCase()],
    );
    return r.rows[0] ? BigInt(r.rows[0].next_block) : undefined;
  }

  /** Moves a cursor forward only (two followers of one source never move it back). */
  async setCursor(tx: SqlExecutor, bridge: string, chainId: number, contract: Address, nextBlock: bigint) {
    await tx.query(
      `INSERT INTO bridge_relayer_cursors (bridge, chain_id, contract, next_block) VALUES ($1, $2, $3, $4)
       ON CONFLICT (bridge, chain_id, contract) DO UPDATE SET next_block = GREATEST(bridge_relayer_cursors.next_block, EXCLUDED.next_block), updated_at = now()`,
      [bridge, chainId, contract.toLowerCase(), nextBlock],
    );
  }

  /** Claims up to `limit` due, unleased, unfinished rows for `owner` for `leaseMs`. */
  async claimDue(bridge: string, owner: string, leaseMs: number, limit: number): Promise<TransferRow[]> {
    const r = await this.db.query<TransferRow>(
      `UPDATE bridge_relayer_transfers SET lease_owner = $1, lease_until = now() + make_interval(secs => $2::double precision / 1000)
       WHERE (bridge, kind, nonce) IN (
         SELECT bridge, kind, nonce FROM bridge_relayer_transfers
         WHERE bridge = $3 AND status IN ('deposited', 'burned', 'signed', 'release_queued')
           AND next_attempt_at <= now() AND (lease_until IS NULL OR lease_until < now())
         ORDER BY next_attempt_at, nonce LIMIT $4
         FOR UPDATE SKIP LOCKED)
         AND (lease_until IS NULL OR lease_until < now())
       RETURNING *`,
      [owner, leaseMs, bridge, limit],
    );
    return r.rows;
  }

  /** A restarted relayer (same id) owns nothing in flight: its old leases are free at once. */
  async releaseLeasesOf(bridge: string, owner: string): Promise<void> {
    await this.db.query(
      "UPDATE bridge_relayer_transfers SET lease_owner = NULL, lease_until = NULL WHERE bridge = $1 AND lease_owner = $2",
      [bridge, owner],
    );
  }

  /** Makes one row due now unless another worker holds its lease. */
  async makeDue(bridge: string, kind: TransferKind, nonce: bigint): Promise<void> {
    await this.db.query(
      "UPDATE bridge_relayer_transfers SET next_attempt_at = now() WHERE bridge = $1 AND kind = $2 AND nonce = $3 AND (lease_until IS NULL OR lease_until < now())",
      [bridge, kind, nonce.toString()],
    );
  }

  /** Applies `patch` if `owner` still holds the lease; false when the lease was lost. */
  async update(
    row: Pick<TransferRow, "bridge" | "kind" | "nonce">,
    owner: string,
    patch: TransferPatch,
    releaseLease = false,
  ): Promise<boolean> {
    const params: SqlParam[] = [row.bridge, row.kind, row.nonce, owner];
    const sets = patchSets(patch, params);
    sets.push("updated_at = now()");
    if (releaseLease) sets.push("lease_owner = NULL", "lease_until = NULL");
    const r = await this.db.query(
      `UPDATE bridge_relayer_transfers SET ${sets.join(", ")} WHERE bridge = $1 AND kind = $2 AND nonce = $3 AND lease_owner = $4`,
      params,
    );
    return r.rowCount === 1;
  }

  async get(bridge: string, kind: TransferKind, nonce: bigint | string): Promise<TransferRow | undefined> {
    const r = await this.db.query<TransferRow>(
      "SELECT * FROM bridge_relayer_transfers WHERE bridge = $1 AND kind = $2 AND nonce = $3",
      [bridge, kind, String(nonce)],
    );
    return r.rows[0];
  }

  async list(bridge: string): Promise<TransferRow[]> {
    const sql = "SELECT * FROM bridge_relayer_transfers WHERE bridge = $1 ORDER BY kind, nonce";
    return (await this.db.query<TransferRow>(sql, [bridge])).rows;
  }
}

export function createRelayerStore(db: Db): RelayerStore {
  return new RelayerStore(db);
}

/** The INSERT's parameters $1..$14 for one observed event (status: where its kind starts). */
function observedParams(r: ObservedTransfer): SqlParam[] {
  return [
    r.bridge,
    r.kind,
    r.nonce,
    r.kind === "deposit" ? "deposited" : "burned",
    r.srcChainId,
    r.srcContract,
    r.dstChainId,
    r.dstContract,
    r.token,
    r.sender,
    r.recipient,
    r.amountWei,
    r.srcTxHash,
    r.srcBlock,
  ];
}

/** `col = $n` for each patchable column in `patch` (its value appended to `params`); a timestamp given as
 *  "now" keeps the first moment it was set. */
function patchSets(patch: TransferPatch, params: SqlParam[]): string[] {
  const sets: string[] = [];
  for (const [k, v] of Object.entries(patch)) {
    if (!PATCHABLE.has(k) || v === undefined) continue;
    if (v === "now" && k.endsWith("_at")) sets.push(`${k} = COALESCE(${k}, now())`);
    else {
      params.push(v as SqlParam);
      sets.push(`${k} = $${params.length}`);
    }
  }
  return sets;
}
