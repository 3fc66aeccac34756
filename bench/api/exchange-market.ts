// The exchange API's market data and order entry under load, on a whole stack (chains, the asset tokens, the
// pipeline, the identity provider, the exchange API with custody, the indexer) in a child process (this file
// with the argument "child"), the load from this process with autocannon:
//   1. GET /v1/assets, GET /v1/assets/AAPL/quote, GET /v1/assets/AAPL/book: req/s, p50/p99. The books are
//      not empty: demo traders' real signed orders (through the pipeline's DexService) trade three times on
//      AAPL-USD and leave 10 bid and 10 ask levels resting. The public limit (EXCHANGE_PUBLIC_RATE_LIMIT) and
//      the per-IP flood guard (EXCHANGE_IP_RATE_LIMIT) are raised through config: one client address sends all.
//   2. POST /v1/orders: BENCH_EXCHANGE_USERS users (48) log in as people do (code, outbox, password grant,
//      tenant token); limit BUYs of 0.001 at 190.00 .. 199.99 (below AAPL's best ask: they rest), each
//      request from the next user in turn: one connection (the cost of one order), then CONNECTIONS on
//      AAPL alone (a freely tradeable asset: the orders service places different users' orders side by side,
//      one user's one at a time; an asset with a resale hold would be one at a time), then CONNECTIONS
//      over AAPL, MSFT and JPM. Spec 8's 10 orders/s and 300 requests/min per user stay as they are (48
//      users cap a run at 480 orders/s; a 429 is counted apart, never as an order). Orders/s = 201 answers
//      / seconds. After each run one awaited order per asset drains the server's queue (nothing spills over).
// Standalone: `npx tsx bench/api/exchange-market.ts`; bench:api (bench/api/run.ts) prints it too.
// Env: BENCH_SECONDS (10 per run), BENCH_CONNECTIONS (32), BENCH_EXCHANGE_USERS (48), BENCH_PROFILE (dir:
// a V8 CPU profile of the stack process).
import { passwordGrant, requestCode } from "../../api/iam/testing/harness";
import autocannon from "autocannon";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Address } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { createTestConfig, defaultComponents, startStack } from "../../scripts/stack";
import type { PipelineHandle } from "../../scripts/stack/components/pipeline";
import type { DexService, MarketSpec } from "../../pipeline/service";
import { signedPlaceRequest } from "../../pipeline/testing/orders";
import { forkBenchChild, stopBenchChild } from "./child";

export interface ExchangeMarketRow {
  what: string;
  connections: number;
  seconds: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  total: number;
  statuses: Record<number, number>;
}

export interface ExchangeMarketFigures {
  rows: ExchangeMarketRow[];
  users: number;
  /** 201 answers per second, CONNECTIONS on AAPL alone */
  ordersPerSecond: number;
  /** the same over AAPL, MSFT and JPM */
  ordersPerSecondThreeAssets: number;
  stackUpS: number;
  load: string;
}

interface ChildReady {
  type: "ready";
  api: string;
  iam: string;
  stackUpS: number;
}

const RAISED = String(1e9);

/** the child: the stack, and the AAPL-USD book made by real signed orders */
async function child(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-exchange-market-"));
  const { config } = await createTestConfig(dataDir, {
    CHAIN_JOURNAL_FSYNC: "false",
    LOG_LEVEL: "error",
    EXCHANGE_PUBLIC_RATE_LIMIT: RAISED,
    EXCHANGE_IP_RATE_LIMIT: RAISED,
  });
  const t0 = Date.now();
  const stack = await startStack({
    config,
    components: defaultComponents(["iam", "pipeline", "exchange-api", "indexer"]),
    onComponentError: "fail",
  });
  const stackUpS = (Date.now() - t0) / 1000;
  const stop = async () => {
    await stack.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  };
  process.on("message", (m) => m === "stop" && void stop());
  process.on("disconnect", () => void stop());
  const home = stack.deployments.home;
  const dex: DexService = (stack.components.find((c) => c.name === "pipeline")!.handle as PipelineHandle).dexService;
  const m: MarketSpec = dex.listMarkets().find((x) => x.symbol === "AAPL-USD")!;
  const [seller, buyer] = config.keys.demoTraders.map((k) => privateKeyToAccount(k.privateKey));
  const place = async (who: typeof seller, side: "buy" | "sell", priceTicks: bigint, sizeLots: bigint) => {
    return dex.placeOrder(
      await signedPlaceRequest(who, home.chainId, home.contracts.Settlement as Address, m, {
        side,
        priceTicks,
        sizeLots,
      }),
    );
  };
  // three trades (a last price, a quote that moved), then 10 levels each side (tick 0.01 USD, lot 0.001)
  for (const p of [23_000n, 23_100n, 22_900n]) {
    await place(seller, "sell", p, 1_000n);
    const r = await place(buyer, "buy", p, 1_000n);
    if (r.status !== "filled") throw new Error(`seed trade at ${p}: ${r.status}`);
  }
  for (let i = 0n; i < 10n; i++) {
    await place(seller, "sell", 23_200n + i * 10n, 500n);
    await place(buyer, "buy", 22_800n - i * 10n, 500n);
  }
  process.send!({
    type: "ready",
    api: config.urls.exchangeApi,
    iam: config.urls.identity,
    stackUpS,
  } satisfies ChildReady);
}

