// The DEX service's event-driven state (orders, fills, trades, book sequences) rebuilt from the matcher
// service's events, replayed from the journal on start; finished orders go to the history store.
import type { Hex } from "viem";
import type { EngineEvent } from "../../matcher/core/types";
import type { ServiceEvent } from "../match/matcher-service";
import { fromJsonSafe, toJsonSafe, type JsonSafe } from "../match/snapshot-json";
import type { SettledBatch } from "../settle/batcher";
import type { SettledBatchRecord } from "../settle/batch-confirmations";
import {
  createMemoryDexHistory,
  matchesQuery,
  newestFirst,
  queryReachesHistory,
  type DexHistory,
  type OrderRecord,
} from "../dex-history";
import type { DexEvent, DexFill, DexOrderQuery, DexOrderStatus, DexStatusReason, DexTrade } from "../service";
import { acceptedRecord, applyFill, cancelReason, clientKey, dexTradeOf, rejectedRecord, strip } from "./order-records";

const MAX_TRADES_KEPT = 10_000;

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
    if (se.kind === "trade") return this.onTrade(se);
    if (se.kind === "dropped") return this.onDropped(se);
    const e = se.event;
    switch (e.type) {
      case "accepted": {
        const info = (se.order?.info ?? {}) as Record<string, unknown>;
        const r = acceptedRecord(se, e, info);
        this.record(r, info);
        this.orderEvent(r, null);
        break;
      }
      case "rejected": {
        if (!se.order || e.command !== "place") break;
        const info = (se.order.info ?? {}) as Record<string, unknown>;
        if (!info.orderId) break;
        const r = rejectedRecord(se.order, e, info);
        this.record(r, info);
        this.orderEvent(r, null);
        this.settleIfFinished(r);
        break;
      }
      case "cancelled":
      case "expired":
        this.onFinished(e, se.reason);
        break;
      case "triggered": {
        const r = this.byHash.get(e.orderId.toLowerCase());
        if (r && r.status === "pending_trigger") {
          r.status = "open";
          r.updatedAtMs = e.ts;
          this.orderEvent(r, null);
        }
        break;
      }
      case "level":
        this.onLevel(e);
        break;
      default:
        break;
    }
  };

  private onTrade(se: Extract<ServiceEvent, { kind: "trade" }>): void {
    const dexTrade = dexTradeOf(se);
    const symbol = dexTrade.symbol;
    const list = this.trades.get(symbol) ?? [];
    list.push(dexTrade);
    if (list.length > MAX_TRADES_KEPT) list.splice(0, list.length - MAX_TRADES_KEPT);
    this.trades.set(symbol, list);
    const fills: DexFill[] = [];
    for (const [hash, liquidity] of [
      [se.trade.makerHash, "maker"],
      [se.trade.takerHash, "taker"],
    ] as const) {
      const r = this.byHash.get(hash.toLowerCase());
      if (!r) continue;
      const fill = applyFill(r, se, dexTrade, liquidity);
      fills.push(fill);
      this.orderEvent(r, fill);
    }
    this.fillsByTrade.set(dexTrade.tradeId, fills);
    this.emit({ kind: "trade", trade: dexTrade });
  }

  private onFinished(e: Extract<EngineEvent, { type: "cancelled" | "expired" }>, reason: string | undefined): void {
    const r = this.byHash.get(e.orderId.toLowerCase());
    if (!r) return;
    if (e.type === "cancelled" && e.remainingLots > 0) return; // an STP decrement: still open
    const expired = e.type === "expired" || reason === "expired";
    r.status = expired ? "expired" : "cancelled";
    r.statusReason = expired
      ? "expired"
      : ((reason as DexStatusReason | undefined) ?? cancelReason(e.type === "cancelled" ? e.reason : "expired"));
    r.updatedAtMs = e.ts;
    this.orderEvent(r, null);
    this.settleIfFinished(r);
  }

  private onLevel(e: Extract<EngineEvent, { type: "level" }>): void {
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
  }
}
