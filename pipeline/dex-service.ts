// DexService (pipeline/service.ts) over the live pipeline: the API's orders are signed orders in the
// matcher; their status, fills and settlement state are kept here from the service's events (replayed
// from the journal on start, so they survive a restart), books come from the engine, balances from the
// ledger and the contract.
import { recoverTypedDataAddress, type Address, type Hex } from "viem";
import {
  createAgentRelayer,
  type AgentRelayer,
  type AgentRelayerBudget,
  type FundingMinimum,
} from "./settle/agent-relayer";
import { createApiKeyNonces } from "./intake/api-nonces";
import type { SignerCache } from "./intake/known-signers";
import type { NonceLane } from "../runtime/nonces";
import {
  DEX_OPEN_STATUSES,
  DexServiceError,
  dexTimeInForce,
  engineTimeInForce,
  type AgentApproval,
  type CancelOrderRequest,
  type DexBalance,
  type DexBookSnapshot,
  type DexEvent,
  type DexFill,
  type DexMarketStats,
  type DexOrder,
  type DexOrderQuery,
  type DexOrderStatus,
  type DexOrderWithFills,
  type DexService,
  type DexServiceErrorCode,
  type DexStatusReason,
  type DexTrade,
  type Eip712TypedData,
  type PlaceOrderRequest,
} from "./service";
import {
  AGENT_APPROVAL_TYPES,
  getDomainSeparator,
  getSettlementDomain,
  orderFlagsFor,
  signOrder,
  type AgentRenouncement,
  type Order,
} from "../sdk/eip712";
import { createOrderDigester } from "./intake/order-digest";
import { PipelineError } from "./errors";
import type { ServiceEvent } from "./match/matcher-service";
import type { MarketSpec } from "./markets";
import type { Pipeline } from "./pipeline";
import type { SettledBatch } from "./settle/batcher";
import type { SettledBatchRecord } from "./settle/batch-confirmations";
import { settlementAbi } from "../sdk/abi";
import { fromJsonSafe, toJsonSafe, type JsonSafe } from "./match/snapshot-json";
import {
  createMemoryDexHistory,
  matchesQuery,
  newestFirst,
  queryReachesHistory,
  type DexHistory,
  type OrderRecord,
} from "./dex-history";
import { metrics } from "../runtime/metrics";

/** Market / stop orders signed by an agent carry a protection price this far from the reference price
 *  (best opposite level, or the trigger): the contract needs a limit on every order. */
const PROTECTION_BPS = 1_000n;
/** Lifetime of an API-key order's signed expiry (non-GTD). */
const API_ORDER_LIFETIME_SEC = 30n * 24n * 3600n;
const MAX_TRADES_KEPT = 10_000;
/** How long the wallet has to submit the AgentApproval it is asked to sign (its `deadline`). */
const AGENT_APPROVAL_SUBMIT_WINDOW_SEC = 3600;

const FINISHED: ReadonlySet<DexOrderStatus> = new Set(["filled", "cancelled", "expired", "rejected"]);

export interface DexStateOptions {
  /** where finished orders go (dex-history.ts); default: in memory, kept in this state's snapshot part */
  history?: DexHistory;
  logger?: { error(o: object, m?: string): void };
}

/** The event-driven state; created before the pipeline starts so that it sees the journal's replay.
 *  Memory (and the matcher journal's snapshots) hold what is live: orders that can still change (open,
 *  or finished with a fill not yet settled), the recent trades and the book sequences. An order nothing
 *  can change any more (finished, every fill settled) goes to the history store; until that write is
 *  durable it stays in `outbox` (and in the snapshots), so a crash at any point loses nothing. */
export class DexState {
  /** live orders by id, by hash (lower-case), by (account, client order id) with the request fingerprint */
  readonly byId = new Map<string, OrderRecord>();
  readonly byHash = new Map<string, OrderRecord>();
  /** (account, client order id) -> the order and its request fingerprint: rebuilt from the journal (the
   *  client order id and fingerprint travel in each place command's info) and kept with finished orders in
   *  the history, so the API answers a retried placement across a restart too. */
  readonly byClientId = new Map<string, { order: OrderRecord; requestHash: string | null }>();
  /** finished orders whose history write is not durable yet (order id -> the order, its fingerprint) */
  readonly outbox = new Map<string, { record: OrderRecord; requestHash: string | null }>();
  readonly trades = new Map<string, DexTrade[]>();
  readonly bookSeq = new Map<string, number>();
  readonly fillsByTrade = new Map<string, DexFill[]>();
  readonly listeners = new Set<(e: DexEvent) => void>();
  readonly history: DexHistory;
  private nextOrd = 0;
  private readonly writes = new Set<Promise<void>>();

  constructor(private readonly options: DexStateOptions = {}) {
    this.history = options.history ?? createMemoryDexHistory();
  }

