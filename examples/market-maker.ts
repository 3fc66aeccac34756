// A market-making bot: quotes both sides of one market around the mid, cancels and replaces its quotes each
// round, and stops cleanly after ROUNDS rounds (or at Ctrl-C / SIGTERM, after the round under way): every
// quote it left is cancelled, the book feed and the gRPC channel are closed, and the process exits by itself.
//   - the book: the SDK's BookFeed (WebSocket, sequence and checksum checked, resync on a gap);
//   - the mid: (best bid + best ask) / 2 of the book without the bot's own quotes; MID when a side is empty;
//   - the quotes: mid -/+ SPREAD_BPS, rounded outward to the market's tick (integer arithmetic, no floats);
//   - orders: gRPC PlaceOrder / CancelOrder (TradingService), authenticated by the HMAC-signed metadata of an
//     API key; the key (API_KEY, API_SECRET) or, when none is given, one the wallet creates and approves.
//   npx tsx examples/market-maker.ts
// Env: DEX_API_URL (http://127.0.0.1:3001), DEX_WS_URL (ws://127.0.0.1:8080/ws), DEX_GRPC_ADDRESS
// (127.0.0.1:50051), PRIVATE_KEY (the integrator wallet, examples/env.ts), API_KEY + API_SECRET (optional), SYMBOL (WETH-USD),
// ROUNDS (3), SPREAD_BPS (50), SIZE (0.01), MID (1500), INTERVAL_MS (1000: the pause between rounds; the
// order rate limit is 10 per second per key). Prints one JSON line per round and a last one.
import {
  BookFeed,
  createDexClient,
  createTradingClient,
  formatDecimal,
  fromViem,
  ok,
  parseDecimal,
  signAgentApprovalRequest,
  type OrderBook,
} from "@onchain-exchange/sdk";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { exitWith, setting } from "./env";

const env = (name: string, fallback: string) => process.env[name] ?? fallback;
const API = setting("DEX_API_URL");
const WS_URL = setting("DEX_WS_URL");
const GRPC = setting("DEX_GRPC_ADDRESS");
const symbol = env("SYMBOL", "WETH-USD");
const rounds = Number(env("ROUNDS", "3"));
const spreadBps = BigInt(env("SPREAD_BPS", "50"));
const size = env("SIZE", "0.01");
const fallbackMid = env("MID", "1500");
const intervalMs = Number(env("INTERVAL_MS", "1000"));

/** Decimal text at a fixed scale (the tick's decimals) as an integer, or a clear error. */
function units(text: string | number, scale: number): bigint {
  const v = parseDecimal(text, scale);
  if (v === null) throw new Error(`${text} has more than ${scale} decimals`);
  return v;
}

async function apiKey(): Promise<{ apiKey: string; apiSecret: string }> {
  if (process.env.API_KEY && process.env.API_SECRET)
    return { apiKey: process.env.API_KEY, apiSecret: process.env.API_SECRET };
  const wallet = fromViem(privateKeyToAccount(setting("PRIVATE_KEY") as Hex));
  const key = await ok(
    createDexClient({ baseUrl: API, auth: { wallet } }).POST("/v1/api-keys", {
      body: { permissions: ["read", "trade"], label: "market-maker" },
    }),
  );
  await ok(
    createDexClient({ baseUrl: API }).POST("/v1/api-keys/{id}/agent-approval", {
      params: { path: { id: key.id } },
      body: await signAgentApprovalRequest(wallet, key.agent_approval),
    }),
  );
  return { apiKey: key.api_key, apiSecret: key.api_secret };
}

type Grpc = ReturnType<typeof createTradingClient>;
type Side = "buy" | "sell";

/** The bot's resting quotes, and what it does with them. */
class Quotes {
  private quotes: { id: string; side: Side; price: bigint }[] = [];

  constructor(
    private readonly grpc: Grpc,
    private readonly scale: number,
  ) {}

  /** cancels every quote; the ids cancelled (a quote filled or gone meanwhile is skipped) */
  async cancelAll(): Promise<string[]> {
    const cancelled: string[] = [];
    for (const q of this.quotes) {
      const r = await this.grpc.cancelOrder(q.id).catch((e: { code?: string }) => {
        if (e.code === "ORDER_NOT_FOUND" || e.code === "ORDER_NOT_OPEN") return null;
        throw e;
      });
      if (r) cancelled.push(r.order_id);
    }
    this.quotes = [];
    return cancelled;
  }

