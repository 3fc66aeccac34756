// The simulated market of the sandbox (spec 5.5 "simulated matching"): agents that trade every given book
// with real wallet-signed orders (EIP-712, the demo traders' own keys) through the DEX service port, the
// way a client's orders go: intake, matcher, batcher, the chain. Nothing is written around the pipeline.
// - a fair value per book follows a seeded random walk (integer ticks, steps proportional to the price);
// - a market maker per book keeps a ladder of `levels` post-and-rest bids and asks around it, re-quoting when
//   the fair value has moved (cancelling what is stale);
// - takers send IOC orders that cross the spread, so trades happen, quotes move and candles form.
// Every decision comes from one PRNG seeded with `seed` (the same seed on the same books gives the same
// sequence of orders); the order rate is bounded by a token bucket (`ordersPerSecond`, all books together).
// `warmUpTrades` taker orders per book are sent first, as fast as the bucket allows, so that a fresh stack
// shows trades and candles at once. stop() stops placing, cancels the agents' resting orders and resolves.
import type { PrivateKeyAccount } from "viem";
import type { DexService, DexSide, MarketSpec } from "../pipeline/service";
import { lotsWorth, nonceCounter, placeSigned } from "./orders";
import { prng } from "../runtime/prng";

export interface SimulatedMarketOptions {
  dex: DexService;
  /** at least 2 demo traders: makers and takers alternate so that no agent trades with itself */
  traders: readonly PrivateKeyAccount[];
  /** the books to trade, each with the price (USD) it starts from when it has no trade yet */
  books: readonly { symbol: string; referencePrice: string }[];
  seed: number;
  /** orders (placements and cancels) per second, all books together */
  ordersPerSecond: number;
  /** levels per side the maker keeps (default 4) */
  levels?: number;
  /** each order's value, USD (default 500) */
  orderNotionalUsd?: number;
  /** taker orders per book sent first (default 20) */
  warmUpTrades?: number;
  now?: () => number;
  /** a refused or failed placement (logged by the caller; the agents go on) */
  onError?: (err: unknown, symbol: string) => void;
}

/** An exact decimal string (USD) to whole ticks of `m` (rounded down, at least 1). */
export function priceToTicks(m: MarketSpec, usd: string): bigint {
  const [int, frac = ""] = usd.split(".");
  const quoteUnits = BigInt(int + frac.padEnd(m.quoteDecimals, "0").slice(0, m.quoteDecimals));
  // the contract price is quote units per 1e18 base units: price = quoteUnits * 10^(18 - baseDecimals)... per
  // whole base unit; ticks = price / tickSize
  const contractPrice = (quoteUnits * 10n ** 18n) / 10n ** BigInt(m.baseDecimals);
  const ticks = contractPrice / m.tickSize;
  return ticks > 0n ? ticks : 1n;
}

interface Book {
  m: MarketSpec;
  fairTicks: bigint;
  quotedAt: bigint | null;
  resting: { orderId: string; account: PrivateKeyAccount }[];
  maker: PrivateKeyAccount;
  taker: PrivateKeyAccount;
  warmUpLeft: number;
}

export interface SimulatedMarket {
  /** resolves once every book has a fair value (its last trade, book mid or reference price) */
  readonly ready: Promise<void>;
  /** orders placed (accepted by the service) and refused so far */
  stats(): { placed: number; refused: number; cancelled: number };
  stop(): Promise<void>;
}

