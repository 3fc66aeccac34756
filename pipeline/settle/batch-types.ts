// The batcher's data types, apart from its code: batcher.ts and the batch-*.ts files it is split into all
// use them, so they import this file instead of each other (no import circle).
import type { Hex } from "viem";
import type { SignedOrder } from "../../sdk/settle-batch";
import type { OpenRecordLog } from "../../matcher/journal";
import type { Clock } from "../../runtime/clock";
import type { SettleSender } from "./settle-sender";

export interface SettleableTrade {
  /** the engine event sequence number of the trade (strictly increasing) */
  seq: number;
  makerHash: Hex;
  takerHash: Hex;
  baseAmount: bigint;
  price: bigint;
  /** ms timestamp when the trade was acknowledged (for latency figures) */
  matchedAtMs: number;
}

/** A batch's composition, written before it is sent; written again with `txHash` and `blockNumber` once
 *  its receipt arrived (the confirmation, batch-flights.ts), the later record of an id replacing the earlier. */
export interface BatchRecord {
  batchId: string;
  fromSeq: number;
  toSeq: number;
  tradeCount: number;
  txHash?: Hex;
  blockNumber?: string;
}

export interface SettledBatch {
  batchId: bigint;
  trades: SettleableTrade[];
  txHash: Hex;
  gasUsed: bigint;
  settledAtMs: number;
  /** where the batch's time went (clock ms): formed and handed on (persist + send queue), on the socket,
   *  its send+receipt answer back (of the last attempt); settledAtMs is when it was confirmed in order. */
  stages?: { launchedAtMs: number; sentAtMs: number; answeredAtMs: number };
}

export type BatcherState = "starting" | "running" | "retrying" | "halted" | "stopped";

export interface BatcherHealth {
  state: BatcherState;
  nextBatchId: string;
  queuedTrades: number;
  lastSettledSeq: number;
  lastError?: string;
  /** orders cancelled since start because the contract refused them (their trades dropped) */
  rejectedOrders: number;
}

export interface BatcherDeps {
  sender: SettleSender;
  /** the first batch id of the sender's settle lane (lane << 56; default 0): the lane's batches before the
   *  chain's next id are this store's */
  firstBatchId?: bigint;
  /** directory of the journal of batch compositions (matcher/journal; a `batches.jsonl` of the previous
   *  version found there is carried in once) */
  storeDir: string;
  /** opens the batch store's record log (default: local files under storeDir; replicated: the partition's stream) */
  openStore?: OpenRecordLog;
  signedOrder(hash: Hex): SignedOrder | undefined;
  maxTrades: number;
  maxDelayMs: number;
  /** batches sent and not yet confirmed, at most (default 2; 1 = one at a time) */
  maxInFlight?: number;
  logger?: {
    info(o: object, m?: string): void;
    error(o: object, m?: string): void;
    warn(o: object, m?: string): void;
  };
  onSettled?(b: SettledBatch): void;
  onHalt?(reason: string): void;
  /** Orders the contract refuses (hash, error name): the matcher journals the decision, cancels them and
   *  answers every unsettled trade seq it drops (resolves once the decision is durable). Absent: every
   *  revert halts. */
  onRejected?(orders: { hash: Hex; error: string }[]): Promise<number[]>;
  /** trade seqs a journaled decision dropped (the resend after a restart does not wait for them) */
  isDropped?(seq: number): boolean;
  /** Whether a settle of these trades fits the per-transaction gas cap (contract wallets' orders carry an
   *  ERC-1271 stipend each); absent = any batch of `maxTrades` fits. A new batch is cut short until it does. */
  fitsGasCap?(trades: readonly SettleableTrade[]): boolean;
  /** Where the chain says batches landed (the Settlement contract's BatchSettled events): at start, for
   *  settled batches whose confirmation the store lacks. Absent: those batches' fills read no transaction. */
  findBatchTxs?: FindBatchTxs;
  fsync?: boolean;
  /** the wait before retry `attempt` (1, 2, ...) of a failed settle; default 25 ms x 2^attempt, at most 5 s */
  retryBackoffMs?(attempt: number): number;
  /** trades' age against maxDelayMs, the confirmation interval, settledAtMs (default: the system clock) */
  clock?: Clock;
}

export interface SettledBatchRecord {
  batchId: bigint;
  fromSeq: number;
  toSeq: number;
  /** null only when neither the store nor the chain could tell (a failed lookup) */
  txHash: Hex | null;
}

/** Where the chain says batches landed: batch id -> transaction and block (ids it does not find are absent). */
export type FindBatchTxs = (
  batchIds: readonly bigint[],
  fromBlock: bigint | undefined,
) => Promise<Map<bigint, { txHash: Hex; blockNumber: bigint }>>;