  /** For the matcher journal's snapshots (a SnapshotPart): the live order records (with their fills), the
   *  client order ids of live orders, the finished orders not yet durable in the history, the recent trades,
   *  the book sequences (and, for the in-memory history, its orders). The pending fills by trade are the
   *  records' pending fills, found again on restore. */
  snapshotState(): unknown {
    const records = [...this.byId.values()];
    const byClientId = [...this.byClientId.values()].map((v) => [v.order.orderId, v.requestHash]);
    return {
      v: 2,
      records: toJsonSafe(records),
      byClientId,
      nextOrd: this.nextOrd,
      outbox: toJsonSafe([...this.outbox.values()].map((e) => [e.record, e.requestHash])),
      trades: toJsonSafe([...this.trades]),
      bookSeq: [...this.bookSeq],
      history: this.history.snapshotState?.() ?? null,
    };
  }

  restoreSnapshot(state: unknown): void {
    const st = state as { v?: number; records: JsonSafe; trades: JsonSafe; bookSeq: [string, number][] };
    if (st.v === 2) this.restoreV2(state as Parameters<DexState["restoreV2"]>[0]);
    else this.restoreV1(state as Parameters<DexState["restoreV1"]>[0]);
    for (const [symbol, list] of fromJsonSafe<[string, DexTrade[]][]>(st.trades)) this.trades.set(symbol, list);
    for (const [symbol, seq] of st.bookSeq) this.bookSeq.set(symbol, seq);
    for (const r of this.byId.values())
      for (const f of r.fills) {
        if (f.settlement !== "pending") continue;
        const list = this.fillsByTrade.get(f.tradeId) ?? [];
        list.push(f);
        this.fillsByTrade.set(f.tradeId, list);
      }
    // what a snapshot of the previous version kept in memory that is finished now goes to the history
    for (const r of [...this.byId.values()]) this.settleIfFinished(r);
  }

  private restoreV2(st: {
    records: JsonSafe;
    byClientId: [string, string | null][];
    nextOrd: number;
    outbox: JsonSafe;
    history: unknown;
  }): void {
    if (st.history !== null && st.history !== undefined) this.history.restoreSnapshot?.(st.history);
    this.nextOrd = st.nextOrd;
    for (const r of fromJsonSafe<OrderRecord[]>(st.records)) {
      this.byId.set(r.orderId, r);
      this.byHash.set(r.hash.toLowerCase(), r);
    }
    for (const [orderId, requestHash] of st.byClientId) {
      const r = this.byId.get(orderId);
      if (r) this.byClientId.set(clientKey(r.account, r.clientOrderId), { order: r, requestHash });
    }
    // finished orders whose write the stop (or crash) may have cut: written again (a no-op if it landed)
    for (const [record, requestHash] of fromJsonSafe<[OrderRecord, string | null][]>(st.outbox))
      this.toHistory(record, requestHash);
  }

  /** A snapshot of the previous version: every order record ever, lookups by index. */
  private restoreV1(st: {
    records: JsonSafe;
    byId: [string, number][];
    byClientId: [string, number, string | null][];
  }): void {
    const records = fromJsonSafe<OrderRecord[]>(st.records);
    records.forEach((r, k) => (r.ord = k));
    this.nextOrd = records.length;
    const requestHashes = new Map<OrderRecord, string | null>();
    for (const [, k, requestHash] of st.byClientId) requestHashes.set(records[k], requestHash);
    for (const [id, k] of st.byId) {
      const r = records[k];
      this.byId.set(id, r);
      this.byHash.set(r.hash.toLowerCase(), r);
      if (requestHashes.has(r))
        this.byClientId.set(clientKey(r.account, r.clientOrderId), { order: r, requestHash: requestHashes.get(r)! });
    }
  }

  /** Resolves once every finished order handed to the history so far is durable there. */
  async flush(): Promise<void> {
    while (this.writes.size > 0) await Promise.all([...this.writes]);
  }

  /** Waits for the history writes, then closes the history store. */
  async close(): Promise<void> {
    await this.flush();
    await this.history.close();
  }

  // ------------------------------------------------------------ reads: live, then the outbox, then history

  orderById(orderId: string): OrderRecord | undefined {
    return this.byId.get(orderId) ?? this.outbox.get(orderId)?.record ?? this.history.get(orderId);
  }

  findByClientOrderId(
    account: string,
    clientOrderId: string,
  ): { order: OrderRecord; requestHash: string | null } | undefined {
    const candidates: { order: OrderRecord; requestHash: string | null }[] = [];
    const live = this.byClientId.get(clientKey(account, clientOrderId));
    if (live) candidates.push(live);
    for (const e of this.outbox.values()) {
      const r = e.record;
      if (r.clientOrderId === clientOrderId && r.account.toLowerCase() === account.toLowerCase())
        candidates.push({ order: r, requestHash: e.requestHash });
    }
    const old = this.history.byClientId(account, clientOrderId);
    if (old) candidates.push(old);
    // the first placement wins
    return candidates.sort((x, y) => x.order.ord - y.order.ord)[0];
  }

  /** Newest first (created, then recorded), at most `q.limit`: live orders, and finished ones unless the
   *  query asks for open statuses only. */
  listOrders(q: DexOrderQuery): OrderRecord[] {
    const seen = new Set<string>();
    const out: OrderRecord[] = [];
    const add = (r: OrderRecord) => {
      if (seen.has(r.orderId) || !matchesQuery(r, q)) return;
      seen.add(r.orderId);
      out.push(r);
    };
    for (const r of this.byId.values()) add(r);
    if (queryReachesHistory(q)) {
      for (const e of this.outbox.values()) add(e.record);
      for (const r of this.history.list(q)) add(r);
    }
    return out.sort(newestFirst).slice(0, q.limit);
  }

