// First start: the provisioning child (./provision.ts, the only process with the deployer's key) deploys
// the exchange contracts, seeds, and writes the deployments file. Later starts: the chains came back with
// their state, so the recorded deployments are re-used (after checking that their code is there), and no
// key is needed at all.
import type { Logger } from "pino";
import type { Config } from "../../config";
import { createRpcClient, type RunningChain } from "../chain";
import { readDeployments, writeDeployments, type Deployments } from "./deployments";
import type { Provisioner } from "./provisioner";
import type { SeededBalance } from "./seed";

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
  provisioner: Provisioner;
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

  const chain = (c: RunningChain) => ({ chainId: c.chainId, rpcUrl: c.rpcUrl, wsUrl: c.wsUrl });
  const { seeded } = await deps.provisioner.run({
    kind: "exchange",
    expectedDeployer: config.keys.deployer.address,
    deploymentsFile: file,
    home: chain(chains.home),
    remote: chain(chains.remote),
    operator: config.keys.operator.address,
    feeRecipient: config.keys.feeRecipient.address,
    demoTraderKeys: config.keys.demoTraders.map((k) => k.privateKey),
    funder: config.keys.funding.address,
  });
  const deployments = readDeployments(file);
  if (!deployments) throw new Error(`provisioning wrote no deployments file at ${file}`);
  logger.info({ contracts: deployments.home.contracts, traders: config.keys.demoTraders.length, deposits: seeded.length }, "exchange contracts deployed and demo traders seeded");
  return { deployments, deployedNow: true, seeded };
}
