// npm run bench:api — the DEX API against the running stack (real chains, Settlement, pipeline, DEX API;
// the stack in a child process: bench/api/stack-child.ts, rate limits raised there, see its header):
//   1. GET /v1/orderbook/WETH-USD?depth=20 with autocannon: requests/s, p50/p99;
//   2. POST /v1/orders with autocannon, API-key orders from two accounts (a buyer and a seller), every
//      request valid: a fresh client_order_id per request (setupRequest), prices drawn within ±10 ticks
//      of one mid so that about half rest and half cross (trades go on to the batcher and the chain);
//   3. 1,000 WebSocket subscribers of the WETH-USD book (one process, this one): per round one order
//      changes the top level; delay to the last subscriber's receipt from the order's acceptance by the
//      matcher (its created_at), from the HTTP acknowledgement (201 received) and from the request's
//      send, p50/p99/max over the rounds.
//   4. after the stack stopped: the identity provider's password-grant logins/s (bench/api/iam-login.ts).
//   5. then the p99 of token verification on an authenticated exchange API call (bench/api/exchange-auth.ts).
//   6. then the delay for 1,000 SSE subscribers of /api/realtime to receive one quote (bench/api/exchange-sse.ts).
//   7. then the exchange API on a whole stack of its own: GET /v1/assets, /quote and /book req/s and p50/p99,
//      and orders/s through POST /v1/orders for logged-in users (bench/api/exchange-market.ts).
// Env: BENCH_SECONDS (10 per autocannon run), BENCH_CONNECTIONS (32), BENCH_SUBSCRIBERS (1000),
// BENCH_ROUNDS (50). Prints a table; stops everything it started.
import autocannon from "autocannon";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { WebSocket } from "ws";
import { privateKeyToAccount } from "viem/accounts";
import { marketFromJson } from "../../pipeline/markets";
import type { MarketSpec } from "../../pipeline/service";
import { createTestConfig } from "../../scripts/stack";
import { api, createApiKey, keyHeaders, keyOrderBody, type TestKey } from "../../api/testing/client";
import { forkBenchChild, stopBenchChild } from "./child";
import { benchIamLogins, formatIamLoginFigures } from "./iam-login";
import { benchExchangeAuth, formatExchangeAuthFigures } from "./exchange-auth";
import { benchSseFanout, formatSseFanoutFigures } from "./exchange-sse";
import { benchExchangeMarket, formatExchangeMarketFigures } from "./exchange-market";
import { pct } from "./main";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 50);
const MID_TICKS = 245_000n; // 2,450.00 USD

interface Ready {
  type: "ready";
  urls: { rest: string; ws: string; grpc: string };
  settlement: `0x${string}`;
  chainId: number;
  market: Record<string, string | number>;
  timingsMs: Record<string, number>;
}

const f1 = (x: number) => x.toFixed(1);

function cannon(opts: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => autocannon(opts, (err, res) => (err ? reject(err) : resolve(res))));
}

interface Bench {
  origin: string;
  ready: Ready;
  m: MarketSpec;
  buyKey: TestKey;
  sellKey: TestKey;
}

/** A resting book: 50 bid and 50 ask levels outside the band the order bench trades in. */
async function seedBook({ origin, m, buyKey, sellKey }: Bench): Promise<void> {
  for (let i = 0; i < 50; i++) {
    for (const [key, side, p] of [
      [buyKey, "buy", MID_TICKS - 20n - BigInt(i)],
      [sellKey, "sell", MID_TICKS + 20n + BigInt(i)],
    ] as const) {
      const r = await api(origin, "POST", "/v1/orders", {
        headers: keyHeaders(key),
        body: keyOrderBody(m, { side, priceTicks: p, sizeLots: 100n, clientOrderId: `seed-${side}-${i}` }),
      });
      if (r.status !== 201) throw new Error(`seed order: ${r.status} ${r.text}`);
    }
  }
}

async function benchBookReads(b: Bench): Promise<string[]> {
  const book = await cannon({
    url: `${b.ready.urls.rest}/orderbook/WETH-USD?depth=20`,
    connections: CONNECTIONS,
    duration: SECONDS,
  });
  return [
    "GET /v1/orderbook/WETH-USD?depth=20",
    `${CONNECTIONS} conns, ${SECONDS} s`,
    String(Math.round(book.requests.average)),
    f1(book.latency.p50),
    f1(book.latency.p99),
    `${book.non2xx + book.errors} of ${book.requests.total}`,
  ];
}

