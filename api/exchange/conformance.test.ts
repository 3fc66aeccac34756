// The exchange API as a conforming client sees it (issue 30), through HTTP, SSE and the legacy WebSocket on a
// real socket: the in-memory DEX service (the real matcher) for books, an HTTP server standing in for the
// indexer behind the real candle source, and the app's authenticated routers mounted as the stack mounts them.
// - one request is one unit of the per-user limit, whichever router answers it (the 300th ok, the 301st 429);
// - numbers where the spec says numbers: never-traded assets, empty book sides, a phone-only account, every
//   answer validated against the served OpenAPI document;
// - every chart range at every interval, capped at the range's maximum points;
// - an unsupported order type is INVALID_ORDER_TYPE; the document says a market order's creation answers EXECUTED;
// - the indexer gone: the catalogue, quotes and charts already read answer their last known figures, marked
//   stale (X-Market-Data-Stale), and the candle source reports itself not live (the stack's /health).
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import Ajv2020 from "ajv/dist/2020";
import { EventSource } from "eventsource";
import WebSocket from "ws";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { components, paths } from "../../sdk/openapi/exchange-api";
import { signedPlacement } from "../../simulator/orders";
import { createMemoryDexService, TEST_MARKETS } from "../testing/memory-dex-service";
import { CATALOGUE } from "./assets/catalogue";
import { DEFAULT_EXCHANGE_RATE_LIMITS } from "./config";
import { createFundingRouter } from "./funding/router";
import type { Funding } from "./funding/funding";
import { createIndexerCandleSource, INTERVAL_MS, CANDLE_INTERVALS } from "./market/candles";
import { CHART_RANGES, DAY_MS } from "./market/figures";
import { STALE_HEADER } from "./market/market-data";
import { createPublicMarketRouter } from "./market/public";
import { createOrdersRouter } from "./orders/router";
import type { Orders } from "./orders/service";
import { createPortfolioRouter } from "./portfolio/router";
import { createExchangeRealtime } from "./realtime";
import { startExchangeHarness, type ExchangeHarness } from "./testing/harness";
import { startTestIssuer, type TestIssuer } from "./testing/test-issuer";

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

// The SDK's generated types (npm run gen:sdk) say the same as the wire: numbers and strings, never null (tsc)
type Is<T, U> = [T] extends [U] ? ([U] extends [T] ? true : false) : false;
type Quote = paths["/v1/assets/{id}/quote"]["get"]["responses"][200]["content"]["application/json"];
type Account = paths["/v1/account"]["get"]["responses"][200]["content"]["application/json"]["data"];
export const generatedTypesAgree: [
  Is<Quote["last"], number>,
  Is<Quote["prevClose"], number>,
  Is<components["schemas"]["QuoteEvent"]["bid"], number>,
  Is<Account["email"], string>,
  Is<Account["accreditationType"], "506c" | "506b" | undefined>,
] = [true, true, true, true, true];

/** Stands in for the indexer's GET /candles: one WETH-USD trade in every bucket of the last 3 days (10 units
 *  at 2000 USD), nothing for other pairs; records the limits asked for. `stop()` makes it unreachable. */
async function startFakeIndexer() {
  const limits: { interval: string; limit: number }[] = [];
  const server = http.createServer((req, res) => {
    const u = new URL(req.url!, "http://x");
    const interval = u.searchParams.get("interval") as keyof typeof INTERVAL_MS;
    const limit = Number(u.searchParams.get("limit"));
    limits.push({ interval, limit });
    const size = INTERVAL_MS[interval];
    const to = Number(u.searchParams.get("to") ?? Date.now());
    const from = Math.max(Number(u.searchParams.get("from") ?? 0), Date.now() - 3 * DAY_MS);
    const candles = [];
    if (u.searchParams.get("pair") === "WETH-USD") {
      for (let t = to - (to % size); t >= from && candles.length < limit; t -= size) {
        candles.push({
          time: t,
          open: "2000000000",
          high: "2000000000",
          low: "2000000000",
          close: "2000000000",
          baseVolume: String(10n ** 19n),
          tradeCount: 1,
        });
      }
    }
    if (u.searchParams.get("order") !== "desc") candles.reverse();
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ candles }));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    limits,
    stop: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const stubOrders = {
  positions: async () => ({ holdings: [], transactions: [] }),
  list: async () => [],
  get: async () => {
    const { OrderApiError } = await import("./orders/errors");
    throw new OrderApiError("ORDER_NOT_FOUND", "order not found", {});
  },
} as unknown as Orders;

