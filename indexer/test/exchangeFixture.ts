// Deploys the real exchange contracts (DemoToken x2, Settlement) on a test chain with viem, from the
// Hardhat artifacts, and funds two traders. Test-only: `npm start` deploys with its own script.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import {
  type Abi,
  type Address,
  type Hex,
  createPublicClient,
  createWalletClient,
  defineChain,
  http,
  keccak256,
  toBytes,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";

const repoRoot = path.resolve(__dirname, "..", "..");

/** Hardhat's well-known development keys (accounts #0..#2). */
export const DEV_KEYS = {
  admin: "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
  maker: "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
  taker: "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a",
} as const;

interface Artifact {
  abi: Abi;
  bytecode: Hex;
}

/** Compiles the exchange area (incremental: fast when nothing changed) and reads an artifact. */
export function loadExchangeArtifact(file: string, name: string): Artifact {
  const dir = path.join(repoRoot, "artifacts-exchange", "contracts", "exchange");
  const artifactPath = path.join(dir, file, `${name}.json`);
  try {
    execFileSync(process.execPath, [path.join(repoRoot, "node_modules", "hardhat", "internal", "cli", "cli.js"), "compile", "--quiet"], {
      cwd: repoRoot,
      env: { ...process.env, HARDHAT_AREA: "exchange" },
      stdio: "pipe",
    });
  } catch (error) {
    if (!existsSync(artifactPath)) throw error;
  }
  const json = JSON.parse(readFileSync(artifactPath, "utf8")) as Artifact;
  return { abi: json.abi, bytecode: json.bytecode };
}

export async function deployExchange(rpcUrl: string) {
  const chain = defineChain({
    id: 31337,
    name: "home",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  const publicClient = createPublicClient({ chain, transport: http(rpcUrl) });
  const admin = privateKeyToAccount(DEV_KEYS.admin);
  const maker = privateKeyToAccount(DEV_KEYS.maker);
  const taker = privateKeyToAccount(DEV_KEYS.taker);
  const wallet = (account: typeof admin) => createWalletClient({ chain, account, transport: http(rpcUrl) });

  const tokenArtifact = loadExchangeArtifact("tokens/DemoToken.sol", "DemoToken");
  const settlementArtifact = loadExchangeArtifact("Settlement.sol", "Settlement");

  async function deploy(artifact: Artifact, args: unknown[]): Promise<Address> {
    const hash = await wallet(admin).deployContract({ abi: artifact.abi, bytecode: artifact.bytecode, args });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    return receipt.contractAddress!;
  }

  async function send(account: typeof admin, address: Address, abi: Abi, functionName: string, args: unknown[]) {
    const hash = await wallet(account).writeContract({ address, abi, functionName, args } as never);
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== "success") throw new Error(`${functionName} reverted`);
    return receipt;
  }

  const usd = await deploy(tokenArtifact, ["Demo USD", "USD", 6]);
  const weth = await deploy(tokenArtifact, ["Wrapped Ether", "WETH", 18]);
  const makerFeeBps = 10;
  const takerFeeBps = 25;
  const settlement = await deploy(settlementArtifact, [admin.address, admin.address, 0n, makerFeeBps, takerFeeBps]);
  await send(admin, settlement, settlementArtifact.abi, "grantRole", [keccak256(toBytes("OPERATOR_ROLE")), admin.address]);
  const startBlock = 0;

  return {
    chain,
    publicClient,
    accounts: { admin, maker, taker },
    contracts: { usd, weth, settlement },
    abis: { token: tokenArtifact.abi, settlement: settlementArtifact.abi },
    fees: { makerFeeBps, takerFeeBps },
    startBlock,
    send,
  };
}

export type ExchangeFixture = Awaited<ReturnType<typeof deployExchange>>;