/** POST /v1/orders on one connection (the cost of one order, no queueing), then CONNECTIONS concurrent. */
async function benchOrders(b: Bench): Promise<{ rows: string[][]; statuses: Map<number, number> }> {
  let n = 0;
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const orderReq = (key: TestKey, side: "buy" | "sell"): autocannon.Request => ({
    method: "POST",
    path: "/v1/orders",
    headers: { "content-type": "application/json", ...keyHeaders(key) },
    setupRequest: (req) => {
      const priceTicks = MID_TICKS - 10n + BigInt(Math.floor(rnd() * 21));
      const body = JSON.stringify(
        keyOrderBody(b.m, { side, priceTicks, sizeLots: 10n, clientOrderId: `bench-${side}-${++n}` }),
      );
      return { ...req, body };
    },
  });
  const statuses = new Map<number, number>();
  const rows: string[][] = [];
  for (const conns of [1, CONNECTIONS]) {
    const inst = autocannon({
      url: b.origin,
      connections: conns,
      duration: SECONDS,
      requests: [orderReq(b.buyKey, "buy"), orderReq(b.sellKey, "sell")],
    }) as unknown as autocannon.Instance;
    inst.on("response", (_c: unknown, status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1));
    const orders = await new Promise<autocannon.Result>((resolve) => inst.on("done", resolve));
    const timeouts = orders.timeouts ? ` (${orders.timeouts} timeouts at 10 s)` : "";
    rows.push([
      "POST /v1/orders (API key, buy/sell, ~half cross)",
      `${conns} conns, ${SECONDS} s`,
      String(Math.round(orders.requests.average)),
      f1(orders.latency.p50),
      f1(orders.latency.p99),
      `${orders.non2xx + orders.errors} of ${orders.requests.total}${timeouts}`,
    ]);
  }
  return { rows, statuses };
}

/** SUBSCRIBERS book subscribers; `arrive(i, t)` is called for each update after the snapshot. */
async function openSubscribers(url: string, sockets: WebSocket[], arrive: (i: number, t: number) => void) {
  for (let i = 0; i < SUBSCRIBERS; i++) {
    const ws = new WebSocket(url);
    sockets.push(ws);
    await new Promise<void>((resolve, reject) => {
      ws.once("open", () => resolve());
      ws.once("error", reject);
    });
    let snap = false;
    ws.on("message", (d) => {
      const t = performance.now();
      const s = d.toString();
      if (!snap) {
        if (s.includes('"orderbook_snapshot"')) snap = true;
        return;
      }
      if (s.includes('"orderbook_update"')) arrive(i, t);
    });
    ws.send(JSON.stringify({ type: "subscribe", channel: "orderbook", symbol: "WETH-USD", depth: 10 }));
  }
  await new Promise((r) => setTimeout(r, 2000)); // every snapshot in, the book quiet
}

interface Fanout {
  lastAfterAck: number[];
  lastAfterSend: number[];
  eachAfterAck: number[];
  lastAfterAccept: number[];
  missing: number;
}

