// Bad-input table for every REST endpoint: the spec's error body with the right code each time, never a
// 500 and never a stack trace.
import { test } from "node:test";
import assert from "node:assert/strict";
import { call, fileHarness, fileKey, fundedWallet } from "../testing/harness";
import { hmacHeaders, keyHeaders, newWallet, signedOrderBody, walletHeaders } from "../testing/signing";

const h = fileHarness();
const k = fileKey(h);
const valid = { symbol: "WETH-USD", side: "buy", type: "limit", price: 1000, size: 0.1, time_in_force: "gtc" };
const withField = (patch: Record<string, unknown>) => JSON.stringify({ ...valid, ...patch });
const without = (field: string) => {
  const o: Record<string, unknown> = { ...valid };
  delete o[field];
  return JSON.stringify(o);
};
const MB = "x".repeat(1024 * 1024);

interface Case {
  name: string;
  method: string;
  path: string;
  body?: string;
  auth?: "key" | "wallet" | "hmac" | "both" | "none";
  status: number;
  code: string;
}

const order = (name: string, body: string, status: number, code: string): Case => ({
  name: `POST /orders: ${name}`,
  method: "POST",
  path: "/v1/orders",
  body,
  auth: "key",
  status,
  code,
});

const cases: Case[] = [
  order("malformed JSON", '{"symbol": "WETH-USD",', 400, "INVALID_REQUEST"),
  order("empty body", "", 400, "INVALID_REQUEST"),
  order("JSON null", "null", 400, "INVALID_REQUEST"),
  order("JSON array", "[1,2]", 400, "INVALID_REQUEST"),
  order("JSON string", '"order"', 400, "INVALID_REQUEST"),
  order("NaN literal", withField({}).replace('"price":1000', '"price":NaN'), 400, "INVALID_REQUEST"),
  order("price as a word", withField({ price: "NaN" }), 400, "INVALID_REQUEST"),
  order("price as boolean", withField({ price: true }), 400, "INVALID_REQUEST"),
  order("size as object", withField({ size: { v: 1 } }), 400, "INVALID_REQUEST"),
  order("side as number", withField({ side: 1 }), 400, "INVALID_REQUEST"),
  order("side unknown", withField({ side: "long" }), 400, "INVALID_REQUEST"),
  order("missing symbol", without("symbol"), 400, "INVALID_REQUEST"),
  order("missing size", without("size"), 400, "INVALID_REQUEST"),
  order("missing side", without("side"), 400, "INVALID_REQUEST"),
  order("missing price on a limit order", without("price"), 400, "INVALID_REQUEST"),
  order("unknown symbol", withField({ symbol: "DOGE-USD" }), 400, "INVALID_SYMBOL"),
  order("symbol of 1 KB", withField({ symbol: "A".repeat(1024) }), 400, "INVALID_REQUEST"),
  order("unknown order type", withField({ type: "trailing_stop" }), 400, "INVALID_ORDER_TYPE"),
  order(
    "market order with gtc",
    withField({ type: "market", price: undefined, time_in_force: "gtc" }),
    400,
    "INVALID_ORDER_TYPE",
  ),
  order("limit_maker with ioc", withField({ type: "limit_maker", time_in_force: "ioc" }), 400, "INVALID_ORDER_TYPE"),
  order("unknown time in force", withField({ time_in_force: "forever" }), 400, "INVALID_REQUEST"),
  order("negative price", withField({ price: -1000 }), 400, "INVALID_REQUEST"),
  order("zero price", withField({ price: 0 }), 400, "INVALID_REQUEST"),
  order("negative size", withField({ size: -0.1 }), 400, "INVALID_REQUEST"),
  order("zero size", withField({ size: 0 }), 400, "INVALID_REQUEST"),
  order("huge price 1e308", withField({ price: 1e308 }), 400, "INVALID_REQUEST"),
  order(
    "price beyond double (Infinity)",
    withField({}).replace('"price":1000', '"price":1e400'),
    400,
    "INVALID_REQUEST",
  ),
  order("huge size", withField({ size: 1e12 }), 400, "INVALID_REQUEST"),
  order("price off the tick", withField({ price: 1000.001 }), 400, "INVALID_REQUEST"),
  order("size off the lot", withField({ size: 0.00001 }), 400, "INVALID_REQUEST"),
  order("price with exponent string", withField({ price: "1e3" }), 400, "INVALID_REQUEST"),
  order("unknown field", withField({ leverage: 100 }), 400, "INVALID_REQUEST"),
  order("client_order_id with spaces", withField({ client_order_id: "a b" }), 400, "INVALID_REQUEST"),
  order("gtd without expires_at", withField({ time_in_force: "gtd" }), 400, "INVALID_REQUEST"),
  order("expires_at in the past", withField({ time_in_force: "gtd", expires_at: 1000 }), 400, "INVALID_REQUEST"),
  order("stop_loss without trigger_price", withField({ type: "stop_loss", price: undefined }), 400, "INVALID_REQUEST"),
  order("signature without order", withField({ signature: "0x1234" }), 400, "INVALID_REQUEST"),
  order("1 MB body", JSON.stringify({ ...valid, pad: MB }), 413, "PAYLOAD_TOO_LARGE"),
  {
    name: "GET /orderbook: unknown symbol",
    method: "GET",
    path: "/v1/orderbook/DOGE-USD",
    status: 400,
    code: "INVALID_SYMBOL",
  },
  {
    name: "GET /orderbook: depth 0",
    method: "GET",
    path: "/v1/orderbook/WETH-USD?depth=0",
    status: 400,
    code: "INVALID_REQUEST",
  },
  {
    name: "GET /orderbook: depth -5",
    method: "GET",
    path: "/v1/orderbook/WETH-USD?depth=-5",
    status: 400,
    code: "INVALID_REQUEST",
  },
  {
    name: "GET /orderbook: depth abc",
    method: "GET",
    path: "/v1/orderbook/WETH-USD?depth=abc",
    status: 400,
    code: "INVALID_REQUEST",
  },
  {
    name: "GET /orderbook: depth NaN",
    method: "GET",
    path: "/v1/orderbook/WETH-USD?depth=NaN",
    status: 400,
    code: "INVALID_REQUEST",
  },
  {
    name: "GET /orderbook: depth 1.5",
    method: "GET",
    path: "/v1/orderbook/WETH-USD?depth=1.5",
    status: 400,
    code: "INVALID_REQUEST",
  },
  {
    name: "GET /orderbook: depth huge",
    method: "GET",
    path: "/v1/orderbook/WETH-USD?depth=99999999999999999999",
    status: 400,
    code: "INVALID_REQUEST",
  },
  {
    name: "GET /orderbook: depth twice",
    method: "GET",
    path: "/v1/orderbook/WETH-USD?depth=1&depth=2",
    status: 400,
    code: "INVALID_REQUEST",
  },
  {
    name: "GET /orderbook: unknown parameter",
    method: "GET",
    path: "/v1/orderbook/WETH-USD?levels=3",
    status: 400,
    code: "INVALID_REQUEST",
  },
  {
    name: "GET /orderbook: 1 MB body",
    method: "POST",
    path: "/v1/orderbook/WETH-USD",
    body: MB,
    status: 413,
    code: "PAYLOAD_TOO_LARGE",
  },
  { name: "GET /trades: no symbol", method: "GET", path: "/v1/trades", status: 400, code: "INVALID_REQUEST" },
  {
    name: "GET /trades: unknown symbol",
    method: "GET",
    path: "/v1/trades?symbol=DOGE-USD",
    status: 400,
    code: "INVALID_SYMBOL",
  },
  {
    name: "GET /trades: limit 0",
    method: "GET",
    path: "/v1/trades?symbol=WETH-USD&limit=0",
    status: 400,
    code: "INVALID_REQUEST",
  },
  {
    name: "GET /trades: limit negative",
    method: "GET",
    path: "/v1/trades?symbol=WETH-USD&limit=-1",
    status: 400,
    code: "INVALID_REQUEST",
  },
  {
    name: "GET /trades: limit huge",
    method: "GET",
    path: "/v1/trades?symbol=WETH-USD&limit=1e9",
    status: 400,
    code: "INVALID_REQUEST",
  },
  {
    name: "GET /ticker: unknown symbol",
    method: "GET",
    path: "/v1/ticker/DOGE-USD",
    auth: "hmac",
    status: 400,
    code: "INVALID_SYMBOL",
  },
  {
    name: "GET /ticker: no signature",
    method: "GET",
    path: "/v1/ticker/WETH-USD",
    auth: "none",
    status: 401,
    code: "UNAUTHORIZED",
  },
  {
    name: "DELETE /orders: id not a UUID",
    method: "DELETE",
    path: "/v1/orders/123",
    auth: "key",
    status: 400,
    code: "INVALID_REQUEST",
  },
  {
    name: "DELETE /orders: unknown id",
    method: "DELETE",
    path: "/v1/orders/00000000-0000-4000-8000-000000000000",
    auth: "key",
    status: 404,
    code: "ORDER_NOT_FOUND",
  },
  {
    name: "GET /orders/{id}: id not a UUID",
    method: "GET",
    path: "/v1/orders/'%20OR%201=1",
    auth: "key",
    status: 400,
    code: "INVALID_REQUEST",
  },
  {
    name: "GET /orders/{id}: unknown id",
    method: "GET",
    path: "/v1/orders/00000000-0000-4000-8000-000000000000",
    auth: "key",
    status: 404,
    code: "ORDER_NOT_FOUND",
  },
  {
    name: "GET /orders: unknown status",
    method: "GET",
    path: "/v1/orders?status=done",
    auth: "key",
    status: 400,
    code: "INVALID_REQUEST",
  },
  {
    name: "GET /orders: unknown symbol",
    method: "GET",
    path: "/v1/orders?symbol=DOGE-USD",
    auth: "key",
    status: 400,
    code: "INVALID_SYMBOL",
  },
  {
    name: "GET /orders: limit 0",
    method: "GET",
    path: "/v1/orders?limit=0",
    auth: "key",
    status: 400,
    code: "INVALID_REQUEST",
  },
  {
    name: "GET /balances: no credentials",
    method: "GET",
    path: "/v1/balances",
    auth: "none",
    status: 401,
    code: "UNAUTHORIZED",
  },
  {
    name: "GET /balances: X-API-Secret and X-SIGNATURE both",
    method: "GET",
    path: "/v1/balances",
    auth: "both",
    status: 401,
    code: "UNAUTHORIZED",
  },
  {
    name: "POST /api-keys: malformed JSON",
    method: "POST",
    path: "/v1/api-keys",
    body: "{",
    auth: "wallet",
    status: 400,
    code: "INVALID_REQUEST",
  },
  {
    name: "POST /api-keys: unknown permission",
    method: "POST",
    path: "/v1/api-keys",
    body: '{"permissions":["admin"]}',
    auth: "wallet",
    status: 400,
    code: "INVALID_REQUEST",
  },
  {
    name: "POST /api-keys: no permissions",
    method: "POST",
    path: "/v1/api-keys",
    body: '{"permissions":[]}',
    auth: "wallet",
    status: 400,
    code: "INVALID_REQUEST",
  },
  {
    name: "POST /api-keys: bad IP entry",
    method: "POST",
    path: "/v1/api-keys",
    body: '{"permissions":["read"],"ip_allowlist":["1.2.3.4/99"]}',
    auth: "wallet",
    status: 400,
    code: "INVALID_REQUEST",
  },
  {
    name: "POST /api-keys: negative position limit",
    method: "POST",
    path: "/v1/api-keys",
    body: '{"permissions":["read"],"position_limit":-5}',
    auth: "wallet",
    status: 400,
    code: "INVALID_REQUEST",
  },
  {
    name: "POST /api-keys: NaN loss limit",
    method: "POST",
    path: "/v1/api-keys",
    body: '{"permissions":["read"],"daily_loss_limit":"NaN"}',
    auth: "wallet",
    status: 400,
    code: "INVALID_REQUEST",
  },
  {
    name: "POST /api-keys: with an API key instead of a wallet",
    method: "POST",
    path: "/v1/api-keys",
    body: '{"permissions":["read"]}',
    auth: "key",
    status: 401,
    code: "UNAUTHORIZED",
  },
  {
    name: "POST /api-keys: 1 MB body",
    method: "POST",
    path: "/v1/api-keys",
    body: JSON.stringify({ permissions: ["read"], label: MB }),
    auth: "wallet",
    status: 413,
    code: "PAYLOAD_TOO_LARGE",
  },
  {
    name: "POST /api-keys/{id}/agent-approval: id not a UUID",
    method: "POST",
    path: "/v1/api-keys/x/agent-approval",
    body: "{}",
    status: 400,
    code: "INVALID_REQUEST",
  },
  {
    name: "POST /api-keys/{id}/agent-approval: malformed JSON",
    method: "POST",
    path: "/v1/api-keys/00000000-0000-4000-8000-000000000000/agent-approval",
    body: "{{",
    status: 400,
    code: "INVALID_REQUEST",
  },
  {
    name: "POST /api-keys/{id}/agent-approval: unknown key",
    method: "POST",
    path: "/v1/api-keys/00000000-0000-4000-8000-000000000000/agent-approval",
    body: JSON.stringify({
      approval: { trader: `0x${"1".repeat(40)}`, agent: `0x${"2".repeat(40)}`, expiry: "1", nonce: "1", deadline: "1" },
      signature: "0x12",
    }),
    status: 404,
    code: "API_KEY_NOT_FOUND",
  },
  {
    name: "DELETE /api-keys: id not a UUID",
    method: "DELETE",
    path: "/v1/api-keys/abc",
    auth: "key",
    status: 400,
    code: "INVALID_REQUEST",
  },
  { name: "unknown route", method: "GET", path: "/v1/withdrawals", status: 404, code: "ROUTE_NOT_FOUND" },
  {
    name: "unknown method on a known path",
    method: "PUT",
    path: "/v1/orders",
    body: "{}",
    status: 404,
    code: "ROUTE_NOT_FOUND",
  },
  { name: "path outside /v1", method: "GET", path: "/orderbook/WETH-USD", status: 404, code: "ROUTE_NOT_FOUND" },
];

