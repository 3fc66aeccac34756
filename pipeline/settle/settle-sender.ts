// Sends settlePacked transactions with the operator key and fetches their receipts. Keeps the operator's
// nonce itself (no eth_getTransactionCount per batch), signs locally and sends each raw transaction
// (no eth_chainId/estimate round trips) together with eth_getTransactionReceipt of its hash in ONE JSON-RPC
// batch message: the chain proxy runs a batch's items in order and Hardhat automines, so the receipt
// exists by the time the second item runs (polling only as a fallback for a node that does not automine).
// Several sends may be in flight (the batcher sends batch k+1 while the chain executes k). They travel on
// ONE WebSocket, in call order, so they reach the chain in nonce order; HTTP requests on separate
// connections could overtake each other. After any failure nothing more is sent until reset(), which the
// batcher calls once every flight has ended (then the nonce is read again from the chain).
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
  RpcRequestError,
  type Address,
  type Hex,
  type PublicClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { WebSocket } from "ws";
import { encodePackedBatch, type SettleArgs } from "../../sdk/settle-batch";
import { ERC1271_GAS_STIPEND } from "../intake/contract-signature";
import { FatalChainError, RetryableChainError } from "../errors";
import { settlementAbi } from "../../sdk/abi";
import { signLegacyTx } from "./tx-sign";

export interface SettleResult {
  txHash: Hex;
  gasUsed: bigint;
  blockNumber: bigint;
}

export interface SettleSender {
  nextBatchId(): Promise<bigint>;
  send(batchId: bigint, args: SettleArgs): Promise<SettleResult>;
  /** eth_call of the batch against the latest state: null when it would settle, else the decoded revert.
   *  Only after a batch reverted (never on the common path). Throws RetryableChainError on a read failure. */
  simulate?(batchId: bigint, args: SettleArgs): Promise<FatalChainError | null>;
  /** Re-opens the sender after a failure (nonce read again from the chain): call when no send is in flight. */
  reset?(): void;
  close?(): void;
}

export interface SettleSenderDeps {
  rpcUrl: string;
  /** WebSocket endpoint of the same chain for the sends (default: rpcUrl with ws:// instead of http://) */
  wsUrl?: string;
  chainId: number;
  settlement: Address;
  operatorKey: Hex;
  /** true for a trader known to be a contract wallet (its orders' gas includes the ERC-1271 stipend) */
  isContractWallet?(trader: Address): boolean;
  /** receipt polling; Hardhat automines, so a few ms is enough */
  pollingIntervalMs?: number;
}

const RETRYABLE =
  /fetch failed|ECONNREFUSED|ECONNRESET|socket hang up|timed? ?out|nonce too (low|high)|nonce has already been used|replacement transaction underpriced|already known|HTTP request failed/i;

const settlementErrorsAbi = settlementAbi;

