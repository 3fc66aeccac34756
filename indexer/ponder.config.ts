// Chains and contracts come from the deployments file (see README.md), so one config serves
// `npm start`, the tests and a bridge-less deployment: a contract missing from the file is not indexed.
import { createConfig } from "ponder";
import { BridgeMinterAbi } from "./abis/BridgeMinterAbi";
import { BridgeVaultAbi } from "./abis/BridgeVaultAbi";
import { SettlementAbi } from "./abis/SettlementAbi";
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

export default createConfig({
  // Each chain is indexed on its own: with "omnichain" ordering an idle chain (the remote one mines only
  // when a bridge transaction arrives) would hold back every event of the busy one.
  ordering: "multichain",
  database: env.databaseUrl
    ? { kind: "postgres", connectionString: env.databaseUrl }
    : { kind: "pglite", directory: env.dataDir },
  chains: {
    home: chain(home),
    // The remote chain is only contacted when something on it is indexed.
    ...(remote && minter ? { remote: chain(remote) } : {}),
  },
  contracts: {
    ...(settlement
      ? { Settlement: { chain: "home", abi: SettlementAbi, address: settlement, startBlock: home.startBlock } }
      : {}),
    ...(vault ? { BridgeVault: { chain: "home", abi: BridgeVaultAbi, address: vault, startBlock: home.startBlock } } : {}),
    ...(remote && minter
      ? { BridgeMinter: { chain: "remote", abi: BridgeMinterAbi, address: minter, startBlock: remote.startBlock } }
      : {}),
  },
});