  // ------------------------------------------------------------ finishing

  /** Nothing can change the order any more (finished, every fill settled): it leaves memory for the history. */
  private settleIfFinished(r: OrderRecord): void {
    if (!FINISHED.has(r.status) || r.fills.some((f) => f.settlement === "pending")) return;
    if (this.byId.get(r.orderId) !== r) return;
    this.byId.delete(r.orderId);
    this.byHash.delete(r.hash.toLowerCase());
    const k = clientKey(r.account, r.clientOrderId);
    const c = this.byClientId.get(k);
    if (c?.order === r) this.byClientId.delete(k);
    this.toHistory(r, c?.order === r ? c.requestHash : null);
  }

  /** Finished orders of this turn of the event loop: written to the history together (one store write and
   *  one promise a turn instead of one per order: a settled batch finishes up to two orders per trade). */
  private historyBatch: { record: OrderRecord; requestHash: string | null }[] | null = null;

  private toHistory(record: OrderRecord, requestHash: string | null): void {
    this.outbox.set(record.orderId, { record, requestHash });
    if (this.historyBatch) {
      this.historyBatch.push({ record, requestHash });
      return;
    }
    const batch = [{ record, requestHash }];
    this.historyBatch = batch;
    const w: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => {
        this.historyBatch = null;
        return this.history.put(batch);
      })
      .then(
        () => {
          for (const e of batch)
            if (this.outbox.get(e.record.orderId)?.record === e.record) this.outbox.delete(e.record.orderId);
        },
        // they stay in the outbox (and in the snapshots): written again at the next start
        (err: unknown) =>
          this.options.logger?.error(
            { err: String(err), orderIds: batch.map((e) => e.record.orderId) },
            "order history write failed",
          ),
      )
      .finally(() => this.writes.delete(w));
    this.writes.add(w);
  }

  emit(e: DexEvent): void {
    for (const l of this.listeners) {
      try {
        l(e);
      } catch {
        /* the listener's problem */
      }
    }
  }

  private record(r: OrderRecord, info: Record<string, unknown>): void {
    r.ord = this.nextOrd++;
    this.byId.set(r.orderId, r);
    this.byHash.set(r.hash.toLowerCase(), r);
    const k = clientKey(r.account, r.clientOrderId);
    // first placement wins (the API never journals a client order id twice for one account)
    if (!this.byClientId.has(k))
      this.byClientId.set(k, { order: r, requestHash: typeof info.requestHash === "string" ? info.requestHash : null });
  }

  private orderEvent(r: OrderRecord, fill: DexFill | null): void {
    this.emit({ kind: "order", account: r.account, order: strip(r), fill });
  }

  /** A trade the contract refused to settle (one of its orders was rejected): its fill leaves both orders.
   *  The rejected order ends cancelled with `settlement_rejected:<error>` (the engine's cancel says so too
   *  while it is still open); a counterparty that the dropped fill had finished ends cancelled with
   *  `counterparty_settlement_rejected`; one still on the book stays there with what it had left. */
  private onDropped(se: Extract<ServiceEvent, { kind: "dropped" }>): void {
    const tradeId = String(se.trade.seq);
    for (const hash of [se.trade.makerHash, se.trade.takerHash]) {
      const r = this.byHash.get(hash.toLowerCase());
      if (!r) continue;
      const i = r.fills.findIndex((f) => f.tradeId === tradeId);
      if (i === -1) continue;
      const [f] = r.fills.splice(i, 1);
      r.filledLots -= f.sizeLots;
      r.filledQuoteUnits -= se.quoteAmount;
      const error = se.rejected[hash.toLowerCase()];
      if (error !== undefined) {
        if (r.status === "filled" || r.status === "partially_filled" || r.status === "open") {
          r.status = "cancelled";
          r.statusReason = `settlement_rejected:${error}`;
        }
      } else if (r.status === "filled") {
        r.status = "cancelled";
        r.statusReason = "counterparty_settlement_rejected";
      } else if (r.status === "partially_filled" || r.status === "open") {
        r.status = r.filledLots > 0n ? "partially_filled" : "open";
      }
      r.updatedAtMs = se.ts;
      this.orderEvent(r, null);
      this.settleIfFinished(r);
    }
    this.fillsByTrade.delete(tradeId);
  }

  /** A batch landed: its trades' fills are settled by its transaction (null: the receipt was lost). */
  readonly onSettled = (b: SettledBatch): void => {
    const txHash = b.txHash === "0x" ? null : b.txHash;
    for (const t of b.trades) this.settleFills(String(t.seq), txHash);
  };

  /** After a start: every fill of a trade the chain had settled (seq up to `lastSettledSeq`) takes its
   *  batch's transaction, so a restart never turns a settled fill back into pending. */
  settledBefore(batches: readonly SettledBatchRecord[], lastSettledSeq: number): void {
    const byTo = [...batches].sort((x, y) => x.toSeq - y.toSeq);
    for (const tradeId of [...this.fillsByTrade.keys()]) {
      const seq = Number(tradeId);
      if (seq > lastSettledSeq) continue;
      // the first batch whose range ends at or after seq
      let lo = 0;
      let hi = byTo.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (byTo[mid].toSeq < seq) lo = mid + 1;
        else hi = mid;
      }
      const batch = byTo[lo];
      this.settleFills(tradeId, batch && batch.fromSeq <= seq ? batch.txHash : null);
    }
  }

  private settleFills(tradeId: string, txHash: Hex | null): void {
    const fills = this.fillsByTrade.get(tradeId) ?? [];
    for (const f of fills) {
      f.settlement = "settled";
      f.txHash = txHash;
    }
    this.fillsByTrade.delete(tradeId);
    for (const f of fills) {
      const r = this.byId.get(f.orderId);
      if (r) this.settleIfFinished(r);
    }
  }

  readonly onServiceEvent = (se: ServiceEvent): void => {
    if (se.kind === "trade") {
      const { event: e, trade } = se;
      const ts = e.ts;
      const dexTrade: DexTrade = {
        tradeId: String(e.seq),
        symbol: e.symbol,
        priceTicks: BigInt(e.priceTicks),
        sizeLots: BigInt(e.sizeLots),
        takerSide: e.takerSide,
        timestampMs: ts,
        makerOrderId: e.makerOrderId,
        takerOrderId: e.takerOrderId,
      };
      const list = this.trades.get(e.symbol) ?? [];
      list.push(dexTrade);
      if (list.length > MAX_TRADES_KEPT) list.splice(0, list.length - MAX_TRADES_KEPT);
      this.trades.set(e.symbol, list);
      const fills: DexFill[] = [];
      for (const [hash, liquidity] of [
        [trade.makerHash, "maker"],
        [trade.takerHash, "taker"],
      ] as const) {
        const r = this.byHash.get(hash.toLowerCase());
        if (!r) continue;
        const isBuyer = r.side === "buy";
        const fill: DexFill = {
          tradeId: dexTrade.tradeId,
          orderId: r.orderId,
          priceTicks: dexTrade.priceTicks,
          sizeLots: dexTrade.sizeLots,
          liquidity,
          feeUnits: isBuyer ? se.buyerFee : se.sellerFee,
          feeToken: (isBuyer ? se.baseToken : se.quoteToken) as Address,
          timestampMs: ts,
          settlement: "pending",
          txHash: null,
        };
        r.fills.push(fill);
        fills.push(fill);
        r.filledLots += dexTrade.sizeLots;
        r.filledQuoteUnits += se.quoteAmount;
        r.status = r.filledLots >= r.sizeLots ? "filled" : "partially_filled";
        r.updatedAtMs = ts;
        this.orderEvent(r, fill);
      }
      this.fillsByTrade.set(dexTrade.tradeId, fills);
      this.emit({ kind: "trade", trade: dexTrade });
      return;
    }
    if (se.kind === "dropped") {
      this.onDropped(se);
      return;
    }
    const e = se.event;
    switch (e.type) {
      case "accepted": {
        const info = (se.order?.info ?? {}) as Record<string, unknown>;
        const r: OrderRecord = {
          ord: -1,
          hash: e.orderId as Hex,
          orderId: String(info.orderId ?? e.orderId),
          clientOrderId: String(info.clientOrderId ?? e.orderId),
          account: (se.order?.signed.order.trader ?? e.account) as Address,
          apiKeyId: (info.apiKeyId as string | null | undefined) ?? null,
          symbol: e.symbol,
          side: e.side,
          type: e.orderType,
          timeInForce: dexTimeInForce(e.timeInForce),
          priceTicks: info.priceTicks === null ? null : e.priceTicks !== undefined ? BigInt(e.priceTicks) : null,
          triggerPriceTicks: e.triggerPriceTicks !== undefined ? BigInt(e.triggerPriceTicks) : null,
          sizeLots: BigInt(e.sizeLots),
          filledLots: 0n,
          filledQuoteUnits: 0n,
          status: e.triggerPriceTicks !== undefined ? "pending_trigger" : "open",
          statusReason: null,
          createdAtMs: e.ts,
          updatedAtMs: e.ts,
          expiresAtMs: (info.expiresAtMs as number | null | undefined) ?? null,
          ...displayOf(info),
          fills: [],
        };
        this.record(r, info);
        this.orderEvent(r, null);
        break;
      }
      case "rejected": {
        if (!se.order || e.command !== "place") break;
        const info = (se.order.info ?? {}) as Record<string, unknown>;
        if (!info.orderId) break;
        const o = se.order;
        const r: OrderRecord = {
          ord: -1,
          hash: o.hash,
          orderId: String(info.orderId),
          clientOrderId: String(info.clientOrderId ?? info.orderId),
          account: o.signed.order.trader,
          apiKeyId: (info.apiKeyId as string | null | undefined) ?? null,
          symbol: o.market.symbol,
          side: o.side,
          type: o.type,
          // a rejected order echoes what the client sent (the intent's fields, journaled in its info)
          timeInForce: dexTimeInForce(o.timeInForce),
          priceTicks: ticksOf(info.priceTicks),
          triggerPriceTicks: ticksOf(info.triggerPriceTicks),
          sizeLots: o.sizeLots,
          filledLots: 0n,
          filledQuoteUnits: 0n,
          status: "rejected",
          statusReason:
            e.code === "POST_ONLY_WOULD_CROSS"
              ? "post_only_would_take"
              : e.code === "FOK_NOT_FILLABLE"
                ? "fok_not_fillable"
                : e.code.toLowerCase(),
          createdAtMs: e.ts,
          updatedAtMs: e.ts,
          expiresAtMs: (info.expiresAtMs as number | null | undefined) ?? null,
          ...displayOf(info),
          fills: [],
        };
        this.record(r, info);
        this.orderEvent(r, null);
        this.settleIfFinished(r);
        break;
      }
      case "cancelled":
      case "expired": {
        const r = this.byHash.get(e.orderId.toLowerCase());
        if (!r) break;
        if (e.type === "cancelled" && e.remainingLots > 0) break; // an STP decrement: still open
        const expired = e.type === "expired" || se.reason === "expired";
        r.status = expired ? "expired" : "cancelled";
        r.statusReason = expired
          ? "expired"
          : ((se.reason as DexStatusReason | undefined) ?? cancelReason(e.type === "cancelled" ? e.reason : "expired"));
        r.updatedAtMs = e.ts;
        this.orderEvent(r, null);
        this.settleIfFinished(r);
        break;
      }
      case "triggered": {
        const r = this.byHash.get(e.orderId.toLowerCase());
        if (r && r.status === "pending_trigger") {
          r.status = "open";
          r.updatedAtMs = e.ts;
          this.orderEvent(r, null);
        }
        break;
      }
      case "level": {
        const seq = (this.bookSeq.get(e.symbol) ?? 0) + 1;
        this.bookSeq.set(e.symbol, seq);
        const level = { priceTicks: BigInt(e.priceTicks), sizeLots: BigInt(e.newTotalLots) };
        this.emit({
          kind: "book",
          symbol: e.symbol,
          sequence: seq,
          timestampMs: e.ts,
          bids: e.side === "buy" ? [level] : [],
          asks: e.side === "sell" ? [level] : [],
        });
        break;
      }
      default:
        break;
    }
  };
}

