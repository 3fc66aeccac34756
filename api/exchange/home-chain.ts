// What the exchange API's writers on the home chain share (custody's funding key and accounts, the
// compliance key): the public client, the named revert of a refused call, and a contract call as a signed
// legacy transaction.
import {
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  defineChain,
  encodeFunctionData,
  http,
  type Abi,
  type Address,
  type Hex,
  type PublicClient,
} from "viem";
import type { PrivateKeyAccount } from "viem/accounts";

export interface ContractCall {
  address: Address;
  abi: Abi;
  functionName: string;
  args: readonly unknown[];
}

export function homeChainClient(chainId: number, rpcUrl: string, pollingInterval: number): PublicClient {
  const chain = defineChain({
    id: chainId,
    name: `chain-${chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  return createPublicClient({ chain, transport: http(rpcUrl), pollingInterval }) as PublicClient;
}

/** The name of the custom error a failed call or estimate reverted with, if it was a contract revert. */
export function revertName(err: unknown): string | undefined {
  if (!(err instanceof BaseError)) return undefined;
  const r = err.walk((e) => e instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError | null;
  return r ? (r.data?.errorName ?? r.reason ?? "unknown") : undefined;
}

/** `call` signed by `account` as a legacy transaction: the estimated gas plus half and 10,000. */
export function signCall(
  account: PrivateKeyAccount,
  call: ContractCall,
  tx: { gas: bigint; gasPrice: bigint; nonce: number; chainId: number },
): Promise<Hex> {
  return account.signTransaction({
    to: call.address,
    data: encodeFunctionData({ abi: call.abi, functionName: call.functionName, args: call.args } as never),
    gas: (tx.gas * 3n) / 2n + 10_000n,
    gasPrice: tx.gasPrice,
    nonce: tx.nonce,
    chainId: tx.chainId,
    type: "legacy",
  });
}
