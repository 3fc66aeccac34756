// Long file: the engine's command handlers (place, cancel, amend, stops, expiry) are one class over one book
// state; the parts that stand alone are already apart (book, order, accounts, stops, expiry, fok).
// The matching engine: one central limit order book per market, price-time priority, every order
// type and time-in-force of spec 3.2, stops, hidden and iceberg orders, self-trade prevention.
// Pure: commands in, events out through an EventSink; time arrives with each command.
import { AccountOrders } from "./accounts";
import { BookSide, type Level } from "./book";
import { EventCollector, NULL_SINK } from "./collector";
import { ExpiryHeap } from "./expiry";
import { fokFillable } from "./fok";
import { OrderIndex } from "./order-index";
import { Order } from "./order";
import { StopBook, wouldFire as wouldFireImported } from "./stops";
import {
  DEFAULT_STP_MODE,
  type AmendCommand,
  type CancelAllCommand,
  type CancelCommand,
  type CancelReason,
  type Command,
  type Depth,
  type EngineEvent,
  type EventSink,
  type MarketConfig,
  type OrderInfo,
  type PlaceCommand,
  type RejectCode,
  type ResaleGate,
  type Side,
} from "./types";
import * as validate from "./validate";
import { toOrderInfo, visibleLevels } from "./views";

// Module-local aliases: CommonJS transpilers turn imported bindings into getter calls on the hot path.
const { isNonEmptyString, isPositiveSafeInt, isStopType, validatePlace } = validate;
const STP_DEFAULT = DEFAULT_STP_MODE;
const wouldFire = wouldFireImported;
/** Closed nodes kept for reuse when no larger reserve was asked for. */
const POOL_CAP = 65_536;

export interface MarketState {
  config: MarketConfig;
  maxPriceTicks: number;
  bids: BookSide;
  asks: BookSide;
  stops: StopBook;
  /** 0 until the first trade. */
  lastTradePriceTicks: number;
  /** The resale rule of a market of restricted securities (null: anyone trades with anyone). */
  resale: ResaleGate | null;
}

export { AccountOrders };

export interface EngineOptions {
  markets: MarketConfig[];
  /**
   * Order nodes to allocate up front (default 0). A book that grows then takes its nodes from this
   * reserve instead of the young generation, so scavenges copy only the order ids (see docs/decisions.md).
   */
  reserveOrders?: number;
}

export class MatchingEngine {
  // Internal state; public only for snapshot.ts.
  readonly markets = new Map<string, MarketState>();
  // Chained through the order nodes: no allocation per order, incremental growth (see order-index.ts).
  readonly orders: OrderIndex;
  readonly accounts = new Map<string, AccountOrders>();
  readonly expiry = new ExpiryHeap();
  /** Sequence number of the last emitted event. */
  seq = 0;
  /** Effective time of the last command (commands never move time backwards). */
  lastTs = 0;
  private ts = 0;
  private sink: EventSink = NULL_SINK;
  private readonly fired: Order[] = [];
  /** Why match() stopped the taker (when it returns true). */
  private killReason: CancelReason = "stp";
  /** The market of the last place command (markets are never removed). */
  private lastSymbol = "";
  private lastMarket: MarketState | undefined = undefined;
  /**
   * Closed order nodes for reuse: the engine hands nodes to sinks only for the duration of a call,
   * and recycling them keeps the order churn out of the garbage collector. GTD nodes are not
   * recycled (the expiry heap may still point at them).
   */
  private readonly pool: Order[] = [];
  private readonly poolCap: number;
  /** The order nodes allocated at start (EngineOptions.reserveOrders). */
  readonly reserveOrders: number;

  constructor(options: EngineOptions) {
    for (const config of options.markets) this.addMarket(config);
    const reserve = options.reserveOrders ?? 0;
    if (!Number.isSafeInteger(reserve) || reserve < 0) throw new Error("reserveOrders must be a non-negative integer");
    this.reserveOrders = reserve;
    // Sized by the open orders, not the reserve: a table that fits the book stays in cache (10,000 orders:
    // 16,384 buckets, 64 KB, instead of 512 KB for the reserve's 131,072); it doubles incrementally as the book grows.
    this.orders = new OrderIndex();
    // Stryker disable next-line MethodExpression: the pool's size only decides how many closed nodes are reused instead of allocated
    this.poolCap = Math.max(POOL_CAP, reserve);
    // Stryker disable next-line ConditionalExpression,EqualityOperator: pre-allocated nodes only save allocations; a missing or extra one changes no result
    for (let i = 0; i < reserve; i++) this.pool.push(new Order());
  }