const cannon = (opts: autocannon.Options, statuses: Map<number, number>) =>
  new Promise<autocannon.Result>((resolve, reject) => {
    const inst = autocannon(opts, (err, res) => (err ? reject(err) : resolve(res)));
    inst.on("response", (_c: unknown, status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1));
  });

async function login(iam: string, api: string, phone: string): Promise<Record<string, string>> {
  const grant = await passwordGrant(iam, phone, await requestCode(iam, phone));
  const auth = { authorization: `Bearer ${(grant.body as { access_token: string }).access_token}` };
  const tt = await fetch(`${api}/auth/tenant-token`, { method: "POST", headers: auth });
  if (tt.status !== 200) throw new Error(`tenant token ${phone}: ${tt.status} ${await tt.text()}`);
  const headers = { ...auth, "tenant-authorization": ((await tt.json()) as { token: string }).token };
  // the account exists (and its sandbox cash) before the run
  const account = await fetch(`${api}/account`, { headers });
  if (account.status !== 200) throw new Error(`GET /v1/account ${phone}: ${account.status} ${await account.text()}`);
  await account.arrayBuffer();
  return headers;
}

interface Run {
  ready: ChildReady;
  seconds: number;
  connections: number;
  rows: ExchangeMarketRow[];
}

function rowOf(
  run: Run,
  what: string,
  r: autocannon.Result,
  statuses: Map<number, number>,
  connections = run.connections,
): ExchangeMarketRow {
  return {
    what,
    connections,
    seconds: run.seconds,
    requestsPerSecond: r.requests.average,
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    total: r.requests.total,
    statuses: Object.fromEntries(statuses),
  };
}

/** GET /v1/assets, /quote and /book under autocannon, each checked first (the AAPL book is not empty). */
async function benchReads(run: Run): Promise<void> {
  const { api } = run.ready;
  for (const p of ["/assets", "/assets/AAPL/quote", "/assets/AAPL/book"]) {
    const check = await fetch(`${api}${p}`);
    const body = (await check.json()) as { bids?: unknown[]; asks?: unknown[] };
    if (check.status !== 200) throw new Error(`GET ${p}: ${check.status} ${JSON.stringify(body)}`);
    if (p.endsWith("/book") && (!body.bids?.length || !body.asks?.length))
      throw new Error(`the AAPL book is empty: ${JSON.stringify(body)}`);
    const statuses = new Map<number, number>();
    const r = await cannon({ url: `${api}${p}`, connections: run.connections, duration: run.seconds }, statuses);
    run.rows.push(rowOf(run, `GET /v1${p}`, r, statuses));
  }
}

/** One awaited order per asset comes out of each asset's queue after the bench's: nothing spills over. */
async function drain(api: string, drainer: Record<string, string>, assets: readonly string[]): Promise<void> {
  for (const assetId of assets) {
    const d = await fetch(`${api}/orders`, {
      method: "POST",
      headers: { "content-type": "application/json", ...drainer },
      body: JSON.stringify({ assetId, side: "BUY", orderType: "limit", quantity: "0.001", limitPrice: "180.00" }),
    });
    if (d.status !== 201) throw new Error(`drain order: ${d.status} ${await d.text()}`);
    await d.arrayBuffer();
  }
}

