// One seeded command stream for every engine: preload limit orders, then a mix of limit orders
// (some crossing), market orders and cancels. Which order a cancel targets depends on which orders
// are still live, so the generator runs the stream through our engine while it writes it; each
// engine then replays the finished stream in its own process.
import { MatchingEngine } from "../../matcher/core/engine";
import type { EventSink, OrderView } from "../../matcher/core/types";
import { NULL_SINK } from "../../matcher/core/collector";
import { prng as rng } from "../../runtime/prng";

export const OP_LIMIT = 0;
export const OP_MARKET = 1;
export const OP_CANCEL = 2;
export const SYMBOL = "BENCH-USD";

export interface StreamSpec {
  seed: number;
  preload: number;
  commands: number;
  /** Target resting order count at the start and at the end of the timed commands. */
  targetStart: number;
  targetEnd: number;
  limitPct: number;
  marketPct: number;
  /** Share of limit orders priced to cross the spread. */
  crossingPct: number;
}

export interface Stream {
  /** preload + commands rows */
  length: number;
  preload: number;
  op: Uint8Array;
  side: Uint8Array; // 0 buy, 1 sell
  price: Int32Array;
  size: Int32Array;
  /** order index (limit: the new order's; cancel: the target's) */
  id: Int32Array;
  stats: { liveCancels: number; deadCancels: number; maxResting: number; finalResting: number };
}

export const orderIdOf = (i: number): string => `o${i}`;
export const accountOf = (i: number, side: number): string => (side === 0 ? "b" : "s") + (i % 64);

/** The live resting orders, with O(1) random pick and removal; closed ids feed "cancel of a gone order". */
class LiveSet {
  readonly live: number[] = [];
  readonly closed: number[] = [];
  private readonly pos = new Map<number, number>();

  add(idx: number): void {
    this.pos.set(idx, this.live.length);
    this.live.push(idx);
  }

  remove(idx: number): void {
    const p = this.pos.get(idx);
    if (p === undefined) return;
    const last = this.live.pop()!;
    if (p < this.live.length) {
      this.live[p] = last;
      this.pos.set(last, p);
    }
    this.pos.delete(idx);
    this.close(idx);
  }

  close(idx: number): void {
    this.closed.push(idx);
    if (this.closed.length > 4096) this.closed.splice(0, 2048);
  }
}

/** Writes the stream row by row while running it through our engine (cancels target what is live). */
class StreamWriter {
  readonly s: Stream;
  private readonly rand: () => number;
  private readonly engine = new MatchingEngine({
    markets: [{ symbol: SYMBOL, minSizeLots: 1, maxSizeLots: 1_000_000 }],
  });
  readonly set = new LiveSet();
  private nextOrder = 0;
  private readonly tracker: EventSink;

  constructor(readonly spec: StreamSpec) {
    const n = spec.preload + spec.commands;
    this.s = {
      length: n,
      preload: spec.preload,
      op: new Uint8Array(n),
      side: new Uint8Array(n),
      price: new Int32Array(n),
      size: new Int32Array(n),
      id: new Int32Array(n),
      stats: { liveCancels: 0, deadCancels: 0, maxResting: 0, finalResting: 0 },
    };
    this.rand = rng(spec.seed);
    const set = this.set;
    this.tracker = {
      ...NULL_SINK,
      accepted() {},
      rejected() {},
      cancelled() {},
      expired() {},
      triggered() {},
      amended() {},
      level() {},
      trade(_seq: number, _ts: number, maker: OrderView) {
        if (maker.remainingLots === 0) set.remove(Number(maker.orderId.slice(1)));
      },
    };
  }

  row(i: number): void {
    const { spec, rand } = this;
    const timed = i >= spec.preload;
    const progress = timed ? (i - spec.preload) / spec.commands : 0;
    const target = spec.targetStart + (spec.targetEnd - spec.targetStart) * progress;
    const r = rand() * 100;
    if (!timed || r < spec.limitPct) this.limit(i, timed);
    else if (r < spec.limitPct + spec.marketPct) this.market(i);
    else this.cancel(i, target);
    const resting = this.set.live.length;
    if (resting > this.s.stats.maxResting) this.s.stats.maxResting = resting;
  }

