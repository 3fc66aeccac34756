// A throwaway `hardhat node` for the indexer tests (chain id 31337 unless told, automine): the stack's own
// node launcher (scripts/chain/node-process.ts) on a port the OS picks.
import { spawnHardhatNode } from "../../scripts/chain/node-process";

export interface TestChain {
  rpcUrl: string;
  port: number;
  stop(): Promise<void>;
}

export async function startHardhatNode(chainId = 31337): Promise<TestChain> {
  const node = await spawnHardhatNode({ chainId, genesisTimestampS: Math.floor(Date.now() / 1000) });
  return { rpcUrl: node.rpcUrl, port: Number(new URL(node.rpcUrl).port), stop: () => node.stop() };
}