/** Per round one order changes the top level; the delays to the subscribers' receipts. */
async function benchFanout(b: Bench, sockets: WebSocket[]): Promise<Fanout> {
  let arrivals: number[] = [];
  const pending = new Set<number>();
  let allIn: (() => void) | null = null;
  await openSubscribers(b.ready.urls.ws, sockets, (i, t) => {
    if (!pending.has(i)) return;
    arrivals.push(t);
    pending.delete(i);
    if (pending.size === 0) allIn?.();
  });
  const bestBid = (await api(b.origin, "GET", "/v1/orderbook/WETH-USD?depth=1")).body.bids[0].price as number;
  const bestBidTicks = BigInt(Math.round(bestBid * 100));
  const f: Fanout = { lastAfterAck: [], lastAfterSend: [], eachAfterAck: [], lastAfterAccept: [], missing: 0 };
  for (let r = 0; r < ROUNDS; r++) {
    arrivals = [];
    const done = new Promise<void>((resolve) => (allIn = resolve));
    for (let i = 0; i < SUBSCRIBERS; i++) pending.add(i);
    const tSend = performance.now();
    // one lot more at the best bid: the top level's size changes for every depth-10 subscriber
    const res = await api(b.origin, "POST", "/v1/orders", {
      headers: keyHeaders(b.buyKey),
      body: keyOrderBody(b.m, { side: "buy", priceTicks: bestBidTicks, sizeLots: 1n, clientOrderId: `ws-${r}` }),
    });
    const tAck = performance.now();
    if (res.status !== 201) throw new Error(`ws round order: ${res.status} ${res.text}`);
    await Promise.race([done, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    f.missing += pending.size;
    pending.clear();
    const last = Math.max(...arrivals);
    f.lastAfterAck.push(last - tAck);
    f.lastAfterSend.push(last - tSend);
    // the service's acceptance time (created_at, Unix ms, same host clock) to the last receipt
    f.lastAfterAccept.push(performance.timeOrigin + last - Number(res.body.created_at));
    for (const a of arrivals) f.eachAfterAck.push(a - tAck);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  for (const a of [f.lastAfterAck, f.lastAfterSend, f.eachAfterAck, f.lastAfterAccept]) a.sort((x, y) => x - y);
  return f;
}

function printRequests(rows: string[][], statuses: Map<number, number>, trades: number): void {
  console.log("");
  console.log("| request | load | req/s | p50 ms | p99 ms | non-2xx |");
  console.log("| --- | --- | ---: | ---: | ---: | ---: |");
  for (const r of rows) console.log(`| ${r.join(" | ")} |`);
  const counts = [...statuses].map(([s, c]) => `${s}: ${c}`).join(", ");
  console.log(`POST /v1/orders statuses: ${counts}; trades reported by GET /v1/trades (last 1000): ${trades}`);
}

function printFanout(f: Fanout): void {
  const row = (label: string, a: number[]) =>
    console.log(`| ${label} | ${f1(pct(a, 50))} | ${f1(pct(a, 99))} | ${f1(a.at(-1)!)} |`);
  console.log("");
  console.log(
    `| WebSocket: ${SUBSCRIBERS} subscribers, one book update, ${ROUNDS} rounds | p50 ms | p99 ms | max ms |`,
  );
  console.log("| --- | ---: | ---: | ---: |");
  row("order accepted by the matcher (its created_at) -> last subscriber received", f.lastAfterAccept);
  row("order acknowledged (HTTP 201 received) -> last subscriber received", f.lastAfterAck);
  row("order sent -> last subscriber received", f.lastAfterSend);
  row("order acknowledged (HTTP 201 received) -> each subscriber (all receipts)", f.eachAfterAck);
  console.log(
    `updates not received within 10 s: ${f.missing}; negative = received before the HTTP acknowledgement reached the client (the book event leaves when the matcher applies the order, the 201 after the journal's fsync); created_at has 1 ms resolution`,
  );
  console.log(
    `rate limits raised for the bench (all 1e9/window); WebSocket per-user (per-IP unauthenticated) connections ${SUBSCRIBERS + 50}, new connections/min/IP ${2 * SUBSCRIBERS + 100}`,
  );
}

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-api-"));
  // a throwaway chain: its journal need not be fsynced (README: CHAIN_JOURNAL_FSYNC)
  const { config, env } = await createTestConfig(dataDir, { CHAIN_JOURNAL_FSYNC: "false", LOG_LEVEL: "error" });
  const t0 = Date.now();
  const { child, ready } = await forkBenchChild<Ready>(path.join(__dirname, "stack-child.ts"), [], {
    ...process.env,
    ...env,
    BENCH_SUBSCRIBERS: String(SUBSCRIBERS),
  });
  const sockets: WebSocket[] = [];
  try {
    const load = os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(" ");
    const upS = ((Date.now() - t0) / 1000).toFixed(1);
    console.log(
      `stack (chains, deployment, pipeline, dex-api) up in ${upS} s; load average ${load} on ${os.cpus().length} cores`,
    );
    const origin = ready.urls.rest.replace(/\/v1$/, "");
    const [buyer, seller] = config.keys.demoTraders.slice(0, 2).map((k) => privateKeyToAccount(k.privateKey));
    const b: Bench = {
      origin,
      ready,
      m: marketFromJson(ready.market),
      buyKey: await createApiKey(origin, buyer),
      sellKey: await createApiKey(origin, seller),
    };
    await seedBook(b);
    const bookRow = await benchBookReads(b);
    const { rows, statuses } = await benchOrders(b);
    const trades = await api(origin, "GET", "/v1/trades?symbol=WETH-USD&limit=1000");
    const fanout = await benchFanout(b, sockets);
    printRequests([bookRow, ...rows], statuses, trades.body.trades.length);
    printFanout(fanout);
  } finally {
    for (const s of sockets) s.terminate();
    await stopBenchChild(child);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main()
  // the identity provider's password-grant logins/s, once the stack has stopped (bench/api/iam-login.ts)
  .then(async () => console.log(`\n${formatIamLoginFigures(await benchIamLogins())}`))
  // token verification on an authenticated exchange API call (bench/api/exchange-auth.ts)
  .then(async () => console.log(`\n${formatExchangeAuthFigures(await benchExchangeAuth())}`))
  // the exchange API's SSE fan-out: 1,000 subscribers, one quote (bench/api/exchange-sse.ts)
  .then(async () => console.log(`\n${formatSseFanoutFigures(await benchSseFanout())}`))
  // the exchange API's market data and order entry on a whole stack (bench/api/exchange-market.ts)
  .then(async () => console.log(`\n${formatExchangeMarketFigures(await benchExchangeMarket())}`))
  .then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
