// WebSocket order entry (`order` messages) over real sockets with the `ws` client, against the in-memory
// test double and the REST app's placer: the same bodies as POST /v1/orders, both ways of authorising,
// refusals that place nothing, the per-connection in-flight bound at its boundary, the per-key order limit.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createOrderPlacer } from "../dex/place-order";
import {
  beforeTests,
  call,
  fileHarness,
  fileWs,
  createKey,
  fundedKey,
  fundedWallet,
  keyHeaders,
  newWallet,
  signedOrderBody,
  startHarness,
  startWs,
  type TestKey,
} from "../testing/harness";
import { connectWs, wsAuthMessage, type TestWs } from "../testing/ws-client";
import type { DexService } from "../../pipeline/service";

const h = fileHarness({ ws: { connectionsPerMinutePerIp: 10_000, maxConnectionsPerUser: 50 } });
const open: TestWs[] = [];
const server = fileWs(h, (started) => ({ keys: started.keys, placeOrder: started.placeOrder }), open);
let trader: TestKey;
let readOnly: TestKey;
beforeTests(h, async () => {
  const a = fundedWallet(h);
  trader = await createKey(h, a);
  readOnly = await createKey(h, a, { permissions: ["read"] });
});

async function client(at = server.url): Promise<TestWs> {
  const c = await connectWs(at);
  open.push(c);
  return c;
}
const authMsg = (k: TestKey, ts = Date.now(), id: string | number = "login") => wsAuthMessage(k, ts, id);
async function login(c: TestWs, k: TestKey) {
  c.send(authMsg(k));
  const m = await c.next((x) => x.id === "login");
  assert.equal(m.type, "authenticated", JSON.stringify(m));
}
const result = (c: TestWs, id: string | number) => c.next((m) => m.type === "order_result" && m.id === id);
const order = (over: Record<string, unknown> = {}) => ({
  symbol: "WETH-USD",
  side: "buy",
  type: "limit",
  price: 1000,
  size: 0.1,
  ...over,
});
const openOrders = async (k: TestKey) =>
  (await call(h, "GET", "/v1/orders?status=all", { headers: keyHeaders(k) })).body.orders as { order_id: string }[];

test("an API-key order after the login: 201 and the same body POST /v1/orders answers, with the correlation id", async () => {
  const c = await client();
  await login(c, trader);
  c.send({ type: "order", id: "c-1", body: order({ client_order_id: "ws-entry-1" }) });
  const r = await result(c, "c-1");
  assert.equal(r.status, 201);
  assert.equal(r.body.status, "open");
  assert.equal(r.body.client_order_id, "ws-entry-1");
  // the order exists for REST as placed, and REST's answer to the same placement has the same fields
  const rest = await call(h, "POST", "/v1/orders", {
    headers: keyHeaders(trader),
    body: order({ client_order_id: "rest-twin-1" }),
  });
  assert.equal(rest.status, 201);
  assert.deepEqual(Object.keys(r.body).sort(), Object.keys(rest.body).sort());
  const got = await call(h, "GET", `/v1/orders/${r.body.order_id}`, { headers: keyHeaders(trader) });
  assert.equal(got.status, 200);
  assert.equal(got.body.price, 1000);
  // a retry with the same client_order_id is the first order (idempotent across entries)
  c.send({ type: "order", id: 7, body: order({ client_order_id: "ws-entry-1" }) });
  const again = await result(c, 7);
  assert.equal(again.status, 201);
  assert.equal(again.body.order_id, r.body.order_id);
});