  addMarket(config: MarketConfig): void {
    const { symbol, minSizeLots, maxSizeLots } = config;
    if (!/^[A-Za-z0-9]+-[A-Za-z0-9]+$/.test(symbol)) throw new Error(`market symbol must be BASE-QUOTE: ${symbol}`);
    if (this.markets.has(symbol)) throw new Error(`duplicate market ${symbol}`);
    if (!isPositiveSafeInt(minSizeLots) || !isPositiveSafeInt(maxSizeLots) || minSizeLots > maxSizeLots)
      throw new Error(`market ${symbol}: min/max size must be positive safe integers, min <= max`);
    const maxPriceTicks = config.maxPriceTicks ?? Number.MAX_SAFE_INTEGER;
    if (!isPositiveSafeInt(maxPriceTicks))
      throw new Error(`market ${symbol}: maxPriceTicks must be a positive safe integer`);
    this.markets.set(symbol, {
      config: { ...config },
      maxPriceTicks,
      bids: new BookSide(symbol, true),
      asks: new BookSide(symbol, false),
      stops: new StopBook(),
      lastTradePriceTicks: 0,
      resale: null,
    });
  }

  /** Installs (or removes, with null) `symbol`'s resale rule; it is no part of the snapshot: the owner
   *  installs it again after a restore. */
  setResaleGate(symbol: string, gate: ResaleGate | null): void {
    const m = this.markets.get(symbol);
    if (m === undefined) throw new Error(`unknown market ${symbol}`);
    m.resale = gate;
  }

  /** Applies one command, reporting every event to the sink (the allocation-free path). */
  process(cmd: Command, sink: EventSink): void {
    this.sink = sink;
    if (cmd === null || typeof cmd !== "object" || !Number.isSafeInteger(cmd.ts) || cmd.ts < 0) {
      this.ts = this.lastTs;
      this.reject(cmd, "INVALID_ORDER", "ts must be a non-negative integer (ms)");
      return;
    }
    const ts = cmd.ts > this.lastTs ? cmd.ts : this.lastTs;
    this.lastTs = ts;
    this.ts = ts;
    if (this.expiry.length > 0) this.expireDue();
    switch (cmd.kind) {
      case "place":
        return this.place(cmd);
      case "cancel":
        return this.cancel(cmd);
      case "amend":
        return this.amend(cmd);
      case "cancelAll":
        return this.cancelAll(cmd);
      case "tick":
        return;
      default:
        this.reject(cmd, "INVALID_ORDER", `unknown command kind: ${String((cmd as { kind?: unknown }).kind)}`);
    }
  }

  /** Applies one command and returns its events as objects. */
  apply(cmd: Command): EngineEvent[] {
    const collector = new EventCollector();
    this.process(cmd, collector);
    return collector.events;
  }

  // ---------------------------------------------------------------- reads

  /** The visible L2 book, best first, up to `levels` price levels a side. */
  getDepth(symbol: string, levels: number): Depth | undefined {
    const m = this.markets.get(symbol);
    if (m === undefined) return undefined;
    return { symbol, bids: visibleLevels(m.bids, levels), asks: visibleLevels(m.asks, levels) };
  }

  /** An open order (resting or held); closed orders are only reported by events. */
  getOrder(orderId: string): OrderInfo | undefined {
    const o = this.orders.get(orderId);
    return o === undefined ? undefined : toOrderInfo(o);
  }

  /** The account's open orders (resting and held stops) in arrival order. */
  getOpenOrders(account: string, symbol?: string): OrderInfo[] {
    const out: OrderInfo[] = [];
    for (let o = this.accounts.get(account)?.head ?? null; o !== null; o = o.accNext)
      if (symbol === undefined || o.symbol === symbol) out.push(toOrderInfo(o));
    return out;
  }

  /** Every resting order of one side in matching priority (hidden included). */
  getBookOrders(symbol: string, side: Side): OrderInfo[] {
    const m = this.markets.get(symbol);
    if (m === undefined) return [];
    const bookSide = side === "buy" ? m.bids : m.asks;
    const out: OrderInfo[] = [];
    for (let i = bookSide.levels.length - 1; i >= 0; i--) {
      const lvl = bookSide.levels[i];
      for (let o = lvl.visHead; o !== null; o = o.next) out.push(toOrderInfo(o));
      for (let o = lvl.hidHead; o !== null; o = o.next) out.push(toOrderInfo(o));
    }
    return out;
  }