export function startSimulatedMarket(o: SimulatedMarketOptions): SimulatedMarket {
  if (o.traders.length < 2) throw new Error("the simulated market needs at least 2 traders");
  if (!(o.ordersPerSecond > 0)) throw new Error("ordersPerSecond must be positive");
  const now = o.now ?? Date.now;
  const rnd = prng(o.seed);
  const levels = o.levels ?? 4;
  const notionalUsd = o.orderNotionalUsd ?? 500;
  const warmUp = o.warmUpTrades ?? 20;
  const nonceOf = nonceCounter(now);
  const counts = { placed: 0, refused: 0, cancelled: 0 };
  let stopped = false;
  let loop: Promise<void> | null = null;
  const books: Book[] = [];

  async function init(): Promise<void> {
    const markets = o.dex.listMarkets();
    for (const [i, b] of o.books.entries()) {
      const m = markets.find((x) => x.symbol === b.symbol);
      if (!m) continue;
      const stats = await o.dex.getMarketStats(m.symbol);
      const snap = await o.dex.getOrderBook(m.symbol, 1);
      const mid = snap?.bids[0] && snap?.asks[0] ? (snap.bids[0].priceTicks + snap.asks[0].priceTicks) / 2n : null;
      const fairTicks = stats?.lastPriceTicks ?? mid ?? priceToTicks(m, b.referencePrice);
      const maker = o.traders[i % o.traders.length];
      const taker = o.traders[(i + 1) % o.traders.length];
      books.push({ m, fairTicks, quotedAt: null, resting: [], maker, taker, warmUpLeft: warmUp });
    }
  }

  /** size in lots worth about notionalUsd at `ticks` (at least minLots), times a factor in [0.5, 1.5) */
  function sizeLots(m: MarketSpec, ticks: bigint): bigint {
    const target =
      BigInt(Math.round(notionalUsd * (0.5 + rnd()) * 1000)) * 10n ** BigInt(Math.max(0, m.quoteDecimals - 3));
    return lotsWorth(m, ticks, target);
  }

  async function place(
    b: Book,
    who: PrivateKeyAccount,
    side: DexSide,
    ticks: bigint,
    lots: bigint,
    tif: "gtc" | "ioc",
  ): Promise<string | null> {
    try {
      const order = await placeSigned(o.dex, {
        account: who,
        market: b.m,
        side,
        priceTicks: ticks,
        sizeLots: lots,
        timeInForce: tif,
        nonce: nonceOf(who),
        nowMs: now(),
      });
      counts.placed++;
      return order.status === "open" || order.status === "partially_filled" ? order.orderId : null;
    } catch (err) {
      counts.refused++;
      o.onError?.(err, b.m.symbol);
      return null;
    }
  }

  // the token bucket: every placement and cancel takes one token
  let tokens = 0;
  let last = now();
  async function take(): Promise<boolean> {
    // Every placement waits for the event loop's next turn: over a service that answers without I/O (the
    // in-memory one, or a fast path) the loop would otherwise run in microtasks alone whenever signing takes
    // longer than a token's interval, and starve every timer and socket of its process.
    await new Promise<void>((r) => setImmediate(r));
    for (;;) {
      if (stopped) return false;
      const t = now();
      tokens = Math.min(o.ordersPerSecond, tokens + ((t - last) / 1000) * o.ordersPerSecond);
      last = t;
      if (tokens >= 1) {
        tokens -= 1;
        return true;
      }
      await new Promise((r) => setTimeout(r, Math.ceil(((1 - tokens) / o.ordersPerSecond) * 1000)));
    }
  }

  /** moves the fair value one step: a seeded walk of about ±0.2 % with a pull back to where it started */
  function walk(b: Book): void {
    const step = b.fairTicks / 500n > 0n ? b.fairTicks / 500n : 1n;
    const r = rnd();
    if (r < 0.45 && b.fairTicks > step * 2n) b.fairTicks -= step;
    else if (r >= 0.55) b.fairTicks += step;
  }

  async function requote(b: Book): Promise<void> {
    while (b.resting.length > 0) {
      // one at a time: what is left when the market stops is cancelled by stop()
      if (!(await take())) return;
      const r = b.resting.shift()!;
      try {
        await o.dex.cancelOrder({ orderId: r.orderId, account: r.account.address, reason: "user_cancelled" });
        counts.cancelled++;
      } catch {
        // already filled or gone
      }
    }
    const half = b.fairTicks / 1000n > 0n ? b.fairTicks / 1000n : 1n; // half spread: about 0.1 %
    for (let l = 0n; l < BigInt(levels); l++) {
      for (const side of ["buy", "sell"] as const) {
        const ticks = side === "buy" ? b.fairTicks - half * (l + 1n) : b.fairTicks + half * (l + 1n);
        if (ticks <= 0n) continue;
        if (!(await take())) return;
        const id = await place(b, b.maker, side, ticks, sizeLots(b.m, ticks), "gtc");
        if (id) b.resting.push({ orderId: id, account: b.maker });
      }
    }
    b.quotedAt = b.fairTicks;
  }

  async function trade(b: Book): Promise<void> {
    if (!(await take())) return;
    const side: DexSide = rnd() < 0.5 ? "buy" : "sell";
    // crosses up to the second level: a trade at the best price, sometimes through it
    const through = (b.fairTicks / 1000n > 0n ? b.fairTicks / 1000n : 1n) * 3n;
    const ticks = side === "buy" ? b.fairTicks + through : b.fairTicks - through > 0n ? b.fairTicks - through : 1n;
    await place(b, b.taker, side, ticks, sizeLots(b.m, b.fairTicks), "ioc");
  }

  const initialized = init();
  async function run(): Promise<void> {
    await initialized;
    for (const b of books) {
      if (stopped) return;
      await requote(b);
    }
    // warm-up: trades on every book first, the fair value walking between them
    for (let round = 0; round < warmUp && !stopped; round++) {
      for (const b of books) {
        if (stopped) return;
        walk(b);
        if (b.quotedAt !== null && b.fairTicks !== b.quotedAt && round % 5 === 4) await requote(b);
        await trade(b);
      }
    }
    // then steady: one book at a time, chosen at random; 3 in 10 steps move its fair value (and re-quote once
    // it moved more than 0.1 %), the others trade
    while (!stopped && books.length > 0) {
      const b = books[Math.floor(rnd() * books.length)];
      if (rnd() < 0.3) {
        walk(b);
        if (b.quotedAt === null || (b.fairTicks - b.quotedAt) ** 2n * 1_000_000n > b.quotedAt ** 2n) await requote(b);
      } else await trade(b);
    }
  }

  loop = run().catch((err: unknown) => o.onError?.(err, "*"));

  return {
    ready: initialized.catch(() => undefined),
    stats: () => ({ ...counts }),
    async stop() {
      stopped = true;
      await loop;
      for (const b of books)
        for (const r of b.resting.splice(0)) {
          try {
            await o.dex.cancelOrder({ orderId: r.orderId, account: r.account.address, reason: "user_cancelled" });
            counts.cancelled++;
          } catch {
            // filled or gone
          }
        }
    },
  };
}