describe("exchange API conformance (issue 30)", () => {
  let iss: TestIssuer;
  let h: ExchangeHarness;
  let indexer: Awaited<ReturnType<typeof startFakeIndexer>>;
  let doc: Json;
  let origin: string;
  const dex = createMemoryDexService();
  const realtime = createExchangeRealtime({ dex, coalesceMs: 5 });
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addFormat("date-time", /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
  let candles: ReturnType<typeof createIndexerCandleSource>;

  const get = async (path: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${h.url}${path}`, { headers });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Json };
  };
  /** asserts that `body` is what the document says `method path` answers with `status` */
  const conforms = (path: string, method: string, status: number, body: unknown) => {
    const answer = doc.paths[path][method].responses[String(status)];
    assert.ok(answer, `${method} ${path}: ${status} documented`);
    const validate = ajv.compile(answer.content["application/json"].schema);
    assert.ok(
      validate(body),
      `${method} ${path} ${status}: ${JSON.stringify(validate.errors)} ${JSON.stringify(body).slice(0, 300)}`,
    );
  };

  before(async () => {
    iss = await startTestIssuer();
    indexer = await startFakeIndexer();
    candles = createIndexerCandleSource({ indexerUrl: () => indexer.url, timeoutMs: 2_000, cacheMs: 0 });
    h = await startExchangeHarness({
      issuers: [iss],
      rateLimits: { authenticatedPerMinute: DEFAULT_EXCHANGE_RATE_LIMITS.authenticatedPerMinute },
      publicRouters: [createPublicMarketRouter({ dex, candles, publicBaseUrl: "http://127.0.0.1/v1", perMinute: 1e6 })],
      // as scripts/stack/components/exchange-api.ts mounts them: funding, orders, portfolio
      authenticatedRouters: [
        createFundingRouter({ funding: {} as Funding, mode: "sandbox" }),
        createOrdersRouter({ orders: stubOrders, mode: "sandbox" }),
        createPortfolioRouter({ orders: stubOrders }),
      ],
      extensions: [(x) => realtime.extension(x)],
    });
    origin = h.url.replace(/\/v1$/, "");
    doc = await (await fetch(`${h.url}/openapi.json`)).json();
    // WETH: one resting sell (asks only, no bid), never traded in the matcher; WBTC: an empty book
    const maker = privateKeyToAccount(generatePrivateKey());
    dex.credit(maker.address, TEST_MARKETS[0].baseToken, 10n ** 24n);
    const req = await signedPlacement({
      account: maker,
      market: TEST_MARKETS[0],
      domain: dex.settlementDomain,
      side: "sell",
      priceTicks: 200_100n,
      sizeLots: 10_000n,
      timeInForce: "gtc",
      nonce: 1n,
      expiry: BigInt(Math.floor(Date.now() / 1000) + 3600),
      nowMs: Date.now(),
    });
    assert.equal((await dex.placeOrder(req)).status, "open");
  });
  after(async () => {
    await realtime.close();
    await h.close();
    await indexer.stop().catch(() => undefined);
    await iss.close();
  });

  it("one request is one unit: a client polling the portfolio gets 300 answers a minute, the 301st is 429", async () => {
    const { headers } = await h.login(iss, "poller", "org-1");
    const limit = DEFAULT_EXCHANGE_RATE_LIMITS.authenticatedPerMinute;
    // the tenant-token issuance counted one (the identity token verified)
    for (let i = 2; i <= limit; i++) {
      const r = await fetch(`${h.url}/portfolio`, { headers });
      assert.equal(r.status, 200, `request ${i}`);
      assert.equal(r.headers.get("x-ratelimit-limit"), String(limit));
      assert.equal(r.headers.get("x-ratelimit-remaining"), String(limit - i), `request ${i}`);
      await r.arrayBuffer();
    }
    const refused = await get("/portfolio", headers);
    assert.equal(refused.status, 429);
    assert.equal(refused.body.error.code, "RATE_LIMIT_EXCEEDED");
    // every authenticated router's paths take one unit each
    const other = await h.login(iss, "reader", "org-1");
    const steps: [string, number][] = [
      ["/orders", 200],
      ["/orders/ord_00000000000000000000000000000000", 404],
      ["/exchange-portfolio", 200],
      ["/portfolio", 200],
      ["/account", 200],
    ];
    for (const [i, [path, status]] of steps.entries()) {
      const r = await get(path, other.headers);
      assert.equal(r.status, status, path);
      assert.equal(r.headers.get("x-ratelimit-remaining"), String(limit - 2 - i), path);
    }
  });

  it("an unsupported order type is INVALID_ORDER_TYPE; a missing one INVALID_REQUEST", async () => {
    const { headers } = await h.login(iss, "trader", "org-1");
    const post = async (body: unknown) => {
      const r = await fetch(`${h.url}/orders`, {
        method: "POST",
        headers: { ...headers, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      return { status: r.status, body: (await r.json()) as Json };
    };
    for (const orderType of ["stop", "stop_loss", "MARKET", 7]) {
      const r = await post({ assetId: "WETH", side: "BUY", orderType, quantity: 1 });
      assert.deepEqual([r.status, r.body.error.code], [400, "INVALID_ORDER_TYPE"], String(orderType));
      assert.deepEqual(r.body.error.details.supported, ["market", "limit"]);
      conforms("/v1/orders", "post", 400, r.body);
    }
    const missing = await post({ assetId: "WETH", side: "BUY", quantity: 1 });
    assert.deepEqual([missing.status, missing.body.error.code], [400, "INVALID_REQUEST"]);
  });

  it("the document says what a market order's creation answers (EXECUTED, matched in the call; docs/decisions/api.md)", () => {
    const created = doc.paths["/v1/orders"].post.responses["201"];
    assert.match(created.description, /market order \(IOC\) answers EXECUTED \(or CANCELLED when nothing filled\)/);
    assert.deepEqual(created.content["application/json"].schema.properties.data.properties.status.enum, [
      "PENDING",
      "EXECUTED",
      "CANCELLED",
    ]);
  });

  it("numbers where the spec says numbers: never-traded assets, an empty book side, a phone-only account (checked against the document)", async () => {
    const list = await get("/assets");
    conforms("/v1/assets", "get", 200, list.body);
    for (const a of list.body.data) {
      for (const f of ["price", "change", "changesPercentage"]) assert.equal(typeof a[f], "number", `${a.id}.${f}`);
      const ref = Number(CATALOGUE.find((c) => c.id === a.id)!.referencePrice);
      if (a.id === "WETH") assert.deepEqual([a.price, a.priceSource], [2000, "trades"]);
      else assert.deepEqual([a.price, a.change, a.changesPercentage, a.priceSource], [ref, 0, 0, "reference"], a.id);
    }
    for (const id of ["WBTC", "NOVA", "AAPL"]) {
      const d = await get(`/assets/${id}`);
      conforms("/v1/assets/{id}", "get", 200, d.body);
      const q = await get(`/assets/${id}/quote`);
      conforms("/v1/assets/{id}/quote", "get", 200, q.body);
      const ref = Number(CATALOGUE.find((c) => c.id === id)!.referencePrice);
      assert.deepEqual(
        [
          q.body.last,
          q.body.open,
          q.body.high,
          q.body.low,
          q.body.prevClose,
          q.body.change,
          q.body.changePercent,
          q.body.volume,
          q.body.priceSource,
        ],
        [ref, ref, ref, ref, ref, 0, 0, 0, "reference"],
        id,
      );
      assert.deepEqual([d.body.data.price, d.body.data.change, d.body.data.changesPercentage], [ref, 0, 0]);
    }
    // the account of a phone-only login: strings, and no accreditation type while it holds none
    const { headers } = await h.login(iss, "phone-only", "org-1");
    const acct = await get("/account", headers);
    conforms("/v1/account", "get", 200, acct.body);
    assert.equal(acct.body.data.email, "");
    assert.equal(acct.body.data.phone, "+15550000000");
    assert.equal("accreditationType" in acct.body.data, false);
    const certified = await fetch(`${h.url}/sandbox/accreditation/506b`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: "{}",
    });
    assert.equal(((await certified.json()) as Json).data.accreditationType, "506b");

    // quote events, SSE and the legacy WebSocket: WETH has no bid, WBTC no order at all, neither traded
    const validateEvent = ajv.compile(doc.components.schemas.QuoteEvent);
    const identity = headers.authorization;
    const sse: Json[] = [];
    const es = new EventSource(`${origin}/api/realtime?subscribe=quote:WETH,quote:WBTC`, {
      fetch: (u, init) => fetch(u, { ...init, headers: { ...init.headers, authorization: identity } }),
    });
    es.addEventListener("quote", (m) => sse.push(JSON.parse(m.data)));
    const ws = new WebSocket(`${origin.replace("http", "ws")}/ws`, { headers: { authorization: identity } });
    const wsQuotes: Json[] = [];
    ws.on("message", (m) => {
      const msg = JSON.parse(m.toString());
      if (msg.type === "quote") wsQuotes.push(msg.data);
    });
    await new Promise((r) => ws.once("open", r));
    ws.send(JSON.stringify({ type: "subscribe", subscribe: "quote:WETH,quote:WBTC" }));
    try {
      for (let i = 0; sse.length < 2 || wsQuotes.length < 2; i++) {
        assert.ok(i < 500, "two quotes on each channel");
        await new Promise((r) => setTimeout(r, 10));
      }
      for (const [channel, events] of [
        ["SSE", sse],
        ["WebSocket", wsQuotes],
      ] as const) {
        const byId = Object.fromEntries(events.map((e) => [e.assetId, e]));
        for (const e of events)
          assert.ok(validateEvent(e), `${channel}: ${JSON.stringify(validateEvent.errors)} ${JSON.stringify(e)}`);
        assert.deepEqual(
          [byId.WETH.bid, byId.WETH.ask, byId.WETH.last, byId.WETH.priceSource],
          [0, 2001, 3000, "reference"],
          channel,
        );
        assert.deepEqual([byId.WBTC.bid, byId.WBTC.ask, byId.WBTC.last], [0, 0, 60000], channel);
      }
    } finally {
      es.close();
      ws.close();
    }
    // the document is not vacuous: null is refused where a number is documented
    assert.equal(validateEvent({ ...sse[0], bid: null }), false);
    const validateQuote = ajv.compile(
      doc.paths["/v1/assets/{id}/quote"].get.responses["200"].content["application/json"].schema,
    );
    assert.equal(validateQuote({ ...(await get("/assets/WBTC/quote")).body, last: null }), false);
  });

  it("every chart range at every interval, capped at the range's maximum points (the latest kept)", async () => {
    for (const [range, r] of Object.entries(CHART_RANGES)) {
      for (const interval of CANDLE_INTERVALS) {
        indexer.limits.length = 0;
        const c = await get(`/assets/WETH/chart?range=${range}&interval=${interval}`);
        assert.equal(c.status, 200, `${range}/${interval}: ${JSON.stringify(c.body)}`);
        conforms("/v1/assets/{id}/chart", "get", 200, c.body);
        assert.deepEqual(indexer.limits, [{ interval, limit: r.maxPoints }], `${range}/${interval}`);
        assert.ok(
          c.body.data.length >= 1 && c.body.data.length <= r.maxPoints,
          `${range}/${interval}: ${c.body.data.length}`,
        );
        assert.ok(c.body.data.every((x: Json) => x.time % INTERVAL_MS[interval] === 0));
        const times = c.body.data.map((x: Json) => x.time);
        assert.deepEqual(
          times,
          [...times].sort((a: number, b: number) => a - b),
          "oldest first",
        );
        assert.ok(
          Date.now() - times.at(-1) < INTERVAL_MS[interval] + 60_000,
          `${range}/${interval}: the latest candles are kept`,
        );
      }
    }
  });

  it("the indexer gone: the catalogue, quotes and charts already read answer from the cache, marked stale; the source is not live", async () => {
    const before = {
      list: await get("/assets"),
      quote: await get("/assets/WETH/quote"),
      chart: await get("/assets/WETH/chart?range=5d&interval=1h"),
      detail: await get("/assets/WETH"),
    };
    for (const r of Object.values(before))
      assert.equal(r.headers.get(STALE_HEADER), null, "live answers are not marked");
    assert.deepEqual(await candles.status!(), { live: true });
    const lastGood = Date.now();
    await indexer.stop();
    const after = {
      list: await get("/assets"),
      quote: await get("/assets/WETH/quote"),
      chart: await get("/assets/WETH/chart?range=5d&interval=1h"),
      detail: await get("/assets/WETH"),
    };
    for (const [k, r] of Object.entries(after)) {
      assert.equal(r.status, 200, `${k}: ${JSON.stringify(r.body).slice(0, 200)}`);
      const stale = r.headers.get(STALE_HEADER);
      assert.ok(stale && Math.abs(Date.parse(stale) - lastGood) < 30_000, `${k}: ${STALE_HEADER} ${stale}`);
    }
    assert.deepEqual({ ...after.quote.body, timestamp: 0 }, { ...before.quote.body, timestamp: 0 });
    assert.deepEqual(after.chart.body, before.chart.body);
    assert.deepEqual(
      after.list.body.data.map((a: Json) => [a.id, a.price]),
      before.list.body.data.map((a: Json) => [a.id, a.price]),
    );
    conforms("/v1/assets/{id}/quote", "get", 200, after.quote.body);
    assert.ok(
      doc.paths["/v1/assets/{id}/quote"].get.responses["200"].headers[STALE_HEADER],
      "the header is documented",
    );
    // a chart never read has nothing to give: 503, not a made-up figure
    const unknown = await get("/assets/WBTC/chart?range=1y&interval=1m");
    assert.deepEqual(
      [unknown.status, unknown.body.error.code, unknown.body.error.details.reason],
      [503, "SERVICE_UNAVAILABLE", "indexer_unreachable"],
    );
    const status = await candles.status!();
    assert.deepEqual([status.live, status.reason], [false, "indexer_unreachable"]);
  });

  it("an indexer never reached: the catalogue answers the reference figures marked stale; a quote is 503", async () => {
    const dead = await startFakeIndexer();
    await dead.stop();
    const fresh = await startExchangeHarness({
      issuers: [iss],
      publicRouters: [
        createPublicMarketRouter({
          dex,
          candles: createIndexerCandleSource({ indexerUrl: () => dead.url, timeoutMs: 2_000 }),
          publicBaseUrl: "http://127.0.0.1/v1",
          perMinute: 1e6,
        }),
      ],
    });
    try {
      const at = (p: string) =>
        fetch(`${fresh.url}${p}`).then(async (r) => ({
          status: r.status,
          stale: r.headers.get(STALE_HEADER),
          body: (await r.json()) as Json,
        }));
      const list = await at("/assets?category=crypto");
      assert.deepEqual(
        [list.status, list.body.data.map((a: Json) => [a.id, a.price, a.priceSource])],
        [
          200,
          [
            ["WETH", 3000, "reference"],
            ["WBTC", 60000, "reference"],
          ],
        ],
      );
      assert.ok(list.stale);
      conforms("/v1/assets", "get", 200, list.body);
      const detail = await at("/assets/WETH");
      assert.deepEqual([detail.status, detail.body.data.marketData.perDay, Boolean(detail.stale)], [200, [], true]);
      const quote = await at("/assets/WETH/quote");
      assert.deepEqual([quote.status, quote.body.error.code], [503, "SERVICE_UNAVAILABLE"]);
    } finally {
      await fresh.close();
    }
  });
});