/** A journaled intent's tick field (a decimal string, or null / absent). */
function ticksOf(v: unknown): bigint | null {
  return typeof v === "string" || typeof v === "number" ? BigInt(v) : null;
}

/** The display options a placement's info carries (hidden, iceberg slice). */
function displayOf(info: Record<string, unknown>): Pick<DexOrder, "hidden" | "icebergVisibleLots"> {
  return { hidden: info.hidden === true, icebergVisibleLots: ticksOf(info.icebergVisibleLots) };
}

export function clientKey(account: string, clientOrderId: string): string {
  return `${account.toLowerCase()}\n${clientOrderId}`;
}

function cancelReason(r: string): DexStatusReason {
  return r === "user"
    ? "user_cancelled"
    : r === "stp"
      ? "self_trade_prevention"
      : r === "market_remainder"
        ? "no_liquidity"
        : r;
}

/** The order without its fills, hash and ord, written out field by field: a rest spread that leaves keys out
 *  takes V8's slow generic copy, and this runs for every order event and every answer. `Fields` makes the
 *  compiler name any field of DexOrder missing here. */
type Fields = { [K in keyof Required<DexOrder>]: unknown };
function strip(r: OrderRecord): DexOrder {
  const o = {
    orderId: r.orderId,
    clientOrderId: r.clientOrderId,
    account: r.account,
    apiKeyId: r.apiKeyId,
    symbol: r.symbol,
    side: r.side,
    type: r.type,
    timeInForce: r.timeInForce,
    priceTicks: r.priceTicks,
    triggerPriceTicks: r.triggerPriceTicks,
    sizeLots: r.sizeLots,
    filledLots: r.filledLots,
    filledQuoteUnits: r.filledQuoteUnits,
    status: r.status,
    statusReason: r.statusReason,
    createdAtMs: r.createdAtMs,
    updatedAtMs: r.updatedAtMs,
    expiresAtMs: r.expiresAtMs,
    hidden: r.hidden,
    icebergVisibleLots: r.icebergVisibleLots,
  } satisfies Fields as DexOrder;
  // as the spread did: an optional field the record lacks stays absent
  if (r.hidden === undefined) delete o.hidden;
  if (r.icebergVisibleLots === undefined) delete o.icebergVisibleLots;
  return o;
}

