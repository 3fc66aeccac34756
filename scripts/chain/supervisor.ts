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

export interface SuperviseChainOptions {
  chainId: number;
  journalFile: string;
  fsync: boolean;
  /** Anvil: where and when to snapshot; absent: never */
  snapshots?: SnapshotPolicy & { dir: string };
  first: BootedNode;
  boot(): Promise<BootedNode>;
  logger?: { warn(o: object, m?: string): void; info(o: object, m?: string): void };
}

/** The snapshot bookkeeping: the journal entries the newest covers, when it was taken, the one being taken. */
interface SnapshotState {
  entries: number;
  atMs: number;
  taking?: Promise<string | undefined>;
  lastError?: string;
  /** ms the last snapshot's exclusive section held calls; before the first, FIRST_STALL_ESTIMATE_MS */
  lastStallMs: number;
}

/** One chain's node under supervision (see the file's comment): its upstream, its restarts, its snapshots. Its
 *  public members are bound (callers hand them on detached: `unavailable`, `onStatus`). */
class SupervisedChain implements ChainSupervisor {
  private readonly listeners = new Set<(s: ChainStatus) => void>();
  private booted: BootedNode;
  private journal!: JournalWriter;
  private current: ProxyUpstream | undefined;
  private stopping = false;
  private restarting: Promise<void> | undefined;
  private readonly snap: SnapshotState;
  private state: ChainStatus;
  private snapshotTimer?: NodeJS.Timeout;

  constructor(private readonly options: SuperviseChainOptions) {
    this.booted = options.first;
    this.snap = {
      entries: options.first.restored.snapshot?.journalEntries ?? 0,
      atMs: Date.now(),
      lastStallMs: FIRST_STALL_ESTIMATE_MS,
    };
    this.state = {
      chainId: options.chainId,
      state: "up",
      sinceMs: Date.now(),
      restarts: 0,
      expectedRestartMs: Math.round(options.first.bootMs),
    };
  }

  /** Serves the first node and starts the snapshot checks; on a failure, stops that node. */
  async open(): Promise<void> {
    this.startSnapshotTimer();
    try {
      await this.serve(this.options.first);
    } catch (e) {
      if (this.snapshotTimer) clearInterval(this.snapshotTimer);
      this.options.first.node.close();
      await this.options.first.proc.stop();
      throw e;
    }
  }

  upstream = (): ProxyUpstream | undefined => this.current;

  unavailable = (): JsonRpcError => {
    const { chainId } = this.options;
    const retryAfterMs = Math.max(0, this.state.sinceMs + this.state.expectedRestartMs - Date.now());
    return {
      code: CHAIN_UNAVAILABLE_RPC_CODE,
      message: `chain ${chainId} is unavailable: its node is restarting`,
      data: { chainId, retryAfterMs, reason: this.state.reason },
    };
  };

  status = (): ChainStatus => ({ ...this.state });

  onStatus = (fn: (s: ChainStatus) => void): (() => void) => {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  };

  nodePid = (): number => this.booted.proc.pid;
  nodeRpcUrl = (): string => this.booted.proc.rpcUrl;

  private setStatus(next: Partial<ChainStatus>): void {
    this.state = { ...this.state, ...next, sinceMs: Date.now() };
    if (this.state.state === "up") delete this.state.reason;
    for (const fn of this.listeners) {
      try {
        fn({ ...this.state });
      } catch {
        /* the listener's problem */
      }
    }
  }

  private async serve(b: BootedNode): Promise<void> {
    this.booted = b;
    this.journal = await openJournalWriter(this.options.journalFile, { fsync: this.options.fsync });
    const recorder = createRecorder({
      node: b.node,
      journal: this.journal,
      initialHead: await getHead(b.node),
      kind: b.kind,
      lastOffsetS: b.lastOffsetS,
    });
    this.snap.entries =
      b.restored.snapshot?.journalEntries ?? (this.snap.entries > b.journalEntries ? 0 : this.snap.entries);
    this.current = { kind: b.kind, node: b.node, nodeWsUrl: b.proc.wsUrl, recorder };
    b.proc.child.once("exit", (code, signal) => {
      if (this.stopping) return;
      this.restarting = this.restart(`node exited (${code ?? signal})`);
    });
  }

