// Test and bench helpers: a throwaway `hardhat node` on a free port, and the event stub deployed on it.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { createPublicClient, createWalletClient, http, type Address, type Hex } from "viem";
import { freePort } from "../cluster";

const ROOT = resolve(__dirname, "../..");
const stub = JSON.parse(readFileSync(join(__dirname, "MpcSimBridgeEventsStub.json"), "utf8")) as { abi: unknown[]; bytecode: Hex };
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
  const port = await freePort();
  const child = spawn(process.execPath, [join(ROOT, "node_modules/hardhat/internal/cli/cli.js"), "node", "--port", String(port), "--hostname", "127.0.0.1"], {
    cwd: ROOT,
    env: { ...process.env, HARDHAT_CHAIN_ID: String(chainId) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    const t = setTimeout(() => child.kill("SIGKILL"), 3_000);
    await exited;
    clearTimeout(t);
  };
  process.once("exit", () => child.kill("SIGKILL"));
  await new Promise<void>((res, rej) => {
    let out = "";
    const timer = setTimeout(() => rej(new Error(`hardhat node did not start: ${out}`)), 30_000);
    child.stdout!.on("data", (d) => {
      out += d;
      if (out.includes("Started HTTP")) {
        clearTimeout(timer);
        res();
      }
    });
    child.stderr!.on("data", (d) => (out += d));
    child.once("exit", () => rej(new Error(`hardhat node exited: ${out}`)));
  });
  child.stdout!.resume();
  const url = `http://127.0.0.1:${port}`;
  const publicClient = createPublicClient({ transport: http(url), cacheTime: 0 });
  const walletClient = createWalletClient({ transport: http(url) });
  const [account] = await walletClient.getAddresses();
  return { chainId, url, publicClient, walletClient, account, stop };
}

export async function deployEventsStub(chain: TestChain): Promise<Address> {
  const hash = await chain.walletClient.deployContract({ abi: stub.abi, bytecode: stub.bytecode, account: chain.account, chain: null });
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
