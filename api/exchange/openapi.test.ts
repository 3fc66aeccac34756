// The exchange API's OpenAPI 3.1 document (GET /v1/openapi.json): every route the assembled app serves is in
// it and every documented route is served (the app's router walked, assembled as the stack component does it),
// every schema compiles as JSON Schema 2020-12 (Ajv), and real responses conform to the documented schemas.
// The order, portfolio and transaction bodies are checked on a real stack by test/e2e/exchange-trading.test.ts.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import Ajv2020 from "ajv/dist/2020";
import type { Router } from "express";
import { createMemoryDexService } from "../testing/memory-dex-service";
import { createExchangeApp } from "./app";
import { createFundingRouter } from "./funding/router";
import type { Funding } from "./funding/funding";
import type { Candle, CandleQuery, CandleSource } from "./market/candles";
import { createPublicMarketRouter } from "./market/public";
import { EXCHANGE_ROUTES } from "./openapi";
import { createOrdersRouter } from "./orders/router";
import type { Orders } from "./orders/service";
import { createPortfolioRouter } from "./portfolio/router";
import { createExchangeRealtime } from "./realtime";
import { startExchangeHarness, type ExchangeHarness } from "./testing/harness";
import { startTestIssuer, type TestIssuer } from "./testing/test-issuer";
import { createApiLogger } from "../logger";

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Ajv for 2020-12 that checks the one format the document uses (zod's z.iso.datetime: UTC, Z) */
function newAjv(): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addFormat("date-time", /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
  return ajv;
}

/** "method /path/{param}" of every route in an Express 5 router stack (regex routes, the sandbox's 404 catch-all, are not routes). */
function servedRoutes(stack: Json[], prefix = "", out = new Set<string>()): Set<string> {
  for (const layer of stack) {
    if (layer.route) {
      if (typeof layer.route.path !== "string") continue;
      for (const m of Object.keys(layer.route.methods))
        if (m !== "_all") out.add(`${m} ${(prefix + layer.route.path).replace(/:(\w+)/g, "{$1}")}`);
    } else if (Array.isArray(layer.handle?.stack)) {
      servedRoutes(
        layer.handle.stack,
        prefix + (typeof layer.rawPath === "string" && layer.rawPath !== "/" ? layer.rawPath : ""),
        out,
      );
    }
  }
  return out;
}

/** daily candles of the last three UTC days, in the contract's units (WETH-USD: price exponent 18 + 6 - 18) */
function fixedCandles(now: number): CandleSource {
  const day = 86_400_000;
  const today = Math.floor(now / day) * day;
  const c = (startMs: number, close: bigint): Candle => ({
    startMs,
    open: close - 10n ** 6n,
    high: close + 2n * 10n ** 6n,
    low: close - 2n * 10n ** 6n,
    close,
    baseVolume: 3n * 10n ** 17n,
    tradeCount: 3,
  });
  const all = [
    c(today - 2 * day, 1_000n * 10n ** 6n),
    c(today - day, 1_010n * 10n ** 6n),
    c(today, 1_020n * 10n ** 6n),
  ];
  return {
    async candles(q: CandleQuery) {
      const size = { "1m": 60_000, "5m": 300_000, "15m": 900_000, "1h": 3_600_000, "1d": day }[q.interval];
      const rows = all
        .map((x) => ({ ...x, startMs: Math.floor(x.startMs / size) * size }))
        .filter(
          (x) => (q.fromMs === undefined || x.startMs >= q.fromMs) && (q.toMs === undefined || x.startMs <= q.toMs),
        );
      return { candles: (q.order === "desc" ? rows.reverse() : rows).slice(0, q.limit) };
    },
  };
}

describe("exchange API OpenAPI document", () => {
  let iss: TestIssuer;
  let h: ExchangeHarness;
  let doc: Json;
  const realtime = createExchangeRealtime({ dex: undefined });
  const dex = createMemoryDexService();
  const market = (publicBaseUrl: string): Router =>
    createPublicMarketRouter({ dex, candles: fixedCandles(Date.now()), publicBaseUrl, perMinute: 1e6 });

  before(async () => {
    iss = await startTestIssuer();
    h = await startExchangeHarness({
      issuers: [iss],
      publicRouters: [market("http://127.0.0.1/v1")],
      extensions: [(x) => realtime.extension(x)],
    });
    const res = await fetch(`${h.url}/openapi.json`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
    assert.ok(res.headers.get("x-ratelimit-limit"), "the per-IP guard's headers");
    doc = await res.json();
  });
  after(async () => {
    await realtime.close();
    await h.close();
    await iss.close();
  });

  it("every route the assembled app serves is documented, and every documented route is served", () => {
    // assembled as scripts/stack/components/exchange-api.ts assembles it (routers built, never called here)
    const app = createExchangeApp({
      config: h.config,
      logger: createApiLogger({ level: "silent" }),
      identity: h.api.identity,
      tenants: h.api.tenants,
      accounts: h.api.accounts,
      custody: h.custody,
      cashDecimals: 6,
      authenticatedRouters: [
        createFundingRouter({ funding: {} as Funding, mode: "sandbox" }),
        createOrdersRouter({ orders: {} as Orders, mode: "sandbox" }),
        createPortfolioRouter({ orders: {} as Orders }),
      ],
      publicRouters: [market("http://127.0.0.1/v1")],
      rootRouters: [realtime.extension({ identity: h.api.identity, clientAddress: () => "127.0.0.1" }).router],
    });
    const served = servedRoutes((app as Json).router.stack);
    const documented = new Set(
      Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops as object).map((m) => `${m} ${p}`)),
    );
    assert.deepEqual([...served].filter((r) => !documented.has(r)).sort(), [], "served but not documented");
    assert.deepEqual([...documented].filter((r) => !served.has(r)).sort(), [], "documented but not served");
    assert.equal(documented.size, EXCHANGE_ROUTES.length);
    assert.ok(served.size >= 35, `${served.size} routes`);
  });

  it("is OpenAPI 3.1; every schema compiles as JSON Schema 2020-12; every operation declares security, a unique id and the error body", () => {
    assert.equal(doc.openapi, "3.1.0");
    const ajv = newAjv();
    const ids = new Set<string>();
    let count = 0;
    for (const [path, ops] of Object.entries(doc.paths) as [string, Record<string, Json>][]) {
      for (const [method, op] of Object.entries(ops)) {
        assert.ok(Array.isArray(op.security), `${method} ${path}: security`);
        assert.ok(!ids.has(op.operationId), `duplicate operationId ${op.operationId}`);
        ids.add(op.operationId);
        assert.ok(op.responses["429"] && op.responses["500"], `${method} ${path}: 429 and 500`);
        if (op.security.length > 0) assert.ok(op.responses["401"], `${method} ${path}: 401`);
        if (op.requestBody) assert.ok(op.responses["415"], `${method} ${path}: 415`);
        for (const name of path.match(/\{(\w+)\}/g) ?? [])
          assert.ok(
            op.parameters.some((p: Json) => p.in === "path" && `{${p.name}}` === name),
            `${method} ${path}: ${name}`,
          );
        const schemas = [
          ...(op.parameters ?? []).map((p: Json) => p.schema),
          op.requestBody?.content["application/json"].schema,
          ...Object.values(op.responses).flatMap((r: Json) =>
            Object.values(r.content ?? {}).map((c: Json) => c.schema),
          ),
        ].filter(Boolean);
        for (const s of schemas) {
          ajv.compile(s);
          count++;
        }
      }
    }
    assert.ok(count > 150, `compiled ${count} schemas`);
    // the legacy paths of spec 9 are documented as deprecated, naming their canonical path
    for (const legacy of [
      "/v1/exchange-explorers",
      "/v1/stock-summaries",
      "/v1/exchange-assets/{id}",
      "/v1/exchange-orderbook",
      "/v1/asset-chats",
      "/v1/custody-account-info",
      "/v1/custody-transactions",
    ]) {
      assert.equal(doc.paths[legacy].get.deprecated, true, legacy);
      assert.match(doc.paths[legacy].get.description, /answers exactly as \/v1\//);
    }
  });

  it("real responses conform to the documented schemas (market data, account, sandbox, tenant token, errors)", async () => {
    const ajv = newAjv();
    const { headers } = await h.login(iss, "openapi-user", "org-openapi");
    const call = async (method: string, path: string, body?: unknown, extra: Record<string, string> = {}) => {
      const res = await fetch(`${h.url.replace(/\/v1$/, "")}${path}`, {
        method,
        headers: { ...extra, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Json };
    };
    const checks: [string, string, Awaited<ReturnType<typeof call>>][] = [
      ["/v1/navigation", "get", await call("GET", "/v1/navigation")],
      ["/v1/assets", "get", await call("GET", "/v1/assets?limit=3")],
      ["/v1/exchange-explorers", "get", await call("GET", "/v1/exchange-explorers?category=crypto")],
      ["/v1/stock-summaries", "get", await call("GET", "/v1/stock-summaries")],
      ["/v1/assets/{id}", "get", await call("GET", "/v1/assets/WETH")],
      ["/v1/assets/{id}", "get", await call("GET", "/v1/assets/NOVA")],
      ["/v1/exchange-assets/{id}", "get", await call("GET", "/v1/exchange-assets/AAPL")],
      ["/v1/assets/{id}/quote", "get", await call("GET", "/v1/assets/WETH/quote")],
      ["/v1/assets/{id}/quote", "get", await call("GET", "/v1/assets/AAPL/quote")],
      ["/v1/assets/{id}/chart", "get", await call("GET", "/v1/assets/WETH/chart?range=5d&interval=15m")],
      ["/v1/asset-chats", "get", await call("GET", "/v1/asset-chats?assetId=WETH&range=1y")],
      ["/v1/assets/{id}/book", "get", await call("GET", "/v1/assets/WETH/book")],
      ["/v1/exchange-orderbook", "get", await call("GET", "/v1/exchange-orderbook?assetId=WETH&depth=5")],
      ["/v1/assets/{id}/trades", "get", await call("GET", "/v1/assets/WETH/trades")],
      ["/v1/assets/{id}", "get", await call("GET", "/v1/assets/NOPE")],
      ["/v1/assets/{id}/chart", "get", await call("GET", "/v1/assets/WETH/chart?range=1d&interval=1d")],
      ["/v1/account", "get", await call("GET", "/v1/account", undefined, headers)],
      ["/v1/custody-account-info", "get", await call("GET", "/v1/custody-account-info", undefined, headers)],
      ["/v1/account", "get", await call("GET", "/v1/account")],
      ["/v1/sandbox/kyc", "post", await call("POST", "/v1/sandbox/kyc", { status: "approved" }, headers)],
      ["/v1/sandbox/accreditation/506b", "post", await call("POST", "/v1/sandbox/accreditation/506b", {}, headers)],
      [
        "/v1/sandbox/accreditation/506c",
        "post",
        await call("POST", "/v1/sandbox/accreditation/506c", { outcome: "bogus" }, headers),
      ],
      [
        "/v1/auth/tenant-token",
        "post",
        await call("POST", "/v1/auth/tenant-token", undefined, { authorization: headers.authorization }),
      ],
    ];
    const statuses = new Set<number>();
    for (const [path, method, r] of checks) {
      const answer = doc.paths[path][method].responses[String(r.status)];
      assert.ok(
        answer,
        `${method} ${path}: status ${r.status} is documented (${JSON.stringify(r.body).slice(0, 200)})`,
      );
      const validate = ajv.compile(answer.content["application/json"].schema);
      assert.ok(
        validate(r.body),
        `${method} ${path} ${r.status}: ${JSON.stringify(validate.errors)} ${JSON.stringify(r.body).slice(0, 300)}`,
      );
      statuses.add(r.status);
    }
    // the checks met successes and refusals both (a schema that accepted anything would pass the rest)
    assert.deepEqual([...statuses].sort(), [200, 400, 401, 404]);
    const quote = checks[7][2].body;
    assert.equal(quote.last, 1020, "the quote came from the candles");
    // a body that does not conform is refused by the documented schema (it is not vacuous)
    const validateQuote = ajv.compile(
      doc.paths["/v1/assets/{id}/quote"].get.responses["200"].content["application/json"].schema,
    );
    assert.equal(validateQuote({ ...quote, extra: 1 }), false);
    assert.equal(validateQuote({ ...quote, last: "1020" }), false);
    assert.equal(validateQuote({ ...quote, timestamp: "yesterday" }), false);
  });

  it("the production document leaves the sandbox routes out", async () => {
    const { buildExchangeOpenApiDocument } = await import("./openapi");
    const prod = buildExchangeOpenApiDocument({ mode: "production" });
    assert.deepEqual(
      Object.keys(prod.paths).filter((p) => p.includes("/sandbox/")),
      [],
    );
    assert.ok(Object.keys(doc.paths).filter((p) => p.includes("/sandbox/")).length === 5);
  });
});
