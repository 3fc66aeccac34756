// Test and bench helpers: a throwaway `hardhat node` (the stack's own launcher, scripts/chain/node-process.ts),
// and the event stub deployed on it.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createPublicClient, createWalletClient, http, type Address, type Hex } from "viem";
import { spawnHardhatNode } from "../../scripts/chain/node-process";

const stub = JSON.parse(readFileSync(join(__dirname, "MpcSimBridgeEventsStub.json"), "utf8")) as {
  abi: unknown[];
  bytecode: Hex;
};
export const STUB_ABI = stub.abi;

export interface TestChain {
  chainId: number;
  url: string;
  publicClient: ReturnType<typeof createPublicClient>;
  walletClient: ReturnType<typeof createWalletClient>;
  account: Address;
  stop(): Promise<void>;
}

export async function startHardhatChain(chainId: number): Promise<TestChain> {
  const node = await spawnHardhatNode({ chainId, genesisTimestampS: Math.floor(Date.now() / 1000) });
  const url = node.rpcUrl;
  const publicClient = createPublicClient({ transport: http(url), cacheTime: 0 });
  const walletClient = createWalletClient({ transport: http(url) });
  const [account] = await walletClient.getAddresses();
  return { chainId, url, publicClient, walletClient, account, stop: () => node.stop(3_000) };
}

export async function deployEventsStub(chain: TestChain): Promise<Address> {
  const hash = await chain.walletClient.deployContract({
    abi: stub.abi,
    bytecode: stub.bytecode,
    account: chain.account,
    chain: null,
  });
  const receipt = await chain.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 });
  return receipt.contractAddress!;
}

export interface DepositArgs {
  nonce: bigint;
  token: Address;
  recipient: Address;
  amountWei: bigint;
  dstChainId: bigint;
  dstContract: Address;
}

export async function emitDeposit(chain: TestChain, vault: Address, d: DepositArgs) {
  const hash = await chain.walletClient.writeContract({
    address: vault,
    abi: stub.abi,
    functionName: "deposit",
    args: [d.nonce, d.token, d.recipient, d.amountWei, d.dstChainId, d.dstContract],
    account: chain.account,
    chain: null,
  });
  return chain.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 });
}

export async function emitBurn(chain: TestChain, minter: Address, d: DepositArgs & { wrappedToken: Address }) {
  const hash = await chain.walletClient.writeContract({
    address: minter,
    abi: stub.abi,
    functionName: "burn",
    args: [d.nonce, d.wrappedToken, d.token, d.recipient, d.amountWei, d.dstChainId, d.dstContract],
    account: chain.account,
    chain: null,
  });
  return chain.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 });
}

export const mineBlocks = (chain: TestChain, n: number) =>
  chain.publicClient.request({ method: "hardhat_mine" as never, params: [`0x${n.toString(16)}`] as never });
