// History for the longer chart ranges, produced by really trading (issue #15: "a replay at start, not by writing
// candles directly"). A fresh sandbox home chain starts with its genesis in the past (SIMULATOR_HISTORY_DAYS);
// before the live agents begin, the replay walks the chain's clock forward through a schedule of past instants
// and at each one trades every book three times, so that the instant's candle has a body and a wick: the
// maker rests three orders (the open, the wick, the close), the taker sweeps the first two with one IOC order
// and takes the close with another, all signed by the demo traders' keys (EIP-712) and sent through the DEX
// service like any client's; then it waits until the trades are settled on chain. Their settle batch is mined at that instant, so the indexer's
// candles (keyed by block time) hold a trade in each past bucket. At the end the chain's clock is moved to
// now, and the live market continues from the last replayed prices.
import type { PrivateKeyAccount } from "viem";
import {
  DEX_OPEN_STATUSES,
  type DexOrderWithFills,
  type DexService,
  type DexSide,
  type MarketSpec,
} from "../pipeline/service";
import { lotsWorth, signedPlacer } from "./orders";
import { priceToTicks } from "./market";
import { prng } from "../runtime/prng";

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/**
 * The instants to trade at, oldest first, between `fromMs` (exclusive) and `nowMs`: coarse far back, finer
 * close to now, so that every chart range has candles (spec 8): weekly beyond 91 days (5y, 1y, 6m), every 2
 * days beyond 30 days (3m), daily beyond 5 days (1m), every 6 hours in the last 5 days (5d); the last hour is
 * left to the live market. 119 instants for 400 days (each one batch of trades on chain).
 */
export function replaySchedule(fromMs: number, nowMs: number): number[] {
  const bands: { olderThanMs: number; everyMs: number }[] = [
    { olderThanMs: 91 * DAY_MS, everyMs: 7 * DAY_MS },
    { olderThanMs: 30 * DAY_MS, everyMs: 2 * DAY_MS },
    { olderThanMs: 5 * DAY_MS, everyMs: DAY_MS },
    { olderThanMs: HOUR_MS, everyMs: 6 * HOUR_MS },
  ];
  const out: number[] = [];
  const end = nowMs - HOUR_MS;
  // on whole UTC hours, each band's step from where the band starts
  let t = Math.ceil((fromMs + 1) / HOUR_MS) * HOUR_MS;
  while (t <= end) {
    out.push(t);
    const age = nowMs - t;
    const band = bands.find((b) => age > b.olderThanMs) ?? bands[bands.length - 1]!;
    t += band.everyMs;
  }
  return out;
}

export interface ReplayOptions {
  dex: DexService;
  /** at least 2: makers and takers alternate so that no agent trades with itself */
  traders: readonly PrivateKeyAccount[];
  books: readonly { symbol: string; referencePrice: string }[];
  seed: number;
  /** the instants to trade at (ms, oldest first): replaySchedule */
  schedule: readonly number[];
  /** sets the timestamp (seconds) of the chain's next block */
  setNextBlockTime(seconds: number): Promise<void>;
  /** each trade's value, USD (default 100): small, so the demo traders' balances last */
  orderNotionalUsd?: number;
  /** longest wait for one instant's trades to settle (default 60 s) */
  settleTimeoutMs?: number;
  now?: () => number;
  onProgress?(done: number, total: number): void;
  /** asked before each instant: true ends the replay there (the stack stops) */
  stopped?(): boolean;
  /**
   * When the replay must end (ms, on `clock`): the instants that would not fit are skipped, evenly over what is
   * left (nextInstant), so that the live market starts in time. Default: none (the whole schedule).
   */
  deadlineMs?: number;
  /** the wall clock of the deadline and of the instants' cost (default Date.now) */
  clock?: () => number;
}

export interface ReplayResult {
  /** the instants traded */
  steps: number;
  /** the schedule's instants skipped to end by the deadline */
  skipped: number;
  trades: number;
  ms: number;
  /** why the replay ended before the schedule did (a settle that timed out, a stop) */
  stopped?: string;
}

/**
 * The index of the schedule's next instant to trade, from `k` on (of `n`), when `msLeft` remain before the
 * deadline and an instant costs `msPerInstant` (undefined: none measured yet): `k` while what is left fits,
 * else the one that keeps the instants that fit evenly spread over what is left; undefined when none fits.
 */
