// The chain side of custody: viem clients on the home chain, the funding key's sends (one nonce lane) and
// the accounts' own transactions, which are signed first and sent second so that the signed bytes can be
// stored before they leave (a restart sends the very same transaction again: its one nonce means it is
// mined at most once).
import {
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  defineChain,
  encodeFunctionData,
  http,
  keccak256,
  type Abi,
  type Address,
  type Hex,
  type PublicClient,
  type TransactionReceipt,
} from "viem";
import { privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { createNonceLane, type NonceLane } from "../../../runtime/nonces";

export interface ContractCall {
  address: Address;
  abi: Abi;
  functionName: string;
  args: readonly unknown[];
}

export interface CustodyChain {
  readonly chainId: number;
  readonly client: PublicClient;
  /** Sends `call` from the funding key and waits for its receipt (throws on a revert). */
  sendFunding(call: ContractCall): Promise<TransactionReceipt>;
  /** Sends `wei` from the funding key to `to` (gas money for an account's own transactions). */
  sendFundingValue(to: Address, wei: bigint): Promise<TransactionReceipt>;
  readonly fundingAddress: Address | undefined;
  /** Signs `call` as `account` with its next nonce; nothing is sent. */
  signAccountCall(account: PrivateKeyAccount, call: ContractCall): Promise<{ raw: Hex; hash: Hex }>;
  /** Sends a signed transaction (again): "already known" and "nonce too low" mean it went out before. */
  broadcast(raw: Hex): Promise<void>;
  /** The receipt of `hash`, waiting up to `timeoutMs`; undefined when it is not mined by then. */
  receipt(hash: Hex, timeoutMs?: number): Promise<TransactionReceipt | undefined>;
}

/** The name of the custom error a failed call or estimate reverted with, if it was a contract revert. */
export function revertName(err: unknown): string | undefined {
  if (!(err instanceof BaseError)) return undefined;
  const r = err.walk((e) => e instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError | null;
  return r ? (r.data?.errorName ?? r.reason ?? "unknown") : undefined;
}

export function createCustodyChain(opts: {
  chainId: number;
  rpcUrl: string;
  fundingKey?: Hex;
  pollingIntervalMs?: number;
}): CustodyChain {
  const chain = defineChain({
    id: opts.chainId,
    name: `chain-${opts.chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [opts.rpcUrl] } },
  });
  const pollingInterval = opts.pollingIntervalMs ?? 20;
  const client = createPublicClient({ chain, transport: http(opts.rpcUrl), pollingInterval }) as PublicClient;
  const funding = opts.fundingKey ? privateKeyToAccount(opts.fundingKey) : undefined;
  const lane: NonceLane | undefined = funding
    ? createNonceLane(opts.chainId, funding.address, () =>
        client.getTransactionCount({ address: funding.address, blockTag: "pending" }),
      )
    : undefined;

  const gasPrice = async () => (await client.getGasPrice()) * 2n;

  async function receipt(hash: Hex, timeoutMs = 30_000): Promise<TransactionReceipt | undefined> {
    const found = await client.getTransactionReceipt({ hash }).catch(() => undefined);
    if (found) return found;
    return client.waitForTransactionReceipt({ hash, timeout: timeoutMs, pollingInterval }).catch(() => undefined);
  }

  async function sendFromFunding(build: (nonce: number, price: bigint) => Promise<Hex>): Promise<TransactionReceipt> {
    if (!funding || !lane) throw new Error("custody: no funding key configured");
    const price = await gasPrice();
    const hash = await lane.send(async (nonce) =>
      client.sendRawTransaction({ serializedTransaction: await build(nonce, price) }),
    );
    const r = await receipt(hash);
    if (!r) throw new Error(`funding transaction ${hash} not mined`);
    if (r.status !== "success") throw new Error(`funding transaction ${hash} reverted`);
    return r;
  }

  return {
    chainId: opts.chainId,
    client,
    fundingAddress: funding?.address,
    async sendFunding(call) {
      if (!funding) throw new Error("custody: no funding key configured");
      // a revert shows here, named, before any nonce is taken
      const gas = await client.estimateContractGas({ ...call, account: funding.address } as never);
      const data = encodeFunctionData({ abi: call.abi, functionName: call.functionName, args: call.args } as never);
      return sendFromFunding((nonce, price) =>
        funding.signTransaction({
          to: call.address,
          data,
          gas: (gas * 3n) / 2n + 10_000n,
          gasPrice: price,
          nonce,
          chainId: opts.chainId,
          type: "legacy",
        }),
      );
    },
    async sendFundingValue(to, wei) {
      if (!funding) throw new Error("custody: no funding key configured");
      return sendFromFunding((nonce, price) =>
        funding.signTransaction({
          to,
          value: wei,
          gas: 21_000n,
          gasPrice: price,
          nonce,
          chainId: opts.chainId,
          type: "legacy",
        }),
      );
    },
    async signAccountCall(account, call) {
      const gas = await client.estimateContractGas({ ...call, account: account.address } as never);
      const data = encodeFunctionData({ abi: call.abi, functionName: call.functionName, args: call.args } as never);
      const nonce = await client.getTransactionCount({ address: account.address, blockTag: "pending" });
      const raw = await account.signTransaction({
        to: call.address,
        data,
        gas: (gas * 3n) / 2n + 10_000n,
        gasPrice: await gasPrice(),
        nonce,
        chainId: opts.chainId,
        type: "legacy",
      });
      return { raw, hash: keccak256(raw) };
    },
    async broadcast(raw) {
      try {
        await client.sendRawTransaction({ serializedTransaction: raw });
      } catch (err) {
        const text = err instanceof Error ? `${err.message} ${(err as BaseError).details ?? ""}` : String(err);
        if (/already known|known transaction|nonce too low|nonce has already been used|already imported/i.test(text))
          return;
        throw err;
      }
    },
    receipt,
  };
}
