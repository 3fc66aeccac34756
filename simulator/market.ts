// The simulated market of the sandbox (spec 5.5 "simulated matching"): agents that trade every given book
// with real wallet-signed orders (EIP-712, the demo traders' own keys) through the DEX service port, the
// way a client's orders go: intake, matcher, batcher, the chain. Nothing is written around the pipeline.
// - a fair value per book follows a seeded random walk (integer ticks, steps proportional to the price);
// - a market maker per book keeps a ladder of `levels` post-and-rest bids and asks around it, re-quoting when
//   the fair value has moved (cancelling what is stale);
// - takers send IOC orders that cross the spread, so trades happen, quotes move and candles form.
// Every decision comes from one PRNG seeded with `seed` (the same seed on the same books gives the same
// sequence of orders); the order rate is bounded by a token bucket (`ordersPerSecond`, all books together).
// Each book gets its ladder and at once a trade, book after book (the first book trades after 2 x levels + 1
// orders, not after every book's ladder); `warmUpTrades` taker orders per book follow, as fast as the bucket
// allows, so that a fresh stack shows trades and candles at once. stop() stops placing, cancels the agents' resting orders and resolves.
import type { PrivateKeyAccount } from "viem";
import type { DexService, DexSide, MarketSpec } from "../pipeline/service";
import { lotsWorth, signedPlacer, type PlaceOn } from "./orders";
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

/** The agents of every book: the fair values, the maker's ladders, the takers, one token bucket. */
class Agents {
  private readonly now: () => number;
  private readonly rnd: () => number;
  private readonly levels: number;
  private readonly notionalUsd: number;
  private readonly warmUp: number;
  private readonly placeOn: PlaceOn;
  readonly counts = { placed: 0, refused: 0, cancelled: 0 };
  stopped = false;
  readonly books: Book[] = [];
  // the token bucket: every placement and cancel takes one token
  private tokens = 0;
  private last: number;

  constructor(private readonly o: SimulatedMarketOptions) {
    this.now = o.now ?? Date.now;
    this.rnd = prng(o.seed);
    this.levels = o.levels ?? 4;
    this.notionalUsd = o.orderNotionalUsd ?? 500;
    this.warmUp = o.warmUpTrades ?? 20;
    this.placeOn = signedPlacer(o.dex, this.now);
    this.last = this.now();
  }