for (const c of cases) {
  test(c.name, async () => {
    const body = c.body ?? "";
    let headers: Record<string, string> = {};
    if (c.auth === "key") headers = keyHeaders(k);
    if (c.auth === "hmac") headers = hmacHeaders(k.apiKey, k.secret, c.method, c.path, body);
    if (c.auth === "both")
      headers = { ...hmacHeaders(k.apiKey, k.secret, c.method, c.path, body), "X-API-Secret": k.secret };
    if (c.auth === "wallet") headers = await walletHeaders(k.owner, h, c.method, c.path, body);
    const r = await call(h, c.method, c.path, { body: c.body, headers });
    assert.equal(r.status, c.status, r.text.slice(0, 500));
    assert.equal(r.body?.error?.code, c.code, r.text.slice(0, 500));
    assert.equal(typeof r.body.error.message, "string");
    assert.equal(typeof r.body.error.details, "object");
    assert.ok(!/at \w+ \(|node_modules|\.ts:\d+/.test(r.text), "no stack trace");
    assert.ok(r.headers.get("x-ratelimit-remaining") !== null, "rate-limit headers on every response");
  });
}

test("POST /orders: a wallet-signed order whose signed fields disagree with the spec fields", async () => {
  const w = fundedWallet(h);
  const calls = h.service.placeCalls.length;
  for (const [field, patch] of [
    ["amount", { size: 0.2 }],
    ["price", { price: 1001 }],
    ["side", { side: "sell" }],
    ["flags", { time_in_force: "post_only" }],
  ] as const) {
    const body = { ...(await signedOrderBody(w, { side: "buy", price: 1000, size: 0.1 })), ...patch };
    const r = await call(h, "POST", "/v1/orders", { body });
    assert.equal(r.status, 400, r.text);
    assert.equal(r.body.error.details.reason, "signed_order_mismatch");
    assert.equal(r.body.error.details.field, field);
  }
  const otherToken = await signedOrderBody(w, { side: "buy", price: 1000, size: 0.1 });
  (otherToken.order as Record<string, unknown>).base_token = `0x${"9".repeat(40)}`;
  const r = await call(h, "POST", "/v1/orders", { body: otherToken });
  assert.equal(r.body.error.details.field, "base_token");
  assert.equal(h.service.placeCalls.length, calls, "none reached the service");
});

test("POST /orders: INSUFFICIENT_BALANCE carries required and available (numbers and exact units)", async () => {
  const poor = newWallet();
  h.service.credit(poor.address, "0x1000000000000000000000000000000000000002", 50n * 10n ** 6n);
  const r = await call(h, "POST", "/v1/orders", {
    body: await signedOrderBody(poor, { side: "buy", price: 1000, size: 0.1 }),
  });
  assert.equal(r.status, 400);
  assert.equal(r.body.error.code, "INSUFFICIENT_BALANCE");
  assert.deepEqual(
    {
      required: r.body.error.details.required,
      available: r.body.error.details.available,
      ru: r.body.error.details.required_units,
    },
    { required: 100, available: 50, ru: "100000000" },
  );
});
