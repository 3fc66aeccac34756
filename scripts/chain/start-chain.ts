// startChain: a local JSON-RPC chain node (Hardhat or Anvil, `node`) that keeps its state across restarts.
// A proxy on the public port journals every state-changing call. Hardhat 2 has no state dump
// (NomicFoundation/hardhat#3599, edr#409), so a Hardhat chain's restart replays the whole journal into a
// fresh node before the port opens. An Anvil chain also has snapshots of its state (snapshot.ts, taken by
// the supervisor periodically and at a clean stop): a restart loads the newest good one and replays only
// the journal entries after it; a damaged snapshot falls back to the one before, then to the full journal.
// The node is supervised: when it dies on its own, the proxy keeps the public port and answers
// "unavailable" (HTTP 503, a JSON-RPC error naming the chain), a fresh node is booted the same way, and the
// proxy serves again (supervisor.ts). See docs/decisions/stack.md.
import fs from "node:fs";
import { DEFAULT_CHAIN_NODE } from "../../config/base";
import path from "node:path";
import { readJournalFrom, JournalCorruptError, type JournalEntry } from "./journal";
import { ChainStartError, type ChainNodeKind, type ChainNodeProcess } from "./node-process";
import { spawnChainNode } from "./node-kind";
import { startChainProxy } from "./proxy";
import { getHead } from "./recorder";
import { replayJournal, restoreClock } from "./replay";
import { listSnapshots, readSnapshotHeader, snapshotDir, SnapshotCorruptError, verifySnapshot } from "./snapshot";
import { createRpcClient, type RpcClient } from "./rpc-client";
import type { BootedNode, ChainRestored } from "./booted-node";
export type { BootedNode, ChainRestored } from "./booted-node";
import { superviseChain, DEFAULT_SNAPSHOT_POLICY, type SnapshotPolicy } from "./supervisor";

export type { ChainStatus, SnapshotPolicy } from "./supervisor";
import type { ChainStatus } from "./supervisor";

export interface StartChainOptions {
  chainId: number;
  /** Public port; 0 picks a free one (see `rpcUrl`). */
  port: number;
  /** This chain's own directory (genesis.json, journal.jsonl); created if missing. */
  dataDir: string;
  host?: string;
  /** fdatasync each journal flush (default true). */
  fsync?: boolean;
  /** pin the node to these CPUs (taskset list); none when absent */
  cpus?: string;
  /** the node program (default config's DEFAULT_CHAIN_NODE, anvil); a data dir keeps the one it was made with */
  node?: ChainNodeKind;
  /** Anvil only: when to snapshot the chain's state (default DEFAULT_SNAPSHOT_POLICY; false: never) */
  snapshots?: SnapshotPolicy | false;
  /** A fresh chain's genesis time, unix seconds (default now; in the past for the simulator's history
   *  replay). A chain made before keeps its recorded genesis. */
  genesisTimestampS?: number;
}

export interface RunningChain {
  readonly chainId: number;
  readonly rpcUrl: string;
  readonly wsUrl: string;
  readonly port: number;
  /** the program the stack runs for this chain; "external": a node the operator runs (external-chain.ts) */
  readonly node: ChainNodeKind | "external";
  /** true for a chain by URL (HOME_CHAIN_RPC_URL, REMOTE_CHAIN_RPC_URL): no node, proxy, journal or supervisor of ours */
  readonly external?: boolean;
  /** The node behind the proxy (private port): its pid, for process checks (a new one after the
   *  supervisor restarted the node). An external chain has none (reading it throws). */
  readonly nodePid: number;
  /** The node's own URL, bypassing the journal: for diagnostics and benchmarks only, never for writes. */
  readonly nodeRpcUrl: string;
  /** What the start restored: the snapshot loaded (Anvil), the journal entries replayed, the time it took. */
  readonly restored: ChainRestored;
  /** The supervisor's view: up, or down (since when, and how long a restart is expected to take). */
  status(): ChainStatus;
  /** Called on every change of status(); returns the unsubscribe. */
  onStatus(fn: (s: ChainStatus) => void): () => void;
  /** Anvil: takes a state snapshot now (resolves with its file; undefined on Hardhat, or while down). */
  snapshot(): Promise<string | undefined>;
  stop(): Promise<void>;
}

interface GenesisRecord {
  chainId: number;
  /** absent in data dirs made before Anvil was an option: hardhat */
  node?: ChainNodeKind;
  genesisTimestampS: number;
  genesisHash: string;
}

async function spawnChecked(
  options: StartChainOptions,
  genesis: { timestampS: number; expectedHash?: string },
  loadStateFile?: string,
): Promise<{ proc: ChainNodeProcess; node: RpcClient }> {
  const proc = await spawnChainNode(options.node ?? DEFAULT_CHAIN_NODE, {
    chainId: options.chainId,
    genesisTimestampS: genesis.timestampS,
    cpus: options.cpus,
    loadStateFile,
  });
  const node = createRpcClient(proc.rpcUrl);
  try {
    const head = await getHead(node, "0x0");
    if (genesis.expectedHash !== undefined && genesis.expectedHash !== head.hash) {
      throw new ChainStartError(
        `chain ${options.chainId}: genesis ${head.hash} differs from the recorded ${genesis.expectedHash} (another ${proc.kind} version or settings?); --reset`,
      );
    }
    return { proc, node };
  } catch (e) {
    node.close();
    await proc.stop();
    throw e;
  }
}

