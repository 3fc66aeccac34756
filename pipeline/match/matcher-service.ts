// Long file: the order in which one command changes the engine, the ledger, the nonces, the resale facts and
// the journal is this class's one job; the parts that stand alone are apart (service-types, ledger, nonce-set,
// resale, snapshot-json, the intake).
// The matcher service: the one place where commands enter the engine, in order. It owns the journaled
// engine, the available-balance ledger, the nonce and agent state the intake needs, and the signed order
// behind every engine order; trades leave for the batcher once their command is durable.
import type { Address, Hex } from "viem";
import type { Command, EngineEvent, MarketConfig, PlaceCommand, TradeEvent } from "../../matcher/core/types";
import { createJournaledEngine, type JournaledEngine } from "../../matcher/journal";
import { MATCHER_RESERVE_ORDERS } from "../../matcher/deployment";
import { PipelineError } from "../errors";
import { validateSignedOrder, type IntakeContext, type PlaceSignedInput, type ValidatedOrder } from "../intake/intake";
import { createRecoverPool, type RecoverPool } from "../intake/recover-pool";
import { BalanceLedger, buyLockFor, orderLockOf, type TradeDelta } from "./ledger";
import { assertMarketGridExact, lotsToBase, quoteFor, ticksToPrice, type MarketSpec } from "../markets";
import { orderFromJson, orderToJson, type OrderJson, type SignedOrder } from "../order";
import type { SettleableTrade } from "../settle/batcher";
import { formatDecimal } from "../../sdk/decimal";
import { feeFor } from "../../sdk/eip712";
import { systemClock, type Clock } from "../../runtime/clock";
import { fromJsonSafe, toJsonSafe, type JsonSafe } from "./snapshot-json";
import { NonceSet } from "./nonce-set";
import { ResaleFacts, type ResaleFactsJson, type ResaleUpdate } from "./resale";

/** Order nodes the engine allocates at start: the bench's reserve (matcher/deployment.ts). */
const RESERVE_ORDERS = MATCHER_RESERVE_ORDERS;

export { SETTLEMENT_REJECTED, DEFAULT_SNAPSHOT_EVERY } from "./service-types";
export type {
  JournalMeta,
  LiveOrder,
  ServiceEvent,
  RejectedOrder,
  FeeRates,
  SnapshotPart,
  MatcherServiceDeps,
  PlaceResult,
} from "./service-types";
import {
  SETTLEMENT_REJECTED,
  DEFAULT_SNAPSHOT_EVERY,
  type JournalMeta,
  type LiveOrder,
  type ServiceEvent,
  type RejectedOrder,
  type FeeRates,
  type MatcherServiceDeps,
  type PlaceResult,
} from "./service-types";

/** A new order is refused (SERVICE_UNAVAILABLE, reason ORDER_LOG_STALLED) once the order log's write on its way
 *  has waited this long: longer than a JetStream leader election, shorter than the API's wait for a partition's
 *  answer, so a client hears "retry" at once instead of waiting out an outage (docs/decisions/pipeline.md,
 *  "Replicated order log"; `npm run bench:node-kill` measures the elections). */
export const ORDER_LOG_STALL_MS = 15_000;

/** The matcher service's part of a journal snapshot (see snapshotState). */
interface ServiceSnapshot {
  /** 1: nonces as lists of decimals; 2: as runs (nonceRuns) */
  v: 1 | 2;
  ledger: ReturnType<BalanceLedger["journalPart"]>;
  orders: JsonSafe[];
  signed: { hash: Hex; order: OrderJson; signature: Hex }[];
  nonces: [string, string[]][] | [string, string][];
  unsettled: JsonSafe[];
  dropped: number[];
  rejected: [string, string][];
  parts: Record<string, unknown>;
  /** absent in snapshots older than the resale rule */
  resale?: ResaleFactsJson;
}

/** The journal file of the previous version (JSON lines `{cmd, meta?}`), carried into the journal once. */
const LEGACY_JOURNAL = "commands.jsonl";

/** The drop decision as journaled (meta.info.settlementDrop of a `tick` record). */
interface SettlementDrop {
  orders: RejectedOrder[];
  trades: number[];
}