const PIPELINE_TO_DEX: Record<string, DexServiceErrorCode> = {
  INVALID_SYMBOL: "INVALID_SYMBOL",
  INVALID_ORDER_TYPE: "INVALID_ORDER_TYPE",
  INVALID_ORDER: "INVALID_REQUEST",
  INVALID_SIGNATURE: "INVALID_SIGNATURE",
  INVALID_NONCE: "INVALID_NONCE",
  ORDER_EXPIRED: "ORDER_EXPIRED",
  INSUFFICIENT_BALANCE: "INSUFFICIENT_BALANCE",
  ORDER_NOT_FOUND: "ORDER_NOT_FOUND",
  SERVICE_UNAVAILABLE: "SERVICE_UNAVAILABLE",
  CHAIN_UNAVAILABLE: "CHAIN_UNAVAILABLE",
};

function toDexError(e: unknown, apiKey: boolean): unknown {
  if (!(e instanceof PipelineError)) return e;
  let code = PIPELINE_TO_DEX[e.code] ?? "INVALID_REQUEST";
  if (apiKey && code === "INVALID_SIGNATURE") code = "AGENT_NOT_APPROVED";
  const details =
    e.code === "INSUFFICIENT_BALANCE"
      ? {
          token: e.details.token,
          requiredUnits: BigInt(String(e.details.requiredUnits)),
          availableUnits: BigInt(String(e.details.availableUnits)),
          required: e.details.required,
          available: e.details.available,
        }
      : e.details;
  return new DexServiceError(code, e.message, details, { cause: e });
}