  async init(): Promise<void> {
    const o = this.o;
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
      this.books.push({ m, fairTicks, quotedAt: null, resting: [], maker, taker, warmUpLeft: this.warmUp });
    }
  }

  /** size in lots worth about notionalUsd at `ticks` (at least minLots), times a factor in [0.5, 1.5) */
  private sizeLots(m: MarketSpec, ticks: bigint): bigint {
    const target =
      BigInt(Math.round(this.notionalUsd * (0.5 + this.rnd()) * 1000)) *
      10n ** BigInt(Math.max(0, m.quoteDecimals - 3));
    return lotsWorth(m, ticks, target);
  }

  private async place(
    b: Book,
    who: PrivateKeyAccount,
    side: DexSide,
    ticks: bigint,
    lots: bigint,
    tif: "gtc" | "ioc",
  ): Promise<string | null> {
    try {
      const order = await this.placeOn(b.m, who, side, ticks, lots, tif);
      this.counts.placed++;
      return order.status === "open" || order.status === "partially_filled" ? order.orderId : null;
    } catch (err) {
      this.counts.refused++;
      this.o.onError?.(err, b.m.symbol);
      return null;
    }
  }

  private async take(): Promise<boolean> {
    // Every placement waits for the event loop's next turn: over a service that answers without I/O (the
    // in-memory one, or a fast path) the loop would otherwise run in microtasks alone whenever signing takes
    // longer than a token's interval, and starve every timer and socket of its process.
    await new Promise<void>((r) => setImmediate(r));
    const rate = this.o.ordersPerSecond;
    for (;;) {
      if (this.stopped) return false;
      const t = this.now();
      this.tokens = Math.min(rate, this.tokens + ((t - this.last) / 1000) * rate);
      this.last = t;
      if (this.tokens >= 1) {
        this.tokens -= 1;
        return true;
      }
      await new Promise((r) => setTimeout(r, Math.ceil(((1 - this.tokens) / rate) * 1000)));
    }
  }

  /** moves the fair value one step: a seeded walk of about ±0.2 % with a pull back to where it started */
  private walk(b: Book): void {
    const step = b.fairTicks / 500n > 0n ? b.fairTicks / 500n : 1n;
    const r = this.rnd();
    if (r < 0.45 && b.fairTicks > step * 2n) b.fairTicks -= step;
    else if (r >= 0.55) b.fairTicks += step;
  }

  /** cancels one resting order of the agents (what is already filled or gone is skipped) */
  async cancel(r: Book["resting"][number]): Promise<void> {
    try {
      await this.o.dex.cancelOrder({ orderId: r.orderId, account: r.account.address, reason: "user_cancelled" });
      this.counts.cancelled++;
    } catch {
      // already filled or gone
    }
  }

  private async requote(b: Book): Promise<void> {
    while (b.resting.length > 0) {
      // one at a time: what is left when the market stops is cancelled by stop()
      if (!(await this.take())) return;
      await this.cancel(b.resting.shift()!);
    }
    const half = b.fairTicks / 1000n > 0n ? b.fairTicks / 1000n : 1n; // half spread: about 0.1 %
    for (let l = 0n; l < BigInt(this.levels); l++) {
      for (const side of ["buy", "sell"] as const) {
        const ticks = side === "buy" ? b.fairTicks - half * (l + 1n) : b.fairTicks + half * (l + 1n);
        if (ticks <= 0n) continue;
        if (!(await this.take())) return;
        const id = await this.place(b, b.maker, side, ticks, this.sizeLots(b.m, ticks), "gtc");
        if (id) b.resting.push({ orderId: id, account: b.maker });
      }
    }
    b.quotedAt = b.fairTicks;
  }

  private async trade(b: Book): Promise<void> {
    if (!(await this.take())) return;
    const side: DexSide = this.rnd() < 0.5 ? "buy" : "sell";
    // crosses up to the second level: a trade at the best price, sometimes through it
    const through = (b.fairTicks / 1000n > 0n ? b.fairTicks / 1000n : 1n) * 3n;
    const ticks = side === "buy" ? b.fairTicks + through : b.fairTicks - through > 0n ? b.fairTicks - through : 1n;
    await this.place(b, b.taker, side, ticks, this.sizeLots(b.m, b.fairTicks), "ioc");
  }

  async run(initialized: Promise<void>): Promise<void> {
    await initialized;
    const books = this.books;
    // each book's ladder, then at once a trade on it (it takes at most 2 of the ladder's levels: the book stays
    // two-sided), book after book
    for (const b of books) {
      if (this.stopped) return;
      await this.requote(b);
      await this.trade(b);
    }
    // warm-up: trades on every book first, the fair value walking between them
    for (let round = 0; round < this.warmUp && !this.stopped; round++) {
      for (const b of books) {
        if (this.stopped) return;
        this.walk(b);
        if (b.quotedAt !== null && b.fairTicks !== b.quotedAt && round % 5 === 4) await this.requote(b);
        await this.trade(b);
      }
    }
    // then steady: one book at a time, chosen at random; 3 in 10 steps move its fair value (and re-quote once
    // it moved more than 0.1 %), the others trade
    while (!this.stopped && books.length > 0) {
      const b = books[Math.floor(this.rnd() * books.length)];
      if (this.rnd() < 0.3) {
        this.walk(b);
        if (b.quotedAt === null || (b.fairTicks - b.quotedAt) ** 2n * 1_000_000n > b.quotedAt ** 2n)
          await this.requote(b);
      } else await this.trade(b);
    }
  }
}

export function startSimulatedMarket(o: SimulatedMarketOptions): SimulatedMarket {
  if (o.traders.length < 2) throw new Error("the simulated market needs at least 2 traders");
  if (!(o.ordersPerSecond > 0)) throw new Error("ordersPerSecond must be positive");
  const agents = new Agents(o);
  const initialized = agents.init();
  const loop = agents.run(initialized).catch((err: unknown) => o.onError?.(err, "*"));
  return {
    ready: initialized.catch(() => undefined),
    stats: () => ({ ...agents.counts }),
    async stop() {
      agents.stopped = true;
      await loop;
      for (const b of agents.books) for (const r of b.resting.splice(0)) await agents.cancel(r);
    },
  };
}