export class MatcherService {
  readonly ledger = new BalanceLedger();
  readonly orders = new Map<string, LiveOrder>();
  /** every signed order ever accepted, by hash (the batcher needs finished ones too) */
  private readonly signed = new Map<string, SignedOrder>();
  private readonly usedNonces = new Map<string, NonceSet>();
  private readonly minNonce = new Map<string, bigint>();
  private readonly agents = new Map<string, bigint>();
  private readonly markets = new Map<string, MarketSpec>();
  private readonly listeners = new Set<(e: ServiceEvent) => void>();
  private journal!: JournaledEngine<JournalMeta>;
  /** the one clock of the service (the pipeline's), read by the DEX service too */
  readonly clock: Clock;
  private readonly now: () => number;
  private pendingTrades: SettleableTrade[] = [];
  private halted: string | undefined;
  readonly intake: IntakeContext;
  /** trades since start, in seq order, for the batcher's resume */
  replayedTrades: SettleableTrade[] = [];
  /** matched trades not known to be settled: what a drop must undo */
  private readonly unsettled = new Map<number, { trade: SettleableTrade; delta: TradeDelta; quoteAmount: bigint }>();
  /** trade seqs dropped by a journaled decision (never to be settled) */
  readonly droppedSeqs = new Set<number>();
  /** orders the contract refused (hash -> error): cancelled, never matched again */
  readonly rejectedOrders = new Map<string, string>();
  /** the resale rule's facts (pipeline/match/resale.ts) */
  readonly resale: ResaleFacts;

  constructor(private readonly deps: MatcherServiceDeps) {
    this.clock = deps.clock ?? systemClock;
    this.resale = new ResaleFacts(
      deps.resaleExemptions ?? new Map(),
      (id) => this.orders.get(id.toLowerCase())?.resaleUntilMs ?? 0,
    );
    this.now = () => this.clock.now();
    for (const m of deps.markets) {
      assertMarketGridExact(m);
      this.markets.set(m.symbol, m);
    }
    this.intake = {
      marketOf: (s) => this.markets.get(s),
      digest: deps.digest,
      nowMs: this.now,
      expiryMarginMs: deps.expiryMarginMs,
      agentExpiry: (t, a) => this.agents.get(`${t.toLowerCase()}:${a.toLowerCase()}`) ?? 0n,
      nonceProblem: (t, n) => this.nonceProblem(t, n),
      isValidContractSignature: deps.isValidContractSignature,
      knownSigners: deps.knownSigners,
    };
    if ((deps.recoverThreads ?? 0) > 0) {
      const pool = createRecoverPool(deps.recoverThreads!);
      this.recoverPool = pool;
      this.intake.recoverSigner = (d, s) => pool.recover(d, s);
    }
  }

  private recoverPool: RecoverPool | undefined;

  /** What the last open() recovered: the snapshot's record index, the records replayed after it, and the
   *  time the whole recovery took (ms; benches and logs). */
  recovery: { snapshotIndex: number; replayed: number; ms: number } = { snapshotIndex: 0, replayed: 0, ms: 0 };

  // ------------------------------------------------------------ lifecycle

  /** Opens the journal and replays it: the book, locks, nonces and the trades come back. The journal
   *  takes no snapshots: the service's state beside the engine (locks, nonces, signed orders, unsettled
   *  trades) is rebuilt from every record's meta. */
  async open(): Promise<{ records: number; trades: number }> {
    const engineMarkets: MarketConfig[] = this.deps.markets.map((m) => ({
      symbol: m.symbol,
      minSizeLots: Number(m.minLots),
      maxSizeLots: Number(m.maxLots),
    }));
    const trades: SettleableTrade[] = [];
    const t0 = performance.now();
    this.journal = await createJournaledEngine<JournalMeta>({
      dir: this.deps.journalDir,
      openLog: this.deps.openLog,
      markets: engineMarkets,
      fsync: this.deps.fsync,
      reserveOrders: RESERVE_ORDERS,
      snapshotEvery: this.deps.snapshotEvery ?? DEFAULT_SNAPSHOT_EVERY,
      owner: {
        state: () => this.snapshotState(),
        restore: (st) => st !== undefined && this.restoreSnapshot(st as ServiceSnapshot),
      },
      onEngine: (engine) => this.resale.install(engine),
      onReplay: ({ c: cmd, m: meta }, events) => {
        const pre = this.preApply(cmd, meta);
        this.applyEvents(cmd, events, pre, trades, cmd.ts, meta);
        this.applyDrop(cmd, meta);
        if (meta?.resale) this.resale.apply(meta.resale);
      },
      legacy: {
        file: LEGACY_JOURNAL,
        convert: (line) => ({ c: (line as { cmd: Command }).cmd, m: (line as { meta?: JournalMeta }).meta }),
      },
    });
    if (this.journal.recovery.imported > 0)
      this.deps.logger?.info(
        { records: this.journal.recovery.imported, file: LEGACY_JOURNAL },
        "journal of the previous version carried into the matcher journal",
      );
    // the snapshot's trades not known settled, then the tail's, in seq order
    const held = [...this.restoredTrades, ...trades];
    this.restoredTrades = [];
    this.replayedTrades = held.filter((t) => !this.droppedSeqs.has(t.seq));
    const { snapshotIndex, replayed } = this.journal.recovery;
    this.recovery = { snapshotIndex, replayed, ms: performance.now() - t0 };
    return { records: replayed, trades: trades.length };
  }

