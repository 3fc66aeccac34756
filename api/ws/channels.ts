// The feed's channels and their fan-out: public `orderbook` (one group per symbol and depth: a snapshot,
// then updates of the changed levels, size 0 = removed, each with the book's `sequence` (the same number
// REST and gRPC answer), the `prev_sequence` of the group's message before it, and a `checksum`)
// and `trades` (a per-symbol `sequence`), and the private `orders` channel (a per-connection `sequence`),
// fed by the DexService's events. Subscribe and unsubscribe requests land here.
import type { Logger } from "pino";
import type { DexEvent, DexLevel, MarketSpec, DexOrderEvent, DexService, DexTradeEvent } from "../../pipeline/service";
import type { Clock } from "../../runtime/clock";
import type { DexWsLimits } from "../dex/config";
import { presentFill, presentOrder } from "../dex/present";
import { lotsToSize, ticksToPrice } from "../dex/units";
import { ApiError } from "../errors";
import { BookMirror } from "./book-mirror";
import { bookChecksum, type WsLevel } from "./checksum";
import type { Conn, ConnSender } from "./connection";
import { DEFAULT_WS_DEPTH, type ClientMessage } from "./messages";

interface BookGroup {
  market: MarketSpec;
  depth: number;
  subscribers: Set<Conn>;
  /** what every subscriber of this group holds: price ticks -> size lots */
  bids: Map<bigint, bigint>;
  asks: Map<bigint, bigint>;
  /** the book's sequence (the service's per-symbol book event counter) when these levels last changed */
  sequence: number;
}

interface TradeStream {
  subscribers: Set<Conn>;
  sequence: number;
}

export interface ChannelsDeps {
  service: DexService;
  markets: ReadonlyMap<string, MarketSpec>;
  limits: DexWsLimits;
  logger: Logger;
  clock: Clock;
  out: ConnSender;
}

type Subscribe = Extract<ClientMessage, { type: "subscribe" }>;
type Unsubscribe = Extract<ClientMessage, { type: "unsubscribe" }>;

const wsLevels = (m: MarketSpec, levels: Iterable<[bigint, bigint]>): WsLevel[] =>
  [...levels].map(([p, s]) => [ticksToPrice(m, p), lotsToSize(m, s)]);
const asMap = (levels: DexLevel[]) => new Map(levels.map((l) => [l.priceTicks, l.sizeLots] as [bigint, bigint]));
const withId = (id: string | number | undefined) => (id !== undefined ? { id } : {});

/** The levels of `next` that differ from `prev` (size 0: gone). */
function diff(prev: Map<bigint, bigint>, next: Map<bigint, bigint>): [bigint, bigint][] {
  const changed: [bigint, bigint][] = [];
  for (const [p, s] of next) if (prev.get(p) !== s) changed.push([p, s]);
  for (const p of prev.keys()) if (!next.has(p)) changed.push([p, 0n]);
  return changed;
}

export class Channels {
  private readonly mirrors = new Map<string, BookMirror>();
  private readonly groups = new Map<string, BookGroup>();
  private readonly tradeStreams = new Map<string, TradeStream>();
  private readonly orderSubscribers = new Map<string, Set<Conn>>();
  private readonly stopEvents: () => void;

  /** Subscribes to the service's events at once; call load() before serving. */
  constructor(private readonly deps: ChannelsDeps) {
    for (const m of deps.markets.values()) {
      const onError = (err: unknown) => deps.logger.error({ err, symbol: m.symbol }, "ws book reload failed");
      this.mirrors.set(
        m.symbol,
        new BookMirror(m.symbol, deps.service, (mirror) => this.onBookChanged(mirror), onError),
      );
      this.tradeStreams.set(m.symbol, { subscribers: new Set(), sequence: 0 });
    }
    this.stopEvents = deps.service.subscribe((e) => this.onEvent(e));
  }

  /** Loads every book's mirror. */
  async load(): Promise<void> {
    await Promise.all([...this.mirrors.values()].map((mi) => mi.load()));
  }

  close(): void {
    this.stopEvents();
  }

  // ------------------------------------------------------------------ fan-out

  private checksumOf(g: BookGroup): number {
    return bookChecksum(
      wsLevels(g.market, g.bids),
      wsLevels(g.market, g.asks),
      Math.min(g.depth, this.deps.limits.checksumLevels),
    );
  }

