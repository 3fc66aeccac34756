// Sends one settlePacked transaction with the operator key through viem and fetches its receipt. Keeps the
// operator's nonce itself (no eth_getTransactionCount per batch), signs locally and sends the raw
// transaction (no eth_chainId/estimate round trips) together with eth_getTransactionReceipt of its hash in
// ONE JSON-RPC batch request: the chain proxy runs a batch's items in order and Hardhat automines, so the
// receipt exists by the time the second item runs (one HTTP round trip per batch; polling only as a
// fallback for a node that does not automine).
// Sorts failures into retryable (network, node restart, nonce race) and fatal (a revert, decoded to the
// contract's custom error).
import {
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  decodeErrorResult,
  defineChain,
  encodeFunctionData,
  http,
  formatTransactionReceipt,
  keccak256,
  RpcRequestError,
  type Address,
  type Hex,
  type PublicClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { encodePackedBatch, type SettleArgs } from "../sdk/settle-batch";
import { FatalChainError, RetryableChainError } from "./errors";
import { settlementAbi } from "./settlement-abi";

export interface SettleResult {
  txHash: Hex;
  gasUsed: bigint;
  blockNumber: bigint;
}

export interface SettleSender {
  nextBatchId(): Promise<bigint>;
  send(batchId: bigint, args: SettleArgs): Promise<SettleResult>;
}

export interface SettleSenderDeps {
  rpcUrl: string;
  chainId: number;
  settlement: Address;
  operatorKey: Hex;
  /** receipt polling; Hardhat automines, so a few ms is enough */
  pollingIntervalMs?: number;
}

const RETRYABLE = /fetch failed|ECONNREFUSED|ECONNRESET|socket hang up|timed? ?out|nonce too (low|high)|nonce has already been used|replacement transaction underpriced|already known|HTTP request failed/i;

export function createSettleSender(deps: SettleSenderDeps): SettleSender {
  const abi = settlementAbi();
  const chain = defineChain({
    id: deps.chainId,
    name: `chain-${deps.chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [deps.rpcUrl] } },
  });
  // one settle at a time, so JSON-RPC batching would only add a timer; Node's fetch keeps the connection alive
  const transport = http(deps.rpcUrl, { retryCount: 0, timeout: 30_000, batch: false });
  const publicClient = createPublicClient({ chain, transport, pollingInterval: deps.pollingIntervalMs ?? 5, cacheTime: 0 }) as PublicClient;
  const account = privateKeyToAccount(deps.operatorKey);
  let nonce: number | undefined;
  let gasPrice: bigint | undefined;
  let gasPriceAt = 0;

  function decodeRevert(e: unknown): FatalChainError | null {
    if (!(e instanceof BaseError)) return null;
    const reverted = e.walk((x) => x instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError | null;
    if (reverted?.data) return new FatalChainError(`settle reverted: ${reverted.data.errorName}`, reverted.data.errorName, reverted.data.args ?? [], { cause: e });
    const withData = e.walk((x) => typeof (x as { data?: unknown }).data === "string" && /^0x[0-9a-f]{8}/i.test((x as { data: string }).data)) as { data?: Hex } | null;
    if (withData?.data) {
      try {
        const d = decodeErrorResult({ abi, data: withData.data });
        return new FatalChainError(`settle reverted: ${d.errorName}`, d.errorName, d.args ?? [], { cause: e });
      } catch {
        return new FatalChainError(`settle reverted with data ${withData.data}`, undefined, undefined, { cause: e });
      }
    }
    if (/revert/i.test(e.message) && !RETRYABLE.test(e.message)) return new FatalChainError(`settle reverted: ${e.shortMessage}`, undefined, undefined, { cause: e });
    return null;
  }

  function classify(e: unknown): Error {
    const fatal = decodeRevert(e);
    if (fatal) return fatal;
    if (e instanceof BaseError && /invalid parameters|exceeds|intrinsic gas|insufficient funds/i.test(`${e.shortMessage} ${e.details ?? ""}`)) {
      return new FatalChainError(`settle refused by the node: ${e.shortMessage} ${e.details ?? ""}`, undefined, undefined, { cause: e });
    }
    const msg = e instanceof BaseError ? `${e.shortMessage} ${e.details ?? ""}` : String((e as Error)?.message ?? e);
    if (/nonce/i.test(msg)) nonce = undefined; // resync before the retry
    if (RETRYABLE.test(msg) || e instanceof BaseError) return new RetryableChainError(msg, { cause: e });
    return new RetryableChainError(msg, { cause: e });
  }

  /** eth_sendRawTransaction + eth_getTransactionReceipt in one batch request; a send error is thrown as
   *  viem's RpcRequestError (with the revert data when the node gives it), a missing receipt is null. */
  async function sendWithReceipt(raw: Hex, txHash: Hex) {
    const body = [
      { jsonrpc: "2.0", id: 1, method: "eth_sendRawTransaction", params: [raw] },
      { jsonrpc: "2.0", id: 2, method: "eth_getTransactionReceipt", params: [txHash] },
    ];
    type Rpc = { id: number; result?: unknown; error?: { code: number; message: string; data?: unknown } };
    const res = await fetch(deps.rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), signal: AbortSignal.timeout(30_000) });
    if (!res.ok) throw new Error(`HTTP request failed: ${res.status}`);
    const out = (await res.json()) as Rpc[];
    const sent = out.find((r) => r.id === 1);
    const rec = out.find((r) => r.id === 2);
    if (!sent) throw new Error("HTTP request failed: no answer to eth_sendRawTransaction");
    if (sent.error) {
      const d = sent.error.data as { data?: unknown } | string | undefined;
      const data = typeof d === "string" ? d : typeof d?.data === "string" ? d.data : d;
      throw new RpcRequestError({ body, error: { ...sent.error, data }, url: deps.rpcUrl });
    }
    if (!rec?.result) return null;
    return formatTransactionReceipt(rec.result as never);
  }

  /** Replays a reverted transaction as a call at its block to learn the custom error. */
  async function diagnose(batchId: bigint, data: Hex, blockNumber: bigint): Promise<FatalChainError> {
    try {
      await publicClient.call({ account: account.address, to: deps.settlement, data, blockNumber: blockNumber - 1n });
      return new FatalChainError(`settle ${batchId} reverted on chain but its replay succeeds (out of gas?)`);
    } catch (e) {
      return decodeRevert(e) ?? new FatalChainError(`settle ${batchId} reverted: ${String(e)}`);
    }
  }

  return {
    async nextBatchId() {
      try {
        return (await publicClient.readContract({ address: deps.settlement, abi, functionName: "nextBatchId" })) as bigint;
      } catch (e) {
        throw new RetryableChainError(`nextBatchId: ${(e as Error).message}`, { cause: e });
      }
    },

    async send(batchId, args) {
      const t0 = performance.now();
      let data: Hex;
      try {
        data = encodeFunctionData({ abi, functionName: "settlePacked", args: [batchId, encodePackedBatch(args)] });
      } catch (e) {
        // a value that does not fit the packed layout (intake refuses those): no retry can fix it
        throw new FatalChainError(`settle ${batchId}: cannot encode the batch: ${(e as Error).message}`, undefined, undefined, { cause: e });
      }
      try {
        if (nonce === undefined) nonce = await publicClient.getTransactionCount({ address: account.address, blockTag: "pending" });
        if (gasPrice === undefined || Date.now() - gasPriceAt > 2_000) {
          gasPrice = ((await publicClient.getGasPrice()) * 3n) / 2n;
          gasPriceAt = Date.now();
        }
      } catch (e) {
        throw classify(e);
      }
      // Generous fixed limit instead of an estimate: an estimate runs the whole batch twice on the node.
      // Capped under the per-transaction gas cap (2^24, EIP-7825) that Hardhat enforces.
      const want = 200_000n + 40_000n * BigInt(args.orders.length) + 40_000n * BigInt(args.fills.length);
      const gas = want < 16_000_000n ? want : 16_000_000n;
      const raw = await account.signTransaction({ chainId: deps.chainId, to: deps.settlement, data, nonce, gas, gasPrice, type: "legacy" });
      const tSend = performance.now();
      const txHash = keccak256(raw);
      let receipt: Awaited<ReturnType<PublicClient["getTransactionReceipt"]>> | null;
      try {
        receipt = await sendWithReceipt(raw, txHash);
      } catch (e) {
        const err = classify(e);
        // a revert at send time (Hardhat automine) still consumed the nonce: resync
        if (err instanceof FatalChainError) nonce = undefined;
        throw err;
      }
      nonce += 1;
      const tSent = performance.now();
      try {
        receipt ??= await publicClient.waitForTransactionReceipt({ hash: txHash, pollingInterval: deps.pollingIntervalMs ?? 5, timeout: 120_000 });
      } catch (e) {
        throw classify(e);
      }
      if (process.env.PIPELINE_TRACE) {
        const now = performance.now();
        console.log(`settle ${batchId}: encode+sign ${(tSend - t0).toFixed(1)} ms, send+receipt ${(tSent - tSend).toFixed(1)} ms, receipt polling ${(now - tSent).toFixed(1)} ms, ${args.fills.length} fills, ${receipt.gasUsed} gas`);
      }
      if (receipt.status !== "success") throw await diagnose(batchId, data, receipt.blockNumber);
      return { txHash, gasUsed: receipt.gasUsed, blockNumber: receipt.blockNumber };
    },
  };
}