  private limit(i: number, timed: boolean): void {
    const { s, rand } = this;
    const depth = this.engine.getDepth(SYMBOL, 1)!;
    const bestBid = depth.bids[0]?.[0];
    const bestAsk = depth.asks[0]?.[0];
    const mid =
      bestBid !== undefined && bestAsk !== undefined ? (bestBid + bestAsk) / 2 : (bestBid ?? bestAsk ?? 10_000);
    const side = rand() < 0.5 ? 0 : 1;
    const crossing = timed && rand() * 100 < this.spec.crossingPct;
    let price: number;
    if (crossing) {
      const k = Math.floor(rand() * 3);
      price = side === 0 ? (bestAsk ?? Math.ceil(mid)) + k : (bestBid ?? Math.floor(mid)) - k;
    } else {
      const d = Math.floor(rand() * rand() * 200);
      price = side === 0 ? Math.floor(mid) - 1 - d : Math.ceil(mid) + 1 + d;
      if (side === 0 && bestAsk !== undefined && price >= bestAsk) price = bestAsk - 1;
      if (side === 1 && bestBid !== undefined && price <= bestBid) price = bestBid + 1;
    }
    const idx = this.nextOrder++;
    s.op[i] = OP_LIMIT;
    s.side[i] = side;
    s.price[i] = price;
    s.size[i] = 1 + Math.floor(rand() * 100);
    s.id[i] = idx;
    const id = orderIdOf(idx);
    this.engine.process(
      {
        kind: "place",
        ts: 0,
        account: accountOf(idx, side),
        orderId: id,
        symbol: SYMBOL,
        side: side === 0 ? "buy" : "sell",
        type: "limit",
        timeInForce: "GTC",
        priceTicks: price,
        sizeLots: s.size[i],
      },
      this.tracker,
    );
    if (this.engine.getOrder(id) !== undefined) this.set.add(idx);
    else this.set.closed.push(idx);
  }

  private market(i: number): void {
    const { s, rand } = this;
    const side = rand() < 0.5 ? 0 : 1;
    s.op[i] = OP_MARKET;
    s.side[i] = side;
    s.size[i] = 1 + Math.floor(rand() * 50);
    s.id[i] = this.nextOrder++;
    this.engine.process(
      {
        kind: "place",
        ts: 0,
        account: "m",
        orderId: orderIdOf(s.id[i]),
        symbol: SYMBOL,
        side: side === 0 ? "buy" : "sell",
        type: "market",
        timeInForce: "IOC",
        sizeLots: s.size[i],
      },
      this.tracker,
    );
  }

  private cancel(i: number, target: number): void {
    const { s, rand } = this;
    const { live, closed } = this.set;
    s.op[i] = OP_CANCEL;
    let idx: number;
    if (live.length > 0 && (live.length >= target || closed.length === 0)) {
      idx = live[Math.floor(rand() * live.length)];
      s.stats.liveCancels++;
    } else {
      idx = closed.length > 0 ? closed[Math.floor(rand() * closed.length)] : 0;
      s.stats.deadCancels++;
    }
    s.id[i] = idx;
    const o = this.engine.getOrder(orderIdOf(idx));
    if (o !== undefined) {
      s.side[i] = o.side === "buy" ? 0 : 1;
      this.engine.process({ kind: "cancel", ts: 0, account: o.account, orderId: o.orderId }, this.tracker);
      this.set.remove(idx);
    }
  }
}

export function generateStream(spec: StreamSpec): Stream {
  const w = new StreamWriter(spec);
  for (let i = 0; i < w.s.length; i++) w.row(i);
  w.s.stats.finalResting = w.set.live.length;
  return w.s;
}

const FIELDS = ["op", "side", "price", "size", "id"] as const;

export function encodeStream(s: Stream): Buffer {
  const header = Buffer.from(`${JSON.stringify({ length: s.length, preload: s.preload, stats: s.stats })}\n`);
  const parts: Uint8Array[] = [header];
  for (const f of FIELDS) parts.push(Buffer.from(s[f].buffer, s[f].byteOffset, s[f].byteLength));
  return Buffer.concat(parts);
}

export function decodeStream(buf: Buffer): Stream {
  const nl = buf.indexOf(10);
  const head = JSON.parse(buf.subarray(0, nl).toString());
  const n: number = head.length;
  let off = nl + 1;
  const take = (bytes: number) => {
    const copy = new Uint8Array(bytes);
    copy.set(buf.subarray(off, off + bytes));
    off += bytes;
    return copy.buffer;
  };
  return {
    length: n,
    preload: head.preload,
    stats: head.stats,
    op: new Uint8Array(take(n)),
    side: new Uint8Array(take(n)),
    price: new Int32Array(take(4 * n)),
    size: new Int32Array(take(4 * n)),
    id: new Int32Array(take(4 * n)),
  };
}