  private onBookChanged(mirror: BookMirror): void {
    for (const g of this.groups.values()) {
      if (g.market.symbol !== mirror.symbol) continue;
      const top = mirror.top(g.depth);
      const bids = asMap(top.bids);
      const asks = asMap(top.asks);
      const changedBids = diff(g.bids, bids);
      const changedAsks = diff(g.asks, asks);
      if (changedBids.length + changedAsks.length === 0) continue;
      g.bids = bids;
      g.asks = asks;
      const prev = g.sequence;
      g.sequence = mirror.sequence;
      const msg = JSON.stringify({
        type: "orderbook_update",
        symbol: g.market.symbol,
        depth: g.depth,
        bids: wsLevels(g.market, changedBids),
        asks: wsLevels(g.market, changedAsks),
        timestamp: this.deps.clock.now(),
        sequence: g.sequence,
        prev_sequence: prev,
        checksum: this.checksumOf(g),
      });
      for (const c of g.subscribers) this.deps.out.send(c, msg);
    }
  }

  private onEvent(e: DexEvent): void {
    if (e.kind === "book") this.mirrors.get(e.symbol)?.apply(e);
    else if (e.kind === "trade") this.onTrade(e);
    else this.onOrder(e);
  }

  private onTrade(e: DexTradeEvent): void {
    const stream = this.tradeStreams.get(e.trade.symbol);
    const m = this.deps.markets.get(e.trade.symbol);
    if (!stream || !m) return;
    stream.sequence += 1;
    if (stream.subscribers.size === 0) return;
    const msg = JSON.stringify({
      type: "trade",
      symbol: e.trade.symbol,
      price: ticksToPrice(m, e.trade.priceTicks),
      size: lotsToSize(m, e.trade.sizeLots),
      side: e.trade.takerSide,
      timestamp: e.trade.timestampMs,
      trade_id: e.trade.tradeId,
      sequence: stream.sequence,
    });
    for (const c of stream.subscribers) this.deps.out.send(c, msg);
  }

  private onOrder(e: DexOrderEvent): void {
    const subs = this.orderSubscribers.get(e.account.toLowerCase());
    const m = this.deps.markets.get(e.order.symbol);
    if (!subs || !m) return;
    const feeDecimals =
      e.fill && e.fill.feeToken.toLowerCase() === m.baseToken.toLowerCase() ? m.baseDecimals : m.quoteDecimals;
    for (const c of subs) {
      c.ordersSequence += 1;
      this.deps.out.sendJson(c, {
        type: "order",
        order: presentOrder(m, e.order),
        fill: e.fill ? presentFill(m, e.fill, feeDecimals) : null,
        timestamp: this.deps.clock.now(),
        sequence: c.ordersSequence,
      });
    }
  }

  // ------------------------------------------------------------------ subscriptions

  private market(symbol: string | undefined): MarketSpec {
    if (!symbol) throw new ApiError("INVALID_REQUEST", "symbol is required for this channel", { field: "symbol" });
    const m = this.deps.markets.get(symbol);
    if (!m) throw new ApiError("INVALID_SYMBOL", `trading pair ${symbol} is not supported`, { symbol });
    return m;
  }

  private checkSubscriptionLimit(c: Conn): void {
    const max = this.deps.limits.maxSubscriptionsPerConnection;
    if (c.subs.size >= max) {
      throw new ApiError("RATE_LIMIT_EXCEEDED", `at most ${max} subscriptions per connection`, {
        reason: "subscriptions_per_connection",
        limit: max,
      });
    }
  }

  subscribe(c: Conn, msg: Subscribe): void {
    if (msg.channel === "orders") return this.subscribeOrders(c, msg.id);
    const m = this.market(msg.symbol);
    if (msg.channel === "trades") return this.subscribeTrades(c, m, msg.id);
    this.subscribeBook(c, m, msg.depth ?? DEFAULT_WS_DEPTH, msg.id);
  }

