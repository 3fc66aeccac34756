// Chains and contracts come from the deployments file (see README.md), so one config serves
// `npm start`, the tests and a bridge-less deployment: a contract missing from the file is not indexed.
import { createConfig } from "ponder";
import { bridgeMinterAbi, bridgeVaultAbi, settlementAbi } from "../sdk/abi";
import { activeContracts, deployments, indexerEnv as env } from "./active";
import type { ChainDeployment } from "./deployments";

const { home, remote } = deployments;
const { Settlement: settlement, BridgeVault: vault, BridgeMinter: minter } = activeContracts;

const chain = (c: ChainDeployment) => ({
  id: c.chainId,
  rpc: c.rpcUrl,
  // Local chains mine a block per transaction; polling at Ponder's minimum (100 ms) makes a trade visible
  // within about one interval. Not a WebSocket newHeads subscription: with one, Ponder indexes the
  // unfinalized blocks already mined (on a local chain, the last 30: all of them) only when the NEXT
  // block arrives, so an idle chain's recent deposits would stay invisible after a (re)start.
  pollingInterval: env.pollingIntervalMs,
  // A local node answers any range; asking once avoids Ponder's range discovery.
  ethGetLogsBlockRange: 100_000,
});

// Typed with every contract and chain (so that handlers are typed), then trimmed at run time to what
// the deployments file names: Ponder would otherwise index a zero address or dial an absent chain.
const ZERO = "0x0000000000000000000000000000000000000000" as const;
const allChains = {
  home: chain(home),
  remote: chain(remote ?? home),
};
const allContracts = {
  Settlement: { chain: "home", abi: settlementAbi, address: settlement ?? ZERO, startBlock: home.startBlock },
  BridgeVault: { chain: "home", abi: bridgeVaultAbi, address: vault ?? ZERO, startBlock: home.startBlock },
  BridgeMinter: { chain: "remote", abi: bridgeMinterAbi, address: minter ?? ZERO, startBlock: remote?.startBlock ?? 0 },
} as const;

const contracts = Object.fromEntries(
  Object.entries(allContracts).filter(([name]) => activeContracts[name as keyof typeof activeContracts]),
) as typeof allContracts;
const chains = Object.fromEntries(
  Object.entries(allChains).filter(([name]) => Object.values(contracts).some((c) => c.chain === name)),
) as typeof allChains;

export default createConfig({
  // Each chain is indexed on its own: with "omnichain" ordering an idle chain (the remote one mines only
  // when a bridge transaction arrives) would hold back every event of the busy one.
  ordering: "multichain",
  database: env.databaseUrl
    ? { kind: "postgres", connectionString: env.databaseUrl }
    : { kind: "pglite", directory: env.dataDir },
  chains,
  contracts,
});
