// The hot front's merge, property-tested: Ponder's answer as of any indexed block P (its `through`: the
// highest block holding a trade up to P) merged with a tail holding the trades above any trim point up to
// `through` must equal, as JSON, what Ponder alone answers once it has indexed everything; for every
// query (pair or none, fromBlock, limit at and past the row count, candle bounds and order).
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import {
  CANDLE_INTERVAL_NAMES,
  type CandleInterval,
  type CandleValues,
  applyTrade,
  bucketStartMs,
  candleJsonOf,
} from "../lib/candles";
import { candlesQuery, tradesQuery } from "../lib/queries";
import { mergeCandles, mergeTrades } from "./merge";
import { HotTail, type TailBlock, type TailTrade, type TradeJson } from "./tail";

const PAIRS = ["WETH-USD", "WBTC-USD"];

interface Gen {
  blocks: { number: number; timestamp: bigint; trades: TailTrade[] }[];
}

const chain = fc
  .array(
    fc.record({
      gap: fc.integer({ min: 1, max: 3 }),
      dt: fc.integer({ min: 0, max: 200 }),
      trades: fc.array(
        fc.record({
          pair: fc.constantFrom(...PAIRS),
          price: fc.bigInt({ min: 1n, max: 10n ** 12n }),
          base: fc.bigInt({ min: 1n, max: 10n ** 20n }),
        }),
        { maxLength: 3 },
      ),
    }),
    { maxLength: 12 },
  )
  .map((spec): Gen => {
    let number = 0;
    let timestamp = 1_795_000_000n;
    const blocks = spec.map((b) => {
      number += b.gap;
      timestamp += BigInt(b.dt);
      const trades = b.trades.map((t, i): TailTrade => {
        const json = {
          id: `0x${number.toString(16)}-${i}`,
          pair: t.pair,
          logIndex: i,
          blockNumber: number,
          timestamp: Number(timestamp),
          price: t.price.toString(),
          baseAmount: t.base.toString(),
          quoteAmount: (t.base * t.price).toString(),
        } as unknown as TradeJson;
        return {
          json,
          pair: t.pair,
          blockNumber: number,
          price: t.price,
          baseAmount: t.base,
          quoteAmount: t.base * t.price,
          timestamp,
        };
      });
      return { number, timestamp, trades };
    });
    return { blocks };
  });

/** Ponder's GET /trades over the trades up to block `upTo` (src/api/index.ts's query, restated). */
function ponderTrades(g: Gen, upTo: number, q: { pair?: string; fromBlock?: bigint; limit: number }): TradeJson[] {
  let all = g.blocks.filter((b) => b.number <= upTo).flatMap((b) => b.trades);
  if (q.pair !== undefined) all = all.filter((t) => t.pair === q.pair);
  if (q.fromBlock !== undefined)
    return all
      .filter((t) => t.blockNumber >= Number(q.fromBlock))
      .slice(0, q.limit)
      .map((t) => t.json);
  return all
    .reverse()
    .slice(0, q.limit)
    .map((t) => t.json);
}

/** Ponder's GET /candles over the trades up to block `upTo`: stored candles folded trade by trade. */
function ponderCandles(
  g: Gen,
  upTo: number,
  q: { pair: string; interval: string; from?: bigint; to?: bigint; limit: number; order: "asc" | "desc" },
) {
  const buckets = new Map<bigint, CandleValues>();
  for (const t of g.blocks.filter((b) => b.number <= upTo).flatMap((b) => b.trades)) {
    if (t.pair !== q.pair) continue;
    const start = bucketStartMs(t.timestamp, q.interval as CandleInterval);
    buckets.set(start, applyTrade(buckets.get(start), t));
  }
  let rows = [...buckets.entries()]
    .filter(([s]) => (q.from === undefined || s >= q.from) && (q.to === undefined || s <= q.to))
    .sort(([a], [b]) => (a < b ? -1 : 1));
  if (q.order === "desc") rows = rows.reverse();
  return rows.slice(0, q.limit).map(([s, c]) => candleJsonOf(s, c));
}

function through(g: Gen, upTo: number): number {
  let t = -1;
  for (const b of g.blocks) if (b.number <= upTo && b.trades.length > 0) t = b.number;
  return t;
}

/** A tail that started at `start` (<= P), read to the last block, then trimmed through `trim` (<= through). */
function tailOf(g: Gen, start: number, trim: number): HotTail {
  const tail = new HotTail(start);
  const last = g.blocks.at(-1)?.number ?? 0;
  const blocks: TailBlock[] = g.blocks
    .filter((b) => b.number > start)
    .map((b) => ({ number: b.number, hash: `0x${b.number}`, trades: b.trades }));
  tail.append(blocks, { number: Math.max(last, start), hash: "0xhead" });
  tail.trimThrough(trim);
  return tail;
}

