// The provisioning child: the one short-lived process that signs with the deployer's (admin) key. The
// serving process (`npm start`, `startStack`) spawns it with the key in its environment only
// (`DEPLOYER_PRIVATE_KEY`, else the sandbox's Hardhat dev key #0), writes the job as JSON on its stdin;
// it deploys, writes the deployments file, prints `PROVISION_RESULT <json>` as its last stdout line and
// exits. Logs go to stderr. A job naming another deployer than the key's is refused before any call.
import { parseAbi, type Address, type Hex } from "viem";
import { loadDeployerKey } from "../../config/deployer-secret";
import { settlementAbi } from "../../sdk/abi";
import { OPERATOR_ROLE } from "../../sdk/eip712";
import { deployCustodyBridge } from "../deploy-custody";
import { createRpcClient } from "../chain";
import { deployBridge } from "../deploy-bridge";
import { createChainClients } from "./clients";
import { readDeployments, writeDeployments, type Deployments } from "./deployments";
import { deployExchangeContracts } from "./exchange";
import {
  BRIDGE_DEMO_WALLET_WHOLE_TOKENS,
  provisionJobSchema,
  RESULT_PREFIX,
  type AssetsJob,
  type BridgeJob,
  type ExchangeJob,
  type OperatorsJob,
} from "./provision-job";
import { bridgedTokens, deployAssetTokens } from "./assets";
import { seedDemoTraders } from "./seed";
import { deploySandboxFunding } from "./sandbox-funding";

async function nextBlock(rpcUrl: string): Promise<number> {
  const rpc = createRpcClient(rpcUrl);
  try {
    return Number(await rpc.call<string>("eth_blockNumber")) + 1;
  } finally {
    rpc.close();
  }
}

async function provisionExchange(job: ExchangeJob, deployerKey: Hex) {
  const startBlocks = { home: await nextBlock(job.home.rpcUrl), remote: await nextBlock(job.remote.rpcUrl) };
  const exchange = await deployExchangeContracts({
    chainId: job.home.chainId,
    rpcUrl: job.home.rpcUrl,
    deployerKey,
    operator: job.operator,
    feeRecipient: job.feeRecipient,
  });
  console.error(`exchange contracts deployed: ${JSON.stringify(exchange.contracts)}`);
  const seeded = await seedDemoTraders(
    { chainId: job.home.chainId, rpcUrl: job.home.rpcUrl, deployerKey, demoTraderKeys: job.demoTraderKeys },
    exchange,
  );
  if (job.funder) {
    exchange.contracts.SandboxFunding = await deploySandboxFunding(
      { chainId: job.home.chainId, rpcUrl: job.home.rpcUrl, deployerKey, funder: job.funder },
      exchange,
    );
  }
  const deployments: Deployments = {
    home: {
      ...job.home,
      startBlock: startBlocks.home,
      contracts: { ...exchange.contracts },
      tokens: { ...exchange.tokens },
    },
    // the bridge's contracts are added by a bridge job (it needs the signer nodes' key first)
    remote: { ...job.remote, startBlock: startBlocks.remote, contracts: {}, tokens: {} },
  };
  writeDeployments(job.deploymentsFile, deployments);
  return { seeded: seeded.map((s) => ({ ...s, amountBaseUnits: s.amountBaseUnits.toString() })) };
}

const demoTokenMintAbi = parseAbi(["function mint(address to, uint256 amount)"]);