/** Starts a fresh node on the snapshot `file` (Anvil's --load-state, while its checksum is verified here)
 *  and replays the journal after it; throws when any step fails. */
async function bootFromSnapshot(
  options: StartChainOptions,
  genesis: { timestampS: number; expectedHash?: string },
  journalFile: string,
  file: string,
  t0: number,
): Promise<BootedNode> {
  const { header: h, stateOffset } = readSnapshotHeader(file);
  if (h.chainId !== options.chainId) throw new SnapshotCorruptError(file, `it is of chain ${h.chainId}`);
  let tail: JournalEntry[];
  try {
    tail = readJournalFrom(journalFile, h.journalBytes).entries;
  } catch (e) {
    // line 0: the journal does not reach the snapshot's position (or it is not an entry's start)
    if (e instanceof JournalCorruptError && e.details.line === 0)
      throw new SnapshotCorruptError(file, `it does not match the journal: ${(e.cause as Error).message}`);
    throw e;
  }
  // the checksum is read while the node loads the same file; a node that cannot load it is a bad snapshot
  // (the full journal's boot, the last fallback, shows a node that does not start at all)
  const t1 = performance.now();
  const verified = verifySnapshot(file, h, stateOffset);
  const spawned = spawnChecked(options, genesis, file).catch((e: unknown) => {
    throw e instanceof ChainStartError
      ? new SnapshotCorruptError(file, `the node could not load it: ${e.message.slice(0, 500)}`)
      : e;
  });
  const [check, started] = await Promise.allSettled([verified, spawned]);
  if (check.status === "rejected" || started.status === "rejected") {
    if (started.status === "fulfilled") {
      started.value.node.close();
      await started.value.proc.stop();
    }
    throw check.status === "rejected" ? check.reason : (started as PromiseRejectedResult).reason;
  }
  const { proc, node } = started.value;
  try {
    const loaded = await getHead(node);
    if (loaded.number !== h.head.number || loaded.hash !== h.head.hash) {
      throw new SnapshotCorruptError(
        file,
        `loaded head ${loaded.number} ${loaded.hash}, the header says ${h.head.number} ${h.head.hash}`,
      );
    }
    const tLoaded = performance.now();
    await replayJournal(node, tail, "anvil", h.journalEntries);
    const lastOffsetS = tail.length > 0 ? tail[tail.length - 1].offsetS : h.offsetS;
    await restoreClock(node, lastOffsetS);
    const now = performance.now();
    return {
      proc,
      node,
      kind: "anvil",
      entries: tail.length,
      journalEntries: h.journalEntries + tail.length,
      lastOffsetS,
      bootMs: now - t0,
      replayMs: now - t1,
      restored: {
        entries: tail.length,
        ms: Math.round(now - t1),
        snapshot: { journalEntries: h.journalEntries, bytes: h.stateBytes, loadMs: Math.round(tLoaded - t1) },
      },
    };
  } catch (e) {
    node.close();
    await proc.stop();
    throw e;
  }
}

export async function bootNode(
  options: StartChainOptions,
  genesis: { timestampS: number; expectedHash?: string },
  journalFile: string,
): Promise<BootedNode> {
  const t0 = performance.now();
  const kind = options.node ?? DEFAULT_CHAIN_NODE;
  const skipped: string[] = [];
  if (kind === "anvil" && genesis.expectedHash !== undefined) {
    for (const file of listSnapshots(snapshotDir(options.dataDir))) {
      try {
        const booted = await bootFromSnapshot(options, genesis, journalFile, file, t0);
        if (skipped.length > 0) booted.restored.skippedSnapshots = skipped;
        return booted;
      } catch (e) {
        // the journal itself damaged, or a node that does not start: no older snapshot helps
        if (e instanceof JournalCorruptError || e instanceof ChainStartError) throw e;
        skipped.push(`${file}: ${(e as Error).message}`);
      }
    }
  }
  const entries: JournalEntry[] = genesis.expectedHash !== undefined ? readJournalFrom(journalFile, 0).entries : [];
  const { proc, node } = await spawnChecked(options, genesis);
  try {
    const t1 = performance.now();
    await replayJournal(node, entries, kind);
    // no entry yet: the genesis's own offset (a fresh chain may begin in the past: StartChainOptions.genesisTimestampS)
    const lastOffsetS =
      entries.length > 0
        ? entries[entries.length - 1].offsetS
        : Math.min(0, genesis.timestampS - Math.floor(Date.now() / 1000));
    await restoreClock(node, lastOffsetS);
    const now = performance.now();
    const restored: ChainRestored = {
      entries: entries.length,
      ms: Math.round(now - t1),
      ...(skipped.length > 0 ? { skippedSnapshots: skipped } : {}),
    };
    return {
      proc,
      node,
      kind,
      entries: entries.length,
      journalEntries: entries.length,
      lastOffsetS,
      bootMs: now - t0,
      replayMs: now - t1,
      restored,
    };
  } catch (e) {
    node.close();
    await proc.stop();
    throw e;
  }
}