/** Limit BUYs that rest (190.00 .. 199.99, below AAPL's best ask of 232.00), from each user in turn. */
async function benchOrders(run: Run, users: number): Promise<{ oneAsset: number; threeAssets: number }> {
  const headers: Record<string, string>[] = [];
  for (let u = 0; u < users; u++)
    headers.push(await login(run.ready.iam, run.ready.api, `+1415556${String(1000 + u).padStart(4, "0")}`));
  const drainer = await login(run.ready.iam, run.ready.api, "+14155569999"); // not one of the users: never rate limited
  const origin = run.ready.api.replace(/\/v1$/, "");
  let n = 0;
  const setupRequest = (assets: readonly string[]) => (req: autocannon.Request) => {
    const i = n++;
    const cents = 19_000 + (i % 1000);
    const limitPrice = `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, "0")}`;
    const body = JSON.stringify({
      assetId: assets[i % assets.length],
      side: "BUY",
      orderType: "limit",
      quantity: "0.001",
      limitPrice,
    });
    return { ...req, headers: { "content-type": "application/json", ...headers[i % users] }, body };
  };
  const ordersRun = async (assets: readonly string[], conns: number): Promise<number> => {
    const statuses = new Map<number, number>();
    const requests = [{ method: "POST" as const, path: "/v1/orders", setupRequest: setupRequest(assets) }];
    const r = await cannon({ url: origin, connections: conns, duration: run.seconds, requests }, statuses);
    // autocannon stops sending, but the server still works through the orders it has
    await drain(run.ready.api, drainer, assets);
    const what = `POST /v1/orders (limit BUY that rests, ${users} users in turn, ${assets.join("/")})`;
    run.rows.push(rowOf(run, what, r, statuses, conns));
    return (statuses.get(201) ?? 0) / run.seconds;
  };
  // one connection (the cost of one order), then CONNECTIONS on one asset (the orders service places one
  // user's orders one at a time), then CONNECTIONS over three assets
  await ordersRun(["AAPL"], 1);
  const oneAsset = await ordersRun(["AAPL"], run.connections);
  const threeAssets = await ordersRun(["AAPL", "MSFT", "JPM"], run.connections);
  return { oneAsset, threeAssets };
}

export async function benchExchangeMarket(
  o: { seconds?: number; connections?: number; users?: number } = {},
): Promise<ExchangeMarketFigures> {
  const seconds = o.seconds ?? Number(process.env.BENCH_SECONDS ?? 10);
  const connections = o.connections ?? Number(process.env.BENCH_CONNECTIONS ?? 32);
  const users = o.users ?? Number(process.env.BENCH_EXCHANGE_USERS ?? 48);
  const { child: proc, ready } = await forkBenchChild<ChildReady>(__filename, ["child"]);
  try {
    const run: Run = { ready, seconds, connections, rows: [] };
    await benchReads(run);
    const { oneAsset, threeAssets } = await benchOrders(run, users);
    const load = os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" ");
    return {
      rows: run.rows,
      users,
      ordersPerSecond: oneAsset,
      ordersPerSecondThreeAssets: threeAssets,
      stackUpS: ready.stackUpS,
      load,
    };
  } finally {
    await stopBenchChild(proc);
  }
}

export function formatExchangeMarketFigures(f: ExchangeMarketFigures): string {
  const lines = [
    `exchange API market data and orders (whole stack in a child process, up in ${f.stackUpS.toFixed(1)} s; AAPL book: 10 levels each side, 3 trades):`,
    "| request | load | req/s | p50 ms | p99 ms | statuses |",
    "| --- | --- | ---: | ---: | ---: | --- |",
    ...f.rows.map(
      (r) =>
        `| ${r.what} | ${r.connections} conns, ${r.seconds} s | ${Math.round(r.requestsPerSecond)} | ${r.p50Ms.toFixed(1)} | ${r.p99Ms.toFixed(1)} | ${Object.entries(
          r.statuses,
        )
          .map(([s, c]) => `${s}: ${c}`)
          .join(", ")} |`,
    ),
    `  orders accepted (201) per second: ${f.ordersPerSecond.toFixed(1)} on one asset, ${f.ordersPerSecondThreeAssets.toFixed(1)} over three (${f.users} users, spec 8's 10 orders/s and 300 requests/min per user kept; public and per-IP limits raised through config)`,
    `  load average ${f.load} on ${os.cpus().length} cores`,
  ];
  return lines.join("\n");
}

if (process.argv[2] === "child") {
  child().catch((err) => {
    console.error(err);
    process.exit(1);
  });
} else if (process.argv[1] && /exchange-market\.ts$/.test(process.argv[1])) {
  benchExchangeMarket().then(
    (f) => {
      console.log(formatExchangeMarketFigures(f));
      process.exit(0);
    },
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
