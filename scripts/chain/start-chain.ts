// startChain: a Hardhat JSON-RPC node that keeps its state across restarts. The node itself is in
// memory (Hardhat 2 has no state dump: NomicFoundation/hardhat#3599, edr#409), so a proxy on the public
// port journals every state-changing call and a restart replays the journal into a fresh node before
// the port opens. The node is supervised: when it dies on its own, the proxy keeps the public port and
// answers "unavailable" (HTTP 503, a JSON-RPC error naming the chain), a fresh node is started, the
// journal replayed into it, and the proxy serves again (supervisor.ts). See docs/decisions/stack.md.
import fs from "node:fs";
import path from "node:path";
import { readJournal } from "./journal";
import { spawnHardhatNode, ChainStartError, type HardhatNodeProcess } from "./node-process";
import { startChainProxy } from "./proxy";
import { getHead } from "./recorder";
import { replayJournal, restoreClock } from "./replay";
import { createRpcClient, type RpcClient } from "./rpc-client";
import { superviseChain, type ChainStatus } from "./supervisor";

export type { ChainStatus } from "./supervisor";

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
}

export interface RunningChain {
  readonly chainId: number;
  readonly rpcUrl: string;
  readonly wsUrl: string;
  readonly port: number;
  /** The Hardhat node behind the proxy (private port): its pid, for process checks (a new one after the
   *  supervisor restarted the node). */
  readonly nodePid: number;
  /** The node's own URL, bypassing the journal: for diagnostics and benchmarks only, never for writes. */
  readonly nodeRpcUrl: string;
  /** What the start replayed: journal entries and the time it took. */
  readonly restored: { entries: number; ms: number };
  /** The supervisor's view: up, or down (since when, and how long a restart is expected to take). */
  status(): ChainStatus;
  /** Called on every change of status(); returns the unsubscribe. */
  onStatus(fn: (s: ChainStatus) => void): () => void;
  stop(): Promise<void>;
}

interface GenesisRecord {
  chainId: number;
  genesisTimestampS: number;
  genesisHash: string;
}

/** A fresh node with the journal replayed into it: what a start and a supervised restart both do. */
export interface BootedNode {
  proc: HardhatNodeProcess;
  node: RpcClient;
  entries: number;
  /** spawn + replay, ms */
  bootMs: number;
  /** replay only, ms */
  replayMs: number;
}

export async function bootNode(
  options: StartChainOptions,
  genesis: { timestampS: number; expectedHash?: string },
  journalFile: string,
): Promise<BootedNode> {
  const t0 = performance.now();
  const entries = genesis.expectedHash !== undefined ? readJournal(journalFile) : [];
  const proc = await spawnHardhatNode({ chainId: options.chainId, genesisTimestampS: genesis.timestampS, cpus: options.cpus });
  const node = createRpcClient(proc.rpcUrl);
  try {
    const t1 = performance.now();
    const head = await getHead(node, "0x0");
    if (genesis.expectedHash !== undefined && genesis.expectedHash !== head.hash) {
      throw new ChainStartError(`chain ${options.chainId}: genesis ${head.hash} differs from the recorded ${genesis.expectedHash}; --reset`);
    }
    await replayJournal(node, entries);
    await restoreClock(node, entries.length > 0 ? entries[entries.length - 1].offsetS : 0);
    const now = performance.now();
    return { proc, node, entries: entries.length, bootMs: now - t0, replayMs: now - t1 };
  } catch (e) {
    node.close();
    await proc.stop();
    throw e;
  }
}

export async function startChain(options: StartChainOptions): Promise<RunningChain> {
  const host = options.host ?? "127.0.0.1";
  fs.mkdirSync(options.dataDir, { recursive: true });
  const genesisFile = path.join(options.dataDir, "genesis.json");
  const journalFile = path.join(options.dataDir, "journal.jsonl");
  const recorded = fs.existsSync(genesisFile) ? (JSON.parse(fs.readFileSync(genesisFile, "utf8")) as GenesisRecord) : undefined;
  if (recorded && recorded.chainId !== options.chainId) {
    throw new ChainStartError(
      `${options.dataDir} holds chain ${recorded.chainId}, not ${options.chainId}; use another data dir or --reset`,
    );
  }
  const genesisTimestampS = recorded?.genesisTimestampS ?? Math.floor(Date.now() / 1000);
  const first = await bootNode(options, { timestampS: genesisTimestampS, expectedHash: recorded?.genesisHash }, journalFile);
  try {
    if (!recorded) {
      const genesis = await getHead(first.node, "0x0");
      const record: GenesisRecord = { chainId: options.chainId, genesisTimestampS, genesisHash: genesis.hash };
      fs.rmSync(journalFile, { force: true });
      fs.writeFileSync(`${genesisFile}.tmp`, JSON.stringify(record, null, 2));
      fs.renameSync(`${genesisFile}.tmp`, genesisFile);
    }
  } catch (e) {
    first.node.close();
    await first.proc.stop();
    throw e;
  }
  const genesisHash = recorded?.genesisHash ?? (JSON.parse(fs.readFileSync(genesisFile, "utf8")) as GenesisRecord).genesisHash;

  const supervisor = await superviseChain({
    chainId: options.chainId,
    journalFile,
    fsync: options.fsync ?? true,
    first,
    boot: () => bootNode(options, { timestampS: genesisTimestampS, expectedHash: genesisHash }, journalFile),
  });
  const proxy = await startChainProxy({ host, port: options.port, upstream: supervisor.upstream, unavailable: supervisor.unavailable }).catch(async (e: unknown) => {
    await supervisor.stop();
    if ((e as NodeJS.ErrnoException).code !== "EADDRINUSE") throw e;
    throw new ChainStartError(`chain ${options.chainId}: port ${options.port} is in use (another npm start?); set another port`);
  });

  let stopping: Promise<void> | undefined;
  return {
    chainId: options.chainId,
    rpcUrl: `http://${host}:${proxy.port}`,
    wsUrl: `ws://${host}:${proxy.port}`,
    port: proxy.port,
    get nodePid() {
      return supervisor.nodePid();
    },
    get nodeRpcUrl() {
      return supervisor.nodeRpcUrl();
    },
    restored: { entries: first.entries, ms: Math.round(first.replayMs) },
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
