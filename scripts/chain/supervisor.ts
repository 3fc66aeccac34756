// Supervises one chain's Hardhat node: while it runs, the proxy's upstream is it (its RPC client, its
// WebSocket URL, the recorder journalling through it). When it exits on its own (a crash, kill -9), the
// chain is reported down at once (the proxy answers "unavailable", listeners hear of it), the journal is
// flushed and closed, and a fresh node is booted exactly as a start boots one (same genesis, the journal
// replayed, the clock restored); then the chain is up again. A failed boot is tried again (1 s, 2 s, ..
// 10 s apart) until it succeeds or the chain is stopped.
// On Anvil it also takes the chain's state snapshots (snapshot.ts): when SnapshotPolicy.everyEntries
// journal entries were added since the last one, or everyMs passed with any added, and at a clean stop.
// A snapshot is taken between two calls (the recorder's exclusive section: the journal flushed, its
// position read, anvil_dumpState), then written to disk while calls go on.
import { openJournalWriter, type JournalWriter } from "./journal";
import type { ProxyUpstream } from "./proxy";
import { createRecorder, getHead } from "./recorder";
import type { JsonRpcError } from "./rpc-client";
import { compactDump, writeSnapshot } from "./snapshot";
import type { BootedNode } from "./booted-node";

export interface SnapshotPolicy {
  /** snapshot once this many journal entries were added since the last one */
  everyEntries: number;
  /** ... or once this long passed since the last one with at least one entry added */
  everyMs: number;
  /**
   * A due snapshot waits until no call was journalled for this long: taken on a quiet chain, its exclusive
   * section (which holds every call while the node dumps its state, O(history)) delays nobody. Absent: at once.
   */
  idleMs?: number;
  /**
   * ... unless the chain never goes quiet: then it is taken once the time since the last snapshot reaches that
   * one's stall (the ms its exclusive section held calls) / maxStallShare, so calls are held at most this share
   * of the time. Absent (with idleMs): only on a quiet chain.
   */
  maxStallShare?: number;
}

/**
 * See docs/decisions/stack.md, "Chain state snapshots" and "Snapshots wait for a quiet chain": a crash replays
 * the entries since the last snapshot (~everyEntries when the chain has quiet moments; under load that never
 * lets up, what arrives in 100x the last snapshot's stall).
 */
export const DEFAULT_SNAPSHOT_POLICY: SnapshotPolicy = {
  everyEntries: 250,
  everyMs: 60_000,
  idleMs: 500,
  maxStallShare: 0.01,
};

/** The stall assumed before a supervisor's first snapshot: on a chain busy from its start, the first is forced
 *  after 1 s / maxStallShare (100 s by default) instead of at once. */
export const FIRST_STALL_ESTIMATE_MS = 1_000;

/** What the snapshot decision reads (wall-clock ms). */
export interface SnapshotClock {
  /** journal entries added since the last snapshot */
  added: number;
  nowMs: number;
  /** when the last snapshot was taken (the supervisor's start when there was none) */
  lastSnapshotAtMs: number;
  /** when a call was last journalled (0: none since the start) */
  lastCallAtMs: number;
  /** how long the last snapshot's exclusive section held calls (FIRST_STALL_ESTIMATE_MS before the first) */
  lastStallMs: number;
}

/** Whether a snapshot should be taken now under `policy`. */
export function snapshotDue(policy: SnapshotPolicy, c: SnapshotClock): boolean {
  const due = c.added >= policy.everyEntries || (c.added > 0 && c.nowMs - c.lastSnapshotAtMs >= policy.everyMs);
  if (!due) return false;
  if (policy.idleMs === undefined || c.nowMs - c.lastCallAtMs >= policy.idleMs) return true;
  return policy.maxStallShare !== undefined && c.nowMs - c.lastSnapshotAtMs >= c.lastStallMs / policy.maxStallShare;
}

export interface ChainStatus {
  chainId: number;
  state: "up" | "down";
  /** wall-clock ms of the last change */
  sinceMs: number;
  /** supervised restarts so far */
  restarts: number;
  /** how long a restart is expected to take (ms): the last boot's duration (spawn + replay) */
  expectedRestartMs: number;
  /** why it is down (the node's exit, a failed boot) */
  reason?: string;
}

