// The chain side of custody: viem clients on the home chain, the funding key's sends (one nonce lane) and
// the accounts' own transactions, which are signed first and sent second so that the signed bytes can be
// stored before they leave (a restart sends the very same transaction again: its one nonce means it is
// mined at most once).
import { keccak256, type Address, type BaseError, type Hex, type PublicClient, type TransactionReceipt } from "viem";
import { privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { createNonceLane, type NonceLane } from "../../../runtime/nonces";
import { homeChainClient, signCall, type ContractCall } from "../home-chain";

export { revertName, type ContractCall } from "../home-chain";

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

export interface CustodyChainOptions {
  chainId: number;
  rpcUrl: string;
  fundingKey?: Hex;
  pollingIntervalMs?: number;
}

export function createCustodyChain(opts: CustodyChainOptions): CustodyChain {
  return new ViemCustodyChain(opts);
}

class ViemCustodyChain implements CustodyChain {
  readonly chainId: number;
  readonly client: PublicClient;
  readonly fundingAddress: Address | undefined;
  private readonly pollingInterval: number;
  private readonly funding: { account: PrivateKeyAccount; lane: NonceLane } | undefined;

  constructor(opts: CustodyChainOptions) {
    this.chainId = opts.chainId;
    this.pollingInterval = opts.pollingIntervalMs ?? 20;
    const client = homeChainClient(opts.chainId, opts.rpcUrl, this.pollingInterval);
    this.client = client;
    const account = opts.fundingKey ? privateKeyToAccount(opts.fundingKey) : undefined;
    this.fundingAddress = account?.address;
    this.funding = account && {
      account,
      lane: createNonceLane(opts.chainId, account.address, () =>
        client.getTransactionCount({ address: account.address, blockTag: "pending" }),
      ),
    };
  }

  private async gasPrice(): Promise<bigint> {
    return (await this.client.getGasPrice()) * 2n;
  }

  private fundingKey(): { account: PrivateKeyAccount; lane: NonceLane } {
    if (!this.funding) throw new Error("custody: no funding key configured");
    return this.funding;
  }

  async receipt(hash: Hex, timeoutMs = 30_000): Promise<TransactionReceipt | undefined> {
    const found = await this.client.getTransactionReceipt({ hash }).catch(() => undefined);
    if (found) return found;
    return this.client
      .waitForTransactionReceipt({ hash, timeout: timeoutMs, pollingInterval: this.pollingInterval })
      .catch(() => undefined);
  }

  private async sendFromFunding(build: (nonce: number, price: bigint) => Promise<Hex>): Promise<TransactionReceipt> {
    const { lane } = this.fundingKey();
    const price = await this.gasPrice();
    const hash = await lane.send(async (nonce) =>
      this.client.sendRawTransaction({ serializedTransaction: await build(nonce, price) }),
    );
    const r = await this.receipt(hash);
    if (!r) throw new Error(`funding transaction ${hash} not mined`);
    if (r.status !== "success") throw new Error(`funding transaction ${hash} reverted`);
    return r;
  }

  async sendFunding(call: ContractCall): Promise<TransactionReceipt> {
    const { account } = this.fundingKey();
    // a revert shows here, named, before any nonce is taken
    const gas = await this.client.estimateContractGas({ ...call, account: account.address } as never);
    return this.sendFromFunding((nonce, gasPrice) =>
      signCall(account, call, { gas, gasPrice, nonce, chainId: this.chainId }),
    );
  }

  async sendFundingValue(to: Address, wei: bigint): Promise<TransactionReceipt> {
    const { account } = this.fundingKey();
    return this.sendFromFunding((nonce, price) =>
      account.signTransaction({
        to,
        value: wei,
        gas: 21_000n,
        gasPrice: price,
        nonce,
        chainId: this.chainId,
        type: "legacy",
      }),
    );
  }

  async signAccountCall(account: PrivateKeyAccount, call: ContractCall): Promise<{ raw: Hex; hash: Hex }> {
    const gas = await this.client.estimateContractGas({ ...call, account: account.address } as never);
    const nonce = await this.client.getTransactionCount({ address: account.address, blockTag: "pending" });
    const raw = await signCall(account, call, { gas, gasPrice: await this.gasPrice(), nonce, chainId: this.chainId });
    return { raw, hash: keccak256(raw) };
  }

  async broadcast(raw: Hex): Promise<void> {
    try {
      await this.client.sendRawTransaction({ serializedTransaction: raw });
    } catch (err) {
      const text = err instanceof Error ? `${err.message} ${(err as BaseError).details ?? ""}` : String(err);
      if (/already known|known transaction|nonce too low|nonce has already been used|already imported/i.test(text))
        return;
      throw err;
    }
  }
}
