// A real exchange on a real Hardhat node for the pipeline's tests and bench: demo tokens, the Settlement
// contract, an operator, and funded traders whose tokens are deposited.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  http,
  keccak256,
  toBytes,
  type Address,
  type Hex,
  type PublicClient,
  type WalletClient,
} from "viem";
import { privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { HARDHAT_DEV_PRIVATE_KEYS } from "../../config/dev-accounts";
import { startChain, type RunningChain } from "../../scripts/chain";
import { DEFAULT_MARKET_GRIDS, type MarketSpec } from "../markets";
import { loadArtifact } from "../../scripts/artifacts";

export interface Fixture {
  chain: RunningChain;
  chainDataDir: string;
  client: PublicClient;
  chainId: number;
  settlement: Address;
  weth: Address;
  usd: Address;
  deployBlock: bigint;
  market: MarketSpec;
  operatorKey: Hex;
  deployer: PrivateKeyAccount;
  traders: PrivateKeyAccount[];
  wallet(a: PrivateKeyAccount): WalletClient;
  makerFeeBps: number;
  takerFeeBps: number;
  /** send a transaction and wait for it */
  write(
    a: PrivateKeyAccount,
    address: Address,
    fn: string,
    args: unknown[],
    abiOf?: "settlement" | "token",
  ): Promise<void>;
  balanceOf(trader: Address, token: Address): Promise<bigint>;
  stop(): Promise<void>;
}

export interface FixtureOptions {
  traders?: number;
  /** per trader, deposited */
  wethUnits?: bigint;
  usdUnits?: bigint;
  makerFeeBps?: number;
  takerFeeBps?: number;
  withdrawalDelaySec?: number;
  /** reuse a chain data dir (restart) */
  chainDataDir?: string;
}

export async function startFixture(o: FixtureOptions = {}): Promise<Fixture> {
  const chainId = 31337;
  const chainDataDir = o.chainDataDir ?? mkdtempSync(join(tmpdir(), "pipeline-chain-"));
  const chain = await startChain({ chainId, port: 0, dataDir: chainDataDir, fsync: false });
  const vchain = defineChain({
    id: chainId,
    name: "home",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [chain.rpcUrl] } },
  });
  const client = createPublicClient({
    chain: vchain,
    transport: http(chain.rpcUrl),
    pollingInterval: 10,
  }) as PublicClient;
  const wallet = (a: PrivateKeyAccount) =>
    createWalletClient({ chain: vchain, transport: http(chain.rpcUrl), account: a });
  const deployer = privateKeyToAccount(HARDHAT_DEV_PRIVATE_KEYS[0]);
  const operatorKey = HARDHAT_DEV_PRIVATE_KEYS[1] as Hex;
  const feeRecipient = privateKeyToAccount(HARDHAT_DEV_PRIVATE_KEYS[2]);
  const nTraders = o.traders ?? 2;
  const traders = Array.from({ length: nTraders }, (_, i) =>
    privateKeyToAccount(HARDHAT_DEV_PRIVATE_KEYS[4 + i] as Hex),
  );
  const token = loadArtifact("DemoToken");
  const settlementArt = loadArtifact("Settlement");
  const makerFeeBps = o.makerFeeBps ?? 5;
  const takerFeeBps = o.takerFeeBps ?? 10;

  async function deploy(
    abi: typeof token.abi,
    bytecode: Hex,
    args: unknown[],
  ): Promise<{ address: Address; block: bigint }> {
    const hash = await wallet(deployer).deployContract({ abi, bytecode, args, account: deployer, chain: vchain });
    const r = await client.waitForTransactionReceipt({ hash });
    return { address: r.contractAddress!, block: r.blockNumber };
  }
  const write: Fixture["write"] = async (a, address, fn, args, abiOf = "settlement") => {
    const abi = abiOf === "settlement" ? settlementArt.abi : token.abi;
    const hash = await wallet(a).writeContract({
      address,
      abi,
      functionName: fn,
      args,
      account: a,
      chain: vchain,
    } as never);
    const r = await client.waitForTransactionReceipt({ hash });
    if (r.status !== "success") throw new Error(`${fn} reverted`);
  };

  const weth = (await deploy(token.abi, token.bytecode, ["Wrapped Ether", "WETH", 18])).address;
  const usd = (await deploy(token.abi, token.bytecode, ["Demo USD", "USD", 6])).address;
  const s = await deploy(settlementArt.abi, settlementArt.bytecode, [
    deployer.address,
    feeRecipient.address,
    BigInt(o.withdrawalDelaySec ?? 3600),
    makerFeeBps,
    takerFeeBps,
  ]);
  await write(deployer, s.address, "grantRole", [
    keccak256(toBytes("OPERATOR_ROLE")),
    privateKeyToAccount(operatorKey).address,
  ]);
  const wethUnits = o.wethUnits ?? 100n * 10n ** 18n;
  const usdUnits = o.usdUnits ?? 1_000_000n * 10n ** 6n;
  for (const t of traders) {
    await write(deployer, weth, "mint", [t.address, wethUnits], "token");
    await write(deployer, usd, "mint", [t.address, usdUnits], "token");
    await write(t, weth, "approve", [s.address, wethUnits], "token");
    await write(t, usd, "approve", [s.address, usdUnits], "token");
    await write(t, s.address, "deposit", [weth, wethUnits]);
    await write(t, s.address, "deposit", [usd, usdUnits]);
  }
  const market: MarketSpec = {
    symbol: "WETH-USD",
    baseToken: weth,
    quoteToken: usd,
    ...DEFAULT_MARKET_GRIDS["WETH-USD"],
  };
  return {
    chain,
    chainDataDir,
    client,
    chainId,
    settlement: s.address,
    weth,
    usd,
    deployBlock: s.block,
    market,
    operatorKey,
    deployer,
    traders,
    wallet,
    makerFeeBps,
    takerFeeBps,
    write,
    async balanceOf(trader, tok) {
      return (await client.readContract({
        address: s.address,
        abi: settlementArt.abi,
        functionName: "balanceOf",
        args: [trader, tok],
      })) as bigint;
    },
    async stop() {
      await chain.stop();
      if (!o.chainDataDir) rmSync(chainDataDir, { recursive: true, force: true });
    },
  };
}