export interface ChainSupervisor {
  upstream(): ProxyUpstream | undefined;
  /** the JSON-RPC error the proxy answers while there is no upstream */
  unavailable(): JsonRpcError;
  status(): ChainStatus;
  onStatus(fn: (s: ChainStatus) => void): () => void;
  nodePid(): number;
  nodeRpcUrl(): string;
  /** Takes a state snapshot now (Anvil with snapshots on); undefined when there is none to take. */
  snapshot(): Promise<string | undefined>;
  stop(): Promise<void>;
}

/** JSON-RPC error code of "the chain's node is not running now" (server-error range of JSON-RPC 2.0). */
export const CHAIN_UNAVAILABLE_RPC_CODE = -32050;

export async function superviseChain(options: {
  chainId: number;
  journalFile: string;
  fsync: boolean;
  /** Anvil: where and when to snapshot; absent: never */
  snapshots?: SnapshotPolicy & { dir: string };
  first: BootedNode;
  boot(): Promise<BootedNode>;
  logger?: { warn(o: object, m?: string): void; info(o: object, m?: string): void };
}): Promise<ChainSupervisor> {
  const { chainId } = options;
  const listeners = new Set<(s: ChainStatus) => void>();
  let booted = options.first;
  let journal: JournalWriter;
  let upstream: ProxyUpstream | undefined;
  let stopping = false;
  let restarting: Promise<void> | undefined;
  // snapshots: the journal entries the newest covers, when it was taken, the one being taken
  let snapshotEntries = options.first.restored.snapshot?.journalEntries ?? 0;
  let snapshotAt = Date.now();
  let snapshotting: Promise<string | undefined> | undefined;
  let lastSnapshotError: string | undefined;
  /** ms the last snapshot's exclusive section held calls; before the first, FIRST_STALL_ESTIMATE_MS */
  let lastStallMs = FIRST_STALL_ESTIMATE_MS;
  let status: ChainStatus = {
    chainId,
    state: "up",
    sinceMs: Date.now(),
    restarts: 0,
    expectedRestartMs: Math.round(booted.bootMs),
  };

  const setStatus = (next: Partial<ChainStatus>) => {
    status = { ...status, ...next, sinceMs: Date.now() };
    if (status.state === "up") delete status.reason;
    for (const fn of listeners) {
      try {
        fn({ ...status });
      } catch {
        /* the listener's problem */
      }
    }
  };

  async function serve(b: BootedNode): Promise<void> {
    booted = b;
    journal = await openJournalWriter(options.journalFile, { fsync: options.fsync });
    const recorder = createRecorder({
      node: b.node,
      journal,
      initialHead: await getHead(b.node),
      kind: b.kind,
      lastOffsetS: b.lastOffsetS,
    });
    snapshotEntries = b.restored.snapshot?.journalEntries ?? (snapshotEntries > b.journalEntries ? 0 : snapshotEntries);
    upstream = { kind: b.kind, node: b.node, nodeWsUrl: b.proc.wsUrl, recorder };
    b.proc.child.once("exit", (code, signal) => {
      if (stopping) return;
      restarting = restart(`node exited (${code ?? signal})`);
    });
  }

  async function restart(reason: string): Promise<void> {
    const dead = upstream;
    upstream = undefined;
    setStatus({ state: "down", reason });
    options.logger?.warn({ chainId, reason }, "chain node down: restarting it");
    // calls in flight on the dead node fail now; what they journalled is flushed before the replay reads it
    await dead?.recorder.idle().catch(() => undefined);
    await journal.close().catch(() => undefined);
    dead?.node.close();
    for (let attempt = 0; !stopping; attempt++) {
      try {
        const b = await options.boot();
        if (stopping) {
          b.node.close();
          await b.proc.stop();
          return;
        }
        await serve(b);
        setStatus({ state: "up", restarts: status.restarts + 1, expectedRestartMs: Math.round(b.bootMs) });
        options.logger?.info({ chainId, replayed: b.entries, ms: Math.round(b.bootMs) }, "chain node restarted");
        return;
      } catch (e) {
        setStatus({ state: "down", reason: `restart failed: ${(e as Error).message}` });
        await new Promise((r) => setTimeout(r, Math.min(10_000, 1_000 * 2 ** Math.min(attempt, 4))));
      }
    }
  }

  /** Journal entries now: the booted node's, plus those flushed since. */
  const journalEntriesNow = () => booted.journalEntries + journal.stats.entries;

  function snapshot(): Promise<string | undefined> {
    const policy = options.snapshots;
    const up = upstream;
    if (!policy || !up) return Promise.resolve(undefined);
    snapshotting ??= (async () => {
      try {
        const held = performance.now();
        const taken = await up.recorder.exclusive(async () => {
          const journalBytes = await journal.flushedBytes();
          const journalEntries = journalEntriesNow();
          const hex = await up.node.call<string>("anvil_dumpState");
          return { journalBytes, journalEntries, head: up.recorder.head, offsetS: up.recorder.lastOffsetS, hex };
        });
        lastStallMs = performance.now() - held;
        const { state, crc32 } = await compactDump(Buffer.from(taken.hex.slice(2), "hex"));
        const file = await writeSnapshot(
          policy.dir,
          {
            chainId,
            journalEntries: taken.journalEntries,
            journalBytes: taken.journalBytes,
            head: taken.head,
            offsetS: taken.offsetS,
            takenAtMs: Date.now(),
          },
          state,
          crc32,
        );
        snapshotEntries = taken.journalEntries;
        snapshotAt = Date.now();
        lastSnapshotError = undefined;
        return file;
      } catch (e) {
        // the next check tries again; the journal still has everything
        if (lastSnapshotError !== (e as Error).message)
          options.logger?.warn({ chainId, err: (e as Error).message }, "chain snapshot failed");
        lastSnapshotError = (e as Error).message;
        return undefined;
      } finally {
        snapshotting = undefined;
      }
    })();
    return snapshotting;
  }

  // Checked often enough to see a quiet moment of idleMs (at most every second, as before without one).
  const snapshotTimer = options.snapshots
    ? setInterval(
        () => {
          if (stopping || snapshotting || !upstream) return;
          const clock = {
            added: journalEntriesNow() - snapshotEntries,
            nowMs: Date.now(),
            lastSnapshotAtMs: snapshotAt,
            lastCallAtMs: journal.stats.lastFlushAtMs,
            lastStallMs,
          };
          if (snapshotDue(options.snapshots!, clock)) void snapshot();
        },
        Math.max(50, Math.min(1_000, (options.snapshots.idleMs ?? 1_000) / 2)),
      )
    : undefined;
  snapshotTimer?.unref();

  try {
    await serve(options.first);
  } catch (e) {
    if (snapshotTimer) clearInterval(snapshotTimer);
    options.first.node.close();
    await options.first.proc.stop();
    throw e;
  }

  return {
    upstream: () => upstream,
    unavailable: () => {
      const retryAfterMs = Math.max(0, status.sinceMs + status.expectedRestartMs - Date.now());
      return {
        code: CHAIN_UNAVAILABLE_RPC_CODE,
        message: `chain ${chainId} is unavailable: its node is restarting`,
        data: { chainId, retryAfterMs, reason: status.reason },
      };
    },
    status: () => ({ ...status }),
    onStatus(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    nodePid: () => booted.proc.pid,
    nodeRpcUrl: () => booted.proc.rpcUrl,
    snapshot,
    async stop() {
      stopping = true;
      if (snapshotTimer) clearInterval(snapshotTimer);
      await restarting;
      await snapshotting;
      // a clean stop leaves a snapshot of everything: the next start replays nothing
      if (options.snapshots && upstream && journalEntriesNow() > snapshotEntries) await snapshot();
      const last = upstream;
      upstream = undefined;
      await journal.close().catch(() => undefined);
      last?.node.close();
      booted.node.close();
      await booted.proc.stop();
    },
  };
}