export function nextInstant(
  k: number,
  n: number,
  msLeft: number,
  msPerInstant: number | undefined,
): number | undefined {
  if (k >= n || msLeft <= 0) return undefined;
  if (msPerInstant === undefined || msPerInstant <= 0) return k;
  const fit = Math.floor(msLeft / msPerInstant);
  if (fit < 1) return undefined;
  const left = n - k;
  return fit >= left ? k : k + Math.ceil(left / fit) - 1;
}

/** The trades of one book at each instant: the book, where its price is, and who makes and who takes. */
interface ReplayBook {
  m: MarketSpec;
  fair: bigint;
  maker: PrivateKeyAccount;
  taker: PrivateKeyAccount;
}

/**
 * One instant's candle for a book: open, a wick beyond it, close. Rising (close > open): bids at the open and
 * the low, an ask at the close; the taker sells through both bids, then buys the ask (open, low, close).
 * Falling: the mirror (open, high, close). Prices in ticks, at least 1.
 */
export interface CandlePlan {
  open: bigint;
  wick: bigint;
  close: bigint;
  /** the side of the maker's open and wick orders: buy for a rising candle */
  makerSide: DexSide;
}

export function candlePlan(open: bigint, close: bigint, step: bigint): CandlePlan {
  const rising = close > open || (close === open && open <= step);
  if (rising) {
    const c = close > open ? close : open + step;
    const low = open - step > 0n ? open - step : 1n;
    // a rising candle needs room below the open for its wick: from the floor (1 tick) it opens one step up
    return open > low ? { open, wick: low, close: c, makerSide: "buy" } : candlePlan(open + step, close + step, step);
  }
  return { open, wick: open + step, close: close < open ? close : open - step, makerSide: "sell" };
}

type Place = (
  who: PrivateKeyAccount,
  side: DexSide,
  ticks: bigint,
  lots: bigint,
  tif: "gtc" | "ioc",
) => Promise<DexOrderWithFills | null>;

/** The replay's books, in `o.books` order, starting a little away from their reference price. */
function replayBooks(o: ReplayOptions, rnd: () => number): ReplayBook[] {
  const markets = o.dex.listMarkets();
  const books: ReplayBook[] = [];
  for (const [i, b] of o.books.entries()) {
    const m = markets.find((x) => x.symbol === b.symbol);
    if (!m) continue;
    // the history ends near the reference price: it starts a little away from it
    const ref = priceToTicks(m, b.referencePrice);
    const start = (ref * BigInt(80 + Math.floor(rnd() * 40))) / 100n;
    books.push({
      m,
      fair: start > 0n ? start : 1n,
      maker: o.traders[i % o.traders.length]!,
      taker: o.traders[(i + 1) % o.traders.length]!,
    });
  }
  return books;
}

/**
 * One book at one instant (candlePlan): the maker's three resting orders, the taker's two IOC orders; what is
 * left of the maker's orders is cancelled. Returns the taker orders that traded.
 */
async function tradeCandle(o: ReplayOptions, b: ReplayBook, plan: CandlePlan, lots: bigint, place: Place) {
  const takerSide: DexSide = plan.makerSide === "buy" ? "sell" : "buy";
  const makers = await Promise.all([
    place(b.maker, plan.makerSide, plan.open, lots, "gtc"),
    place(b.maker, plan.makerSide, plan.wick, lots, "gtc"),
    place(b.maker, takerSide, plan.close, lots, "gtc"),
  ]);
  const traded: string[] = [];
  if (makers.every((m) => m?.status === "open")) {
    // through the open and the wick, then back to the close
    const sweep = await place(b.taker, takerSide, plan.wick, 2n * lots, "ioc");
    if (sweep && sweep.fills.length > 0) traded.push(sweep.orderId);
    const back = await place(b.taker, plan.makerSide, plan.close, lots, "ioc");
    if (back && back.fills.length > 0) traded.push(back.orderId);
  }
  await Promise.all(
    makers.map(async (m) => {
      if (!m) return;
      const now = await o.dex.getOrder(m.orderId).catch(() => null);
      if (now && DEX_OPEN_STATUSES.includes(now.status))
        await o.dex
          .cancelOrder({ orderId: m.orderId, account: b.maker.address, reason: "user_cancelled" })
          .catch(() => undefined);
    }),
  );
  return traded;
}

