// viem clients for the stack's own deploy and seed transactions on a local chain.
import { createPublicClient, createWalletClient, defineChain, http, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";

export function localChain(chainId: number, rpcUrl: string) {
  return defineChain({
    id: chainId,
    name: `local-${chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
}

/** A public client and a wallet-client factory; automine makes receipts immediate, so poll fast. */
export function createChainClients(chainId: number, rpcUrl: string) {
  const chain = localChain(chainId, rpcUrl);
  const transport = http(rpcUrl);
  const publicClient = createPublicClient({ chain, transport, pollingInterval: 20 });
  const wallet = (privateKey: Hex) =>
    createWalletClient({ chain, transport, account: privateKeyToAccount(privateKey), pollingInterval: 20 });
  return { chain, publicClient, wallet };
}

export type ChainClients = ReturnType<typeof createChainClients>;