  private subscribeOrders(c: Conn, id: string | number | undefined): void {
    if (!c.account)
      throw new ApiError("UNAUTHORIZED", "authenticate first (type auth) to use the orders channel", {
        reason: "missing_credentials",
      });
    const subKey = "orders";
    if (c.subs.has(subKey))
      return this.deps.out.sendJson(c, {
        type: "subscribed",
        channel: "orders",
        sequence: c.ordersSequence,
        ...withId(id),
      });
    this.checkSubscriptionLimit(c);
    c.subs.add(subKey);
    const set = this.orderSubscribers.get(c.account.toLowerCase()) ?? new Set();
    set.add(c);
    this.orderSubscribers.set(c.account.toLowerCase(), set);
    this.deps.out.sendJson(c, { type: "subscribed", channel: "orders", sequence: c.ordersSequence, ...withId(id) });
  }

  private subscribeTrades(c: Conn, m: MarketSpec, id: string | number | undefined): void {
    const subKey = `trades:${m.symbol}`;
    const stream = this.tradeStreams.get(m.symbol)!;
    if (!c.subs.has(subKey)) {
      this.checkSubscriptionLimit(c);
      c.subs.add(subKey);
      stream.subscribers.add(c);
    }
    this.deps.out.sendJson(c, {
      type: "subscribed",
      channel: "trades",
      symbol: m.symbol,
      sequence: stream.sequence,
      ...withId(id),
    });
  }

  private subscribeBook(c: Conn, m: MarketSpec, depth: number, id: string | number | undefined): void {
    const subKey = `orderbook:${m.symbol}:${depth}`;
    if (c.subs.has(subKey))
      throw new ApiError("INVALID_REQUEST", "already subscribed to this book at this depth", {
        reason: "duplicate_subscription",
      });
    this.checkSubscriptionLimit(c);
    let g = this.groups.get(subKey);
    if (!g) {
      const mirror = this.mirrors.get(m.symbol)!;
      const top = mirror.top(depth);
      g = {
        market: m,
        depth,
        subscribers: new Set(),
        bids: asMap(top.bids),
        asks: asMap(top.asks),
        sequence: mirror.sequence,
      };
      this.groups.set(subKey, g);
    }
    c.subs.add(subKey);
    g.subscribers.add(c);
    this.deps.out.sendJson(c, { type: "subscribed", channel: "orderbook", symbol: m.symbol, depth, ...withId(id) });
    this.deps.out.sendJson(c, {
      type: "orderbook_snapshot",
      symbol: m.symbol,
      depth,
      bids: wsLevels(m, g.bids),
      asks: wsLevels(m, g.asks),
      timestamp: this.deps.clock.now(),
      sequence: g.sequence,
      checksum: this.checksumOf(g),
    });
  }

  unsubscribe(c: Conn, msg: Unsubscribe): void {
    let subKey = "orders";
    if (msg.channel !== "orders") {
      const m = this.market(msg.symbol);
      subKey =
        msg.channel === "trades" ? `trades:${m.symbol}` : `orderbook:${m.symbol}:${msg.depth ?? DEFAULT_WS_DEPTH}`;
    }
    if (!c.subs.has(subKey)) throw new ApiError("INVALID_REQUEST", "not subscribed", { reason: "not_subscribed" });
    this.drop(c, subKey);
    this.deps.out.sendJson(c, {
      type: "unsubscribed",
      channel: msg.channel,
      ...(msg.symbol ? { symbol: msg.symbol } : {}),
      ...(msg.channel === "orderbook" ? { depth: msg.depth ?? DEFAULT_WS_DEPTH } : {}),
      ...withId(msg.id),
    });
  }

  /** Ends every subscription of `c` (it closed, or its key was revoked). */
  dropAll(c: Conn): void {
    for (const s of [...c.subs]) this.drop(c, s);
  }

  private drop(c: Conn, subKey: string): void {
    c.subs.delete(subKey);
    if (subKey === "orders") {
      const set = c.account ? this.orderSubscribers.get(c.account.toLowerCase()) : undefined;
      set?.delete(c);
      if (set && set.size === 0) this.orderSubscribers.delete(c.account!.toLowerCase());
    } else if (subKey.startsWith("trades:")) {
      this.tradeStreams.get(subKey.slice(7))?.subscribers.delete(c);
    } else {
      const g = this.groups.get(subKey);
      g?.subscribers.delete(c);
      if (g && g.subscribers.size === 0) this.groups.delete(subKey);
    }
  }
}