test("a wallet-signed order needs no login: 201, placed for the signing wallet; a bad signature is 401 and places nothing", async () => {
  const w = fundedWallet(h);
  const c = await client();
  c.send({
    type: "order",
    id: "w-1",
    body: await signedOrderBody(w, { side: "buy", price: 1000, size: 0.1, client_order_id: "wallet-ws-1" }),
  });
  const ok = await result(c, "w-1");
  assert.equal(ok.status, 201, JSON.stringify(ok));
  assert.equal(ok.body.client_order_id, "wallet-ws-1");

  const other = newWallet();
  // signed by another wallet, claiming w as the trader
  const forged = await signedOrderBody(other, {
    side: "buy",
    price: 1000,
    size: 0.1,
    client_order_id: "wallet-ws-forged",
  });
  (forged.order as Record<string, unknown>).trader = w.address;
  c.send({ type: "order", id: "w-2", body: forged });
  const bad = await result(c, "w-2");
  assert.equal(bad.status, 401);
  assert.equal(bad.body.error.code, "UNAUTHORIZED");
  assert.equal(bad.body.error.details.reason, "invalid_order_signature");
  assert.equal(JSON.stringify(bad).includes("stack"), false);
  const orders = await h.service.listOrders({ account: w.address, limit: 100 });
  assert.deepEqual(
    orders.map((o) => o.clientOrderId),
    ["wallet-ws-1"],
    "only the genuine order exists",
  );
});

test("refusals: no login, an unknown key, a replayed login, a read-only key, a bad body, a message without id", async () => {
  const before = (await openOrders(trader)).length;
  // no login: an API-key order is refused
  const anon = await client();
  anon.send({ type: "order", id: "a-1", body: order() });
  const a = await result(anon, "a-1");
  assert.equal(a.status, 401);
  assert.equal(a.body.error.details.reason, "missing_credentials");

  /** `ws`'s login refused for `reason`; an order on it is then refused 401 (it stays unauthenticated). */
  const loginRefused = async (ws: TestWs, reason: string) => {
    const e = await ws.next((m) => m.id === "login");
    assert.deepEqual([e.type, e.error.details.reason], ["error", reason]);
    ws.send({ type: "order", id: `${reason}-1`, body: order() });
    assert.equal((await result(ws, `${reason}-1`)).status, 401);
  };

  // an unknown key cannot log in, and the connection stays unauthenticated
  const bad = await client();
  bad.send(authMsg({ ...trader, apiKey: `k_${"0".repeat(40)}` }));
  await loginRefused(bad, "invalid_api_key");

  // the wrong secret signs the login
  const wrong = await client();
  wrong.send(authMsg({ ...trader, secret: readOnly.secret }));
  assert.equal((await wrong.next((m) => m.id === "login")).error.details.reason, "invalid_signature");

  // a login message replayed on another connection is refused (each signature once)
  const first = await client();
  const msg = authMsg(trader);
  first.send(msg);
  assert.equal((await first.next((m) => m.id === "login")).type, "authenticated");
  const replay = await client();
  replay.send(msg);
  await loginRefused(replay, "signature_replayed");

  // a key without the trade permission
  const ro = await client();
  await login(ro, readOnly);
  ro.send({ type: "order", id: "ro-1", body: order() });
  const f = await result(ro, "ro-1");
  assert.equal(f.status, 403);
  assert.equal(f.body.error.details.reason, "missing_permission");

  // bad bodies: answered with the id, the REST status and error body
  const c = await client();
  await login(c, trader);
  for (const [id, body, field] of [
    ["v-1", order({ price: 1000.001 }), undefined],
    ["v-2", order({ size: -1 }), undefined],
    ["v-3", order({ symbol: "DOGE-USD" }), undefined],
    ["v-4", { ...order(), extra: 1 }, undefined],
    ["v-5", "not an object", undefined],
  ] as const) {
    c.send({ type: "order", id, body });
    const r = await result(c, id);
    assert.equal(r.status, 400, `${id}: ${JSON.stringify(r)}`);
    assert.ok(["INVALID_REQUEST", "INVALID_SYMBOL"].includes(r.body.error.code), id);
    void field;
  }
  // an unknown field in the envelope, and no id at all: the plain error message
  c.send({ type: "order", id: "x-1", body: order(), more: true });
  assert.equal((await result(c, "x-1")).status, 400);
  c.send({ type: "order", body: order() });
  const noId = await c.next((m) => m.type === "error");
  assert.equal(noId.error.code, "INVALID_REQUEST");
  assert.equal((await openOrders(trader)).length, before, "no refusal placed an order");
});