  private async restart(reason: string): Promise<void> {
    const { chainId, logger } = this.options;
    const dead = this.current;
    this.current = undefined;
    this.setStatus({ state: "down", reason });
    logger?.warn({ chainId, reason }, "chain node down: restarting it");
    // calls in flight on the dead node fail now; what they journalled is flushed before the replay reads it
    await dead?.recorder.idle().catch(() => undefined);
    await this.journal.close().catch(() => undefined);
    dead?.node.close();
    for (let attempt = 0; !this.stopping; attempt++) {
      try {
        const b = await this.options.boot();
        if (this.stopping) {
          b.node.close();
          await b.proc.stop();
          return;
        }
        await this.serve(b);
        this.setStatus({ state: "up", restarts: this.state.restarts + 1, expectedRestartMs: Math.round(b.bootMs) });
        logger?.info({ chainId, replayed: b.entries, ms: Math.round(b.bootMs) }, "chain node restarted");
        return;
      } catch (e) {
        this.setStatus({ state: "down", reason: `restart failed: ${(e as Error).message}` });
        await new Promise((r) => setTimeout(r, Math.min(10_000, 1_000 * 2 ** Math.min(attempt, 4))));
      }
    }
  }

  /** Journal entries now: the booted node's, plus those flushed since. */
  private journalEntriesNow(): number {
    return this.booted.journalEntries + this.journal.stats.entries;
  }

  snapshot = (): Promise<string | undefined> => {
    const policy = this.options.snapshots;
    const up = this.current;
    if (!policy || !up) return Promise.resolve(undefined);
    this.snap.taking ??= this.takeSnapshot(policy.dir, up).finally(() => {
      this.snap.taking = undefined;
    });
    return this.snap.taking;
  };

  /** Dumps the node's state between two calls (the recorder's exclusive section), then writes it to disk while
   *  calls go on; a failure is logged once and tried again at the next check (the journal has everything). */
  private async takeSnapshot(dir: string, up: ProxyUpstream): Promise<string | undefined> {
    const { chainId, logger } = this.options;
    try {
      const held = performance.now();
      const taken = await up.recorder.exclusive(async () => {
        const journalBytes = await this.journal.flushedBytes();
        const journalEntries = this.journalEntriesNow();
        const hex = await up.node.call<string>("anvil_dumpState");
        return { journalBytes, journalEntries, head: up.recorder.head, offsetS: up.recorder.lastOffsetS, hex };
      });
      this.snap.lastStallMs = performance.now() - held;
      const { state, crc32 } = await compactDump(Buffer.from(taken.hex.slice(2), "hex"));
      const meta = {
        chainId,
        journalEntries: taken.journalEntries,
        journalBytes: taken.journalBytes,
        head: taken.head,
        offsetS: taken.offsetS,
        takenAtMs: Date.now(),
      };
      const file = await writeSnapshot(dir, meta, state, crc32);
      this.snap.entries = taken.journalEntries;
      this.snap.atMs = Date.now();
      this.snap.lastError = undefined;
      return file;
    } catch (e) {
      if (this.snap.lastError !== (e as Error).message)
        logger?.warn({ chainId, err: (e as Error).message }, "chain snapshot failed");
      this.snap.lastError = (e as Error).message;
      return undefined;
    }
  }

  /** Checked often enough to see a quiet moment of idleMs (at most every second, as before without one). */
  private startSnapshotTimer(): void {
    const policy = this.options.snapshots;
    if (!policy) return;
    this.snapshotTimer = setInterval(
      () => {
        if (this.stopping || this.snap.taking || !this.current) return;
        const clock = {
          added: this.journalEntriesNow() - this.snap.entries,
          nowMs: Date.now(),
          lastSnapshotAtMs: this.snap.atMs,
          lastCallAtMs: this.journal.stats.lastFlushAtMs,
          lastStallMs: this.snap.lastStallMs,
        };
        if (snapshotDue(policy, clock)) void this.snapshot();
      },
      Math.max(50, Math.min(1_000, (policy.idleMs ?? 1_000) / 2)),
    );
    this.snapshotTimer.unref();
  }

  stop = async (): Promise<void> => {
    this.stopping = true;
    if (this.snapshotTimer) clearInterval(this.snapshotTimer);
    await this.restarting;
    await this.snap.taking;
    // a clean stop leaves a snapshot of everything: the next start replays nothing
    if (this.options.snapshots && this.current && this.journalEntriesNow() > this.snap.entries) await this.snapshot();
    const last = this.current;
    this.current = undefined;
    await this.journal.close().catch(() => undefined);
    last?.node.close();
    this.booted.node.close();
    await this.booted.proc.stop();
  };
}

export async function superviseChain(options: SuperviseChainOptions): Promise<ChainSupervisor> {
  const chain = new SupervisedChain(options);
  await chain.open();
  return chain;
}