/** The contract's custom error inside a viem error (a revert), or null when `e` is no revert. */
export function decodeSettleRevert(e: unknown): FatalChainError | null {
  if (!(e instanceof BaseError)) return null;
  const reverted = e.walk((x) => x instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError | null;
  if (reverted?.data)
    return new FatalChainError(`settle reverted: ${reverted.data.errorName}`, reverted.data.errorName, reverted.data.args ?? [], {
      cause: e,
    });
  // the revert data as the error's `data`, or nested as `data.data` (Hardhat answers some eth_calls with
  // -32603 {message, data: {message, data: "0x..."}}: a wallet that burns its gas inside a simulation)
  const revertDataOf = (x: unknown): Hex | undefined => {
    const d = (x as { data?: unknown }).data;
    const hex = typeof d === "string" ? d : (d as { data?: unknown } | undefined)?.data;
    return typeof hex === "string" && /^0x[0-9a-f]{8}/i.test(hex) ? (hex as Hex) : undefined;
  };
  const withData = e.walk((x) => revertDataOf(x) !== undefined);
  const revertData = withData ? revertDataOf(withData) : undefined;
  if (revertData) {
    try {
      const d = decodeErrorResult({ abi: settlementErrorsAbi, data: revertData });
      return new FatalChainError(`settle reverted: ${d.errorName}`, d.errorName, d.args ?? [], { cause: e });
    } catch {
      return new FatalChainError(`settle reverted with data ${revertData}`, undefined, undefined, { cause: e });
    }
  }
  if (/revert/i.test(e.message) && !RETRYABLE.test(e.message))
    return new FatalChainError(`settle reverted: ${e.shortMessage}`, undefined, undefined, { cause: e });
  return null;
}

/** Sorts a failed send: a revert (decoded to the contract's error) or a node refusal that no retry can fix
 *  is fatal; anything else (network, node restart, nonce race) is retryable. The batcher then decides
 *  whether a fatal revert is one order's fault (pipeline/poison.ts) or stops the venue. */
export function classifySettleError(e: unknown): FatalChainError | RetryableChainError {
  const fatal = decodeSettleRevert(e);
  if (fatal) return fatal;
  if (e instanceof BaseError && /invalid parameters|exceeds|intrinsic gas|insufficient funds/i.test(`${e.shortMessage} ${e.details ?? ""}`)) {
    return new FatalChainError(`settle refused by the node: ${e.shortMessage} ${e.details ?? ""}`, undefined, undefined, { cause: e });
  }
  const msg = e instanceof BaseError ? `${e.shortMessage} ${e.details ?? ""}` : String((e as Error)?.message ?? e);
  return new RetryableChainError(msg, { cause: e });
}

/** What one ERC-1271 wallet's order may add to a settle: its stipend, the 1/64 kept back and the contract's
 *  reserve around the call (SignatureValidation: the wallet gets the whole stipend or is refused). */
export const ERC1271_SETTLE_GAS = ERC1271_GAS_STIPEND + ERC1271_GAS_STIPEND / 63n + 5_000n;

/** The gas limit a settle of `orders` orders and `fills` fills is sent with: a generous fixed formula
 *  instead of an estimate (an estimate runs the whole batch twice on the node), capped under the
 *  per-transaction gas cap (2^24, EIP-7825) that Hardhat enforces. Orders of contract wallets add their
 *  ERC-1271 stipend each: a wallet may spend it all and still answer valid. */
export function settleGasLimit(orders: number, fills: number, contractWalletOrders = 0): bigint {
  const want = settleGasWanted(orders, fills, contractWalletOrders);
  return want < SETTLE_GAS_CAP ? want : SETTLE_GAS_CAP;
}

/** The per-transaction gas cap a settle is sent under (below Hardhat's 2^24, EIP-7825). */
export const SETTLE_GAS_CAP = 16_000_000n;

/** The gas a settle of this shape is budgeted before the cap: over SETTLE_GAS_CAP, the batch is too big
 *  (the batcher cuts it short: `fitsGasCap`). */
export function settleGasWanted(orders: number, fills: number, contractWalletOrders = 0): bigint {
  return 200_000n + 40_000n * BigInt(orders) + 40_000n * BigInt(fills) + ERC1271_SETTLE_GAS * BigInt(contractWalletOrders);
}

export function createSettleSender(deps: SettleSenderDeps): SettleSender {
  const abi = settlementAbi;
  const gasLimitOf = (args: SettleArgs) =>
    settleGasLimit(args.orders.length, args.fills.length, deps.isContractWallet ? args.orders.filter((o) => deps.isContractWallet!(o.trader)).length : 0);
  const chain = defineChain({
    id: deps.chainId,
    name: `chain-${deps.chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [deps.rpcUrl] } },
  });
  // HTTP for the reads only (nonce, gas price, nextBatchId, receipt polling, a revert's replay): the sends
  // go over the WebSocket below. Few and spread out, so JSON-RPC batching would only add a timer.
  const transport = http(deps.rpcUrl, {
    retryCount: 0,
    timeout: 30_000,
    batch: false,
  });
  const publicClient = createPublicClient({
    chain,
    transport,
    pollingInterval: deps.pollingIntervalMs ?? 5,
    cacheTime: 0,
  }) as PublicClient;
  const account = privateKeyToAccount(deps.operatorKey);
  let nonce: number | undefined;
  let gasPrice: bigint | undefined;
  let gasPriceAt = 0;

  function classify(e: unknown): Error {
    const c = classifySettleError(e);
    if (c instanceof RetryableChainError && /nonce/i.test(c.message)) nonce = undefined; // resync before the retry
    return c;
  }

  // ---- the one WebSocket the sends travel on
  const wsUrl = deps.wsUrl ?? deps.rpcUrl.replace(/^http/, "ws");
  type Rpc = {
    id: number;
    result?: unknown;
    error?: { code: number; message: string; data?: unknown };
  };
  let socket: WebSocket | undefined;
  let opening: Promise<WebSocket> | undefined;
  /** send rpc id -> the waiter of its batch answer */
  const pending = new Map<number, { resolve: (r: Rpc[]) => void; reject: (e: Error) => void }>();
  let nextRpcId = 1;
  /** set by any failure: no send leaves until reset() */
  let broken: string | undefined;
  let closed = false;
  /** sends prepare (nonce, gas price, signature) and leave one after another, in call order */
  let dispatchTail: Promise<unknown> = Promise.resolve();

  function connect(): Promise<WebSocket> {
    if (socket?.readyState === WebSocket.OPEN) return Promise.resolve(socket);
    opening ??= new Promise<WebSocket>((resolve, reject) => {
      const ws = new WebSocket(wsUrl);
      ws.once("open", () => {
        socket = ws;
        opening = undefined;
        resolve(ws);
      });
      ws.once("error", (e) => {
        opening = undefined;
        reject(new Error(`socket hang up: ${e.message}`));
      });
      ws.on("message", (data) => {
        let answer: Rpc[];
        try {
          const parsed = JSON.parse(data.toString()) as Rpc | Rpc[];
          answer = Array.isArray(parsed) ? parsed : [parsed];
        } catch {
          return;
        }
        for (const item of answer) {
          const waiter = pending.get(item.id);
          if (waiter) {
            pending.delete(item.id);
            waiter.resolve(answer);
          }
        }
      });
      ws.on("close", () => {
        if (socket === ws) socket = undefined;
        if (pending.size > 0) broken ??= "the connection closed with sends in flight";
        for (const w of pending.values()) w.reject(new Error("socket hang up"));
        pending.clear();
      });
    });
    return opening;
  }

  /** eth_sendRawTransaction + eth_getTransactionReceipt as one batch message; a send error is thrown as
   *  viem's RpcRequestError (with the revert data when the node gives it), a missing receipt is null. */
  async function sendWithReceipt(ws: WebSocket, raw: Hex, txHash: Hex) {
    const id = nextRpcId;
    nextRpcId += 2;
    const body = [
      { jsonrpc: "2.0", id, method: "eth_sendRawTransaction", params: [raw] },
      {
        jsonrpc: "2.0",
        id: id + 1,
        method: "eth_getTransactionReceipt",
        params: [txHash],
      },
    ];
    const answer = new Promise<Rpc[]>((resolve, reject) => {
      pending.set(id, { resolve, reject });
      const timer = setTimeout(() => {
        if (pending.delete(id)) reject(new Error("timed out waiting for the send's answer"));
      }, 30_000);
      timer.unref();
    });
    ws.send(JSON.stringify(body));
    return async () => {
      const out = await answer;
      const sent = out.find((r) => r.id === id);
      const rec = out.find((r) => r.id === id + 1);
      if (!sent) throw new Error("HTTP request failed: no answer to eth_sendRawTransaction");
      if (sent.error) {
        const d = sent.error.data as { data?: unknown } | string | undefined;
        const data = typeof d === "string" ? d : typeof d?.data === "string" ? d.data : d;
        throw new RpcRequestError({
          body,
          error: { ...sent.error, data },
          url: wsUrl,
        });
      }
      if (!rec?.result) return null;
      return formatTransactionReceipt(rec.result as never);
    };
  }

  /** Replays a reverted transaction as a call at its block, with its gas limit (a contract wallet that
   *  burns the gas it is given fails the same way), to learn the custom error. */
  async function diagnose(batchId: bigint, data: Hex, blockNumber: bigint, gas: bigint): Promise<FatalChainError> {
    try {
      await publicClient.call({
        account: account.address,
        to: deps.settlement,
        data,
        gas,
        blockNumber: blockNumber - 1n,
      });
      return new FatalChainError(`settle ${batchId} reverted on chain but its replay succeeds (out of gas?)`);
    } catch (e) {
      return decodeSettleRevert(e) ?? new FatalChainError(`settle ${batchId} reverted: ${String(e)}`);
    }
  }

  return {
    async nextBatchId() {
      try {
        return (await publicClient.readContract({
          address: deps.settlement,
          abi,
          functionName: "nextBatchId",
        })) as bigint;
      } catch (e) {
        throw new RetryableChainError(`nextBatchId: ${(e as Error).message}`, {
          cause: e,
        });
      }
    },

    async send(batchId, args) {
      const t0 = performance.now();
      let data: Hex;
      try {
        data = encodeFunctionData({
          abi,
          functionName: "settlePacked",
          args: [batchId, encodePackedBatch(args)],
        });
      } catch (e) {
        // a value that does not fit the packed layout (intake refuses those): no retry can fix it
        throw new FatalChainError(`settle ${batchId}: cannot encode the batch: ${(e as Error).message}`, undefined, undefined, {
          cause: e,
        });
      }
      const gas = gasLimitOf(args);
      const dispatched = dispatchTail.then(async () => {
        if (closed) throw new RetryableChainError("sender closed");
        if (broken) throw new RetryableChainError(`not sent: ${broken}`);
        try {
          if (nonce === undefined)
            nonce = await publicClient.getTransactionCount({
              address: account.address,
              blockTag: "pending",
            });
          if (gasPrice === undefined || Date.now() - gasPriceAt > 2_000) {
            gasPrice = ((await publicClient.getGasPrice()) * 3n) / 2n;
            gasPriceAt = Date.now();
          }
        } catch (e) {
          throw classify(e);
        }
        const mine = nonce;
        nonce = mine + 1;
        const { raw, hash: txHash } = signLegacyTx(
          { chainId: deps.chainId, to: deps.settlement, data, nonce: mine, gas, gasPrice },
          deps.operatorKey
        );
        const ws = await connect().catch((e: unknown) => {
          throw classify(e);
        });
        return {
          txHash,
          tSend: performance.now(),
          answer: await sendWithReceipt(ws, raw, txHash),
        };
      });
      dispatchTail = dispatched.catch(() => undefined);
      let txHash: Hex;
      let tSend: number;
      let receipt: Awaited<ReturnType<PublicClient["getTransactionReceipt"]>> | null;
      try {
        const d = await dispatched;
        txHash = d.txHash;
        tSend = d.tSend;
        receipt = await d.answer().catch((e: unknown) => {
          throw classify(e);
        });
      } catch (e) {
        broken ??= (e as Error).message;
        throw e;
      }
      const tSent = performance.now();
      try {
        receipt ??= await publicClient.waitForTransactionReceipt({
          hash: txHash,
          pollingInterval: deps.pollingIntervalMs ?? 5,
          timeout: 120_000,
        });
      } catch (e) {
        broken ??= (e as Error).message;
        throw classify(e);
      }
      if (process.env.PIPELINE_TRACE) {
        const now = performance.now();
        console.log(
          `${Date.now()} settle ${batchId}: encode+sign ${(tSend - t0).toFixed(1)} ms, send+receipt ${(tSent - tSend).toFixed(1)} ms, receipt polling ${(
            now - tSent
          ).toFixed(1)} ms, ${args.fills.length} fills, ${receipt.gasUsed} gas`
        );
      }
      if (receipt.status !== "success") {
        broken ??= `batch ${batchId} reverted`;
        throw await diagnose(batchId, data, receipt.blockNumber, gas);
      }
      return {
        txHash,
        gasUsed: receipt.gasUsed,
        blockNumber: receipt.blockNumber,
      };
    },

    async simulate(batchId, args) {
      const data = encodeFunctionData({ abi, functionName: "settlePacked", args: [batchId, encodePackedBatch(args)] });
      try {
        await publicClient.call({ account: account.address, to: deps.settlement, data, gas: gasLimitOf(args) });
        return null;
      } catch (e) {
        const c = classifySettleError(e);
        if (c instanceof FatalChainError) return c;
        throw c;
      }
    },

    reset() {
      broken = undefined;
      nonce = undefined;
    },

    close() {
      closed = true;
      for (const w of pending.values()) w.reject(new Error("sender closed"));
      pending.clear();
      socket?.close();
      socket = undefined;
    },
  };
}