  /** Held stop and take-profit orders of a market, in arrival order. */
  getHeldOrders(symbol: string): OrderInfo[] {
    const m = this.markets.get(symbol);
    if (m === undefined) return [];
    return [...m.stops.up, ...m.stops.down].sort((a, b) => a.acceptedSeq - b.acceptedSeq).map(toOrderInfo);
  }

  getLastTradePrice(symbol: string): number | undefined {
    const last = this.markets.get(symbol)?.lastTradePriceTicks;
    return last === undefined || last === 0 ? undefined : last;
  }

  getMarkets(): MarketConfig[] {
    return [...this.markets.values()].map((m) => ({ ...m.config }));
  }

  // ---------------------------------------------------------------- commands

  private place(cmd: PlaceCommand): void {
    // The last market placed on, checked first: a service usually sees runs of orders on one market.
    let m: MarketState | undefined;
    if (cmd.symbol === this.lastSymbol) m = this.lastMarket;
    else {
      m = this.markets.get(cmd.symbol);
      if (m !== undefined) {
        this.lastSymbol = cmd.symbol;
        this.lastMarket = m;
      }
    }
    const rejection = validatePlace(cmd, m?.config, this.ts);
    if (rejection !== null) return this.reject(cmd, rejection.code, rejection.reason);
    const idHash = this.orders.hash(cmd.orderId);
    if (this.orders.find(cmd.orderId, idHash) !== undefined)
      return this.reject(cmd, "DUPLICATE_ORDER_ID", "an open order has this orderId");
    const market = m!;
    const o = (this.pool.pop() ?? new Order()).init(
      cmd.orderId,
      cmd.clientOrderId,
      cmd.account,
      cmd.symbol,
      cmd.side,
      cmd.type,
      cmd.timeInForce,
      cmd.priceTicks ?? 0,
      cmd.triggerPriceTicks ?? 0,
      cmd.sizeLots,
      cmd.hidden === true,
      cmd.icebergVisibleLots ?? 0,
      cmd.expiresAt ?? 0,
      cmd.stp ?? STP_DEFAULT,
    );
    o.idHash = idHash;
    const isStop = isStopType(o.type);
    if (isStop) {
      const last = market.lastTradePriceTicks;
      if (last !== 0 && wouldFire(o, last)) {
        this.recycle(o);
        return this.reject(cmd, "INVALID_TRIGGER_PRICE", `the last trade price ${last} already crosses the trigger`);
      }
    } else if (o.timeInForce === "POST_ONLY" || o.type === "limit_maker") {
      if (this.crosses(market, o.isBuy, o.priceTicks)) {
        this.recycle(o);
        return this.reject(cmd, "POST_ONLY_WOULD_CROSS", "the order would match immediately");
      }
    } else if (o.timeInForce === "FOK") {
      if (!fokFillable(o.isBuy ? market.asks : market.bids, o, market.resale, this.ts)) {
        this.recycle(o);
        return this.reject(cmd, "FOK_NOT_FILLABLE", "the order cannot be filled entirely now");
      }
    }
    o.acceptedSeq = ++this.seq;
    this.sink.accepted(o.acceptedSeq, this.ts, o);
    if (isStop) {
      o.status = "held";
      market.stops.add(o);
      this.track(o);
      return;
    }
    this.takeThenRest(market, o);
    if (this.fired.length > 0) this.releaseFired(market);
  }

  /** The open order `cmd` names, if it is its account's; otherwise the command is rejected (undefined). */
  private ownOpenOrder(cmd: CancelCommand | AmendCommand): Order | undefined {
    if (!isNonEmptyString(cmd.orderId) || !isNonEmptyString(cmd.account)) {
      this.reject(cmd, "INVALID_ORDER", "orderId and account must be non-empty strings");
      return undefined;
    }
    const o = this.orders.get(cmd.orderId);
    if (o !== undefined && o.account === cmd.account) return o;
    this.reject(cmd, "ORDER_NOT_FOUND", "no open order with this id");
    return undefined;
  }

  private cancel(cmd: CancelCommand): void {
    const o = this.ownOpenOrder(cmd);
    if (o === undefined) return;
    this.cancelOpen(o.symbol === this.lastSymbol ? this.lastMarket! : this.markets.get(o.symbol)!, o, "user");
  }

