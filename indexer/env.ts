// The one place the indexer process reads its environment (run.ts sets all of these for the child).
import path from "node:path";
import { defaultDeploymentsFile, findRepoRoot } from "./deployments";

export interface IndexerEnv {
  deploymentsFile: string;
  /** PGlite data directory, used when no databaseUrl is set */
  dataDir: string;
  databaseUrl: string | undefined;
  /** how often Ponder asks each chain for its latest block (>= 100, Ponder's minimum) */
  pollingIntervalMs: number;
}

export function readIndexerEnv(env: NodeJS.ProcessEnv = process.env): IndexerEnv {
  const pollingIntervalMs = Number(env.INDEXER_POLLING_INTERVAL_MS ?? 100);
  if (!Number.isInteger(pollingIntervalMs) || pollingIntervalMs < 100) {
    throw new Error(
      `INDEXER_POLLING_INTERVAL_MS must be an integer >= 100 (Ponder's minimum), got ${env.INDEXER_POLLING_INTERVAL_MS}`,
    );
  }
  return {
    deploymentsFile: env.DEPLOYMENTS_FILE ? path.resolve(env.DEPLOYMENTS_FILE) : defaultDeploymentsFile(),
    dataDir: env.INDEXER_DATA_DIR ? path.resolve(env.INDEXER_DATA_DIR) : path.join(findRepoRoot(), ".data", "ponder"),
    databaseUrl: env.DATABASE_URL || undefined,
    pollingIntervalMs,
  };
}
