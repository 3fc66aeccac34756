// Engine state as plain JSON-able data and back. Restoring a snapshot gives an engine whose future
// events are identical to the original's: queue order per level, held stops, time, sequence and
// the last trade price per market are all kept.
import { MatchingEngine } from "./engine";
import { Order } from "./order";
import type { MarketConfig, OrderStatus, OrderType, Side, StpMode, TimeInForce } from "./types";

export interface SnapshotOrder {
  orderId: string;
  clientOrderId?: string;
  account: string;
  side: Side;
  type: OrderType;
  timeInForce: TimeInForce;
  priceTicks: number;
  triggerPriceTicks: number;
  sizeLots: number;
  filledLots: number;
  remainingLots: number;
  cancelledLots: number;
  hidden: boolean;
  icebergVisibleLots: number;
  displayLots: number;
  expiresAt: number;
  stp: StpMode;
  acceptedSeq: number;
}

export interface SnapshotLevel {
  priceTicks: number;
  /** Visible queue then hidden queue, each front to back. */
  orders: SnapshotOrder[];
}

export interface SnapshotMarket {
  config: MarketConfig;
  lastTradePriceTicks: number;
  /** Best first. */
  bids: SnapshotLevel[];
  asks: SnapshotLevel[];
  /** Stops waiting for their trigger, in arrival order. */
  held: SnapshotOrder[];
}

export interface EngineSnapshot {
  version: 1;
  seq: number;
  lastTs: number;
  markets: SnapshotMarket[];
}

function orderRecord(o: Order): SnapshotOrder {
  const r: SnapshotOrder = {
    orderId: o.orderId,
    account: o.account,
    side: o.side,
    type: o.type,
    timeInForce: o.timeInForce,
    priceTicks: o.priceTicks,
    triggerPriceTicks: o.triggerPriceTicks,
    sizeLots: o.sizeLots,
    filledLots: o.filledLots,
    remainingLots: o.remainingLots,
    cancelledLots: o.cancelledLots,
    hidden: o.hidden,
    icebergVisibleLots: o.icebergVisibleLots,
    displayLots: o.displayLots,
    expiresAt: o.expiresAt,
    stp: o.stp,
    acceptedSeq: o.acceptedSeq,
  };
  if (o.clientOrderId !== undefined) r.clientOrderId = o.clientOrderId;
  return r;
}

export function takeSnapshot(engine: MatchingEngine): EngineSnapshot {
  const markets: SnapshotMarket[] = [];
  for (const m of engine.markets.values()) {
    const side = (levels: typeof m.bids.levels): SnapshotLevel[] => {
      const out: SnapshotLevel[] = [];
      for (let i = levels.length - 1; i >= 0; i--) {
        const lvl = levels[i];
        if (lvl.orderCount === 0) continue;
        const orders: SnapshotOrder[] = [];
        for (let o = lvl.visHead; o !== null; o = o.next) orders.push(orderRecord(o));
        for (let o = lvl.hidHead; o !== null; o = o.next) orders.push(orderRecord(o));
        out.push({ priceTicks: lvl.priceTicks, orders });
      }
      return out;
    };
    markets.push({
      config: { ...m.config },
      lastTradePriceTicks: m.lastTradePriceTicks,
      bids: side(m.bids.levels),
      asks: side(m.asks.levels),
      held: [...m.stops.up, ...m.stops.down].sort((a, b) => a.acceptedSeq - b.acceptedSeq).map(orderRecord),
    });
  }
  return { version: 1, seq: engine.seq, lastTs: engine.lastTs, markets };
}

function toOrder(symbol: string, r: SnapshotOrder, status: OrderStatus): Order {
  const o = new Order().init(
    r.orderId,
    r.clientOrderId,
    r.account,
    symbol,
    r.side,
    r.type,
    r.timeInForce,
    r.priceTicks,
    r.triggerPriceTicks,
    r.sizeLots,
    r.hidden,
    r.icebergVisibleLots,
    r.expiresAt,
    r.stp,
  );
  o.filledLots = r.filledLots;
  o.remainingLots = r.remainingLots;
  o.cancelledLots = r.cancelledLots;
  o.displayLots = r.displayLots;
  o.acceptedSeq = r.acceptedSeq;
  o.status = status;
  return o;
}

/** `reserveOrders`: as EngineOptions.reserveOrders (a restarted service keeps the reserve it ran with). */
export function restoreSnapshot(snapshot: EngineSnapshot, options: { reserveOrders?: number } = {}): MatchingEngine {
  if (snapshot.version !== 1) throw new Error(`unsupported snapshot version ${String(snapshot.version)}`);
  const engine = new MatchingEngine({
    markets: snapshot.markets.map((m) => m.config),
    reserveOrders: options.reserveOrders,
  });
  const all: Order[] = [];
  for (const sm of snapshot.markets) {
    const m = engine.markets.get(sm.config.symbol)!;
    m.lastTradePriceTicks = sm.lastTradePriceTicks;
    for (const [levels, side] of [
      [sm.bids, m.bids],
      [sm.asks, m.asks],
    ] as const) {
      for (const l of levels) {
        const lvl = side.levelFor(l.priceTicks);
        for (const r of l.orders) {
          const o = toOrder(sm.config.symbol, r, "open");
          lvl.append(o);
          all.push(o);
        }
      }
    }
    for (const r of sm.held) {
      const o = toOrder(sm.config.symbol, r, "held");
      m.stops.add(o);
      all.push(o);
    }
  }
  all.sort((a, b) => a.acceptedSeq - b.acceptedSeq);
  for (const o of all) {
    engine.restoreTrack(o);
    if (o.expiresAt !== 0 && o.level !== null) engine.expiry.push(o);
  }
  engine.seq = snapshot.seq;
  engine.lastTs = snapshot.lastTs;
  return engine;
}
