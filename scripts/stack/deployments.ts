// The deployments file (`<dataDir>/deployments.json`, or DEPLOYMENTS_FILE): chains, contract addresses and tokens. Its shape is
// the one indexer/deployments.ts reads (documented in indexer/README.md); written atomically.
import fs from "node:fs";
import path from "node:path";
import { z } from "zod";

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/);
const token = z.object({ address, decimals: z.number().int().min(0).max(255) });
const chain = z.object({
  chainId: z.number().int().positive(),
  rpcUrl: z.string().url(),
  wsUrl: z.string().url().optional(),
  startBlock: z.number().int().min(0),
  contracts: z.record(z.string(), address),
  tokens: z.record(z.string(), token),
});
export const deploymentsSchema = z.object({ home: chain, remote: chain });

export type Deployments = z.infer<typeof deploymentsSchema>;
export type ChainDeployment = Deployments["home"];
export type TokenDeployment = z.infer<typeof token>;

export function readDeployments(file: string): Deployments | undefined {
  if (!fs.existsSync(file)) return undefined;
  return deploymentsSchema.parse(JSON.parse(fs.readFileSync(file, "utf8")));
}

export function writeDeployments(file: string, deployments: Deployments): void {
  const valid = deploymentsSchema.parse(deployments);
  // a temp name of this process's own: several processes may share one DEPLOYMENTS_FILE
  const tmp = `${file}.${process.pid}.tmp`;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(tmp, `${JSON.stringify(valid, null, 2)}\n`);
  fs.renameSync(tmp, file);
}
