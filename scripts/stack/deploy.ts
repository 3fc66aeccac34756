// First start: the provisioning child (./provision.ts, the only process with the deployer's key) deploys
// the exchange contracts, seeds, and writes the deployments file. Later starts: the chains came back with
// their state, so the recorded deployments are re-used (after checking that their code is there), and no
// key is needed at all. With DEPLOYMENTS_FILE (config.deploymentsFileShared) an existing file is reused
// only (a clear error when its contracts have no code on the chains), never deployed over.
import type { Logger } from "pino";
import { sandboxWallets, type Config } from "../../config";
import { ConfigError } from "../../config/errors";
import { rpcCall, type RunningChain } from "../chain";
import { readDeployments, writeDeployments, type Deployments } from "./deployments";
import { jobTarget } from "./provision-job";
import type { Provisioner } from "./provisioner";
import type { SeededBalance } from "./seed";

export interface DeployResult {
  deployments: Deployments;
  /** True when this start deployed (and seeded); false when it re-used the recorded deployments. */
  deployedNow: boolean;
  seeded: SeededBalance[];
}

async function hasCode(chain: RunningChain, address: string): Promise<boolean> {
  // fetch (not the keep-alive http client of the local chains): an external node may be https
  return (await rpcCall<string>(chain.rpcUrl, "eth_getCode", [address, "latest"])) !== "0x";
}

/** Code reads in flight at once (an external node by URL may limit a burst). */
const CODE_READS_AT_ONCE = 8;

/** Why the recorded deployments do not fit the chains (another chain id, a contract without code), or
 *  undefined when every contract and token the file names has code on its chain. */
export async function whyNotDeployed(
  d: Deployments,
  chains: { home: RunningChain; remote: RunningChain },
): Promise<string | undefined> {
  for (const side of ["home", "remote"] as const) {
    if (d[side].chainId !== chains[side].chainId)
      return `its ${side} chain is ${d[side].chainId}, the ${side} chain here is ${chains[side].chainId}`;
    const named = [
      ...Object.entries(d[side].contracts),
      ...Object.entries(d[side].tokens).map(([k, t]) => [k, t.address] as const),
    ];
    // CODE_READS_AT_ONCE at a time: a restart reads some 40 of them before anything starts
    for (let i = 0; i < named.length; i += CODE_READS_AT_ONCE) {
      const chunk = named.slice(i, i + CODE_READS_AT_ONCE);
      const coded = await Promise.all(chunk.map(([, a]) => hasCode(chains[side], a)));
      const missing = chunk.find((_, k) => !coded[k]);
      if (missing) return `${missing[0]} (${missing[1]}) has no code on the ${side} chain (${chains[side].chainId})`;
    }
  }
  return undefined;
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
  const mismatch = recorded && (await whyNotDeployed(recorded, chains));
  // DEPLOYMENTS_FILE: a file that exists is reused as it is, never deployed over (other processes use it)
  if (recorded && mismatch && config.deploymentsFileShared) {
    throw new ConfigError(
      `DEPLOYMENTS_FILE ${file} does not fit the chains: ${mismatch}. It belongs to other chains, or the chain was reset; remove the file to deploy afresh.`,
    );
  }
  if (recorded && !mismatch) {
    const deployments = withUrls(recorded, chains);
    // rewritten only when this process reaches the chains by other URLs (the indexer reads them there)
    if (JSON.stringify(deployments) !== JSON.stringify(recorded)) writeDeployments(file, deployments);
    logger.info({ file }, "re-using the recorded deployments");
    return { deployments, deployedNow: false, seeded: [] };
  }
  if (recorded) logger.warn({ file, why: mismatch }, "recorded deployments do not fit the chains: deploying again");

  const { seeded } = await deps.provisioner.run({
    kind: "exchange",
    ...jobTarget(config, chains),
    operator: config.keys.operator.address,
    feeRecipient: config.keys.feeRecipient.address,
    demoTraderKeys: sandboxWallets(config).map((k) => k.privateKey),
    funder: config.keys.funding.address,
  });
  const deployments = readDeployments(file);
  if (!deployments) throw new Error(`provisioning wrote no deployments file at ${file}`);
  logger.info(
    { contracts: deployments.home.contracts, traders: sandboxWallets(config).length, deposits: seeded.length },
    "exchange contracts deployed and demo traders seeded",
  );
  return { deployments, deployedNow: true, seeded };
}
