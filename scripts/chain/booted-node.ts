// The result of booting a chain node with its chain restored: shared by start-chain.ts (which boots it) and
// supervisor.ts (which keeps it running), so that neither imports the other's types.
import type { ChainNodeKind, ChainNodeProcess } from "./node-process";
import type { RpcClient } from "./rpc-client";

/** What a start (or a supervised restart) restored. */
export interface ChainRestored {
  /** journal entries replayed (the tail after the snapshot, or the whole journal) */
  entries: number;
  /** load + replay, ms */
  ms: number;
  /** the snapshot loaded: the journal entries it covers and its load time */
  snapshot?: { journalEntries: number; bytes: number; loadMs: number };
  /** snapshots found unusable and skipped, newest first, with why */
  skippedSnapshots?: string[];
}

/** A fresh node with the chain restored into it: what a start and a supervised restart both do. */
export interface BootedNode {
  proc: ChainNodeProcess;
  node: RpcClient;
  kind: ChainNodeKind;
  /** journal entries replayed */
  entries: number;
  /** every entry in the journal now (the snapshot's and the replayed ones) */
  journalEntries: number;
  /** the clock offset the last entry (or the snapshot) recorded */
  lastOffsetS: number;
  /** spawn + load + replay, ms */
  bootMs: number;
  /** load + replay only, ms */
  replayMs: number;
  restored: ChainRestored;
}
