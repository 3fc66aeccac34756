// Deploys the exchange contracts on the home chain with the settlement engineer's deployExchange
// (scripts/deploy-exchange.ts): the demo tokens, then Settlement with the operator role granted.
// Runs in the provisioning child (./provision.ts): it signs with the deployer's key.
import type { Address, Hex } from "viem";
import { deployExchange } from "../deploy-exchange";
import type { TokenDeployment } from "./deployments";

export interface ExchangeDeployment {
  contracts: Record<string, `0x${string}`>;
  tokens: Record<string, TokenDeployment>;
}

export async function deployExchangeContracts(opts: {
  chainId: number;
  rpcUrl: string;
  deployerKey: Hex;
  operator: Address;
  feeRecipient: Address;
}): Promise<ExchangeDeployment> {
  const d = await deployExchange({
    rpcUrl: opts.rpcUrl,
    chainId: opts.chainId,
    deployerPrivateKey: opts.deployerKey,
    operatorAddress: opts.operator,
    feeRecipientAddress: opts.feeRecipient,
  });
  return { contracts: d.contracts, tokens: d.tokens };
}
