// First start: deploy the exchange contracts and seed, then write the deployments file. Later starts:
// the chains came back with their state, so the recorded deployments are re-used (after checking that
// their code is there).
import type { Logger } from "pino";
import type { Config } from "../../config";
import { createRpcClient, type RunningChain } from "../chain";
import { readDeployments, writeDeployments, type Deployments } from "./deployments";
import { deployExchangeContracts } from "./exchange";
import { seedDemoTraders, type SeededBalance } from "./seed";

export interface DeployResult {
  deployments: Deployments;
  /** True when this start deployed (and seeded); false when it re-used the recorded deployments. */
  deployedNow: boolean;
  seeded: SeededBalance[];
}

async function hasCode(chain: RunningChain, address: string): Promise<boolean> {
  const rpc = createRpcClient(chain.rpcUrl);
  try {
    return (await rpc.call<string>("eth_getCode", [address, "latest"])) !== "0x";
  } finally {
    rpc.close();
  }
}

async function blockNumber(chain: RunningChain): Promise<number> {
  const rpc = createRpcClient(chain.rpcUrl);
  try {
    return Number(await rpc.call<string>("eth_blockNumber"));
  } finally {
    rpc.close();
  }
}

/** Every contract and token the file names still has code on its chain. */
async function stillDeployed(d: Deployments, chains: { home: RunningChain; remote: RunningChain }): Promise<boolean> {
  for (const side of ["home", "remote"] as const) {
    if (d[side].chainId !== chains[side].chainId) return false;
    const addresses = [...Object.values(d[side].contracts), ...Object.values(d[side].tokens).map((t) => t.address)];
    for (const a of addresses) if (!(await hasCode(chains[side], a))) return false;
  }
  return true;
}

function withUrls(d: Deployments, chains: { home: RunningChain; remote: RunningChain }): Deployments {
  return {
    home: { ...d.home, rpcUrl: chains.home.rpcUrl, wsUrl: chains.home.wsUrl },
    remote: { ...d.remote, rpcUrl: chains.remote.rpcUrl, wsUrl: chains.remote.wsUrl },
  };
}

export async function deployOrReuse(deps: {
  config: Config;
  logger: Logger;
  chains: { home: RunningChain; remote: RunningChain };
}): Promise<DeployResult> {
  const { config, logger, chains } = deps;
  const file = config.deploymentsFile;
  const recorded = readDeployments(file);
  if (recorded && (await stillDeployed(recorded, chains))) {
    const deployments = withUrls(recorded, chains);
    writeDeployments(file, deployments);
    logger.info({ file }, "re-using the recorded deployments");
    return { deployments, deployedNow: false, seeded: [] };
  }
  if (recorded) logger.warn({ file }, "recorded deployments have no code on the chains: deploying again");

  const startBlocks = { home: (await blockNumber(chains.home)) + 1, remote: (await blockNumber(chains.remote)) + 1 };
  const exchange = await deployExchangeContracts(config, chains.home.rpcUrl);
  logger.info({ contracts: exchange.contracts, tokens: exchange.tokens }, "exchange contracts deployed");
  const seeded = await seedDemoTraders(config, chains.home.rpcUrl, exchange);
  logger.info({ traders: config.keys.demoTraders.length, deposits: seeded.length }, "demo traders seeded");

  const deployments: Deployments = withUrls(
    {
      home: {
        chainId: chains.home.chainId,
        rpcUrl: chains.home.rpcUrl,
        startBlock: startBlocks.home,
        contracts: { ...exchange.contracts },
        tokens: { ...exchange.tokens },
      },
      remote: {
        chainId: chains.remote.chainId,
        rpcUrl: chains.remote.rpcUrl,
        startBlock: startBlocks.remote,
        // The bridge's contracts are added by its component (it needs the signer nodes' key first).
        contracts: {},
        tokens: {},
      },
    },
    chains,
  );
  writeDeployments(file, deployments);
  return { deployments, deployedNow: true, seeded };
}