  private cancelAll(cmd: CancelAllCommand): void {
    if (!isNonEmptyString(cmd.account)) return this.reject(cmd, "INVALID_ORDER", "account must be a non-empty string");
    if (cmd.symbol !== undefined && !this.markets.has(cmd.symbol))
      return this.reject(cmd, "INVALID_SYMBOL", `trading pair not supported: ${String(cmd.symbol)}`);
    const acc = this.accounts.get(cmd.account);
    if (acc === undefined) return;
    let o = acc.head;
    while (o !== null) {
      const next = o.accNext;
      if (cmd.symbol === undefined || o.symbol === cmd.symbol) this.cancelOpen(this.markets.get(o.symbol)!, o, "user");
      o = next;
    }
  }

  private amend(cmd: AmendCommand): void {
    const o = this.ownOpenOrder(cmd);
    if (o === undefined) return;
    if (o.status === "held")
      return this.reject(cmd, "ORDER_NOT_AMENDABLE", "a stop waiting for its trigger cannot be amended");
    if (cmd.newSizeLots === undefined && cmd.newPriceTicks === undefined)
      return this.reject(cmd, "INVALID_ORDER", "amend needs newSizeLots or newPriceTicks");
    const m = this.markets.get(o.symbol)!;
    const newSize = cmd.newSizeLots ?? o.sizeLots;
    if (!isPositiveSafeInt(newSize) || newSize < m.config.minSizeLots || newSize > m.config.maxSizeLots)
      return this.reject(cmd, "INVALID_SIZE", "newSizeLots must be a positive safe integer within the market's limits");
    if (newSize <= o.filledLots + o.cancelledLots)
      return this.reject(cmd, "INVALID_SIZE", "newSizeLots must exceed the lots already filled or cancelled");
    const newPrice = cmd.newPriceTicks ?? o.priceTicks;
    if (!isPositiveSafeInt(newPrice) || newPrice > m.maxPriceTicks)
      return this.reject(
        cmd,
        "INVALID_PRICE",
        "newPriceTicks must be a positive safe integer within the market's limit",
      );
    const priceChanged = newPrice !== o.priceTicks;
    if (
      priceChanged &&
      (o.timeInForce === "POST_ONLY" || o.type === "limit_maker") &&
      this.crosses(m, o.isBuy, newPrice)
    )
      return this.reject(cmd, "POST_ONLY_WOULD_CROSS", "the new price would match immediately");
    const lvl = o.level!;
    const visibleBefore = lvl.visibleLots;
    if (!priceChanged && newSize <= o.sizeLots) {
      // Same price, not larger: keeps its place in the queue.
      o.remainingLots -= o.sizeLots - newSize;
      o.sizeLots = newSize;
      if (!o.hidden) {
        const display = o.icebergVisibleLots > 0 && o.displayLots < o.remainingLots ? o.displayLots : o.remainingLots;
        lvl.visibleLots += display - o.displayLots;
        o.displayLots = display;
      }
      this.sink.amended(++this.seq, this.ts, o, true);
      if (lvl.visibleLots !== visibleBefore) this.emitLevel(lvl);
      return;
    }
    // A new price or a larger size: leaves the queue and re-enters as a new arrival.
    this.removeResting(m, o);
    o.sizeLots = newSize;
    o.remainingLots = newSize - o.filledLots - o.cancelledLots;
    o.priceTicks = newPrice;
    this.sink.amended(++this.seq, this.ts, o, false);
    if (lvl.visibleLots !== visibleBefore) this.emitLevel(lvl);
    this.takeThenRest(m, o);
    if (this.fired.length > 0) this.releaseFired(m);
  }

  // ---------------------------------------------------------------- matching

  /** Matches the taker, then rests or cancels what is left according to its type and TIF. */
  private takeThenRest(m: MarketState, o: Order): void {
    const killedBySelfTrade = this.match(m, o);
    if (o.remainingLots === 0) {
      o.status = o.filledLots === o.sizeLots ? "filled" : "cancelled";
      if (o.tracked) this.untrack(o);
      this.recycle(o);
      return;
    }
    if (killedBySelfTrade) this.closeCancelled(o, this.killReason);
    else if (o.isMarket) this.closeCancelled(o, "market_remainder");
    else if (o.timeInForce === "IOC" || o.timeInForce === "FOK") this.closeCancelled(o, "ioc_remainder");
    else this.rest(m, o);
  }

