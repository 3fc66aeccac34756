// What this run of the indexer indexes, read once from the deployments file: ponder.config.ts builds
// its contracts from it and the handler files register only the handlers of those contracts (Ponder
// rejects a handler for a contract its config does not name).
import { loadDeployments, tokenSymbols } from "./deployments";
import { readIndexerEnv } from "./env";

export const indexerEnv = readIndexerEnv();
export const deployments = loadDeployments(indexerEnv.deploymentsFile);

export const activeContracts = {
  Settlement: deployments.home.contracts.Settlement,
  BridgeVault: deployments.home.contracts.BridgeVault,
  BridgeMinter: deployments.remote?.contracts.BridgeMinter,
} as const;

/** lowercase home-chain token address -> symbol, for pair names (the exchange is on the home chain) */
export const symbols = tokenSymbols(deployments.home);
