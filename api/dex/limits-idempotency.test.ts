// Spec 8 rate limits (headers on every response, 429 with Retry-After) and client_order_id idempotency.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  call,
  createKey,
  fundedKey,
  fundedWallet,
  hmacHeaders,
  keyHeaders,
  signedOrderBody,
  startHarness,
} from "../testing/harness";

test("rate limits: headers on every response, 429 RATE_LIMIT_EXCEEDED with Retry-After per surface", async () => {
  const h = await startHarness({
    rateLimits: { publicPerMinute: 3, ordersPerSecond: 2, signedMarketDataPerMinute: 2 },
  });
  try {
    const k = await fundedKey(h); // uses 1 of the 3 public requests (agent approval)
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await call(h, "GET", "/v1/orderbook/WETH-USD");
      statuses.push(r.status);
      assert.equal(r.headers.get("x-ratelimit-limit"), "3");
      assert.equal(r.headers.get("x-ratelimit-remaining"), String(Math.max(0, 1 - i)));
      const reset = Number(r.headers.get("x-ratelimit-reset"));
      assert.ok(reset > Date.now() / 1000 && reset <= Date.now() / 1000 + 61, "a Unix time within the window");
      if (r.status === 429) {
        assert.equal(r.body.error.code, "RATE_LIMIT_EXCEEDED");
        assert.ok(Number(r.headers.get("retry-after")) >= 1);
      }
    }
    assert.deepEqual(statuses, [200, 200, 429]);

    const order = { symbol: "WETH-USD", side: "buy", type: "limit", price: 1000, size: 0.1 };
    const placed: number[] = [];
    for (let i = 0; i < 3; i++)
      placed.push((await call(h, "POST", "/v1/orders", { body: order, headers: keyHeaders(k) })).status);
    assert.deepEqual(placed, [201, 201, 429], "10 orders/s in production, 2 here");
    // wallet-signed orders are limited per trader address
    const dapp = fundedWallet(h);
    const signed: number[] = [];
    for (let i = 0; i < 3; i++)
      signed.push(
        (
          await call(h, "POST", "/v1/orders", {
            body: await signedOrderBody(dapp, { side: "buy", price: 1000, size: 0.1 }),
          })
        ).status,
      );
    assert.deepEqual(signed, [201, 201, 429]);

    const path = "/v1/ticker/WETH-USD";
    const tick: number[] = [];
    for (let i = 0; i < 3; i++)
      tick.push((await call(h, "GET", path, { headers: hmacHeaders(k.apiKey, k.secret, "GET", path) })).status);
    assert.deepEqual(tick, [200, 200, 429], "signed-scheme market data limit");
    // a 401 and a 404 carry the headers too
    for (const r of [await call(h, "GET", "/v1/balances"), await call(h, "GET", "/v1/nowhere")]) {
      assert.ok(
        r.headers.get("x-ratelimit-limit") &&
          r.headers.get("x-ratelimit-remaining") &&
          r.headers.get("x-ratelimit-reset"),
      );
    }
  } finally {
    await h.close();
  }
});