  /** Sweeps the opposite side while prices cross; true when self-trade prevention killed the taker. */
  private match(m: MarketState, t: Order): boolean {
    const opp = t.isBuy ? m.asks : m.bids;
    const limit = t.priceTicks;
    for (;;) {
      if (t.remainingLots === 0) return false;
      const lvl = opp.best();
      if (lvl === undefined) return false;
      const price = lvl.priceTicks;
      if (limit !== 0 && (t.isBuy ? price > limit : price < limit)) return false;
      const visibleBefore = lvl.visibleLots;
      const filledBefore = t.filledLots;
      const killed = this.matchLevel(m, opp, lvl, t);
      if (lvl.visibleLots !== visibleBefore) this.emitLevel(lvl);
      if (t.filledLots !== filledBefore) {
        m.lastTradePriceTicks = price;
        if (m.stops.size > 0) m.stops.collect(price, this.fired);
      }
      if (killed) return true;
    }
  }

  private matchLevel(m: MarketState, side: BookSide, lvl: Level, t: Order): boolean {
    const sink = this.sink;
    const ts = this.ts;
    const gate = m.resale;
    while (t.remainingLots > 0) {
      let mk = lvl.visHead;
      if (mk === null) {
        mk = lvl.hidHead;
        if (mk === null) return false;
      }
      if (gate !== null && !(t.isBuy ? gate(mk.orderId, t.account, ts) : gate(t.orderId, mk.account, ts))) {
        // the buyer is the one the rule refuses: its order ends, whichever side it is on
        if (t.isBuy) {
          this.killReason = "resale_restricted";
          return true;
        }
        this.removeResting(m, mk);
        this.closeCancelled(mk, "resale_restricted");
        continue;
      }
      if (mk.account === t.account) {
        this.killReason = "stp";
        if (t.stp === "cancel_newest") return true;
        if (t.stp === "decrement") {
          this.decrement(m, mk, t);
          continue;
        }
        this.removeResting(m, mk);
        this.closeCancelled(mk, "stp");
        if (t.stp === "cancel_both") return true;
        continue; // cancel_oldest
      }
      const available = mk.hidden ? mk.remainingLots : mk.displayLots;
      const q = t.remainingLots < available ? t.remainingLots : available;
      mk.remainingLots -= q;
      mk.filledLots += q;
      t.remainingLots -= q;
      t.filledLots += q;
      if (!mk.hidden) {
        mk.displayLots -= q;
        lvl.visibleLots -= q;
      }
      if (mk.remainingLots === 0) {
        lvl.unlink(mk);
        side.noteMaybeEmpty(lvl);
        mk.status = "filled";
        this.untrack(mk);
        this.recycle(mk);
      } else if (mk.displayLots === 0 && !mk.hidden) {
        // Iceberg slice used up: the next slice shows at the back of the queue.
        lvl.unlink(mk);
        mk.displayLots = mk.freshDisplayLots();
        lvl.append(mk);
      }
      sink.trade(++this.seq, ts, mk, t, lvl.priceTicks, q);
    }
    return false;
  }

  /** STP decrement: both orders shrink by the smaller remaining size; no trade. */
  private decrement(m: MarketState, mk: Order, t: Order): void {
    const d = t.remainingLots < mk.remainingLots ? t.remainingLots : mk.remainingLots;
    if (d === mk.remainingLots) {
      this.removeResting(m, mk);
      this.closeCancelled(mk, "stp");
    } else {
      const lvl = mk.level!;
      mk.remainingLots -= d;
      mk.cancelledLots += d;
      if (!mk.hidden && mk.displayLots > mk.remainingLots) {
        lvl.visibleLots -= mk.displayLots - mk.remainingLots;
        mk.displayLots = mk.remainingLots;
      }
      this.sink.cancelled(++this.seq, this.ts, mk, "stp", d);
    }
    t.remainingLots -= d;
    t.cancelledLots += d;
    this.sink.cancelled(++this.seq, this.ts, t, "stp", d);
  }

  private rest(m: MarketState, o: Order): void {
    const lvl = (o.isBuy ? m.bids : m.asks).levelFor(o.priceTicks);
    o.status = "open";
    o.displayLots = o.freshDisplayLots();
    lvl.append(o);
    if (!o.tracked) {
      this.track(o);
      if (o.expiresAt !== 0) this.expiry.push(o);
    }
    if (!o.hidden) this.emitLevel(lvl);
  }