  async close(): Promise<void> {
    void this.recoverPool?.close();
    // a clean stop leaves a snapshot: the next start replays nothing (a failed journal keeps its records)
    if (this.journal && this.deps.snapshotEvery !== 0) {
      await this.journal
        .snapshot()
        .catch((e) => this.deps.logger?.warn({ err: String(e) }, "journal snapshot at stop failed"));
    }
    await this.journal?.close();
  }

  /** trades of the snapshot not known settled (restore), until open() hands them on */
  private restoredTrades: SettleableTrade[] = [];

  /** What the journal's records built beside the engine, at a snapshot's record index. The chain's facts
   *  (deposits, withdrawals, agents, minimum nonces) are not in it: every start reads the chain's history
   *  again. Signed orders: only those a later record or settlement can need (open orders, unsettled trades). */
  private snapshotState(): ServiceSnapshot {
    const needed = new Set<string>();
    for (const h of this.orders.keys()) needed.add(h);
    for (const u of this.unsettled.values())
      needed.add(u.trade.makerHash.toLowerCase()).add(u.trade.takerHash.toLowerCase());
    const parts: Record<string, unknown> = {};
    for (const [name, part] of Object.entries(this.deps.snapshotParts ?? {})) parts[name] = part.snapshotState();
    return {
      v: 2,
      ledger: this.ledger.journalPart(),
      orders: [...this.orders.values()].map((o) =>
        toJsonSafe({
          ...o,
          signed: undefined,
          market: o.market.symbol,
          order: orderToJson(o.signed.order),
          signature: o.signed.signature,
        }),
      ),
      signed: [...needed].flatMap((h) => {
        const so = this.signed.get(h);
        return so ? [{ hash: so.hash, order: orderToJson(so.order), signature: so.signature }] : [];
      }),
      nonces: [...this.usedNonces].map(([t, set]) => [t, set.runs()]),
      unsettled: [...this.unsettled.values()].map((u) => toJsonSafe(u)),
      dropped: [...this.droppedSeqs],
      rejected: [...this.rejectedOrders],
      parts,
      resale: this.resale.toJson(),
    };
  }

  private restoreSnapshot(st: ServiceSnapshot): void {
    if (st.v !== 1 && st.v !== 2) throw new Error(`matcher snapshot version ${String(st.v)} is not known`);
    this.ledger.restoreJournalPart(st.ledger);
    for (const s of st.signed) {
      const order = orderFromJson(s.order);
      this.signed.set(s.hash.toLowerCase(), { order, signature: s.signature, hash: s.hash });
    }
    for (const j of st.orders) {
      const o = fromJsonSafe<
        Omit<LiveOrder, "signed" | "market"> & { market: string; order: OrderJson; signature: Hex }
      >(j);
      const { order: _o, signature: _s, ...rest } = o;
      const signed = this.signed.get(o.hash.toLowerCase()) ?? {
        order: orderFromJson(o.order),
        signature: o.signature,
        hash: o.hash,
      };
      this.signed.set(o.hash.toLowerCase(), signed);
      this.orders.set(o.hash.toLowerCase(), { ...rest, signed, market: this.markets.get(o.market)! });
    }
    for (const [t, list] of st.nonces)
      this.usedNonces.set(
        t,
        st.v === 1 ? NonceSet.of((list as string[]).map((n) => BigInt(n))) : NonceSet.fromRuns(list as string),
      );
    for (const j of st.unsettled) {
      const u = fromJsonSafe<{ trade: SettleableTrade; delta: TradeDelta; quoteAmount: bigint }>(j);
      this.unsettled.set(u.trade.seq, u);
    }
    for (const seq of st.dropped) this.droppedSeqs.add(seq);
    for (const [h, e] of st.rejected) this.rejectedOrders.set(h, e);
    this.resale.restore(st.resale);
    this.restoredTrades = [...this.unsettled.values()].map((u) => u.trade).sort((a, b) => a.seq - b.seq);
    for (const [name, part] of Object.entries(this.deps.snapshotParts ?? {}))
      if (st.parts[name] !== undefined) part.restoreSnapshot(st.parts[name]);
  }

  /** Journals a change of the resale rule's facts (the eligibility registry's, as the chain follower reads
   *  them); one that changes nothing is not journaled. */
  async resaleFacts(u: ResaleUpdate): Promise<void> {
    if (!this.resale.changes(u)) return;
    await this.submit({ kind: "tick", ts: this.now() }, { resale: u });
  }

  /** Where durable trades go (the batcher), in seq order. */
  setTradeSink(fn: (t: SettleableTrade) => void): void {
    this.deps.onDurableTrade = fn;
  }

  /** Load shedding: orders are refused (SERVICE_UNAVAILABLE, retryable) while `backlogTrades()` >= `maxTrades`
   *  matched trades wait for settlement, so acceptance -> settlement latency stays bounded instead of
   *  growing with a queue the chain cannot drain. `retryAfterMs()` is what the refusal advises (the
   *  batcher's recent time between confirmations: when room is likely again). */
  setBacklogLimit(backlogTrades: () => number, maxTrades: number, retryAfterMs: () => number = () => 10): void {
    this.backlog = { trades: backlogTrades, max: maxTrades, retryAfterMs };
  }

