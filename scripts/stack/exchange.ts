// Deploys the exchange contracts on the home chain with the settlement engineer's deployExchange
// (scripts/deploy-exchange.ts): the demo tokens, then Settlement with the operator role granted.
import type { Config } from "../../config";
import { deployExchange } from "../deploy-exchange";
import type { TokenDeployment } from "./deployments";

export interface ExchangeDeployment {
  contracts: Record<string, `0x${string}`>;
  tokens: Record<string, TokenDeployment>;
}

export async function deployExchangeContracts(config: Config, rpcUrl: string): Promise<ExchangeDeployment> {
  const d = await deployExchange({
    rpcUrl,
    chainId: config.chains.home.chainId,
    deployerPrivateKey: config.keys.deployer.privateKey,
    operatorAddress: config.keys.operator.address,
    feeRecipientAddress: config.keys.feeRecipient.address,
  });
  return { contracts: d.contracts, tokens: d.tokens };
}
