// deployExchange: the exchange contracts on the home chain, with viem (not hre). Deploys the demo tokens
// (USD 6 decimals; WETH and WBTC 18 decimals), then Settlement, and grants OPERATOR_ROLE to the operator.
// Bytecode comes from the Hardhat artifacts (scripts/artifacts.ts), the ABIs from sdk/abi/.
// Accepts both the option names of the brief (deployerKey, operator, feeRecipient) and those of
// scripts/stack/exchange.ts (deployerPrivateKey, operatorAddress, feeRecipientAddress).
import { createPublicClient, createWalletClient, defineChain, http, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { settlementAbi } from "../sdk/abi";
import { OPERATOR_ROLE } from "../sdk/eip712";
import { loadArtifact } from "./artifacts";

export interface DeployExchangeOptions {
  rpcUrl: string;
  deployerKey?: Hex;
  deployerPrivateKey?: Hex;
  operator?: Address;
  operatorAddress?: Address;
  /** default: the deployer */
  feeRecipient?: Address;
  feeRecipientAddress?: Address;
  /** default: the deployer */
  admin?: Address;
  /** default 60 s (a local chain); the contract caps it at 7 days */
  withdrawalDelaySec?: number;
  /** defaults 2 and 5 bps; the contract caps both at 100 */
  makerFeeBps?: number;
  takerFeeBps?: number;
  /** default: asked from the node */
  chainId?: number;
  /** default `<repo>/artifacts` (falls back to `artifacts-exchange`) */
  artifactsDir?: string;
}

export interface ExchangeDeployment {
  chainId: number;
  /** `Settlement` */
  contracts: Record<string, Address>;
  /** USD, WETH, WBTC */
  tokens: Record<string, { address: Address; decimals: number }>;
  settlement: Address;
  /** the block of the Settlement deployment (the indexer's start block) */
  startBlock: number;
  operator: Address;
  feeRecipient: Address;
  admin: Address;
}

export const DEMO_TOKENS = [
  { symbol: "USD", name: "Demo USD", decimals: 6 },
  { symbol: "WETH", name: "Demo Wrapped Ether", decimals: 18 },
  { symbol: "WBTC", name: "Demo Wrapped Bitcoin", decimals: 18 },
] as const;

export async function deployExchange(opts: DeployExchangeOptions): Promise<ExchangeDeployment> {
  const key = opts.deployerKey ?? opts.deployerPrivateKey;
  const operator = opts.operator ?? opts.operatorAddress;
  if (!key) throw new Error("deployExchange: deployerKey is required");
  if (!operator) throw new Error("deployExchange: operator is required");
  const account = privateKeyToAccount(key);
  const probe = createPublicClient({ transport: http(opts.rpcUrl) });
  const chainId = opts.chainId ?? (await probe.getChainId());
  const chain = defineChain({
    id: chainId,
    name: `chain-${chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [opts.rpcUrl] } },
  });
  const publicClient = createPublicClient({ chain, transport: http(opts.rpcUrl) });
  const wallet = createWalletClient({ account, chain, transport: http(opts.rpcUrl) });
  const admin = opts.admin ?? account.address;
  const feeRecipient = opts.feeRecipient ?? opts.feeRecipientAddress ?? account.address;

  const deploy = async (name: "DemoToken" | "Settlement", args: readonly unknown[]) => {
    const { abi, bytecode } = loadArtifact(name, opts.artifactsDir);
    const hash = await wallet.deployContract({ abi, bytecode, args });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== "success" || !receipt.contractAddress) throw new Error(`deploying ${name} failed (${hash})`);
    return { address: receipt.contractAddress, blockNumber: Number(receipt.blockNumber) };
  };

  const tokens: ExchangeDeployment["tokens"] = {};
  for (const t of DEMO_TOKENS) {
    tokens[t.symbol] = {
      address: (await deploy("DemoToken", [t.name, t.symbol, t.decimals])).address,
      decimals: t.decimals,
    };
  }
  const settlement = await deploy("Settlement", [
    // the deployer administers until the role grant below; then `admin` (if different) takes over
    account.address,
    feeRecipient,
    BigInt(opts.withdrawalDelaySec ?? 60),
    opts.makerFeeBps ?? 2,
    opts.takerFeeBps ?? 5,
  ]);
  const grant = async (role: Hex, to: Address) => {
    const hash = await wallet.writeContract({
      address: settlement.address,
      abi: settlementAbi,
      functionName: "grantRole",
      args: [role, to],
    });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== "success") throw new Error(`grantRole failed (${hash})`);
  };
  await grant(OPERATOR_ROLE, operator);
  if (admin.toLowerCase() !== account.address.toLowerCase()) {
    await grant("0x0000000000000000000000000000000000000000000000000000000000000000", admin);
    const hash = await wallet.writeContract({
      address: settlement.address,
      abi: settlementAbi,
      functionName: "renounceRole",
      args: ["0x0000000000000000000000000000000000000000000000000000000000000000", account.address],
    });
    await publicClient.waitForTransactionReceipt({ hash });
  }
  return {
    chainId,
    contracts: { Settlement: settlement.address },
    tokens,
    settlement: settlement.address,
    startBlock: settlement.blockNumber,
    operator,
    feeRecipient,
    admin,
  };
}
