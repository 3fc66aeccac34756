// The deployments file is the one place the indexer learns chains, contract addresses and the token
// registry. It is written at deploy time by others (scripts/deploy*, `npm start`), so it is validated
// here before any of it reaches Ponder: a typo fails loudly at start, not as an empty table later.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";

const addressSchema = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, "expected a 20-byte hex address")
  .transform((a) => a.toLowerCase() as `0x${string}`);

const tokenSchema = z.object({ address: addressSchema, decimals: z.number().int().min(0).max(255) });

const chainSchema = z.object({
  chainId: z.number().int().positive(),
  rpcUrl: z.string().url(),
  startBlock: z.number().int().min(0).default(0),
  contracts: z.record(z.string(), addressSchema).default({}),
  tokens: z.record(z.string(), tokenSchema).default({}),
});

export const deploymentsSchema = z.object({
  home: chainSchema,
  remote: chainSchema.optional(),
});

export type Deployments = z.infer<typeof deploymentsSchema>;
export type ChainDeployment = z.infer<typeof chainSchema>;

/** The repository root: the nearest ancestor of `from` holding `indexer/ponder.config.ts`. */
export function findRepoRoot(from: string = process.cwd()): string {
  let dir = path.resolve(from);
  for (;;) {
    if (existsSync(path.join(dir, "indexer", "ponder.config.ts"))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return path.resolve(from);
    dir = parent;
  }
}

export function defaultDeploymentsFile(): string {
  return path.join(findRepoRoot(), ".data", "deployments.json");
}

export function parseDeployments(json: unknown): Deployments {
  return deploymentsSchema.parse(json);
}

export function loadDeployments(file: string = defaultDeploymentsFile()): Deployments {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (cause) {
    throw new Error(`indexer: cannot read the deployments file ${file} (set DEPLOYMENTS_FILE)`, { cause });
  }
  return parseDeployments(JSON.parse(text));
}

/** Symbol of every token of one chain, by lowercase address (one chain at a time: two chains can hold
 *  different tokens at the same address, as deterministic deployments on fresh chains do). */
export function tokenSymbols(chain: ChainDeployment): Map<string, string> {
  const symbols = new Map<string, string>();
  for (const [symbol, token] of Object.entries(chain.tokens)) symbols.set(token.address, symbol);
  return symbols;
}