const scenario = chain.chain((g) => {
  const last = g.blocks.at(-1)?.number ?? 0;
  return fc.record({
    g: fc.constant(g),
    // Ponder's indexed block, where the tail started (at or below it), how far it was trimmed
    p: fc.integer({ min: 0, max: last }),
    startBack: fc.integer({ min: 0, max: 3 }),
    trimBack: fc.integer({ min: 0, max: 3 }),
  });
});

test("merged /trades equals Ponder's once caught up, for every pair, fromBlock and limit", () => {
  fc.assert(
    fc.property(
      scenario,
      fc.option(fc.constantFrom(...PAIRS), { nil: undefined }),
      fc.option(fc.integer({ min: 0, max: 40 }), { nil: undefined }),
      fc.integer({ min: 1, max: 8 }),
      ({ g, p, startBack, trimBack }, pair, fromBlock, limit) => {
        const thr = through(g, p);
        const tail = tailOf(g, Math.max(-1, p - startBack), Math.max(-1, thr - trimBack));
        const q = tradesQuery.parse({
          pair,
          limit: String(limit),
          fromBlock: fromBlock === undefined ? undefined : String(fromBlock),
        });
        const merged = mergeTrades(q, ponderTrades(g, p, q), thr, tail);
        assert.deepEqual(merged, ponderTrades(g, Number.MAX_SAFE_INTEGER, q));
      },
    ),
    { numRuns: 2000 },
  );
});

test("merged /candles equals Ponder's once caught up, for every interval, bound, order and limit", () => {
  fc.assert(
    fc.property(
      scenario,
      fc.constantFrom(...PAIRS),
      fc.constantFrom(...CANDLE_INTERVAL_NAMES),
      fc.option(fc.integer({ min: 0, max: 3000 }), { nil: undefined }),
      fc.option(fc.integer({ min: 0, max: 3000 }), { nil: undefined }),
      fc.integer({ min: 1, max: 5 }),
      fc.constantFrom("asc" as const, "desc" as const),
      ({ g, p, startBack, trimBack }, pair, interval, fromS, toS, limit, order) => {
        const thr = through(g, p);
        const tail = tailOf(g, Math.max(-1, p - startBack), Math.max(-1, thr - trimBack));
        const base = 1_795_000_000_000;
        const q = candlesQuery.parse({
          pair,
          interval,
          limit: String(limit),
          order,
          from: fromS === undefined ? undefined : String(base + fromS * 1000),
          to: toS === undefined ? undefined : String(base + toS * 1000),
        });
        const merged = mergeCandles(q, ponderCandles(g, p, q), thr, tail);
        assert.deepEqual(merged, ponderCandles(g, Number.MAX_SAFE_INTEGER, q));
      },
    ),
    { numRuns: 2000 },
  );
});

test("the tail: trim and reset keep the chain order and the count", () => {
  const t = (n: number, i: number): TailTrade => ({
    json: { id: `${n}-${i}` } as unknown as TradeJson,
    pair: "WETH-USD",
    blockNumber: n,
    price: 1n,
    baseAmount: 1n,
    quoteAmount: 1n,
    timestamp: 0n,
  });
  const tail = new HotTail(10);
  tail.append(
    [
      { number: 11, hash: "0x11", trades: [t(11, 0), t(11, 1)] },
      { number: 13, hash: "0x13", trades: [t(13, 0)] },
    ],
    { number: 14, hash: "0x14" },
  );
  assert.equal(tail.tradeCount, 3);
  assert.deepEqual(tail.cursor, { number: 14, hash: "0x14" });
  // a block at or below the cursor is refused (the follower's order is the chain's)
  assert.throws(() => tail.append([{ number: 14, hash: "0x14b", trades: [t(14, 0)] }], { number: 15, hash: "0x15" }));
  assert.deepEqual(
    tail.select({ above: 10, order: "desc", limit: 2 }).map((x) => x.json.id),
    ["13-0", "11-1"],
  );
  assert.deepEqual(
    tail.select({ above: 11, order: "asc", limit: 9 }).map((x) => x.json.id),
    ["13-0"],
  );
  assert.deepEqual(
    tail.select({ above: 10, fromBlock: 13, order: "asc", limit: 9 }).map((x) => x.json.id),
    ["13-0"],
  );
  tail.trimThrough(11);
  assert.equal(tail.tradeCount, 1);
  tail.resetTo(12);
  assert.equal(tail.tradeCount, 0);
  assert.deepEqual(tail.cursor, { number: 12 });
  assert.deepEqual(tail.select({ above: -1, order: "asc", limit: 9 }), []);
});
