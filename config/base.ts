// Constants with no dependencies, re-exported by config/index.ts. The chain layer (scripts/chain/, which
// runs on worker threads of its own) imports them from here: config/index.ts loads zod and viem, ~0.6 s on
// each chain thread before its node could spawn (issue #13, restarts).
import path from "node:path";

/**
 * The repository root: defaults (data dir, artifacts) are relative to it, not to the caller's cwd.
 * (`__dirname` is missing when an ES-module host such as Ponder's loads this file: then the cwd, which
 * those hosts are started in.)
 */
export const REPO_ROOT = typeof __dirname !== "undefined" ? path.resolve(__dirname, "..") : process.cwd();

/** The chain node `npm start`, the stacks and the benches run when CHAIN_NODE is not set. */
export const DEFAULT_CHAIN_NODE: "anvil" | "hardhat" = "anvil";

/** A comma-separated setting as its items: each trimmed, empty ones dropped. */
export function commaList(s: string): string[] {
  return s
    .split(",")
    .map((x) => x.trim())
    .filter((x) => x.length > 0);
}
