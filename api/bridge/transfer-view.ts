// A transfer as the bridge API shows it: the API's row (what was initiated and linked) joined with the
// relayer's record of its progress, read through `RelayedTransferReader` (relayed-transfers.ts).
import type { RelayedTransfer, RelayedTransferReader } from "./relayed-transfers";

/** A `bridge_transfers` row (SQL's form: numeric as decimal strings). */
export interface ApiRow {
  id: string;
  tenant_id: string;
  bridge: string;
  direction: "deposit" | "withdrawal";
  token: string;
  amount_wei: string;
  sender: string;
  recipient: string;
  src_tx_hash: string | null;
  nonce: string | null;
  initiated_at: Date;
  linked_at: Date | null;
  access_token_hash: string | null;
}

const iso = (d: Date | string | null | undefined) => (d ? new Date(d).toISOString() : null);

function timestamps(row: ApiRow, relayed: RelayedTransfer | undefined) {
  const isDeposit = row.direction === "deposit";
  return {
    initiatedAt: iso(row.initiated_at),
    [isDeposit ? "depositedAt" : "burnedAt"]: iso(relayed?.observed_at ?? row.linked_at),
    signedAt: iso(relayed?.signed_at),
    ...(isDeposit
      ? { mintedAt: iso(relayed?.minted_at) }
      : {
          releaseQueuedAt: iso(relayed?.release_queued_at),
          disputedAt: iso(relayed?.disputed_at),
          releasedAt: iso(relayed?.released_at),
        }),
    failedAt: iso(relayed?.failed_at),
  };
}

function txHashes(row: ApiRow, relayed: RelayedTransfer | undefined) {
  const source = row.src_tx_hash ?? relayed?.src_tx_hash ?? null;
  return row.direction === "deposit"
    ? { deposit: source, mint: relayed?.dst_tx_hash ?? null }
    : {
        burn: source,
        queueRelease: relayed?.dst_tx_hash ?? null,
        executeRelease: relayed?.execute_tx_hash ?? null,
      };
}

/** The transfer's view: its status is the relayer's once linked, else `initiated`. */
export async function transferView(relayedTransfers: RelayedTransferReader, row: ApiRow) {
  const relayed: RelayedTransfer | undefined =
    row.nonce !== null ? await relayedTransfers.get(row.bridge, row.direction, row.nonce) : undefined;
  const status =
    relayed?.status ?? (row.nonce !== null ? (row.direction === "deposit" ? "deposited" : "burned") : "initiated");
  return {
    id: row.id,
    tenantId: row.tenant_id,
    direction: row.direction,
    status,
    token: row.token,
    amount: row.amount_wei,
    sender: row.sender,
    recipient: row.recipient,
    nonce: row.nonce,
    keyEpoch: relayed?.key_epoch ? Number(relayed.key_epoch) : null,
    signers: relayed?.signers ? relayed.signers.split(",").filter(Boolean).map(Number) : [],
    readyAt: relayed?.ready_at ? new Date(Number(relayed.ready_at) * 1000).toISOString() : null,
    lastError: relayed?.last_error ?? null,
    timestamps: timestamps(row, relayed),
    txHashes: txHashes(row, relayed),
  };
}
export type TransferView = Awaited<ReturnType<typeof transferView>>;