/** Waits until every fill of the `orders` is settled on chain (or throws after `timeoutMs`). */
async function settled(dex: DexService, orders: readonly string[], atMs: number, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (const id of orders) {
    for (;;) {
      const ord = await dex.getOrder(id);
      if (ord?.fills.every((f) => f.settlement === "settled")) break;
      if (Date.now() > until)
        throw new Error(`replay: the trades at ${new Date(atMs).toISOString()} did not settle in time`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }
}

/** One replay under way: its books, its PRNG, how it places orders, and what it has done so far. */
interface ReplayRun {
  readonly o: ReplayOptions;
  readonly books: ReplayBook[];
  readonly rnd: () => number;
  readonly notionalUsd: bigint;
  place(b: ReplayBook): Place;
  prevMs?: number;
  steps: number;
  trades: number;
  /** wall ms spent on the instants traded (their cost, for the deadline) */
  tradingMs: number;
}

function startRun(o: ReplayOptions): ReplayRun {
  const now = o.now ?? Date.now;
  const rnd = prng(o.seed ^ 0x5eed);
  const placeOn = signedPlacer(o.dex, now);
  return {
    o,
    rnd,
    books: replayBooks(o, rnd),
    notionalUsd: BigInt(o.orderNotionalUsd ?? 100),
    place: (b) => (who, side, ticks, lots, tif) => placeOn(b.m, who, side, ticks, lots, tif).catch(() => null),
    steps: 0,
    trades: 0,
    tradingMs: 0,
  };
}

/** Every book's candle at one instant (the walk's step grows with the time since the last instant: about 1 %
 *  a day, 0.2 % an hour); returns the taker orders that traded. */
async function tradeInstant(run: ReplayRun, atMs: number): Promise<string[]> {
  const hours = run.prevMs === undefined ? 1 : Math.max(1, Math.round((atMs - run.prevMs) / HOUR_MS));
  const scale = BigInt(Math.max(1, Math.round(Math.sqrt(hours) * 2)));
  run.prevMs = atMs;
  const traded = await Promise.all(
    run.books.map((b) => {
      const step = (b.fair * scale) / 1000n > 0n ? (b.fair * scale) / 1000n : 1n;
      const r = run.rnd();
      const open = b.fair;
      if (r < 0.47 && b.fair > step * 2n) b.fair -= step;
      else if (r >= 0.53) b.fair += step;
      const plan = candlePlan(open, b.fair, step);
      b.fair = plan.close;
      const lots = lotsWorth(b.m, open, run.notionalUsd * 10n ** BigInt(b.m.quoteDecimals));
      return tradeCandle(run.o, b, plan, lots, run.place(b));
    }),
  );
  return traded.flat();
}

/** Trades every book at each instant of the schedule, or at as many as fit before the deadline (see the
 *  file's comment). */
export async function replayHistory(o: ReplayOptions): Promise<ReplayResult> {
  if (o.traders.length < 2) throw new Error("the replay needs at least 2 traders");
  const started = Date.now();
  const clock = o.clock ?? Date.now;
  const deadline = o.deadlineMs ?? Infinity;
  const run = startRun(o);
  const result = (stopped?: string): ReplayResult => ({
    steps: run.steps,
    skipped: o.schedule.length - run.steps,
    trades: run.trades,
    ms: Date.now() - started,
    ...(stopped ? { stopped } : {}),
  });
  for (let k = 0; ; k++) {
    if (o.stopped?.()) return result("the stack stopped");
    const at = clock();
    const next = nextInstant(k, o.schedule.length, deadline - at, run.steps ? run.tradingMs / run.steps : undefined);
    if (next === undefined) return result();
    k = next;
    const atMs = o.schedule[k]!;
    await o.setNextBlockTime(Math.floor(atMs / 1000));
    const takers = await tradeInstant(run, atMs);
    // this instant's trades settle before the clock moves on
    await settled(o.dex, takers, atMs, o.settleTimeoutMs ?? 60_000);
    for (const id of takers) run.trades += (await o.dex.getOrder(id))?.fills.length ?? 0;
    run.steps += 1;
    run.tradingMs += clock() - at;
    o.onProgress?.(k + 1, o.schedule.length);
  }
}
