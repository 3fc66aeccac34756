// The OpenAPI 3.1 document: every route present, every schema a valid JSON Schema 2020-12 (compiled by
// Ajv), and real responses conform to the documented schemas.
import { test } from "node:test";
import assert from "node:assert/strict";
import Ajv2020 from "ajv/dist/2020";
import { beforeTests, call, fileHarness, fundedKey, keyHeaders } from "../testing/harness";

const h = fileHarness();
let doc: any;
beforeTests(h, async () => {
  doc = (await call(h, "GET", "/v1/openapi.json")).body;
});

const EXPECTED = [
  "get /v1/markets",
  "get /v1/time",
  "get /v1/orderbook/{symbol}",
  "get /v1/trades",
  "get /v1/ticker/{symbol}",
  "get /v1/market-summary",
  "post /v1/orders",
  "delete /v1/orders/{order_id}",
  "get /v1/orders/{order_id}",
  "get /v1/orders",
  "get /v1/balances",
  "post /v1/api-keys",
  "post /v1/api-keys/{id}/agent-approval",
  "get /v1/api-keys",
  "delete /v1/api-keys/{id}",
  "get /v1/openapi.json",
];

test("every route is documented, and every documented route is served", async () => {
  assert.equal(doc.openapi, "3.1.0");
  const documented = Object.entries(doc.paths).flatMap(([p, ops]) =>
    Object.keys(ops as object).map((m) => `${m} ${p}`),
  );
  assert.deepEqual([...documented].sort(), [...EXPECTED].sort());
  // served: no documented route answers ROUTE_NOT_FOUND
  for (const r of EXPECTED) {
    const [method, path] = r.split(" ");
    const concrete = path.replace("{symbol}", "WETH-USD").replace(/\{\w+\}/g, "00000000-0000-4000-8000-000000000000");
    const res = await call(
      h,
      method.toUpperCase(),
      concrete,
      method === "get" || method === "delete" ? {} : { body: "{}" },
    );
    assert.notEqual(res.body?.error?.code, "ROUTE_NOT_FOUND", r);
  }
});

test("every schema in the document compiles as JSON Schema 2020-12", () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  let count = 0;
  for (const ops of Object.values(doc.paths) as Record<string, any>[]) {
    for (const op of Object.values(ops)) {
      const schemas = [
        ...(op.parameters ?? []).map((p: any) => p.schema),
        op.requestBody?.content["application/json"].schema,
        ...Object.values(op.responses).map((r: any) => r.content?.["application/json"]?.schema),
      ].filter(Boolean);
      for (const s of schemas) {
        ajv.compile(s);
        count++;
      }
      assert.ok(Array.isArray(op.security), "security declared");
    }
  }
  assert.ok(count > 30, `compiled ${count} schemas`);
});

test("real responses conform to the documented schemas", async () => {
  const ajv = new Ajv2020({ strict: false });
  const schemaOf = (path: string, method: string, status: number) =>
    doc.paths[path][method].responses[status].content["application/json"].schema;
  const k = await fundedKey(h);
  const placed = await call(h, "POST", "/v1/orders", {
    body: { symbol: "WETH-USD", side: "buy", type: "limit", price: 1000, size: 0.1 },
    headers: keyHeaders(k),
  });
  const checks: [string, string, number, unknown][] = [
    ["/v1/orders", "post", 201, placed.body],
    ["/v1/orderbook/{symbol}", "get", 200, (await call(h, "GET", "/v1/orderbook/WETH-USD")).body],
    [
      "/v1/orders/{order_id}",
      "get",
      200,
      (await call(h, "GET", `/v1/orders/${placed.body.order_id}`, { headers: keyHeaders(k) })).body,
    ],
    ["/v1/orders", "get", 200, (await call(h, "GET", "/v1/orders", { headers: keyHeaders(k) })).body],
    ["/v1/balances", "get", 200, (await call(h, "GET", "/v1/balances", { headers: keyHeaders(k) })).body],
    ["/v1/api-keys", "get", 200, (await call(h, "GET", "/v1/api-keys", { headers: keyHeaders(k) })).body],
    ["/v1/trades", "get", 200, (await call(h, "GET", "/v1/trades?symbol=WETH-USD")).body],
    ["/v1/markets", "get", 200, (await call(h, "GET", "/v1/markets")).body],
    ["/v1/time", "get", 200, (await call(h, "GET", "/v1/time")).body],
    ["/v1/orders", "post", 400, (await call(h, "POST", "/v1/orders", { body: "{" })).body],
    [
      "/v1/orders",
      "post",
      415,
      (await call(h, "POST", "/v1/orders", { body: "{}", headers: { "content-type": "text/plain" } })).body,
    ],
  ];
  for (const [path, method, status, body] of checks) {
    const validate = ajv.compile(schemaOf(path, method, status));
    assert.ok(validate(body), `${method} ${path} ${status}: ${JSON.stringify(validate.errors)}`);
  }
});

test("POST /v1/orders documents 503 CHAIN_UNAVAILABLE with its Retry-After header; a real refusal conforms", async () => {
  const op = doc.paths["/v1/orders"].post;
  const r503 = op.responses["503"];
  assert.ok(r503, "503 documented");
  assert.match(r503.description, /CHAIN_UNAVAILABLE/);
  assert.deepEqual(r503.headers["Retry-After"].schema, { type: "integer", minimum: 1 });
  assert.ok(r503.headers["X-RateLimit-Limit"], "the rate-limit headers stay");
  // the error body the REST error handler answers for the pipeline's refusal, against the documented schema
  const { toHttpError } = await import("../errors");
  const { DexServiceError } = await import("../../pipeline/service");
  const answer = toHttpError(
    new DexServiceError("CHAIN_UNAVAILABLE", "home chain 31337 is unavailable", { chainId: 31337, retry_after: 3 }),
  );
  assert.equal(answer.status, 503);
  assert.equal(answer.error.retryAfterS, 3);
  const validate = new Ajv2020({ strict: false }).compile(r503.content["application/json"].schema);
  assert.ok(validate(answer.body), JSON.stringify(validate.errors));
  // no other route can answer it: only placement passes the settlement gate
  for (const [path, ops] of Object.entries(doc.paths) as [string, Record<string, any>][])
    for (const [method, o] of Object.entries(ops))
      if (`${method} ${path}` !== "post /v1/orders")
        assert.doesNotMatch(o.responses["503"]?.description ?? "", /CHAIN_UNAVAILABLE/, `${method} ${path}`);
});