async function provisionBridge(job: BridgeJob, deployerKey: Hex) {
  const current = readDeployments(job.deploymentsFile);
  if (!current)
    throw new Error(`bridge provisioning: no deployments file at ${job.deploymentsFile} (the exchange comes first)`);
  const remoteStartBlock = (await nextBlock(job.remote.rpcUrl)) - 1;
  const tokens = bridgedTokens(current.home.tokens).map(([symbol, t]) => ({
    address: t.address as Address,
    symbol,
    decimals: t.decimals,
  }));
  const common = {
    homeRpcUrl: job.home.rpcUrl,
    remoteRpcUrl: job.remote.rpcUrl,
    deployerKey,
    groupPublicKey: job.groupPublicKey,
    hsmAddress: job.hsmAddress,
    tokens,
    challengePeriodSec: job.challengePeriodSec,
  };
  const native = await deployBridge(common);
  const custody = await deployCustodyBridge({ ...common, custodyOwner: job.custodyOwner });
  const wrapped = (suffix: string, of: Record<string, Address>) =>
    Object.fromEntries(tokens.map((t) => [`${t.symbol}${suffix}`, { address: of[t.symbol], decimals: t.decimals }]));
  writeDeployments(job.deploymentsFile, {
    home: {
      ...current.home,
      contracts: {
        ...current.home.contracts,
        BridgeVault: native.home.vault,
        BridgeFrostVerifier: native.home.verifier,
        BridgeSafe: native.home.safe,
        CustodyBridgeVault: custody.home.vault,
        CustodyBridgeVerifier: custody.custody.homeVerifier,
      },
    },
    remote: {
      ...current.remote,
      startBlock: current.remote.startBlock || remoteStartBlock,
      contracts: {
        ...current.remote.contracts,
        BridgeMinter: native.remote.minter,
        BridgeFrostVerifier: native.remote.verifier,
        BridgeSafe: native.remote.safe,
        CustodyBridgeMinter: custody.remote.minter,
        CustodyBridgeVerifier: custody.custody.remoteVerifier,
        CustodyWallet: custody.custody.remoteWallet,
      },
      tokens: {
        ...current.remote.tokens,
        ...wrapped("", native.remote.wrappedTokens),
        ...wrapped(".custody", custody.remote.wrappedTokens),
      },
    },
  });
  console.error(`bridge contracts deployed: vault ${native.home.vault}, minter ${native.remote.minter}`);
  // the demo traders' wallets (not Settlement) get bridged tokens to try the portal's deposits with
  const { publicClient, wallet } = createChainClients(job.home.chainId, job.home.rpcUrl);
  const deployer = wallet(deployerKey);
  for (const t of tokens) {
    const whole = BRIDGE_DEMO_WALLET_WHOLE_TOKENS[t.symbol];
    if (whole === undefined) continue;
    for (const to of job.demoWallets) {
      const hash = await deployer.writeContract({
        address: t.address,
        abi: demoTokenMintAbi,
        functionName: "mint",
        args: [to, whole * 10n ** BigInt(t.decimals)],
      });
      if ((await publicClient.waitForTransactionReceipt({ hash })).status !== "success")
        throw new Error(`bridge provisioning: minting ${t.symbol} to ${to} reverted`);
    }
  }
  return { seeded: [] };
}

async function provisionAssets(job: AssetsJob, deployerKey: Hex) {
  const current = readDeployments(job.deploymentsFile);
  const settlement = current?.home.contracts.Settlement as Address | undefined;
  if (!current || !settlement)
    throw new Error(`asset provisioning: no Settlement in ${job.deploymentsFile} (the exchange comes first)`);
  const { tokens, seeded, registry } = await deployAssetTokens({
    chainId: job.home.chainId,
    rpcUrl: job.home.rpcUrl,
    deployerKey,
    settlement,
    holders: job.holders,
    compliance: job.compliance,
  });
  writeDeployments(job.deploymentsFile, {
    ...current,
    home: {
      ...current.home,
      contracts: { ...current.home.contracts, EligibilityRegistry: registry },
      tokens: { ...current.home.tokens, ...tokens },
    },
  });
  console.error(`asset tokens deployed: ${Object.keys(tokens).join(", ")}`);
  return { seeded: seeded.map((s) => ({ ...s, amountBaseUnits: s.amountBaseUnits.toString() })) };
}

async function provisionOperators(job: OperatorsJob, deployerKey: Hex) {
  const settlement = readDeployments(job.deploymentsFile)?.home.contracts.Settlement as Address | undefined;
  if (!settlement)
    throw new Error(`operator provisioning: no Settlement in ${job.deploymentsFile} (the exchange comes first)`);
  const { publicClient, wallet } = createChainClients(job.home.chainId, job.home.rpcUrl);
  const admin = wallet(deployerKey);
  for (const operator of job.operators) {
    const hash = await admin.writeContract({
      address: settlement,
      abi: settlementAbi,
      functionName: "grantRole",
      args: [OPERATOR_ROLE, operator],
    });
    if ((await publicClient.waitForTransactionReceipt({ hash })).status !== "success")
      throw new Error(`operator provisioning: granting OPERATOR_ROLE to ${operator} reverted`);
  }
  console.error(`OPERATOR_ROLE granted to ${job.operators.join(", ")}`);
  return { seeded: [] };
}

async function readStdin(): Promise<string> {
  let text = "";
  for await (const chunk of process.stdin) text += String(chunk);
  return text;
}

async function main(): Promise<void> {
  const job = provisionJobSchema.parse(JSON.parse(await readStdin()));
  const deployer = loadDeployerKey(process.env);
  if (deployer.address.toLowerCase() !== job.expectedDeployer.toLowerCase()) {
    throw new Error(
      `the deployer key (${deployer.address}) is not the configured deployer ${job.expectedDeployer}: set the same DEPLOYER_PRIVATE_KEY for both`,
    );
  }
  const result =
    job.kind === "exchange"
      ? await provisionExchange(job, deployer.privateKey)
      : job.kind === "assets"
        ? await provisionAssets(job, deployer.privateKey)
        : job.kind === "operators"
          ? await provisionOperators(job, deployer.privateKey)
          : await provisionBridge(job, deployer.privateKey);
  process.stdout.write(`${RESULT_PREFIX}${JSON.stringify(result)}\n`);
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(`provisioning failed: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  },
);
