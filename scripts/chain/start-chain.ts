// startChain: a Hardhat JSON-RPC node that keeps its state across restarts. The node itself is in
// memory (Hardhat 2 has no state dump: NomicFoundation/hardhat#3599, edr#409), so a proxy on the public
// port journals every state-changing call and a restart replays the journal into a fresh node before
// the port opens. See docs/decisions.md, "Runtime".
import fs from "node:fs";
import path from "node:path";
import { readJournal, openJournalWriter } from "./journal";
import { spawnHardhatNode, ChainStartError } from "./node-process";
import { startChainProxy } from "./proxy";
import { createRecorder, getHead } from "./recorder";
import { replayJournal, restoreClock } from "./replay";
import { createRpcClient } from "./rpc-client";

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
  /** The Hardhat node behind the proxy (private port): its pid, for process checks. */
  readonly nodePid: number;
  /** The node's own URL, bypassing the journal: for diagnostics and benchmarks only, never for writes. */
  readonly nodeRpcUrl: string;
  /** What the start replayed: journal entries and the time it took. */
  readonly restored: { entries: number; ms: number };
  stop(): Promise<void>;
}

interface GenesisRecord {
  chainId: number;
  genesisTimestampS: number;
  genesisHash: string;
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
  const entries = recorded ? readJournal(journalFile) : [];
  const genesisTimestampS = recorded?.genesisTimestampS ?? Math.floor(Date.now() / 1000);

  const proc = await spawnHardhatNode({ chainId: options.chainId, genesisTimestampS, cpus: options.cpus });
  const node = createRpcClient(proc.rpcUrl);
  try {
    const t0 = performance.now();
    const genesis = await getHead(node, "0x0");
    if (recorded && recorded.genesisHash !== genesis.hash) {
      throw new ChainStartError(
        `chain ${options.chainId}: genesis ${genesis.hash} differs from the recorded ${recorded.genesisHash}; --reset`,
      );
    }
    if (!recorded) {
      const record: GenesisRecord = { chainId: options.chainId, genesisTimestampS, genesisHash: genesis.hash };
      fs.rmSync(journalFile, { force: true });
      fs.writeFileSync(`${genesisFile}.tmp`, JSON.stringify(record, null, 2));
      fs.renameSync(`${genesisFile}.tmp`, genesisFile);
    }
    await replayJournal(node, entries);
    await restoreClock(node, entries.length > 0 ? entries[entries.length - 1].offsetS : 0);
    const restoredMs = performance.now() - t0;

    const journal = await openJournalWriter(journalFile, { fsync: options.fsync ?? true });
    const recorder = createRecorder({ node, journal, initialHead: await getHead(node) });
    const proxy = await startChainProxy({ host, port: options.port, node, nodeWsUrl: proc.wsUrl, recorder }).catch((e: unknown) => {
      if ((e as NodeJS.ErrnoException).code !== "EADDRINUSE") throw e;
      throw new ChainStartError(`chain ${options.chainId}: port ${options.port} is in use (another npm start?); set another port`);
    });

    let stopping: Promise<void> | undefined;
    return {
      chainId: options.chainId,
      rpcUrl: `http://${host}:${proxy.port}`,
      wsUrl: `ws://${host}:${proxy.port}`,
      port: proxy.port,
      nodePid: proc.pid,
      nodeRpcUrl: proc.rpcUrl,
      restored: { entries: entries.length, ms: Math.round(restoredMs) },
      stop() {
        stopping ??= (async () => {
          await proxy.close();
          await journal.close();
          node.close();
          await proc.stop();
        })();
        return stopping;
      },
    };
  } catch (e) {
    node.close();
    await proc.stop();
    throw e;
  }
}