test("the per-connection in-flight bound at its exact boundary: 4 unanswered orders are taken, the 5th is 429 and not placed", async () => {
  const MAX = 4;
  const hb = await startHarness({ ws: { connectionsPerMinutePerIp: 10_000, maxOrdersInFlight: MAX } });
  // the pipeline holds each order until released (a busy matcher): the orders stay in flight
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let entered = 0;
  const held: DexService = Object.assign(Object.create(hb.service) as DexService, {
    placeOrder: async (req: Parameters<DexService["placeOrder"]>[0]) => {
      entered += 1;
      await gate;
      return hb.service.placeOrder(req);
    },
  });
  const { ws: server, url: at } = await startWs(hb, {
    keys: hb.keys,
    placeOrder: createOrderPlacer({ service: held, keys: hb.keys, now: Date.now }),
  });
  try {
    const k = await fundedKey(hb);
    const c = await client(at);
    await login(c, k);
    for (let i = 1; i <= MAX; i++)
      c.send({ type: "order", id: `f-${i}`, body: order({ client_order_id: `inflight-${i}` }) });
    // wait until all 4 are inside the pipeline, then one past the bound
    for (let _t = 0; entered < MAX; _t++) await new Promise((r) => setTimeout(r, 10));
    c.send({ type: "order", id: "f-5", body: order({ client_order_id: "inflight-5" }) });
    const over = await result(c, "f-5");
    assert.equal(over.status, 429);
    assert.equal(over.body.error.code, "RATE_LIMIT_EXCEEDED");
    assert.deepEqual(over.body.error.details, { reason: "orders_in_flight", limit: MAX });
    assert.equal(entered, MAX, "the 5th never reached the pipeline");
    // another connection of the same key has its own bound: its order is taken
    const c2 = await client(at);
    await login(c2, k);
    c2.send({ type: "order", id: "g-1", body: order({ client_order_id: "inflight-other-conn" }) });
    for (let _t = 0; entered < MAX + 1; _t++) await new Promise((r) => setTimeout(r, 10));
    release();
    for (let i = 1; i <= MAX; i++) assert.equal((await result(c, `f-${i}`)).status, 201);
    assert.equal((await result(c2, "g-1")).status, 201);
    // answered: the connection may send again
    c.send({ type: "order", id: "f-6", body: order({ client_order_id: "inflight-6" }) });
    assert.equal((await result(c, "f-6")).status, 201);
    const all = (await call(hb, "GET", "/v1/orders?status=all", { headers: keyHeaders(k) })).body.orders as {
      client_order_id: string;
    }[];
    assert.deepEqual(all.map((o) => o.client_order_id).sort(), [
      "inflight-1",
      "inflight-2",
      "inflight-3",
      "inflight-4",
      "inflight-6",
      "inflight-other-conn",
    ]);
  } finally {
    await server.close();
    await hb.close();
  }
});

test("the REST order limit per API key applies to the entry: 2 per second, the 3rd of a burst is 429", async () => {
  const hb = await startHarness({ rateLimits: { ordersPerSecond: 2 }, ws: { connectionsPerMinutePerIp: 10_000 } });
  const { ws: server, url: at } = await startWs(hb, { keys: hb.keys, placeOrder: hb.placeOrder });
  try {
    const k = await fundedKey(hb);
    const c = await client(at);
    await login(c, k);
    // a burst of 3 in one window; a burst that straddles the fixed window's reset is tried again
    let statuses: number[] = [];
    for (let attempt = 0; attempt < 5; attempt++) {
      const ids = [0, 1, 2].map((i) => `rl-${attempt}-${i}`);
      for (const id of ids) c.send({ type: "order", id, body: order() });
      const rs = await Promise.all(ids.map((id) => result(c, id)));
      statuses = rs.map((r) => r.status).sort();
      if (statuses.includes(429)) {
        const refused = rs.find((r) => r.status === 429)!;
        assert.equal(refused.body.error.code, "RATE_LIMIT_EXCEEDED");
        assert.equal(refused.body.error.details.limit, 2);
        break;
      }
    }
    assert.deepEqual(statuses, [201, 201, 429]);
  } finally {
    await server.close();
    await hb.close();
  }
});
