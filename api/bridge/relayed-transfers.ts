// What the bridge API reads of a transfer once its deposit or burn is linked: the relayer's progress on it
// (signed, minted, release queued, ...). The relayer owns those rows (relayer/store.ts); the API reads them
// through this port only, and the composition root (scripts/stack/components/bridge.ts) wires the relayer's
// store in. The API never imports relayer/.

export type RelayedKind = "deposit" | "withdrawal";

/** A transfer as the relayer records it, in SQL's form (numeric and int8 as decimal strings, timestamps as
 *  Date): only the fields the API shows. */
export interface RelayedTransfer {
  status: string;
  key_epoch: string | null;
  /** the signer nodes' indexes, comma-separated */
  signers: string | null;
  /** the release's ready time (withdrawals), unix seconds */
  ready_at: string | null;
  last_error: string | null;
  src_tx_hash: string;
  dst_tx_hash: string | null;
  execute_tx_hash: string | null;
  observed_at: Date;
  signed_at: Date | null;
  minted_at: Date | null;
  release_queued_at: Date | null;
  disputed_at: Date | null;
  released_at: Date | null;
  failed_at: Date | null;
}

/** Reads the relayer's record of the transfer `(bridge, kind, nonce)`; undefined until the relayer saw it. */
export interface RelayedTransferReader {
  get(bridge: string, kind: RelayedKind, nonce: string): Promise<RelayedTransfer | undefined>;
}

/** The in-process relayer of one bridge: `complete` asks it to execute a release whose challenge period is over. */
export interface ReleaseProcessor {
  processNow(kind: "withdrawal", nonce: bigint): Promise<unknown>;
}
