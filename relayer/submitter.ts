// Sends the relayer's transactions on one chain. Sends take their nonces from the account's NonceLane on that
// chain (runtime/nonces.ts): one at a time, in nonce order (many transfers are signed concurrently, but two
// sends racing for one nonce would drop one), shared with every other sender of the account (the stack's two
// bridge relayers send from one key); receipts are awaited outside the lane. A revert during gas estimation comes back as a named contract error, which
// callers branch on (e.g. BridgeMinterDepositAlreadyMinted = already done).
import {
  BaseError,
  ContractFunctionRevertedError,
  encodeFunctionData,
  type Abi,
  type Address,
  type Hex,
  type TransactionReceipt,
} from "viem";
import { AppError } from "../runtime/errors";
import { systemClock, type Clock } from "../runtime/clock";
import { createNonceLane } from "../runtime/nonces";
import type { ChainClients } from "./types";

/** A contract refused the call (custom error `errorName`). Whether a later try can pass depends on the error
 *  (the processor's PERMANENT_REVERTS decides), so `retryable` is left false here. */
export class ContractRevert extends AppError<"CONTRACT_REVERT"> {
  constructor(
    readonly errorName: string,
    readonly args: readonly unknown[],
    message: string,
    options?: { cause?: unknown },
  ) {
    super("CONTRACT_REVERT", message, { ...options, details: { errorName } });
    this.name = "ContractRevert";
  }
}

/** The custom error name inside a viem error, if the failure was a contract revert. */
export function revertOf(err: unknown): ContractRevert | undefined {
  if (err instanceof ContractRevert) return err;
  if (!(err instanceof BaseError)) return undefined;
  const r = err.walk((e) => e instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError | null;
  if (!r) return undefined;
  return new ContractRevert(
    r.data?.errorName ?? r.reason ?? "unknown",
    (r.data?.args as unknown[]) ?? [],
    r.shortMessage,
    { cause: err },
  );
}

export interface TxCall {
  address: Address;
  abi: Abi;
  functionName: string;
  args: readonly unknown[];
}

export function createSubmitter(clients: ChainClients, opts: { receiptPollMs?: number; clock?: Clock } = {}) {
  const clock = opts.clock ?? systemClock;
  const { publicClient, walletClient } = clients;
  const account = walletClient.account;
  if (!account?.signTransaction) throw new Error("the relayer's wallet client needs a local account");

  // the gas price changes little between blocks on these chains: one read per second at most
  let price: { at: number; wei: bigint } | undefined;
  const gasPrice = async () => {
    if (!price || clock.now() - price.at > 1_000) price = { at: clock.now(), wei: await publicClient.getGasPrice() };
    return price.wei;
  };
  const chainId = walletClient.chain?.id;
  if (!chainId) throw new Error("the relayer's wallet client needs a chain");
  // the account's lane on this chain, shared with the account's other senders (default: one of its own)
  const nonces =
    clients.nonces ??
    createNonceLane(chainId, account.address, () =>
      publicClient.getTransactionCount({ address: account.address, blockTag: "pending" }),
    );
  if (nonces.chainId !== chainId || nonces.address.toLowerCase() !== account.address.toLowerCase()) {
    throw new Error(
      `submitter: the nonce lane is ${nonces.address} on chain ${nonces.chainId}, not ${account.address} on chain ${chainId}`,
    );
  }

  /** Estimates gas outside the lane (a revert surfaces here as a named ContractRevert), then signs and
   *  sends with the lane's next nonce (one RPC call), and waits for the receipt. A receipt whose
   *  status is reverted (lost a race after the estimate) throws ContractRevert("OnChainRevert"). */
  async function send(call: TxCall): Promise<TransactionReceipt> {
    let gas: bigint;
    try {
      gas = await publicClient.estimateContractGas({ ...call, account: account!.address } as never);
    } catch (err) {
      throw revertOf(err) ?? err;
    }
    const wei = await gasPrice();
    const data = encodeFunctionData({ abi: call.abi, functionName: call.functionName, args: call.args } as never);
    // a failed send leaves the count unknown: the lane reads it again before its next send
    const hash = await nonces.send(async (nonce): Promise<Hex> => {
      try {
        const raw = await account!.signTransaction!({
          to: call.address,
          data,
          gas: (gas * 6n) / 5n + 10_000n,
          gasPrice: wei * 2n,
          nonce,
          chainId,
          type: "legacy",
        });
        return await publicClient.sendRawTransaction({ serializedTransaction: raw });
      } catch (err) {
        throw revertOf(err) ?? err;
      }
    });
    // automining chains have the receipt by the time the hash is back: ask once before polling
    const receipt =
      (await publicClient.getTransactionReceipt({ hash }).catch(() => undefined)) ??
      (await publicClient.waitForTransactionReceipt({ hash, pollingInterval: opts.receiptPollMs ?? 5 }));
    if (receipt.status !== "success")
      throw new ContractRevert("OnChainRevert", [], `${call.functionName} reverted on chain (${hash})`);
    return receipt;
  }

  return { send, address: account.address };
}

export type Submitter = ReturnType<typeof createSubmitter>;