  /** Releases the stops that trades fired, one after another, in the order they fired. */
  private releaseFired(m: MarketState): void {
    const fired = this.fired;
    while (fired.length > 0) {
      const s = fired.shift()!;
      s.status = "open";
      this.sink.triggered(++this.seq, this.ts, s, m.lastTradePriceTicks);
      this.takeThenRest(m, s);
    }
  }

  /** Whether an order at this price would match the best opposite level (hidden orders count). */
  private crosses(m: MarketState, isBuy: boolean, priceTicks: number): boolean {
    const best = (isBuy ? m.asks : m.bids).best();
    return best !== undefined && (isBuy ? best.priceTicks <= priceTicks : best.priceTicks >= priceTicks);
  }

  // ---------------------------------------------------------------- removal and bookkeeping

  private cancelOpen(m: MarketState, o: Order, reason: CancelReason): void {
    if (o.status === "held") {
      m.stops.remove(o);
      this.closeCancelled(o, reason);
      return;
    }
    const lvl = o.level!;
    const visibleBefore = lvl.visibleLots;
    this.removeResting(m, o);
    this.closeCancelled(o, reason);
    if (lvl.visibleLots !== visibleBefore) this.emitLevel(lvl);
  }

  private expireDue(): void {
    const ts = this.ts;
    for (;;) {
      const o = this.expiry.peek();
      if (o === undefined || o.expiresAt > ts) return;
      this.expiry.pop();
      if (o.level === null) continue; // closed earlier
      const lvl = o.level;
      const visibleBefore = lvl.visibleLots;
      this.removeResting(this.markets.get(o.symbol)!, o);
      const lots = o.remainingLots;
      o.cancelledLots += lots;
      o.remainingLots = 0;
      o.status = "expired";
      this.untrack(o);
      this.sink.expired(++this.seq, ts, o, lots);
      if (lvl.visibleLots !== visibleBefore) this.emitLevel(lvl);
    }
  }

  private removeResting(m: MarketState, o: Order): void {
    const lvl = o.level!;
    lvl.unlink(o);
    (o.isBuy ? m.bids : m.asks).noteMaybeEmpty(lvl);
  }

  /** Cancels whatever the order has left and forgets it. */
  private closeCancelled(o: Order, reason: CancelReason): void {
    const lots = o.remainingLots;
    o.cancelledLots += lots;
    o.remainingLots = 0;
    o.status = "cancelled";
    if (o.tracked) this.untrack(o);
    this.sink.cancelled(++this.seq, this.ts, o, reason, lots);
    this.recycle(o);
  }

  /** Returns a closed node to the pool. Only place() takes from it, once per command, before any close. */
  private recycle(o: Order): void {
    if (o.expiresAt === 0 && this.pool.length < this.poolCap) this.pool.push(o);
  }

  private emitLevel(lvl: Level): void {
    this.sink.level(++this.seq, this.ts, lvl.symbol, lvl.side, lvl.priceTicks, lvl.visibleLots);
  }

  /** For snapshot restore only: registers an open order in arrival order. */
  restoreTrack(o: Order): void {
    o.idHash = this.orders.hash(o.orderId);
    this.track(o);
  }

  private track(o: Order): void {
    this.orders.add(o);
    let acc = this.accounts.get(o.account);
    if (acc === undefined) {
      acc = new AccountOrders(o.account);
      this.accounts.set(o.account, acc);
    }
    o.acc = acc;
    o.accPrev = acc.tail;
    o.accNext = null;
    if (acc.tail === null) acc.head = o;
    else acc.tail.accNext = o;
    acc.tail = o;
    acc.count++;
    o.tracked = true;
  }

  private untrack(o: Order): void {
    this.orders.remove(o);
    const acc = o.acc!;
    o.acc = null;
    if (o.accPrev === null) acc.head = o.accNext;
    else o.accPrev.accNext = o.accNext;
    if (o.accNext === null) acc.tail = o.accPrev;
    else o.accNext.accPrev = o.accPrev;
    o.accPrev = null;
    o.accNext = null;
    if (--acc.count === 0) this.accounts.delete(o.account);
    o.tracked = false;
  }

  private reject(cmd: Command, code: RejectCode, reason: string): void {
    this.sink.rejected(++this.seq, this.ts, cmd, code, reason);
  }
}
