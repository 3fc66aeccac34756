// One adapter per engine: the same three operations and a fingerprint of the resting book
// (every order, best price first, queue order within a price: "id:price:size;").
import { createHash } from "node:crypto";
import { MatchingEngine } from "../../matcher/core/engine";
import { EventCollector } from "../../matcher/core/collector";
import type { EventSink, OrderView, Side } from "../../matcher/core/types";
import { MATCHER_RESERVE_ORDERS, MATCHER_V8_FLAGS } from "../../matcher/deployment";
import { SYMBOL } from "./stream";

/** As the matcher service runs (matcher/deployment.ts): order nodes for 131,072 open orders allocated at start. */
export const RESERVE_ORDERS = Number(process.env.BENCH_RESERVE_ORDERS ?? MATCHER_RESERVE_ORDERS);
/** The V8 flags our engine's child processes run with: the matcher service's (BENCH_OURS_FLAGS overrides, for experiments). */
export const OURS_FLAGS: readonly string[] =
  process.env.BENCH_OURS_FLAGS?.split(" ").filter(Boolean) ?? MATCHER_V8_FLAGS;

export interface BenchEngine {
  limit(id: string, account: string, side: Side, priceTicks: number, sizeLots: number): void;
  market(id: string, account: string, side: Side, sizeLots: number): void;
  cancel(id: string, account: string): void;
  /** Something derived from every event, so no work can be skipped. */
  checksum(): number;
  fingerprint(): { hash: string; resting: number };
}

function hashBook(levels: { price: number; orders: { id: string; size: number }[] }[]): {
  hash: string;
  resting: number;
} {
  const h = createHash("sha256");
  let resting = 0;
  for (const lvl of levels)
    for (const o of lvl.orders) {
      h.update(`${o.id}:${lvl.price}:${o.size};`);
      resting++;
    }
  return { hash: h.digest("hex").slice(0, 16), resting };
}

/** Consumes every field of every event into a running sum. */
class ChecksumSink implements EventSink {
  // -0, not 0: the field is a double from the start. The running sum leaves V8's small-integer range early in
  // the timed loop; a field born a small integer then changes representation there and V8 throws away the
  // optimised code of every engine function that inlined an event call (~9 of them) mid-run. -0 + x = x, so the
  // checksum is the same number.
  sum = -0;
  accepted(seq: number, _ts: number, o: OrderView): void {
    this.sum += seq + o.sizeLots;
  }
  rejected(seq: number): void {
    this.sum += seq;
  }
  trade(seq: number, _ts: number, maker: OrderView, taker: OrderView, priceTicks: number, sizeLots: number): void {
    this.sum += seq + priceTicks * sizeLots + maker.remainingLots + taker.remainingLots;
  }
  cancelled(seq: number, _ts: number, _o: OrderView, _r: string, lots: number): void {
    this.sum += seq + lots;
  }
  expired(seq: number): void {
    this.sum += seq;
  }
  triggered(seq: number): void {
    this.sum += seq;
  }
  amended(seq: number): void {
    this.sum += seq;
  }
  level(seq: number, _ts: number, _s: string, _side: Side, priceTicks: number, lots: number): void {
    this.sum += seq + priceTicks + lots;
  }
}

export function createOurs(mode: "sink" | "objects"): BenchEngine {
  const engine = new MatchingEngine({
    markets: [{ symbol: SYMBOL, minSizeLots: 1, maxSizeLots: 1_000_000 }],
    reserveOrders: RESERVE_ORDERS,
  });
  const sink = new ChecksumSink();
  let objects = 0;
  const run =
    mode === "sink"
      ? (cmd: Parameters<MatchingEngine["process"]>[0]) => engine.process(cmd, sink)
      : (cmd: Parameters<MatchingEngine["process"]>[0]) => {
          const c = new EventCollector();
          engine.process(cmd, c);
          objects += c.events.length;
        };
  // one command shape for both kinds (a market order's priceTicks undefined), as the engine is fed
  const place = (id: string, account: string, side: Side, sizeLots: number, priceTicks?: number) =>
    run({
      kind: "place",
      ts: 0,
      account,
      orderId: id,
      symbol: SYMBOL,
      side,
      type: priceTicks === undefined ? "market" : "limit",
      timeInForce: priceTicks === undefined ? "IOC" : "GTC",
      priceTicks,
      sizeLots,
    });
  return {
    limit: (id, account, side, priceTicks, sizeLots) => place(id, account, side, sizeLots, priceTicks),
    market: (id, account, side, sizeLots) => place(id, account, side, sizeLots),
    cancel: (id, account) => run({ kind: "cancel", ts: 0, account, orderId: id }),
    checksum: () => sink.sum + objects,
    fingerprint: () => {
      const levels: { price: number; orders: { id: string; size: number }[] }[] = [];
      for (const side of ["buy", "sell"] as const) {
        let cur: (typeof levels)[number] | undefined;
        for (const o of engine.getBookOrders(SYMBOL, side)) {
          if (cur === undefined || cur.price !== o.priceTicks!)
            levels.push((cur = { price: o.priceTicks!, orders: [] }));
          cur.orders.push({ id: o.orderId, size: o.remainingLots });
        }
      }
      return hashBook(levels);
    },
  };
}

interface PeerOrder {
  id: string;
  size: number;
  price: number;
}
interface PeerQueue {
  toArray(): PeerOrder[];
}
interface PeerBook {
  limit(o: { id: string; side: Side; size: number; price: number }): { done: unknown[] };
  market(o: { side: Side; size: number }): { done: unknown[] };
  cancel(id: string): unknown;
  asks: { priceTree(): { forEach(cb: (price: number, q: PeerQueue) => void): void } };
  bids: { priceTree(): { forEach(cb: (price: number, q: PeerQueue) => void): void } };
}

export function createPeer(pkg: "nodejs-order-book" | "hft-limit-order-book"): BenchEngine {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { OrderBook } = require(pkg) as { OrderBook: new () => PeerBook };
  const ob = new OrderBook();
  let sum = 0;
  return {
    limit: (id, _account, side, price, size) => {
      sum += ob.limit({ id, side, size, price }).done.length;
    },
    market: (_id, _account, side, size) => {
      sum += ob.market({ side, size }).done.length;
    },
    cancel: (id) => {
      if (ob.cancel(id) !== undefined) sum++;
    },
    checksum: () => sum,
    fingerprint: () => {
      const levels: { price: number; orders: { id: string; size: number }[] }[] = [];
      const collect = (side: PeerBook["asks"], bestFirst: (a: number, b: number) => number) => {
        const own: typeof levels = [];
        side.priceTree().forEach((price, q) => {
          own.push({ price, orders: q.toArray().map((o) => ({ id: o.id, size: o.size })) });
        });
        own.sort((a, b) => bestFirst(a.price, b.price));
        levels.push(...own.filter((l) => l.orders.length > 0));
      };
      collect(ob.bids, (a, b) => b - a);
      collect(ob.asks, (a, b) => a - b);
      return hashBook(levels);
    },
  };
}
