// Sends settlePacked transactions with the operator key and fetches their receipts. Keeps the operator's
// nonce itself (no eth_getTransactionCount per batch), signs locally and sends each raw transaction
// (no eth_chainId/estimate round trips) together with eth_getTransactionReceipt of its hash in ONE JSON-RPC
// batch message (settle-socket.ts; polling only as a fallback for a node that does not automine).
// Several sends may be in flight (the batcher sends batch k+1 while the chain executes k). They travel on
// ONE WebSocket, in call order, so they reach the chain in nonce order. After any failure nothing more is
// sent until reset(), which the batcher calls once every flight has ended (then the nonce is read again
// from the chain). Failures are sorted by settle-classify.ts into retryable (network, node restart, nonce
// race) and fatal (a revert, decoded to the contract's custom error); the gas limit is settle-gas.ts's.
import {
  createPublicClient,
  defineChain,
  encodeFunctionData,
  http,
  type AccessList,
  type Address,
  type Hex,
  type PublicClient,
} from "viem";
import { privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { settlementAbi } from "../../sdk/abi";
import { encodePackedBatch, type SettleArgs } from "../../sdk/settle-batch";
import { systemClock, type Clock } from "../../runtime/clock";
import { FatalChainError, RetryableChainError } from "../errors";
import { classifySettleError, decodeSettleRevert } from "./settle-classify";
import { settleGasLimit } from "./settle-gas";
import { SettleSocket, type SendAnswer } from "./settle-socket";
import { settleAccessList } from "./access-list";
import { signSettleTx } from "./tx-sign";

export { classifySettleError, decodeSettleRevert } from "./settle-classify";
export { ERC1271_SETTLE_GAS, SETTLE_GAS_CAP, settleGasLimit, settleGasWanted } from "./settle-gas";

export interface SettleResult {
  txHash: Hex;
  gasUsed: bigint;
  blockNumber: bigint;
  /** the sender's clock (ms): the batch left on the socket, and its send+receipt answer came back (bench stages) */
  sentAtMs?: number;
  answeredAtMs?: number;
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
  /** the gas price is read again when older than 2 s of this clock (default: the system clock) */
  clock?: Clock;
  /** the settle lane (Settlement: a batch id's top 8 bits) this operator sends in; default 0 (one matcher) */
  lane?: number;
}

type Receipt = NonNullable<Awaited<ReturnType<SendAnswer>>>;

/** The priority fee the settle price carries over the base fee (before the 1.5 x margin). */
export const SETTLE_TIP_WEI = 1_000_000_000n;

/** A send waits for a gas price reading only when there is none or it is older than this (ms); between 2 s
 *  and this the price is read again in the background, off the sends' path. */
export const GAS_PRICE_MAX_AGE_MS = 10_000;

/** The operator's next nonce (read from the chain when unknown) and the gas price (sent at 1.5 x; read again
 *  in the background once older than 2 s, and before the send once older than GAS_PRICE_MAX_AGE_MS). */
class OperatorTxParams {
  nonce: number | undefined;
  private gasPrice: bigint | undefined;
  private gasPriceAt = 0;
  private reading: Promise<void> | undefined;

  constructor(
    private readonly client: PublicClient,
    private readonly address: Address,
    private readonly clock: Clock,
  ) {}

  /** Reads what is missing or too old; throws the read's own error. A price older than 2 s (and younger
   *  than GAS_PRICE_MAX_AGE_MS) is kept for this send and read again meanwhile: the read (an HTTP round
   *  trip to the node) held up one batch in ~50 and every batch behind it (B2, docs/decisions/pipeline.md). */
  async refresh(): Promise<void> {
    if (this.nonce === undefined)
      this.nonce = await this.client.getTransactionCount({
        address: this.address,
        blockTag: "pending",
      });
    const age = this.clock.now() - this.gasPriceAt;
    if (this.gasPrice === undefined || age > GAS_PRICE_MAX_AGE_MS) await this.readPrice();
    else if (age > 2_000) this.readPrice().catch(() => undefined); // a failure: read again at the next send
  }

  /** One reading at a time; dated when it arrives. */
  private readPrice(): Promise<void> {
    this.reading ??= this.suggestedPrice()
      .then((price) => {
        this.gasPrice = (price * 3n) / 2n;
        this.gasPriceAt = this.clock.now();
      })
      .finally(() => {
        this.reading = undefined;
      });
    return this.reading;
  }

  /** The latest block's base fee plus a fixed 1 gwei tip (what Hardhat's eth_gasPrice answers, and our
   *  proxy on Anvil); the node's eth_gasPrice only on a chain without a base fee. Not eth_gasPrice on a
   *  London chain: a node whose suggestion follows recent tips (Anvil, measured: 2 gwei -> 2.6e6 gwei in 35
   *  sends) would follow our 1.5 x upward when we are its only traffic. */
  private async suggestedPrice(): Promise<bigint> {
    const latest = await this.client.getBlock({ blockTag: "latest" });
    if (latest.baseFeePerGas === null || latest.baseFeePerGas === undefined) return this.client.getGasPrice();
    return latest.baseFeePerGas + SETTLE_TIP_WEI;
  }

  /** The nonce for this send (the next one after it) and the gas price; after refresh(). */
  take(): { nonce: number; gasPrice: bigint } {
    const mine = this.nonce!;
    this.nonce = mine + 1;
    return { nonce: mine, gasPrice: this.gasPrice! };
  }
}

function readClient(deps: SettleSenderDeps): PublicClient {
  const chain = defineChain({
    id: deps.chainId,
    name: `chain-${deps.chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [deps.rpcUrl] } },
  });
  // HTTP for the reads only (nonce, gas price, nextBatchId, receipt polling, a revert's replay): the sends
  // go over the WebSocket. Few and spread out, so JSON-RPC batching would only add a timer.
  const transport = http(deps.rpcUrl, {
    retryCount: 0,
    timeout: 30_000,
    batch: false,
  });
  return createPublicClient({
    chain,
    transport,
    pollingInterval: deps.pollingIntervalMs ?? 5,
    cacheTime: 0,
  }) as PublicClient;
}

/** settlePacked(batchId, packed batch) calldata; a value that does not fit the packed layout (intake
 *  refuses those) is fatal: no retry can fix it. */
function encodeSettle(batchId: bigint, args: SettleArgs): Hex {
  try {
    return encodeFunctionData({
      abi: settlementAbi,
      functionName: "settlePacked",
      args: [batchId, encodePackedBatch(args)],
    });
  } catch (e) {
    throw new FatalChainError(
      `settle ${batchId}: cannot encode the batch: ${(e as Error).message}`,
      undefined,
      undefined,
      {
        cause: e,
      },
    );
  }
}

class PackedSettleSender implements SettleSender {
  private readonly client: PublicClient;
  private readonly account: PrivateKeyAccount;
  private readonly clock: Clock;
  private readonly params: OperatorTxParams;
  private readonly socket: SettleSocket;
  /** set by any failure: no send leaves until reset() */
  private broken: string | undefined;
  private closed = false;
  /** sends prepare (nonce, gas price, signature) and leave one after another, in call order */
  private dispatchTail: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: SettleSenderDeps) {
    this.client = readClient(deps);
    this.account = privateKeyToAccount(deps.operatorKey);
    this.clock = deps.clock ?? systemClock;
    this.params = new OperatorTxParams(this.client, this.account.address, this.clock);
    this.socket = new SettleSocket(
      deps.wsUrl ?? deps.rpcUrl.replace(/^http/, "ws"),
      (reason) => (this.broken ??= reason),
    );
  }

  private gasLimitOf(args: SettleArgs): bigint {
    const { deps } = this;
    return settleGasLimit(
      args.orders.length,
      args.fills.length,
      deps.isContractWallet ? args.orders.filter((o) => deps.isContractWallet!(o.trader)).length : 0,
    );
  }

  /** classifySettleError; a nonce race also drops the local nonce (read again before the retry). */
  private classify(e: unknown): Error {
    const c = classifySettleError(e);
    if (c instanceof RetryableChainError && /nonce/i.test(c.message)) this.params.nonce = undefined;
    return c;
  }

  async nextBatchId(): Promise<bigint> {
    try {
      const lane = this.deps.lane ?? 0;
      return (await (lane === 0
        ? this.client.readContract({ address: this.deps.settlement, abi: settlementAbi, functionName: "nextBatchId" })
        : this.client.readContract({
            address: this.deps.settlement,
            abi: settlementAbi,
            functionName: "nextBatchIdOfLane",
            args: [lane],
          }))) as bigint;
    } catch (e) {
      throw new RetryableChainError(`nextBatchId: ${(e as Error).message}`, {
        cause: e,
      });
    }
  }

  /** In call order: nonce and gas price, signature, then onto the socket. */
  private dispatch(
    data: Hex,
    gas: bigint,
    accessList: AccessList,
  ): Promise<{ txHash: Hex; tSend: number; sentAtMs: number; answer: SendAnswer }> {
    const dispatched = this.dispatchTail.then(async () => {
      if (this.closed) throw new RetryableChainError("sender closed");
      if (this.broken) throw new RetryableChainError(`not sent: ${this.broken}`);
      await this.params.refresh().catch((e: unknown) => {
        throw this.classify(e);
      });
      const { nonce, gasPrice } = this.params.take();
      const { raw, hash: txHash } = signSettleTx(
        { chainId: this.deps.chainId, to: this.deps.settlement, data, nonce, gas, gasPrice, accessList },
        this.deps.operatorKey,
      );
      const ws = await this.socket.connect().catch((e: unknown) => {
        throw this.classify(e);
      });
      return {
        txHash,
        tSend: performance.now(),
        sentAtMs: this.clock.now(),
        answer: this.socket.sendWithReceipt(ws, raw, txHash),
      };
    });
    this.dispatchTail = dispatched.catch(() => undefined);
    return dispatched;
  }

  /** The receipt the node polled for, when the batch answer had none. */
  private async pollReceipt(txHash: Hex): Promise<Receipt> {
    try {
      return await this.client.waitForTransactionReceipt({
        hash: txHash,
        pollingInterval: this.deps.pollingIntervalMs ?? 5,
        timeout: 120_000,
      });
    } catch (e) {
      this.broken ??= (e as Error).message;
      throw this.classify(e);
    }
  }

  async send(batchId: bigint, args: SettleArgs): Promise<SettleResult> {
    const t0 = performance.now();
    const data = encodeSettle(batchId, args);
    const gas = this.gasLimitOf(args);
    const dispatched = this.dispatch(data, gas, settleAccessList(this.deps.settlement, args));
    let sent: { txHash: Hex; tSend: number; sentAtMs: number };
    let receipt: Receipt | null;
    try {
      const d = await dispatched;
      sent = d;
      receipt = await d.answer().catch((e: unknown) => {
        throw this.classify(e);
      });
    } catch (e) {
      this.broken ??= (e as Error).message;
      throw e;
    }
    const tSent = performance.now();
    receipt ??= await this.pollReceipt(sent.txHash);
    const answeredAtMs = this.clock.now();
    if (process.env.PIPELINE_TRACE) traceSend(this.clock, batchId, args, receipt, t0, sent.tSend, tSent);
    if (receipt.status !== "success") {
      this.broken ??= `batch ${batchId} reverted`;
      throw await this.diagnose(batchId, data, receipt.blockNumber, gas);
    }
    return {
      txHash: sent.txHash,
      gasUsed: receipt.gasUsed,
      blockNumber: receipt.blockNumber,
      sentAtMs: sent.sentAtMs,
      answeredAtMs,
    };
  }

  /** Replays a reverted transaction as a call with its gas limit (a contract wallet that burns the gas it is
   *  given fails the same way), to learn the custom error: on the parent block's state first (what the
   *  transaction met if it came first in its block), then on its own block's (where another sender's
   *  transaction earlier in the same block, such as another partition's settle on the same chain, took the
   *  balance it needed). Succeeding on both, it most likely ran out of gas. */
  private async diagnose(batchId: bigint, data: Hex, blockNumber: bigint, gas: bigint): Promise<FatalChainError> {
    for (const at of [blockNumber - 1n, blockNumber]) {
      try {
        await this.client.call({ account: this.account.address, to: this.deps.settlement, data, gas, blockNumber: at });
      } catch (e) {
        return decodeSettleRevert(e) ?? new FatalChainError(`settle ${batchId} reverted: ${String(e)}`);
      }
    }
    return new FatalChainError(`settle ${batchId} reverted on chain but its replay succeeds (out of gas?)`);
  }

  async simulate(batchId: bigint, args: SettleArgs): Promise<FatalChainError | null> {
    const data = encodeFunctionData({
      abi: settlementAbi,
      functionName: "settlePacked",
      args: [batchId, encodePackedBatch(args)],
    });
    try {
      await this.client.call({
        account: this.account.address,
        to: this.deps.settlement,
        data,
        gas: this.gasLimitOf(args),
      });
      return null;
    } catch (e) {
      const c = classifySettleError(e);
      if (c instanceof FatalChainError) return c;
      throw c;
    }
  }

  reset(): void {
    this.broken = undefined;
    this.params.nonce = undefined;
  }

  close(): void {
    this.closed = true;
    this.socket.close();
  }
}

/** PIPELINE_TRACE: where one send's time went (durations from performance.now(), a monotonic reading). */
function traceSend(
  clock: Clock,
  batchId: bigint,
  args: SettleArgs,
  receipt: Receipt,
  t0: number,
  tSend: number,
  tSent: number,
): void {
  const now = performance.now();
  console.log(
    `${clock.now()} settle ${batchId}: encode+sign ${(tSend - t0).toFixed(1)} ms, send+receipt ${(tSent - tSend).toFixed(1)} ms, receipt polling ${(
      now - tSent
    ).toFixed(1)} ms, ${args.fills.length} fills, ${receipt.gasUsed} gas`,
  );
}

export function createSettleSender(deps: SettleSenderDeps): SettleSender {
  return new PackedSettleSender(deps);
}
