// POST /v1/orders is the router's first route (api/dex/app.ts; it once skipped the router); POST /v1/orders/
// (trailing slash) reaches the same route. Both must answer every request alike: status, error body and headers (rate-limit
// headers included), refusals and placements, and the per-IP limit at its exact boundary on the direct path.
import { test } from "node:test";
import assert from "node:assert/strict";
import { fileHarness, fileKey, fundedWallet, readRes, startHarness } from "../testing/harness";
import { keyHeaders, signedOrderBody } from "../testing/signing";

const h = fileHarness();
const k = fileKey(h);

async function post(path: string, body: string | Uint8Array, headers: Record<string, string>) {
  return readRes(await fetch(h.origin + path, { method: "POST", headers, body }));
}

/** Header names and values that do not change from one request to the next. */
function stableHeaders(hs: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  hs.forEach((v, n) => {
    if (
      !["date", "x-ratelimit-remaining", "x-ratelimit-reset", "content-length", "keep-alive", "connection"].includes(n)
    )
      out[n] = v;
  });
  return out;
}

const json = { "content-type": "application/json" };
const keyOrder = (side: string) =>
  JSON.stringify({ symbol: "WETH-USD", side, type: "limit", price: 1000, size: 0.1, time_in_force: "gtc" });

test("POST /v1/orders answers each refusal exactly as the routed POST /v1/orders/ does", async () => {
  const cases: [string, string | Uint8Array, Record<string, string>][] = [
    ["malformed JSON", "{", { ...json, ...keyHeaders(k) }],
    ["empty body", "", { ...json, ...keyHeaders(k) }],
    ["not JSON", keyOrder("buy"), { "content-type": "text/plain", ...keyHeaders(k) }],
    ["too large", new Uint8Array(h.config.bodyLimitBytes + 1).fill(32), { ...json, ...keyHeaders(k) }],
    ["schema", JSON.stringify({ symbol: "WETH-USD", side: "up" }), { ...json, ...keyHeaders(k) }],
    ["no credentials", keyOrder("buy"), json],
    ["wrong secret", keyOrder("buy"), { ...json, "X-API-Key": k.apiKey, "X-API-Secret": "0".repeat(64) }],
    [
      "unknown symbol",
      JSON.stringify({ symbol: "NOPE-USD", side: "buy", type: "limit", price: 1, size: 1 }),
      { ...json, ...keyHeaders(k) },
    ],
  ];
  const placed = h.service.orderCount();
  for (const [name, body, headers] of cases) {
    const direct = await post("/v1/orders", body, headers);
    const routed = await post("/v1/orders/", body, headers);
    assert.ok(direct.status >= 400 && direct.status < 500, `${name}: ${direct.status} ${direct.text}`);
    assert.equal(direct.status, routed.status, name);
    assert.deepEqual(direct.body, routed.body, name);
    assert.equal(direct.body.error.code, routed.body.error.code, name);
    assert.deepEqual(stableHeaders(direct.headers), stableHeaders(routed.headers), name);
    assert.ok(direct.headers.get("x-ratelimit-limit") !== null, `${name}: rate-limit headers`);
  }
  assert.equal(h.service.orderCount(), placed, "no refusal placed an order");
});

test("POST /v1/orders places API-key and wallet-signed orders as the routed path does, with the same headers", async () => {
  const direct = await post("/v1/orders", keyOrder("buy"), { ...json, ...keyHeaders(k) });
  const routed = await post("/v1/orders/", keyOrder("buy"), { ...json, ...keyHeaders(k) });
  assert.equal(direct.status, 201, direct.text);
  assert.equal(routed.status, 201, routed.text);
  assert.deepEqual(Object.keys(direct.body).sort(), Object.keys(routed.body).sort());
  assert.equal(direct.body.status, "open");
  assert.deepEqual(stableHeaders(direct.headers), stableHeaders(routed.headers));
  assert.equal(direct.headers.get("content-type"), "application/json; charset=utf-8");
  assert.equal(direct.headers.get("x-powered-by"), null);
  assert.equal(direct.headers.get("etag"), null);
  const w = fundedWallet(h);
  const signed = JSON.stringify(
    await signedOrderBody(w, { side: "sell", price: 2000, size: 0.1, client_order_id: "direct-1" }),
  );
  const first = await post("/v1/orders", signed, json);
  assert.equal(first.status, 201, first.text);
  // the same request again: an idempotent replay, flagged by its header, on either path
  const again = await post("/v1/orders", signed, json);
  assert.equal(again.status, 201);
  assert.equal(again.headers.get("idempotent-replayed"), "true");
  assert.equal(again.body.order_id, first.body.order_id);
  const viaRouter = await post("/v1/orders/", signed, json);
  assert.equal(viaRouter.headers.get("idempotent-replayed"), "true");
  assert.equal(viaRouter.body.order_id, first.body.order_id);
});

test("POST /v1/orders: the per-IP limit at its boundary (the last request allowed, one more 429 with Retry-After)", async () => {
  const limited = await startHarness({ rateLimits: { ipPerMinute: 3 } });
  try {
    const bad = "{";
    for (let i = 1; i <= 3; i++) {
      const r = await post("/v1/orders", bad, json);
      assert.equal(r.status, 400, r.text);
      assert.equal(r.headers.get("x-ratelimit-limit"), "3");
      assert.equal(r.headers.get("x-ratelimit-remaining"), String(3 - i));
    }
    const over = await post("/v1/orders", bad, json);
    assert.equal(over.status, 429, over.text);
    assert.equal(over.body.error.code, "RATE_LIMIT_EXCEEDED");
    assert.equal(over.body.error.details.limit, 3);
    assert.ok(Number(over.headers.get("retry-after")) >= 1);
    assert.equal(over.headers.get("x-ratelimit-remaining"), "0");
    // the routed path counts against the same limit
    assert.equal((await post("/v1/orders/", bad, json)).status, 429);
  } finally {
    await limited.close();
  }
  // (a harness of its own: the module's `post` targets `h`; this hoisted one, which the calls above reach,
  // targets `limited`)
  // biome-ignore lint/correctness/noUnusedVariables: called above (a hoisted declaration Biome does not see)
  async function post(path: string, body: string, headers: Record<string, string>) {
    const r = await fetch(limited.origin + path, { method: "POST", headers, body });
    const text = await r.text();
    return { status: r.status, headers: r.headers, body: JSON.parse(text), text };
  }
});