/** The data dir's genesis record (undefined on a fresh dir), checked against the chain id and node asked for. */
function readGenesisRecord(
  options: StartChainOptions,
  genesisFile: string,
  kind: ChainNodeKind,
): GenesisRecord | undefined {
  const recorded = fs.existsSync(genesisFile)
    ? (JSON.parse(fs.readFileSync(genesisFile, "utf8")) as GenesisRecord)
    : undefined;
  if (recorded && recorded.chainId !== options.chainId) {
    throw new ChainStartError(
      `${options.dataDir} holds chain ${recorded.chainId}, not ${options.chainId}; use another data dir or --reset`,
    );
  }
  if (recorded && (recorded.node ?? "hardhat") !== kind) {
    throw new ChainStartError(
      `${options.dataDir} holds a chain made by a ${recorded.node ?? "hardhat"} node, not ${kind}: set CHAIN_NODE=${recorded.node ?? "hardhat"}, or --reset to start afresh on ${kind}`,
    );
  }
  return recorded;
}

/** A fresh data dir: the genesis record written (no journal or snapshot of another chain left); its hash. */
async function recordGenesis(
  options: StartChainOptions,
  first: Awaited<ReturnType<typeof bootNode>>,
  kind: ChainNodeKind,
  genesisTimestampS: number,
): Promise<string> {
  const genesisFile = path.join(options.dataDir, "genesis.json");
  const genesis = await getHead(first.node, "0x0");
  const record: GenesisRecord = { chainId: options.chainId, node: kind, genesisTimestampS, genesisHash: genesis.hash };
  fs.rmSync(path.join(options.dataDir, "journal.jsonl"), { force: true });
  fs.rmSync(snapshotDir(options.dataDir), { recursive: true, force: true });
  fs.writeFileSync(`${genesisFile}.tmp`, JSON.stringify(record, null, 2));
  fs.renameSync(`${genesisFile}.tmp`, genesisFile);
  return genesis.hash;
}

export async function startChain(options: StartChainOptions): Promise<RunningChain> {
  const host = options.host ?? "127.0.0.1";
  fs.mkdirSync(options.dataDir, { recursive: true });
  const genesisFile = path.join(options.dataDir, "genesis.json");
  const journalFile = path.join(options.dataDir, "journal.jsonl");
  const kind = options.node ?? DEFAULT_CHAIN_NODE;
  const recorded = readGenesisRecord(options, genesisFile, kind);
  const genesisTimestampS = recorded?.genesisTimestampS ?? options.genesisTimestampS ?? Math.floor(Date.now() / 1000);
  const first = await bootNode(
    options,
    { timestampS: genesisTimestampS, expectedHash: recorded?.genesisHash },
    journalFile,
  );
  let genesisHash: string;
  try {
    genesisHash = recorded?.genesisHash ?? (await recordGenesis(options, first, kind, genesisTimestampS));
  } catch (e) {
    first.node.close();
    await first.proc.stop();
    throw e;
  }

  const supervisor = await superviseChain({
    chainId: options.chainId,
    journalFile,
    fsync: options.fsync ?? true,
    snapshots:
      kind === "anvil" && options.snapshots !== false
        ? { dir: snapshotDir(options.dataDir), ...(options.snapshots ?? DEFAULT_SNAPSHOT_POLICY) }
        : undefined,
    first,
    boot: () => bootNode(options, { timestampS: genesisTimestampS, expectedHash: genesisHash }, journalFile),
  });
  const proxy = await startChainProxy({
    host,
    port: options.port,
    upstream: supervisor.upstream,
    unavailable: supervisor.unavailable,
  }).catch(async (e: unknown) => {
    await supervisor.stop();
    if ((e as NodeJS.ErrnoException).code !== "EADDRINUSE") throw e;
    throw new ChainStartError(
      `chain ${options.chainId}: port ${options.port} is in use (another npm start?); set another port`,
    );
  });

  let stopping: Promise<void> | undefined;
  return {
    chainId: options.chainId,
    node: kind,
    rpcUrl: `http://${host}:${proxy.port}`,
    wsUrl: `ws://${host}:${proxy.port}`,
    port: proxy.port,
    get nodePid() {
      return supervisor.nodePid();
    },
    get nodeRpcUrl() {
      return supervisor.nodeRpcUrl();
    },
    restored: first.restored,
    snapshot: supervisor.snapshot,
    status: supervisor.status,
    onStatus: supervisor.onStatus,
    stop() {
      stopping ??= (async () => {
        await proxy.close();
        await supervisor.stop();
      })();
      return stopping;
    },
  };
}
