// The first part of a stack's start, in a module light enough to import before the rest of the stack
// (issue #13: restarts): the chains (their snapshot load, in their own processes) and the contracts'
// compile check begin here, so an entry point can start them and then load the stack's modules
// (~2 s of tsx on a loaded machine) while they come up. startStack({ begun }) continues from it;
// without `begun`, startStack begins itself.
import fs from "node:fs";
import path from "node:path";
import type { Config } from "../../config";
import { connectExternalChain } from "../chain/external-chain";
import { startChainInWorker } from "../chain/start-chain-worker";
import type { RunningChain } from "../chain/start-chain";
import { ensureCompiled, type CompileOutcome } from "./compile";

export interface StackBeginning {
  readonly config: Config;
  /** settled results, never rejected (startStack reads and reports the failures) */
  readonly settled: Promise<
    [PromiseSettledResult<CompileOutcome>, PromiseSettledResult<RunningChain>, PromiseSettledResult<RunningChain>]
  >;
}

/** A fresh home chain begins in the past when the simulated market replays history (simulator/replay.ts):
 *  SIMULATOR_HISTORY_DAYS before now, and an hour more for the deployment and seeding. */
export function historyGenesis(config: Config): number | undefined {
  const s = config.simulator;
  return s.enabled && s.historyDays > 0 ? Math.floor(Date.now() / 1000) - s.historyDays * 86_400 - 3_600 : undefined;
}

export function beginStack(config: Config, options: { reset?: boolean; onReset?(): void } = {}): StackBeginning {
  if (options.reset) {
    options.onReset?.();
    fs.rmSync(config.dataDir, { recursive: true, force: true });
  }
  fs.mkdirSync(config.dataDir, { recursive: true });
  const chainsDir = path.join(config.dataDir, "chains");
  // A chain by URL (HOME_CHAIN_RPC_URL / REMOTE_CHAIN_RPC_URL): no node of ours, its chain id checked.
  const startOne = (c: Config["chains"]["home"], cpus?: string, genesisTimestampS?: number) =>
    c.external
      ? connectExternalChain(c)
      : startChainInWorker({
          chainId: c.chainId,
          port: c.port,
          host: config.host,
          dataDir: path.join(chainsDir, String(c.chainId)),
          fsync: config.chainJournalFsync,
          node: config.chainNode,
          cpus,
          genesisTimestampS,
        });
  // Compilation and both chains start together: each is mostly a separate process's work.
  const settled = Promise.allSettled([
    ensureCompiled(),
    startOne(config.chains.home, config.homeChainCpus, historyGenesis(config)),
    startOne(config.chains.remote),
  ]);
  return { config, settled };
}