  private backlog: { trades(): number; max: number; retryAfterMs(): number } | undefined;

  /** Refuses new orders while `refusal()` gives one (the home chain cannot settle: CHAIN_UNAVAILABLE). */
  setSettlementGate(refusal: () => PipelineError | undefined): void {
    this.gate = refusal;
  }

  private gate: (() => PipelineError | undefined) | undefined;

  halt(reason: string): void {
    this.halted = reason;
  }

  subscribe(fn: (e: ServiceEvent) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  signedOrder = (hash: Hex): SignedOrder | undefined => this.signed.get(hash.toLowerCase());
  marketList(): MarketSpec[] {
    return [...this.markets.values()];
  }

  // ------------------------------------------------------------ commands

  /** Why a new order would be refused now whatever it is (settlement halted, the order log stalled, the chain
   *  down, the settlement backlog full), else undefined: placeSigned's first check, which a caller may make before it spends a
   *  signature recovery or an agent's signature on an order that cannot be placed. */
  admissionRefusal(): PipelineError | undefined {
    if (this.halted) return new PipelineError("SERVICE_UNAVAILABLE", `settlement halted: ${this.halted}`);
    const stalledMs = this.journal?.stalledMs() ?? 0;
    if (stalledMs > ORDER_LOG_STALL_MS)
      return new PipelineError("SERVICE_UNAVAILABLE", "the order log is not acknowledging writes, retry shortly", {
        reason: "ORDER_LOG_STALLED",
        stalledMs: Math.round(stalledMs),
        retryAfterMs: 1_000,
      });
    const refused = this.gate?.();
    if (refused) return refused;
    if (this.backlog && this.backlog.trades() >= this.backlog.max) {
      // the refusal is routine under load: no stack trace to capture (it never reaches a client anyway)
      const limit = Error.stackTraceLimit;
      Error.stackTraceLimit = 0;
      try {
        return new PipelineError("SERVICE_UNAVAILABLE", "settlement backlog full, retry shortly", {
          reason: "SETTLEMENT_BACKLOG",
          backlogTrades: this.backlog.trades(),
          retryAfterMs: this.backlog.retryAfterMs(),
        });
      } finally {
        Error.stackTraceLimit = limit;
      }
    }
    return undefined;
  }

  async placeSigned(input: PlaceSignedInput, info?: Record<string, unknown>): Promise<PlaceResult> {
    const refused = this.admissionRefusal();
    if (refused) throw refused;
    const v = await validateSignedOrder(this.intake, input);
    const resaleUntilMs = await this.resaleUntilOf(v);
    // from here to submit: synchronous, so no other command can use the same funds or nonce
    const nonceProblem = this.nonceProblem(v.account, input.order.nonce);
    if (nonceProblem) throw new PipelineError("INVALID_NONCE", nonceProblem, { nonce: input.order.nonce.toString() });
    const available = this.ledger.available(v.account, v.lock.token);
    if (available < v.lock.amount) {
      const m = v.market;
      const dec = v.lock.token.toLowerCase() === m.quoteToken.toLowerCase() ? m.quoteDecimals : m.baseDecimals;
      throw new PipelineError("INSUFFICIENT_BALANCE", "not enough available balance for the order", {
        required: Number(formatDecimal(v.lock.amount, dec)),
        available: Number(formatDecimal(available < 0n ? 0n : available, dec)),
        token: v.lock.token,
        requiredUnits: v.lock.amount.toString(),
        availableUnits: available.toString(),
      });
    }
    const cmd: PlaceCommand = {
      kind: "place",
      ts: this.now(),
      account: v.account,
      orderId: v.hash,
      symbol: v.market.symbol,
      side: v.side,
      type: v.type,
      timeInForce: v.timeInForce,
      priceTicks: v.priceTicks,
      sizeLots: v.sizeLots,
      ...(v.triggerPriceTicks !== undefined ? { triggerPriceTicks: v.triggerPriceTicks } : {}),
      ...(input.expiresAtMs != null && v.timeInForce === "GTD" ? { expiresAt: input.expiresAtMs } : {}),
      ...(input.hidden ? { hidden: true } : {}),
      ...(input.icebergVisibleLots ? { icebergVisibleLots: Number(input.icebergVisibleLots) } : {}),
    };
    // the journal keeps the signed order in its JSON form; this call hands the typed order on as it is
    const meta: JournalMeta = {
      order: orderToJson(input.order),
      signature: input.signature,
      signer: v.signer,
      deadlineMs: v.deadlineMs,
      info,
      ...(resaleUntilMs > 0 ? { resaleUntilMs } : {}),
    };
    const live = this.liveOrder(
      v.hash,
      cmd,
      v.market,
      { order: input.order, signature: input.signature, hash: v.hash },
      v.deadlineMs,
      v.signer,
      info,
      cmd.expiresAt ?? 0,
    );
    if (resaleUntilMs > 0) live.resaleUntilMs = resaleUntilMs;
    const events = await this.submit(cmd, meta, live);
    const rejected = events.find((e) => e.type === "rejected");
    return rejected && rejected.type === "rejected"
      ? { hash: v.hash, events, status: "rejected", rejectCode: rejected.code }
      : { hash: v.hash, events, status: "accepted" };
  }

  /** Cancels an open order (reason recorded in the journal). */
  async cancel(orderId: string, account: string | null, reason: string): Promise<EngineEvent[]> {
    const o = this.orders.get(orderId.toLowerCase());
    if (!o || (account !== null && o.account !== account.toLowerCase()))
      throw new PipelineError("ORDER_NOT_FOUND", `order ${orderId} not found`);
    return this.submit({ kind: "cancel", ts: this.now(), account: o.account, orderId: o.hash }, { reason });
  }

  /** Cancels every order past its deadline (signed expiry minus the margin), and ticks the engine (a
   *  journaled `tick` at the service's clock) when a GTD order is due: the engine expires it. */
  async sweepExpired(): Promise<number> {
    const now = this.now();
    const live = [...this.orders.values()];
    const gtdDue = live.filter((o) => o.gtdExpiresAtMs !== 0 && o.gtdExpiresAtMs <= now);
    if (gtdDue.length > 0) await this.submit({ kind: "tick", ts: now });
    const due = live.filter((o) => o.deadlineMs <= now && this.orders.has(o.hash.toLowerCase()));
    await Promise.all(
      due.map((o) =>
        this.submit({ kind: "cancel", ts: now, account: o.account, orderId: o.hash }, { reason: "expired" }),
      ),
    );
    return due.length + gtdDue.length;
  }

  /** `placed`: the order a live place command carries (replay rebuilds it from the record). */
  private submit(cmd: Command, meta?: JournalMeta, placed?: LiveOrder): Promise<EngineEvent[]> {
    const pre = this.preApply(cmd, meta, placed);
    const { events, durable } = this.journal.apply(cmd, meta);
    const trades: SettleableTrade[] = [];
    this.applyEvents(cmd, events, pre, trades, this.now(), meta);
    this.applyDrop(cmd, meta);
    if (meta?.resale) this.resale.apply(meta.resale);
    for (const t of trades) this.pendingTrades.push(t);
    return durable.then(() => {
      // a command without trades releases none (each trade is released by its own command's record)
      if (trades.length === 0) return events;
      // durable records resolve in order, so trades leave in seq order
      const ready = this.pendingTrades.filter((t) => t.seq <= (trades.at(-1)?.seq ?? -1));
      if (ready.length) {
        this.pendingTrades = this.pendingTrades.filter((t) => t.seq > ready[ready.length - 1].seq);
        for (const t of ready) this.deps.onDurableTrade?.(t);
      }
      return events;
    });
  }

  // ------------------------------------------------------------ applying commands and events

  /** The engine-side record of a signed order: its lock follows from the signed price and amount. */
  private liveOrder(
    hash: Hex,
    cmd: PlaceCommand,
    market: MarketSpec,
    signed: SignedOrder,
    deadlineMs: number,
    signer: string,
    info: Record<string, unknown> | undefined,
    gtdExpiresAtMs = 0,
  ): LiveOrder {
    const { order } = signed;
    const side = order.side === 0 ? "buy" : "sell";
    const lock = orderLockOf(market, order);
    return {
      hash,
      signed,
      market,
      account: cmd.account,
      side,
      type: cmd.type,
      timeInForce: cmd.timeInForce,
      sizeLots: BigInt(cmd.sizeLots),
      limitPrice: order.price,
      remainingBase: order.amount,
      lock,
      deadlineMs,
      gtdExpiresAtMs,
      signer: signer.toLowerCase(),
      acceptedSeq: -1,
      info,
    };
  }

  /** The order of a journaled place command, as replay rebuilds it from the record. */
  private liveOrderOfRecord(cmd: Command, meta?: JournalMeta): LiveOrder | undefined {
    if (cmd.kind !== "place" || !meta?.order || !meta.signature) return undefined;
    const order = orderFromJson(meta.order);
    const hash = cmd.orderId as Hex;
    const deadlineMs = meta.deadlineMs ?? Number(meta.reason ?? Number(order.expiry) * 1000);
    const live = this.liveOrder(
      hash,
      cmd,
      this.markets.get(cmd.symbol)!,
      { order, signature: meta.signature, hash },
      deadlineMs,
      meta.signer ?? order.trader,
      meta.info,
      cmd.expiresAt ?? 0,
    );
    if (meta.resaleUntilMs) live.resaleUntilMs = meta.resaleUntilMs;
    return live;
  }

  /** A sell on a restricted market: until when it gives restricted units (its account's open sells there
   *  take the free units first). Any other order: 0. */
  private async resaleUntilOf(v: ValidatedOrder): Promise<number> {
    if (v.side !== "sell" || !this.resale.exemptions.has(v.market.symbol) || !this.deps.sellRestriction) return 0;
    let offered = 0n;
    for (const o of this.orders.values())
      if (o.side === "sell" && o.account === v.account && o.market.symbol === v.market.symbol)
        offered += o.remainingBase;
    return this.deps.sellRestriction(v.market, v.account, v.lock.amount, offered);
  }

  /** The state a place command needs before the engine runs: its lock and nonce are reserved. */
  private preApply(cmd: Command, meta?: JournalMeta, placed?: LiveOrder): LiveOrder | undefined {
    const live = placed ?? this.liveOrderOfRecord(cmd, meta);
    if (!live) return undefined;
    const { lock } = live;
    const order = live.signed.order;
    this.ledger.lock(live.account, lock);
    this.useNonce(live.account, order.nonce);
    this.orders.set(live.hash.toLowerCase(), live);
    this.signed.set(live.hash.toLowerCase(), live.signed);
    return live;
  }

  private applyEvents(
    cmd: Command,
    events: EngineEvent[],
    placed: LiveOrder | undefined,
    trades: SettleableTrade[],
    atMs: number,
    meta?: JournalMeta,
  ): void {
    for (const e of events) {
      const id = (e as { orderId?: string }).orderId;
      const order = id
        ? (this.orders.get(id.toLowerCase()) ??
          (placed && placed.hash.toLowerCase() === id.toLowerCase() ? placed : undefined))
        : undefined;
      switch (e.type) {
        case "accepted": {
          const o = this.orders.get(e.orderId.toLowerCase());
          if (o) o.acceptedSeq = e.seq;
          break;
        }
        case "rejected":
          if (placed && cmd.kind === "place") this.forget(placed, true);
          break;
        case "trade":
          trades.push(this.applyTrade(e, atMs));
          break;
        case "cancelled":
        case "expired": {
          const o = this.orders.get(e.orderId.toLowerCase());
          if (o) this.forget(o, false);
          break;
        }
        default:
          break;
      }
      this.emit({ kind: "engine", event: e, order, reason: cmd.kind === "cancel" ? meta?.reason : undefined });
    }
  }

  private applyTrade(e: TradeEvent, atMs: number): SettleableTrade {
    const maker = this.orders.get(e.makerOrderId.toLowerCase())!;
    const taker = this.orders.get(e.takerOrderId.toLowerCase())!;
    const m = maker.market;
    const baseAmount = lotsToBase(m, BigInt(e.sizeLots));
    const price = ticksToPrice(m, BigInt(e.priceTicks));
    const quoteAmount = quoteFor(m, BigInt(e.sizeLots), BigInt(e.priceTicks));
    for (const o of [maker, taker]) {
      o.remainingBase -= baseAmount;
      const newLock = o.side === "buy" ? buyLockFor(o.remainingBase, o.limitPrice) : o.remainingBase;
      this.ledger.unlock(o.account, { token: o.lock.token, amount: o.lock.amount - newLock });
      o.lock = { token: o.lock.token, amount: newLock };
    }
    const buyer = maker.side === "buy" ? maker : taker;
    const seller = maker.side === "buy" ? taker : maker;
    const { makerFeeBps, takerFeeBps } = this.deps.fees;
    const buyerFee = feeFor(baseAmount, buyer === maker ? makerFeeBps : takerFeeBps);
    const sellerFee = feeFor(quoteAmount, seller === maker ? makerFeeBps : takerFeeBps);
    const delta: TradeDelta = {
      buyer: buyer.account,
      seller: seller.account,
      baseToken: m.baseToken,
      quoteToken: m.quoteToken,
      baseAmount,
      quoteAmount,
      buyerFee,
      sellerFee,
    };
    this.ledger.applyTrade(delta);
    if (maker.remainingBase === 0n) this.forget(maker, false);
    if (taker.remainingBase === 0n) this.forget(taker, false);
    const t: SettleableTrade = {
      seq: e.seq,
      makerHash: maker.hash,
      takerHash: taker.hash,
      baseAmount,
      price,
      matchedAtMs: atMs,
    };
    this.unsettled.set(e.seq, { trade: t, delta, quoteAmount });
    this.emit({
      kind: "trade",
      trade: t,
      event: e,
      buyer: buyer.account,
      seller: seller.account,
      baseToken: m.baseToken,
      quoteToken: m.quoteToken,
      quoteAmount,
      buyerFee,
      sellerFee,
    });
    return t;
  }

  /** The order left the book: release what it still locks. A rejected place also frees its nonce. */
  private forget(o: LiveOrder, rejected: boolean): void {
    if (!this.orders.delete(o.hash.toLowerCase())) return;
    if (o.lock.amount !== 0n) this.ledger.unlock(o.account, o.lock);
    o.lock = { token: o.lock.token, amount: 0n };
    if (rejected) {
      this.usedNonces.get(o.account)?.delete(o.signed.order.nonce);
      this.signed.delete(o.hash.toLowerCase());
    }
  }

  private emit(e: ServiceEvent): void {
    for (const l of this.listeners) {
      try {
        l(e);
      } catch {
        /* a listener's failure is its own */
      }
    }
  }

  // ------------------------------------------------------------ settlement rejections (batch poisoning)

  /** The batcher found orders the contract refuses: journal the decision (which orders, which trades are
   *  dropped) BEFORE anything else, so that a restart replays it; then cancel those still open. Returns the
   *  dropped trade seqs: every unsettled trade of those orders, matched or about to be durable. */
  async rejectForSettlement(orders: RejectedOrder[]): Promise<number[]> {
    const hashes = new Set(orders.map((o) => o.hash.toLowerCase()));
    const trades: number[] = [];
    for (const [seq, u] of this.unsettled) {
      if (hashes.has(u.trade.makerHash.toLowerCase()) || hashes.has(u.trade.takerHash.toLowerCase())) trades.push(seq);
    }
    trades.sort((a, b) => a - b);
    const drop: SettlementDrop = {
      orders: orders.map((o) => ({ hash: o.hash.toLowerCase() as Hex, error: o.error })),
      trades,
    };
    // a `tick` carries the decision: the engine sees only time passing (GTD orders due by now expire)
    await this.submit(
      { kind: "tick", ts: this.now() },
      { reason: SETTLEMENT_REJECTED, info: { settlementDrop: drop } },
    );
    await this.cancelRejectedOpen();
    this.deps.logger?.warn(
      { orders: drop.orders, droppedTrades: trades.length },
      "settlement rejected orders: cancelled, their trades dropped",
    );
    return trades;
  }

  /** Cancels every refused order still on the book (after a crash between the decision and the cancels). */
  async cancelRejectedOpen(): Promise<void> {
    const open = [...this.rejectedOrders].filter(([h]) => this.orders.has(h));
    await Promise.all(
      open.map(([h, error]) => {
        const o = this.orders.get(h)!;
        return this.submit(
          { kind: "cancel", ts: this.now(), account: o.account, orderId: o.hash },
          { reason: `${SETTLEMENT_REJECTED}:${error}` },
        );
      }),
    );
  }

  /** The trades of a settled batch: nothing can drop them any more. */
  tradesSettled(trades: readonly SettleableTrade[]): void {
    for (const t of trades) this.unsettled.delete(t.seq);
  }

  /** After a start: every trade up to `seq` is settled on chain. */
  settledUpTo(seq: number): void {
    for (const k of this.unsettled.keys()) if (k <= seq) this.unsettled.delete(k);
  }

  /** Applies a journaled drop decision (live and on replay): undo the trades' balance moves, remember them. */
  private applyDrop(cmd: Command, meta?: JournalMeta): void {
    const drop = (meta?.info as { settlementDrop?: SettlementDrop } | undefined)?.settlementDrop;
    if (!drop || cmd.kind !== "tick") return;
    const rejected: Record<string, string> = {};
    for (const o of drop.orders) {
      rejected[o.hash.toLowerCase()] = o.error;
      this.rejectedOrders.set(o.hash.toLowerCase(), o.error);
    }
    for (const seq of drop.trades) {
      this.droppedSeqs.add(seq);
      const u = this.unsettled.get(seq);
      if (!u) continue;
      this.unsettled.delete(seq);
      this.ledger.revertTrade(u.delta);
      this.emit({ kind: "dropped", trade: u.trade, rejected, quoteAmount: u.quoteAmount, ts: cmd.ts });
    }
  }

  // ------------------------------------------------------------ nonces and agents (fed by chain events)

  /** One nonce, one accepted order, ever: a filled order sets the nonce bit on chain, so a second order
   *  reusing it could never settle. */
  private nonceProblem(trader: string, nonce: bigint): string | null {
    const t = trader.toLowerCase();
    if (nonce < (this.minNonce.get(t) ?? 0n))
      return `nonce ${nonce} is below the trader's minimum ${this.minNonce.get(t)}`;
    if (this.usedNonces.get(t)?.has(nonce)) return `nonce ${nonce} is already used`;
    return null;
  }

  /** Read by the API-key nonce allocator (api-nonces.ts): an accepted order used `nonce` (a refused one
   *  gave it back) or the trader cancelled it on chain. */
  isNonceUsed(trader: string, nonce: bigint): boolean {
    return this.usedNonces.get(trader.toLowerCase())?.has(nonce) ?? false;
  }

  /** The trader's on-chain minimum nonce (cancelAllBelow), as the chain events said. */
  minNonceOf(trader: string): bigint {
    return this.minNonce.get(trader.toLowerCase()) ?? 0n;
  }

  private useNonce(trader: string, nonce: bigint): void {
    const t = trader.toLowerCase();
    let s = this.usedNonces.get(t);
    if (!s) this.usedNonces.set(t, (s = new NonceSet()));
    s.add(nonce);
  }

  // ------------------------------------------------------------ chain events

  deposited(trader: string, token: string, amount: bigint): void {
    this.ledger.deposited(trader, token, amount);
  }

  withdrawalExecuted(trader: string, token: string, amount: bigint): void {
    this.ledger.withdrawalExecuted(trader, token, amount);
  }

  withdrawalCancelled(trader: string, token: string): void {
    this.ledger.withdrawalCancelled(trader, token);
  }

  /** A withdrawal request reserves its amount; orders it leaves unfunded are cancelled, latest first. */
  async withdrawalRequested(trader: string, token: string, amount: bigint): Promise<string[]> {
    this.ledger.withdrawalRequested(trader, token, amount);
    return this.cancelUnfunded(trader, token);
  }

  /** Cancels the account's orders on `token`, newest first, until what remains is funded. */
  async cancelUnfunded(trader: string, token: string): Promise<string[]> {
    const acct = trader.toLowerCase();
    let shortfall = -this.ledger.available(acct, token);
    if (shortfall <= 0n) return [];
    const candidates = [...this.orders.values()]
      .filter((o) => o.account === acct && o.lock.token.toLowerCase() === token.toLowerCase() && o.lock.amount > 0n)
      .sort((a, b) => b.acceptedSeq - a.acceptedSeq);
    const victims: LiveOrder[] = [];
    for (const o of candidates) {
      if (shortfall <= 0n) break;
      victims.push(o);
      shortfall -= o.lock.amount;
    }
    await Promise.all(
      victims.map((o) =>
        this.submit(
          { kind: "cancel", ts: this.now(), account: o.account, orderId: o.hash },
          { reason: "withdrawal_unfunded" },
        ),
      ),
    );
    this.deps.logger?.info(
      { trader: acct, token, cancelled: victims.map((v) => v.hash) },
      "withdrawal request: unfunded orders cancelled",
    );
    return victims.map((v) => v.hash);
  }

  /** The trader cancelled a nonce on chain: the order can no longer settle, take it off the book. */
  async nonceCancelledOnChain(trader: string, nonce: bigint): Promise<void> {
    this.useNonce(trader, nonce);
    const t = trader.toLowerCase();
    const victims = [...this.orders.values()].filter((o) => o.account === t && o.signed.order.nonce === nonce);
    await Promise.all(
      victims.map((o) =>
        this.submit(
          { kind: "cancel", ts: this.now(), account: o.account, orderId: o.hash },
          { reason: "cancelled_on_chain" },
        ),
      ),
    );
  }

  async minNonceRaised(trader: string, minNonce: bigint): Promise<void> {
    const t = trader.toLowerCase();
    if (minNonce > (this.minNonce.get(t) ?? 0n)) this.minNonce.set(t, minNonce);
    const victims = [...this.orders.values()].filter((o) => o.account === t && o.signed.order.nonce < minNonce);
    await Promise.all(
      victims.map((o) =>
        this.submit(
          { kind: "cancel", ts: this.now(), account: o.account, orderId: o.hash },
          { reason: "cancelled_on_chain" },
        ),
      ),
    );
  }

  agentApproved(trader: string, agent: string, expiry: bigint): void {
    this.agents.set(`${trader.toLowerCase()}:${agent.toLowerCase()}`, expiry);
  }

  async agentRevoked(trader: string, agent: string): Promise<void> {
    this.agents.delete(`${trader.toLowerCase()}:${agent.toLowerCase()}`);
    const t = trader.toLowerCase();
    const victims = [...this.orders.values()].filter((o) => o.account === t && o.signer === agent.toLowerCase());
    await Promise.all(
      victims.map((o) =>
        this.submit(
          { kind: "cancel", ts: this.now(), account: o.account, orderId: o.hash },
          { reason: "agent_revoked" },
        ),
      ),
    );
  }

  /** The fee rates fills are charged at now. */
  fees(): FeeRates {
    return { ...this.deps.fees };
  }

  setFees(f: FeeRates): void {
    this.deps.fees = f;
  }

  // ------------------------------------------------------------ reads

  openOrders(account?: string): LiveOrder[] {
    const a = account?.toLowerCase();
    return [...this.orders.values()].filter((o) => !a || o.account === a);
  }

  get engine() {
    return this.journal.engine;
  }

  health(): { state: "ok" | "halted"; openOrders: number; reason?: string } {
    return this.halted
      ? { state: "halted", openOrders: this.orders.size, reason: this.halted }
      : { state: "ok", openOrders: this.orders.size };
  }
}

export type { ValidatedOrder, Address };
