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

export function generateStream(spec: StreamSpec): Stream {
  const n = spec.preload + spec.commands;
  const s: Stream = {
    length: n,
    preload: spec.preload,
    op: new Uint8Array(n),
    side: new Uint8Array(n),
    price: new Int32Array(n),
    size: new Int32Array(n),
    id: new Int32Array(n),
    stats: { liveCancels: 0, deadCancels: 0, maxResting: 0, finalResting: 0 },
  };
  const rand = rng(spec.seed);
  const engine = new MatchingEngine({ markets: [{ symbol: SYMBOL, minSizeLots: 1, maxSizeLots: 1_000_000 }] });
  // Live set with O(1) random pick and removal; closed ids feed "cancel of a gone order".
  const live: number[] = [];
  const pos = new Map<number, number>();
  const closed: number[] = [];
  const removeLive = (idx: number) => {
    const p = pos.get(idx);
    if (p === undefined) return;
    const last = live.pop()!;
    if (p < live.length) {
      live[p] = last;
      pos.set(last, p);
    }
    pos.delete(idx);
    closed.push(idx);
    if (closed.length > 4096) closed.splice(0, 2048);
  };
  const tracker: EventSink = {
    ...NULL_SINK,
    accepted() {},
    rejected() {},
    cancelled() {},
    expired() {},
    triggered() {},
    amended() {},
    level() {},
    trade(_seq: number, _ts: number, maker: OrderView) {
      if (maker.remainingLots === 0) removeLive(Number(maker.orderId.slice(1)));
    },
  };
  let nextOrder = 0;
  for (let i = 0; i < n; i++) {
    const timed = i >= spec.preload;
    const progress = timed ? (i - spec.preload) / spec.commands : 0;
    const target = spec.targetStart + (spec.targetEnd - spec.targetStart) * progress;
    const r = rand() * 100;
    const depth = engine.getDepth(SYMBOL, 1)!;
    const bestBid = depth.bids[0]?.[0];
    const bestAsk = depth.asks[0]?.[0];
    const mid =
      bestBid !== undefined && bestAsk !== undefined ? (bestBid + bestAsk) / 2 : (bestBid ?? bestAsk ?? 10_000);
    if (!timed || r < spec.limitPct) {
      const side = rand() < 0.5 ? 0 : 1;
      const crossing = timed && rand() * 100 < spec.crossingPct;
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
      const idx = nextOrder++;
      s.op[i] = OP_LIMIT;
      s.side[i] = side;
      s.price[i] = price;
      s.size[i] = 1 + Math.floor(rand() * 100);
      s.id[i] = idx;
      const id = orderIdOf(idx);
      engine.process(
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
        tracker,
      );
      if (engine.getOrder(id) !== undefined) {
        pos.set(idx, live.length);
        live.push(idx);
      } else closed.push(idx);
    } else if (r < spec.limitPct + spec.marketPct) {
      const side = rand() < 0.5 ? 0 : 1;
      s.op[i] = OP_MARKET;
      s.side[i] = side;
      s.size[i] = 1 + Math.floor(rand() * 50);
      s.id[i] = nextOrder++;
      engine.process(
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
        tracker,
      );
    } else {
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
      const o = engine.getOrder(orderIdOf(idx));
      if (o !== undefined) {
        s.side[i] = o.side === "buy" ? 0 : 1;
        engine.process({ kind: "cancel", ts: 0, account: o.account, orderId: o.orderId }, tracker);
        removeLive(idx);
      }
    }
    if (live.length > s.stats.maxResting) s.stats.maxResting = live.length;
  }
  s.stats.finalResting = live.length;
  return s;
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