  /** the best price of a side, not counting our own quotes' sizes */
  bestOthers(book: OrderBook, side: "bid" | "ask"): bigint | null {
    for (const [price, levelSize] of book.levels(side)) {
      const p = units(price, this.scale);
      const ours = this.quotes.filter((q) => (q.side === "buy") === (side === "bid") && q.price === p).length;
      if (ours === 0 || units(levelSize, 18) > units(size, 18) * BigInt(ours)) return p;
    }
    return null;
  }

  async place(side: Side, price: bigint, round: number) {
    const r = await this.grpc.placeOrder({
      symbol,
      side,
      type: "limit",
      price: Number(formatDecimal(price, this.scale)),
      size: Number(size),
      time_in_force: "gtc",
      client_order_id: `mm-${Date.now()}-${round}-${side}`,
    });
    this.quotes.push({ id: r.order_id, side, price });
    return r;
  }
}

/** mid -/+ SPREAD_BPS: floor for the bid, ceiling for the ask, then onto the tick grid outward */
function quotePrices(twiceMid: bigint, tick: bigint, scale: number): { bidPrice: bigint; askPrice: bigint } {
  let bidPrice = (twiceMid * (10_000n - spreadBps)) / 20_000n;
  bidPrice -= bidPrice % tick;
  let askPrice = (twiceMid * (10_000n + spreadBps) + 19_999n) / 20_000n;
  askPrice += (tick - (askPrice % tick)) % tick;
  if (bidPrice <= 0n || askPrice <= bidPrice)
    throw new Error(`no room to quote around ${formatDecimal(twiceMid, scale + 1)}/2`);
  return { bidPrice, askPrice };
}

/** One round: replace both quotes around the mid of the others' book, wait to see them, print a line. */
async function quoteRound(feed: BookFeed, quotes: Quotes, round: number, tick: bigint, scale: number) {
  const bid = quotes.bestOthers(feed.book, "bid");
  const ask = quotes.bestOthers(feed.book, "ask");
  const twiceMid = bid !== null && ask !== null ? bid + ask : 2n * units(fallbackMid, scale);
  const { bidPrice, askPrice } = quotePrices(twiceMid, tick, scale);
  const cancelled = await quotes.cancelAll();
  const b = await quotes.place("buy", bidPrice, round);
  const a = await quotes.place("sell", askPrice, round);
  // the feed shows both quotes (or they traded at once: then their status says so)
  const shown = (p: bigint, side: "bid" | "ask") => feed.book.levels(side).some(([price]) => units(price, scale) === p);
  if (b.status === "open" && a.status === "open")
    await feed.until(() => shown(bidPrice, "bid") && shown(askPrice, "ask"));
  console.log(
    JSON.stringify({
      round,
      mid: formatDecimal(twiceMid * 5n, scale + 1),
      bid: { order_id: b.order_id, price: formatDecimal(bidPrice, scale), size, status: b.status },
      ask: { order_id: a.order_id, price: formatDecimal(askPrice, scale), size, status: a.status },
      cancelled,
      book_sequence: feed.book.sequence,
    }),
  );
}

/** Ctrl-C / SIGTERM: stop after the round under way; `pause` is the wait between rounds, cut short by a stop. */
function stopSignal() {
  const state = { stopping: false };
  let wake = () => {};
  const stop = () => {
    state.stopping = true;
    wake();
  };
  const pause = () =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, intervalMs);
      wake = () => (clearTimeout(timer), resolve());
    });
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  const release = () => {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  };
  return { state, pause, release };
}

async function main() {
  const markets = await ok(createDexClient({ baseUrl: API }).GET("/v1/markets"));
  const market = markets.markets.find((m) => m.symbol === symbol);
  if (!market) throw new Error(`no market ${symbol}`);
  const scale = (market.tick_size.split(".")[1] ?? "").length;
  const tick = units(market.tick_size, scale);

  const creds = await apiKey();
  const grpc = createTradingClient(GRPC, { auth: { ...creds, scheme: "hmac" } });
  const feed = await BookFeed.open({ url: WS_URL, symbol, depth: 50 });
  const quotes = new Quotes(grpc, scale);
  const signal = stopSignal();
  try {
    await feed.until();
    for (let round = 1; round <= rounds && !signal.state.stopping; round++) {
      await quoteRound(feed, quotes, round, tick, scale);
      if (round < rounds && !signal.state.stopping) await signal.pause();
    }
  } finally {
    const cancelled = await quotes.cancelAll().catch((e) => (console.error(e), []));
    feed.close();
    grpc.close();
    signal.release();
    console.log(JSON.stringify({ done: true, cancelled }));
  }
}

main().catch(exitWith);
