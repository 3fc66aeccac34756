// Wallets: browser extensions found by EIP-6963 discovery (mipd's store), and in the sandbox a built-in
// development wallet holding the demo traders' keys (public Hardhat keys, sent by the web server only in
// sandbox mode) so the app works with no extension. Either way a viem WalletClient signs: EIP-712 orders,
// EIP-191 account requests and the deposit/withdraw transactions.
import { createStore, type EIP6963ProviderDetail } from "mipd";
import {
  createPublicClient,
  createWalletClient,
  custom,
  defineChain,
  http,
  type Chain,
  type PublicClient,
  type WalletClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { WalletSigner } from "./api";

export interface ConnectedWallet extends WalletSigner {
  kind: "development" | "extension";
  label: string;
  client: WalletClient;
  /** account reads need a signature each: automatic for the development wallet, on request for an extension */
  autoSign: boolean;
  signTypedData(typed: {
    domain: Record<string, unknown>;
    types: Record<string, { name: string; type: string }[]>;
    primaryType: string;
    message: Record<string, unknown>;
  }): Promise<`0x${string}`>;
}

export function homeChain(chainId: number): Chain {
  const rpc = `${location.origin}/rpc`;
  return defineChain({
    id: chainId,
    name: `Home chain ${chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpc] } },
  });
}

export function publicClient(chain: Chain): PublicClient {
  return createPublicClient({ chain, transport: http(`${location.origin}/rpc`) }) as PublicClient;
}

/** The integrator's development wallet's label (offered first in a sandbox). */
export const INTEGRATOR_LABEL = "Development wallet: integrator";

export function developmentWallet(chain: Chain, privateKey: `0x${string}`, label: string): ConnectedWallet {
  const account = privateKeyToAccount(privateKey);
  const client = createWalletClient({ account, chain, transport: http(`${location.origin}/rpc`) });
  return {
    kind: "development",
    label,
    address: account.address,
    client,
    autoSign: true,
    signRaw: (bytes) => account.signMessage({ message: { raw: bytes } }),
    signTypedData: (t) => account.signTypedData(t as Parameters<typeof account.signTypedData>[0]),
  };
}

/** `silent`: reconnect a wallet that already shared its account (eth_accounts: no prompt), as on a reload. */
export async function extensionWallet(
  chain: Chain,
  detail: EIP6963ProviderDetail,
  silent = false,
): Promise<ConnectedWallet> {
  const provider = detail.provider;
  const accounts = (await provider.request({
    method: silent ? "eth_accounts" : "eth_requestAccounts",
  })) as `0x${string}`[];
  if (!accounts?.length) throw new Error(`${detail.info.name} shared no account.`);
  const address = accounts[0];
  const client = createWalletClient({ account: address, chain, transport: custom(provider) });
  const current = await client.getChainId();
  if (current !== chain.id) {
    try {
      await client.switchChain({ id: chain.id });
    } catch {
      try {
        await client.addChain({ chain });
      } catch {
        throw new Error(`Switch ${detail.info.name} to chain ${chain.id} (${location.origin}/rpc) and connect again.`);
      }
    }
  }
  return {
    kind: "extension",
    label: `${detail.info.name}`,
    address,
    client,
    autoSign: false,
    signRaw: (bytes) => client.signMessage({ account: address, message: { raw: bytes } }),
    signTypedData: (t) =>
      client.signTypedData({ account: address, ...(t as Omit<Parameters<typeof client.signTypedData>[0], "account">) }),
  };
}

/** Extensions announcing themselves (EIP-6963); `onChange` runs now and on every announcement. */
export function discoverExtensions(onChange: (list: readonly EIP6963ProviderDetail[]) => void): () => void {
  const store = createStore();
  onChange(store.getProviders());
  return store.subscribe((list) => onChange(list));
}
