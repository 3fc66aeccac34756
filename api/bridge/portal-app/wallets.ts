// The wallets the page signs with: a browser extension found through EIP-6963 (it switches or adds the
// chain a call needs), or in the sandbox the development wallet holding a demo key. Both send through
// viem; the chains' RPC is the page's own /portal/rpc/<chainId>.
import type { EIP6963ProviderDetail } from "mipd";
import { createClient, custom, defineChain, http, type Address, type Chain, type Hex } from "viem";
import { addChain, getChainId, sendTransaction, signMessage, switchChain } from "viem/actions";
import { privateKeyToAccount } from "viem/accounts";
import type { TenantChain, Wallet } from "./types";

/** The tenant's chain as viem's Chain, read and written through this origin's /portal/rpc. */
export function chainOf(c: TenantChain): Chain {
  return defineChain({
    id: c.chainId,
    name: c.name,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [`${location.origin}/portal/rpc/${c.chainId}`] } },
  });
}
export function developmentWallet(chains: ReadonlyMap<number, Chain>, key: Hex, index: number): Wallet {
  const account = privateKeyToAccount(key);
  return {
    label: `Development wallet: demo trader ${index + 1}`,
    address: account.address,
    async send(call) {
      const chain = chains.get(call.chainId)!;
      const client = createClient({ account, chain, transport: http(chain.rpcUrls.default.http[0]) });
      return sendTransaction(client, { account, chain, to: call.to, data: call.data, value: BigInt(call.value) });
    },
    signMessage: (message) => account.signMessage({ message }),
  };
}

export async function extensionWallet(
  chains: ReadonlyMap<number, Chain>,
  homeChainId: number,
  detail: EIP6963ProviderDetail,
): Promise<Wallet> {
  const provider = detail.provider;
  const accounts = (await provider.request({ method: "eth_requestAccounts" })) as Address[];
  if (!accounts?.length) throw new Error(`${detail.info.name} shared no account.`);
  const address = accounts[0];
  const clientFor = (chain: Chain) => createClient({ account: address, chain, transport: custom(provider) });
  return {
    label: detail.info.name,
    address,
    async send(call) {
      const chain = chains.get(call.chainId)!;
      const client = clientFor(chain);
      if ((await getChainId(client)) !== chain.id) {
        try {
          await switchChain(client, { id: chain.id });
        } catch {
          try {
            await addChain(client, { chain });
          } catch {
            throw new Error(
              `Switch ${detail.info.name} to ${chain.name} (chain ${chain.id}, ${chain.rpcUrls.default.http[0]}) and try again.`,
            );
          }
        }
      }
      return sendTransaction(client, {
        account: address,
        chain,
        to: call.to,
        data: call.data,
        value: BigInt(call.value),
      });
    },
    signMessage: (message) => signMessage(clientFor(chains.get(homeChainId)!), { account: address, message }),
  };
}