export interface DexServiceDeps {
  pipeline: Pipeline;
  state: DexState;
  chainId: number;
  settlement: Address;
  rpcUrl: string;
  /** submits approveAgentWithSig (anyone may): the agent relayer's key, holding no contract role; not
   *  the operator, whose nonce the batcher keeps, and never the deployer / admin */
  submitterKey: Hex;
  /** that key's nonce lane on this chain, shared with the account's other senders (the stack's); default:
   *  the relayer's own */
  submitterNonces?: NonceLane;
  /** the relayer's daily gas budget (default 0.1 ETH a day, 0.001 ETH per wallet) */
  approvalBudget?: AgentRelayerBudget;
  /** token symbol by address, for balances */
  assets: Record<string, { symbol: string; decimals: number }>;
  /** this matcher partition's API-key nonce range (api-nonces.ts partitionNonceRange); default: from 2^63 */
  apiKeyNonceRange?: { start: bigint; end: bigint };
  /** where an agent's signatures are remembered for the intake (the pipeline's knownSigners); absent = none */
  knownSigners?: SignerCache;
}

/** Who may spend the agent relayer's budget (docs/decisions/security.md): a wallet holding, in Settlement,
 *  one whole unit (10^decimals) of a token of a listed market (a dollar of the quote token, one unit of an asset). */
export function relayerFundingMinimums(
  markets: readonly MarketSpec[],
  assets: DexServiceDeps["assets"],
): FundingMinimum[] {
  const tokens = new Map<string, Address>();
  for (const m of markets) for (const t of [m.baseToken, m.quoteToken]) tokens.set(t.toLowerCase(), t);
  return [...tokens.values()].map((token) => ({
    token,
    minUnits: 10n ** BigInt(assets[token.toLowerCase()]?.decimals ?? 18),
  }));
}