test("idempotency: a retry with the same client_order_id returns the first result and places nothing", async () => {
  const h = await startHarness();
  try {
    const k = await fundedKey(h);
    const body = {
      symbol: "WETH-USD",
      side: "buy",
      type: "limit",
      price: 1000,
      size: 0.1,
      client_order_id: "retry-me",
    };
    const first = await call(h, "POST", "/v1/orders", { body, headers: keyHeaders(k) });
    assert.equal(first.status, 201);
    const again = await Promise.all(
      [1, 2, 3].map(() => call(h, "POST", "/v1/orders", { body, headers: keyHeaders(k) })),
    );
    for (const r of again) {
      assert.equal(r.status, 201);
      assert.deepEqual(r.body, first.body);
      assert.equal(r.headers.get("idempotent-replayed"), "true");
    }
    assert.equal(h.service.orderCount(), 1);
    const open = await call(h, "GET", "/v1/orders", { headers: keyHeaders(k) });
    assert.equal(open.body.orders.length, 1);
    // the same id for a different order is a conflict, not a second order
    const other = await call(h, "POST", "/v1/orders", { body: { ...body, price: 1001 }, headers: keyHeaders(k) });
    assert.equal(other.status, 409);
    assert.equal(other.body.error.code, "DUPLICATE_CLIENT_ORDER_ID");
    assert.equal(other.body.error.details.order_id, first.body.order_id);
    assert.equal(h.service.orderCount(), 1);

    // concurrent first attempts: exactly one order
    const body2 = { ...body, client_order_id: "burst" };
    const burst = await Promise.all(
      [1, 2, 3, 4, 5].map(() => call(h, "POST", "/v1/orders", { body: body2, headers: keyHeaders(k) })),
    );
    assert.equal(new Set(burst.map((r) => r.body.order_id)).size, 1);
    assert.equal(h.service.orderCount(), 2);

    // a refusal frees the id: a corrected retry may use it
    const tooBig = { ...body, size: 5000, client_order_id: "fix-me" };
    const refused = await call(h, "POST", "/v1/orders", { body: tooBig, headers: keyHeaders(k) });
    assert.equal(refused.body.error.code, "INSUFFICIENT_BALANCE");
    const fixed = await call(h, "POST", "/v1/orders", { body: { ...tooBig, size: 0.1 }, headers: keyHeaders(k) });
    assert.equal(fixed.status, 201, fixed.text);

    // wallet-signed orders: same rule, keyed by the trader
    const dapp = fundedWallet(h);
    const signed = await signedOrderBody(dapp, { side: "sell", price: 5000, size: 0.1, client_order_id: "dapp-retry" });
    const s1 = await call(h, "POST", "/v1/orders", { body: signed });
    const s2 = await call(h, "POST", "/v1/orders", { body: signed });
    assert.equal(s1.status, 201);
    assert.deepEqual(s2.body, s1.body);
    assert.equal(h.service.orderCount(), 4);
  } finally {
    await h.close();
  }
});

test("idempotency: an order the service took whose answer was lost (crash before the response) is found, not placed again", async () => {
  const h = await startHarness();
  try {
    const w = fundedWallet(h);
    const k = await createKey(h, w);
    const body = { symbol: "WETH-USD", side: "buy", type: "limit", price: 1000, size: 0.1, client_order_id: "crashed" };
    const { requestHash } = await import("./idempotency");
    // Simulate the first attempt: the service recorded (journaled) the order with its client order id and
    // request fingerprint, then the API process died before answering. The pipeline rebuilds exactly this
    // record from its journal on restart (test/e2e/pipeline-dex-service.test.ts checks that part).
    const agent = (await h.keys.agentOf(k.id))!;
    const first = await h.service.placeOrder({
      kind: "api_key",
      agent,
      apiKeyId: k.id,
      trader: w.address,
      orderId: "11111111-1111-4111-8111-111111111111",
      clientOrderId: "crashed",
      requestHash: requestHash(body),
      symbol: "WETH-USD",
      side: "buy",
      type: "limit",
      timeInForce: "gtc",
      priceTicks: 100_000n,
      triggerPriceTicks: null,
      sizeLots: 1_000n,
      expiresAtMs: null,
      receivedAtMs: Date.now(),
    });
    const calls = h.service.placeCalls.length;
    const r = await call(h, "POST", "/v1/orders", { body, headers: keyHeaders(k) });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.order_id, first.orderId);
    assert.equal(r.headers.get("idempotent-replayed"), "true");
    assert.equal(h.service.placeCalls.length, calls, "the retry never reached placeOrder");
    assert.equal(h.service.orderCount(), 1);
    // a different body under the same id is still a conflict
    const other = await call(h, "POST", "/v1/orders", { body: { ...body, size: 0.2 }, headers: keyHeaders(k) });
    assert.equal(other.status, 409);
    assert.equal(other.body.error.details.order_id, first.orderId);
  } finally {
    await h.close();
  }
});
