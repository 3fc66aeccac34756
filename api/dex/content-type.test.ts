// A JSON body sent as text/plain (what a browser may send across origins without a preflight), as a form or
// without a Content-Type is refused with 415 UNSUPPORTED_MEDIA_TYPE and the spec's error body, and changes
// nothing: no order placed, no key created (#13). application/json with any parameters still works.
import { test } from "node:test";
import assert from "node:assert/strict";
import { call, fileHarness, fileKey, fundedWallet } from "../testing/harness";
import { keyHeaders, newWallet, signedOrderBody, walletHeaders } from "../testing/signing";

const h = fileHarness();
const k = fileKey(h);

const order = JSON.stringify({
  symbol: "WETH-USD",
  side: "buy",
  type: "limit",
  price: 1000,
  size: 0.1,
  time_in_force: "gtc",
});

/** fetch with the exact Content-Type given (none when undefined: a byte body carries none). */
async function send(
  method: string,
  path: string,
  body: string,
  contentType: string | undefined,
  headers: Record<string, string> = {},
) {
  const r = await fetch(h.origin + path, {
    method,
    headers: { ...(contentType !== undefined ? { "content-type": contentType } : {}), ...headers },
    body: new TextEncoder().encode(body),
  });
  const text = await r.text();
  return { status: r.status, headers: r.headers, body: JSON.parse(text), text };
}

const NOT_JSON = [
  "text/plain",
  "text/plain;charset=UTF-8",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/jsonx",
  undefined,
];

test("POST /v1/orders: a JSON body that is not sent as application/json is 415 and places nothing (API key and wallet-signed)", async () => {
  const calls = h.service.placeCalls.length;
  const orders = h.service.orderCount();
  const w = fundedWallet(h);
  const signed = JSON.stringify(await signedOrderBody(w, { side: "buy", price: 1000, size: 0.1 }));
  for (const contentType of NOT_JSON) {
    for (const [body, headers] of [
      [order, keyHeaders(k)],
      [signed, {}],
    ] as const) {
      const r = await send("POST", "/v1/orders", body, contentType, headers);
      assert.equal(r.status, 415, `${contentType}: ${r.text}`);
      assert.deepEqual(r.body, {
        error: {
          code: "UNSUPPORTED_MEDIA_TYPE",
          message: r.body.error.message,
          details: { content_type: contentType ?? null, accepted: ["application/json"] },
        },
      });
      assert.equal(typeof r.body.error.message, "string");
      assert.ok(r.headers.get("x-ratelimit-remaining") !== null, "rate-limit headers on the refusal too");
    }
  }
  assert.equal(h.service.placeCalls.length, calls, "no placement reached the service");
  assert.equal(h.service.orderCount(), orders, "no order placed");
  // the same bodies as application/json (any case, any parameters) are placed
  for (const contentType of ["application/json", "Application/JSON; charset=utf-8"]) {
    const r = await send("POST", "/v1/orders", order, contentType, keyHeaders(k));
    assert.equal(r.status, 201, r.text);
  }
  assert.equal((await send("POST", "/v1/orders", signed, "application/json")).status, 201);
  assert.equal(h.service.orderCount(), orders + 3);
});

test("POST /v1/api-keys and agent-approval: 415 for a non-JSON body, no key created", async () => {
  const owner = newWallet();
  const body = JSON.stringify({ permissions: ["read"] });
  const r = await send(
    "POST",
    "/v1/api-keys",
    body,
    "text/plain",
    await walletHeaders(owner, h, "POST", "/v1/api-keys", body),
  );
  assert.equal(r.status, 415, r.text);
  assert.equal(r.body.error.code, "UNSUPPORTED_MEDIA_TYPE");
  const listed = await call(h, "GET", "/v1/api-keys", {
    headers: await walletHeaders(owner, h, "GET", "/v1/api-keys"),
  });
  assert.equal(listed.status, 200, listed.text);
  assert.deepEqual(listed.body.api_keys, [], "no key created");
  const approval = await send("POST", `/v1/api-keys/${k.id}/agent-approval`, "{}", "text/plain");
  assert.equal(approval.status, 415, approval.text);
});

test("requests without a body are not concerned; an empty body with any type is the usual missing-body 400", async () => {
  assert.equal(
    (await call(h, "GET", "/v1/orderbook/WETH-USD", { headers: { "content-type": "text/plain" } })).status,
    200,
  );
  const placed = await call(h, "POST", "/v1/orders", { body: order, headers: keyHeaders(k) });
  const del = await fetch(`${h.origin}/v1/orders/${placed.body.order_id}`, {
    method: "DELETE",
    headers: { ...keyHeaders(k), "content-type": "text/plain" },
  });
  assert.equal(del.status, 200, await del.text());
  const empty = await send("POST", "/v1/orders", "", "text/plain", keyHeaders(k));
  assert.equal(empty.status, 400, empty.text);
  assert.equal(empty.body.error.details.reason, "missing_body");
});