export function createDexService(deps: DexServiceDeps): DexService {
  const { pipeline: p, state } = deps;
  const svc = p.service;
  /** the pipeline's one clock (the matcher service's) */
  const clock = svc.clock;
  const abi = settlementAbi;
  const domain = getSettlementDomain(deps.chainId, deps.settlement);
  /** an API-key order's digest (domain separator once, native keccak), signed by the agent natively */
  const orderDigest = createOrderDigester(getDomainSeparator(domain));
  const markets = (): MarketSpec[] => svc.marketList();
  const marketOf = (symbol: string) => markets().find((m) => m.symbol === symbol);
  const withFills = (r: OrderRecord): DexOrderWithFills => ({ ...strip(r), fills: r.fills.map((f) => ({ ...f })) });
  let agentRelayer: AgentRelayer | null = null;
  /** dense per account from 2^63 (api-nonces.ts), read from the service's nonce state after its replay */
  const apiNonces = createApiKeyNonces(svc, deps.apiKeyNonceRange);
  /** one relayer (one nonce manager, one budget) for the service's lifetime */
  const relayer = () =>
    (agentRelayer ??= createAgentRelayer({
      client: p.client,
      chainId: deps.chainId,
      rpcUrl: deps.rpcUrl,
      settlement: deps.settlement,
      relayerKey: deps.submitterKey,
      nonces: deps.submitterNonces,
      budget: deps.approvalBudget ?? { dailyWei: 10n ** 17n, perOwnerDailyWei: 10n ** 15n },
      fundingMinimums: () => relayerFundingMinimums(markets(), deps.assets),
    }));

  p.subscribeSettled(state.onSettled);
  // the fills the journal replay rebuilt (pending) of batches settled before this start
  // (a test's stand-in pipeline may have recovered nothing)
  state.settledBefore(p.recovered?.settledBatches ?? [], p.recovered?.lastSettledSeq ?? -1);

  /** The Settlement order the service signs for an API-key placement, and its price in ticks (a market /
   *  stop order's protection price, else the intent's limit). */
  async function apiKeyOrder(
    req: Extract<PlaceOrderRequest, { kind: "api_key" }>,
    m: MarketSpec,
  ): Promise<{ order: Order; signature: Hex; priceTicks: bigint }> {
    let priceTicks = req.priceTicks;
    if (priceTicks === null) {
      const ref =
        req.triggerPriceTicks ??
        (() => {
          const d = svc.engine.getDepth(m.symbol, 1);
          const lvl = req.side === "buy" ? d?.asks[0] : d?.bids[0];
          return lvl ? BigInt(lvl[0]) : null;
        })();
      if (ref === null)
        throw new DexServiceError("INVALID_REQUEST", "no liquidity to price a market order against", {
          statusReason: "no_liquidity",
        });
      priceTicks =
        req.side === "buy"
          ? (ref * (10_000n + PROTECTION_BPS)) / 10_000n
          : (ref * (10_000n - PROTECTION_BPS)) / 10_000n;
      if (priceTicks < 1n) priceTicks = 1n;
    }
    // taken before the first await: two concurrent placements of one account never get the same nonce
    const nonce = apiNonces.next(req.trader);
    const nowSec = BigInt(Math.floor(clock.now() / 1000));
    const expiry =
      req.expiresAtMs !== null ? BigInt(Math.ceil(req.expiresAtMs / 1000)) + 10n : nowSec + API_ORDER_LIFETIME_SEC;
    const order: Order = {
      trader: req.trader,
      baseToken: m.baseToken,
      quoteToken: m.quoteToken,
      side: req.side === "buy" ? 0 : 1,
      price: priceTicks * m.tickSize,
      amount: req.sizeLots * m.lotSize,
      expiry,
      nonce,
      flags: orderFlagsFor(req.type, req.timeInForce),
    };
    const { agent } = req;
    const signature = agent.signDigest
      ? (deps.knownSigners?.signAsAgent(agent.address, agent.signDigest, orderDigest(order)) ??
        agent.signDigest(orderDigest(order)))
      : await signOrder(agent, domain, order);
    return { order, signature, priceTicks };
  }

  return {
    settlementDomain: domain,
    getFees: () => svc.fees(),
    listMarkets(): readonly MarketSpec[] {
      return markets().map((m) => ({ ...m }));
    },

    async placeOrder(req) {
      const known = req.newOrderId === true ? undefined : state.orderById(req.orderId);
      if (known) return withFills(known);
      const m = marketOf(req.symbol);
      if (!m)
        throw new DexServiceError("INVALID_SYMBOL", `trading pair not supported: ${req.symbol}`, {
          symbol: req.symbol,
        });
      // refused whatever it is (backlog full, halted, chain down): before the agent signs it or a nonce is taken
      const refused = svc.admissionRefusal();
      if (refused) throw toDexError(refused, false);
      let signed: { order: Order; signature: Hex; priceTicks: bigint };
      try {
        // a wallet's market / stop order has no limit in the intent: its ticks are its signed protection price's
        // (the API checked that it is on the tick grid)
        signed =
          req.kind === "signed"
            ? {
                order: req.order as Order,
                signature: req.signature,
                priceTicks: req.priceTicks ?? req.order.price / m.tickSize,
              }
            : await apiKeyOrder(req, m);
      } catch (e) {
        throw toDexError(e, false);
      }
      const info = {
        orderId: req.orderId,
        clientOrderId: req.clientOrderId,
        apiKeyId: req.kind === "api_key" ? req.apiKeyId : null,
        expiresAtMs: req.expiresAtMs,
        priceTicks: req.priceTicks === null ? null : req.priceTicks.toString(),
        triggerPriceTicks: req.triggerPriceTicks === null ? null : req.triggerPriceTicks.toString(),
        hidden: req.hidden ?? false,
        icebergVisibleLots: req.icebergVisibleLots ? req.icebergVisibleLots.toString() : null,
        requestHash: req.requestHash ?? null,
      };
      const t0 = performance.now();
      try {
        await svc.placeSigned(
          {
            symbol: req.symbol,
            type: req.type,
            timeInForce: engineTimeInForce(req.timeInForce),
            priceTicks: signed.priceTicks,
            sizeLots: req.sizeLots,
            triggerPriceTicks: req.triggerPriceTicks,
            order: signed.order,
            signature: signed.signature,
            expiresAtMs: req.expiresAtMs,
            hidden: req.hidden,
            icebergVisibleLots: req.icebergVisibleLots,
          },
          info,
        );
      } catch (e) {
        throw toDexError(e, req.kind === "api_key");
      } finally {
        metrics.matchLatency.observe((performance.now() - t0) / 1000);
      }
      const r = state.orderById(req.orderId);
      if (!r) throw new DexServiceError("SERVICE_UNAVAILABLE", "the order was not recorded");
      return withFills(r);
    },

    placementRefusal() {
      const refused = svc.admissionRefusal();
      return refused ? (toDexError(refused, false) as DexServiceError) : undefined;
    },

    async cancelOrder(req: CancelOrderRequest) {
      const r = state.orderById(req.orderId);
      if (!r || r.account.toLowerCase() !== req.account.toLowerCase())
        throw new DexServiceError("ORDER_NOT_FOUND", `order ${req.orderId} not found`);
      if (!DEX_OPEN_STATUSES.includes(r.status))
        throw new DexServiceError("ORDER_NOT_OPEN", `order ${req.orderId} is ${r.status}`, { status: r.status });
      try {
        await svc.cancel(r.hash, req.account, req.reason);
      } catch (e) {
        throw toDexError(e, false);
      }
      return strip(r);
    },

    async cancelOrdersOfApiKey(apiKeyId, account, reason) {
      const open = [...state.byId.values()].filter(
        (r) =>
          r.apiKeyId === apiKeyId &&
          r.account.toLowerCase() === account.toLowerCase() &&
          DEX_OPEN_STATUSES.includes(r.status),
      );
      await Promise.all(open.map((r) => svc.cancel(r.hash, account, reason).catch(() => undefined)));
      return open.map((r) => r.orderId);
    },

    async getOrder(orderId) {
      const r = state.orderById(orderId);
      return r ? withFills(r) : null;
    },

    async findOrderByClientOrderId(account, clientOrderId) {
      const hit = state.findByClientOrderId(account, clientOrderId);
      return hit ? { order: withFills(hit.order), requestHash: hit.requestHash } : null;
    },

    async listOrders(q: DexOrderQuery) {
      return state.listOrders(q).map(withFills);
    },

    async getBalances(account): Promise<DexBalance[]> {
      const tokens = new Map<string, Address>();
      for (const m of markets()) for (const t of [m.baseToken, m.quoteToken]) tokens.set(t.toLowerCase(), t);
      const out: DexBalance[] = [];
      for (const token of tokens.values()) {
        const onChainUnits = (await p.client.readContract({
          address: deps.settlement,
          abi,
          functionName: "balanceOf",
          args: [account, token],
        })) as bigint;
        const led = svc.ledger;
        const avail = led.available(account, token);
        const meta = deps.assets[token.toLowerCase()] ?? { symbol: token, decimals: 18 };
        out.push({
          token,
          asset: meta.symbol,
          decimals: meta.decimals,
          onChainUnits,
          lockedUnits: led.lockedOf(account, token),
          pendingWithdrawalUnits: led.pendingWithdrawal(account, token),
          availableUnits: avail < 0n ? 0n : avail,
        });
      }
      return out;
    },

    async getOrderBook(symbol, depth): Promise<DexBookSnapshot | null> {
      const d = svc.engine.getDepth(symbol, depth ?? Number.MAX_SAFE_INTEGER);
      if (!d) return null;
      const lv = (x: [number, number]) => ({ priceTicks: BigInt(x[0]), sizeLots: BigInt(x[1]) });
      return {
        symbol,
        bids: d.bids.map(lv),
        asks: d.asks.map(lv),
        sequence: state.bookSeq.get(symbol) ?? 0,
        timestampMs: clock.now(),
      };
    },

    async getRecentTrades(symbol, limit) {
      return (state.trades.get(symbol) ?? []).slice(-limit).reverse();
    },

    async getMarketStats(symbol): Promise<DexMarketStats | null> {
      const m = marketOf(symbol);
      if (!m) return null;
      const list = state.trades.get(symbol) ?? [];
      const now = clock.now();
      const since = now - 24 * 3600 * 1000;
      const day = list.filter((t) => t.timestampMs >= since);
      const volume24hLots = day.reduce((a, t) => a + t.sizeLots, 0n);
      return {
        symbol,
        lastPriceTicks: list.length ? list[list.length - 1].priceTicks : null,
        volume24hLots,
        open24hPriceTicks: day[0]?.priceTicks ?? null,
        timestampMs: now,
      };
    },

    async prepareAgentApproval(trader, agent, expiry): Promise<Eip712TypedData> {
      const nonce = (await p.client.readContract({
        address: deps.settlement,
        abi,
        functionName: "nonces",
        args: [trader],
      })) as bigint;
      const deadline = BigInt(Math.floor(clock.now() / 1000) + AGENT_APPROVAL_SUBMIT_WINDOW_SEC);
      return {
        domain: {
          name: domain.name,
          version: domain.version,
          chainId: domain.chainId,
          verifyingContract: domain.verifyingContract,
        },
        types: AGENT_APPROVAL_TYPES as unknown as Eip712TypedData["types"],
        primaryType: "AgentApproval",
        message: { trader, agent, expiry, nonce, deadline },
      };
    },

    async submitAgentApproval(approval: AgentApproval, signature: Hex) {
      let signer: Address;
      try {
        signer = await recoverTypedDataAddress({
          domain,
          types: AGENT_APPROVAL_TYPES,
          primaryType: "AgentApproval",
          message: approval,
          signature,
        });
      } catch {
        throw new DexServiceError("INVALID_SIGNATURE", "the agent approval signature does not recover");
      }
      if (signer.toLowerCase() !== approval.trader.toLowerCase())
        throw new DexServiceError("INVALID_SIGNATURE", "the agent approval is not signed by the trader");
      await relayer().submit(approval, signature);
      await p.syncChain();
    },

    async submitAgentRenouncement(renouncement: AgentRenouncement, signature: Hex) {
      const agentExpiry = async () =>
        (await p.client.readContract({
          address: deps.settlement,
          abi,
          functionName: "agentExpiry",
          args: [renouncement.trader, renouncement.agent],
        })) as bigint;
      // nothing approved, nothing to pay for (renouncing is idempotent on chain, but costs gas)
      if ((await agentExpiry()) === 0n) return { txHash: null, agentExpiry: 0n };
      const { txHash } = await relayer().renounce(renouncement, signature);
      // the chain follower hears AgentRevoked now: the agent's orders are cancelled before this resolves
      await p.syncChain();
      return { txHash, agentExpiry: await agentExpiry() };
    },

    subscribe(listener) {
      state.listeners.add(listener);
      return () => state.listeners.delete(listener);
    },
  };
}
