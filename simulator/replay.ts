// History for the longer chart ranges, produced by really trading (issue #15: "a replay at start, not by writing
// candles directly"). A fresh sandbox home chain starts with its genesis in the past (SIMULATOR_HISTORY_DAYS);
// before the live agents begin, the replay walks the chain's clock forward through a schedule of past instants
// and at each one trades every book once: a maker's post-and-rest order and a taker's IOC order that takes it,
// both signed by the demo traders' keys (EIP-712) and sent through the DEX service like any client's, then
// waits until the trades are settled on chain. Their settle batch is mined at that instant, so the indexer's
// candles (keyed by block time) hold a trade in each past bucket. At the end the chain's clock is moved to
// now, and the live market continues from the last replayed prices.
import type { PrivateKeyAccount } from "viem";
import type { DexService, DexSide, MarketSpec } from "../pipeline/service";
import { lotsWorth, nonceCounter, placeSigned } from "./orders";
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
}

export interface ReplayResult {
  steps: number;
  trades: number;
  ms: number;
  /** why the replay ended before the schedule did (a settle that timed out) */
  stopped?: string;
}

/** Trades every book once at each instant of the schedule (see the file's comment). */
export async function replayHistory(o: ReplayOptions): Promise<ReplayResult> {
  if (o.traders.length < 2) throw new Error("the replay needs at least 2 traders");
  const started = Date.now();
  const now = o.now ?? Date.now;
  const rnd = prng(o.seed ^ 0x5eed);
  const notionalUsd = o.orderNotionalUsd ?? 100;
  const markets = o.dex.listMarkets();
  const books: { m: MarketSpec; fair: bigint; maker: PrivateKeyAccount; taker: PrivateKeyAccount }[] = [];
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
  const nonceOf = nonceCounter(now);
  const place = (
    b: (typeof books)[number],
    who: PrivateKeyAccount,
    side: DexSide,
    ticks: bigint,
    lots: bigint,
    tif: "gtc" | "ioc",
  ) =>
    placeSigned(o.dex, {
      account: who,
      market: b.m,
      side,
      priceTicks: ticks,
      sizeLots: lots,
      timeInForce: tif,
      nonce: nonceOf(who),
      nowMs: now(),
    });

  let trades = 0;
  let prevMs: number | undefined;
  let steps = 0;
  for (const [k, atMs] of o.schedule.entries()) {
    // the walk's step grows with the time since the last instant (about 1 % a day, 0.2 % an hour)
    const hours = prevMs === undefined ? 1 : Math.max(1, Math.round((atMs - prevMs) / HOUR_MS));
    const scale = BigInt(Math.max(1, Math.round(Math.sqrt(hours) * 2)));
    prevMs = atMs;
    await o.setNextBlockTime(Math.floor(atMs / 1000));
    // every book's maker posts (in parallel), then every taker takes it
    const orders = books.map((b) => {
      const step = (b.fair * scale) / 1000n > 0n ? (b.fair * scale) / 1000n : 1n;
      const r = rnd();
      if (r < 0.47 && b.fair > step * 2n) b.fair -= step;
      else if (r >= 0.53) b.fair += step;
      // sides alternate so the traders' balances do not drift one way
      const makerSide: DexSide = k % 2 === 0 ? "sell" : "buy";
      return {
        b,
        lots: lotsWorth(b.m, b.fair, BigInt(notionalUsd) * 10n ** BigInt(b.m.quoteDecimals)),
        makerSide,
        ticks: b.fair,
      };
    });
    const makers = await Promise.all(
      orders.map((x) => place(x.b, x.b.maker, x.makerSide, x.ticks, x.lots, "gtc").catch(() => null)),
    );
    const takers: string[] = [];
    await Promise.all(
      orders.map(async (x, i) => {
        const maker = makers[i];
        if (maker?.status !== "open") return;
        const taker = await place(
          x.b,
          x.b.taker,
          x.makerSide === "sell" ? "buy" : "sell",
          x.ticks,
          x.lots,
          "ioc",
        ).catch(() => null);
        if (taker && taker.fills.length > 0) takers.push(taker.orderId);
        if (!taker || taker.filledLots < x.lots)
          await o.dex
            .cancelOrder({ orderId: maker.orderId, account: x.b.maker.address, reason: "user_cancelled" })
            .catch(() => undefined);
      }),
    );
    // this instant's trades settle before the clock moves on
    const until = Date.now() + (o.settleTimeoutMs ?? 60_000);
    for (const id of takers) {
      for (;;) {
        const ord = await o.dex.getOrder(id);
        if (ord?.fills.every((f) => f.settlement === "settled")) break;
        if (Date.now() > until)
          throw new Error(`replay: the trades at ${new Date(atMs).toISOString()} did not settle in time`);
        await new Promise((r) => setTimeout(r, 10));
      }
    }
    trades += takers.length;
    steps = k + 1;
    o.onProgress?.(k + 1, o.schedule.length);
  }
  return { steps, trades, ms: Date.now() - started };
}
