// GTD, hidden and iceberg orders and the one refusal rule (#13), through the public interfaces on the
// in-memory harness: REST with an API key, wallet-signed REST, gRPC, and the WebSocket book and private
// channel. (test/e2e/order-features.test.ts runs the same through the real pipeline.)
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import {
  call,
  fundedKey,
  fundedWallet,
  keyHeaders,
  signedOrderBody,
  startGrpc,
  startHarness,
  startWs,
  walletHeaders,
  type Harness,
  type newWallet,
  type TestKey,
} from "../testing/harness";
import {
  createMemoryDexService,
  ORDER_TYPES,
  SETTLEMENT_DOMAIN,
  TEST_MARKETS,
  type MemoryDexService,
} from "../testing/memory-dex-service";
import { connectWs, ordersSession, type TestWs } from "../testing/ws-client";
import { PROTO_PATH, type DexGrpcServer } from "../grpc/server";
import type { DexWsServer } from "../ws/server";
import { signedOrderToWire } from "./order-intent";

let offset = 0;
const now = () => Date.now() + offset;
let service: MemoryDexService;
let h: Harness;
let ws: DexWsServer;
let wsUrl: string;
let grpcServer: DexGrpcServer;
let rpc: any;
let alice: TestKey;
let bob: TestKey;
let carol: TestKey;
const sockets: TestWs[] = [];

before(async () => {
  service = createMemoryDexService({ now });
  h = await startHarness({ service, now });
  ({ ws, url: wsUrl } = await startWs(h));
  const started = await startGrpc(h, { clock: { now } });
  grpcServer = started.grpc;
  const address = started.address;
  const pkg = grpc.loadPackageDefinition(
    protoLoader.loadSync(PROTO_PATH, { keepCase: true, longs: Number, enums: String, defaults: true }),
  ) as any;
  rpc = new pkg.dex.v1.TradingService(address, grpc.credentials.createInsecure());
  [alice, bob, carol] = [await fundedKey(h), await fundedKey(h), await fundedKey(h)];
});
after(async () => {
  for (const s of sockets) s.close();
  rpc?.close();
  await grpcServer.close();
  await ws.close();
  await h.close();
});

const SYMBOL = "WBTC-USD"; // a book of its own: the WETH-USD tests below do not meet these orders
const place = (k: TestKey, body: Record<string, unknown>) =>
  call(h, "POST", "/v1/orders", { headers: keyHeaders(k), body: { symbol: "WETH-USD", type: "limit", ...body } });
const grpcCall = <T = any>(method: string, req: object, k?: TestKey): Promise<T> =>
  new Promise((resolve, reject) => {
    const md = new grpc.Metadata();
    if (k) {
      md.set("x-api-key", k.apiKey);
      md.set("x-api-secret", k.secret);
    }
    rpc[method](req, md, (err: unknown, res: T) => (err ? reject(err) : resolve(res)));
  });
const restBook = async (symbol = "WETH-USD") => (await call(h, "GET", `/v1/orderbook/${symbol}?depth=50`)).body;
const privateWs = (k: TestKey): Promise<TestWs> => ordersSession(wsUrl, k, now(), sockets);
async function wsBook(symbol: string) {
  const c = await connectWs(wsUrl);
  sockets.push(c);
  c.send({ type: "subscribe", channel: "orderbook", symbol, depth: 50 });
  return c.next((m) => m.type === "orderbook_snapshot");
}
async function cancelAll(...keys: TestKey[]) {
  for (const k of keys) {
    const open = await call(h, "GET", "/v1/orders", { headers: keyHeaders(k) });
    for (const o of open.body.orders) await call(h, "DELETE", `/v1/orders/${o.order_id}`, { headers: keyHeaders(k) });
  }
}

test("GTD over REST (API key): rests with its expires_at, expires on time, and the expiry reaches the private channel", async () => {
  const priv = await privateWs(alice);
  const expiresAt = now() + 20_000;
  const r = await place(alice, { side: "buy", price: 1000, size: 0.1, time_in_force: "gtd", expires_at: expiresAt });
  assert.equal(r.status, 201, r.text);
  assert.equal(r.body.status, "open");
  assert.equal(r.body.time_in_force, "gtd");
  assert.equal(r.body.expires_at, expiresAt);
  offset += 19_000;
  service.tick();
  assert.equal(
    (await call(h, "GET", `/v1/orders/${r.body.order_id}`, { headers: keyHeaders(alice) })).body.status,
    "open",
    "not before its time",
  );
  offset += 1_000;
  service.tick();
  const ev = await priv.next(
    (m) => m.type === "order" && m.order.order_id === r.body.order_id && m.order.status === "expired",
  );
  assert.equal(ev.order.status_reason, "expired");
  assert.equal(ev.order.expires_at, expiresAt);
  const got = await call(h, "GET", `/v1/orders/${r.body.order_id}`, { headers: keyHeaders(alice) });
  assert.equal(got.body.status, "expired");
  assert.deepEqual((await restBook()).bids, []);
});

test("GTD wallet-signed: a signed expiry that lasts at least until expires_at rests as GTD; one that ends before is refused", async () => {
  const w = fundedWallet(h);
  const expiresAt = now() + 3_600_000;
  const expirySec = BigInt(Math.ceil(expiresAt / 1000)) + 10n;
  const body = await signedGtd(w, expiresAt, expirySec);
  const r = await call(h, "POST", "/v1/orders", { body });
  assert.equal(r.status, 201, r.text);
  assert.equal(r.body.status, "open");
  assert.equal(r.body.expires_at, expiresAt);
  const short = await call(h, "POST", "/v1/orders", {
    body: await signedGtd(w, expiresAt, BigInt(Math.floor(expiresAt / 1000)) - 1n),
  });
  assert.equal(short.status, 400, short.text);
  assert.equal(short.body.error.details.field, "expiry");
  const del = await call(h, "DELETE", `/v1/orders/${r.body.order_id}`, {
    headers: await walletHeaders(w, h, "DELETE", `/v1/orders/${r.body.order_id}`),
  });
  assert.equal(del.status, 200, del.text);
});

/** The spec fields of a buy of 0.1 WETH at 1000, good till `expiresAt` (a gRPC PlaceOrder request as it is). */
const gtdBuy = (expiresAt: number) => ({
  symbol: "WETH-USD",
  side: "buy",
  type: "limit",
  price: 1000,
  size: 0.1,
  time_in_force: "gtd",
  expires_at: expiresAt,
});

async function signedGtd(w: ReturnType<typeof newWallet>, expiresAt: number, expirySec: bigint) {
  const m = TEST_MARKETS[0];
  const order = {
    trader: w.address,
    baseToken: m.baseToken,
    quoteToken: m.quoteToken,
    side: 0,
    price: 100_000n * m.tickSize,
    amount: 1_000n * m.lotSize,
    expiry: expirySec,
    nonce: BigInt(Math.floor(Math.random() * 1e12)),
    flags: 0,
  } as const;
  const signature = await w.signTypedData({
    domain: SETTLEMENT_DOMAIN,
    types: ORDER_TYPES,
    primaryType: "Order",
    message: order,
  });
  return { ...gtdBuy(expiresAt), order: signedOrderToWire(order), signature };
}

test("GTD over gRPC: rests, echoes expires_at, expires on time", async () => {
  const expiresAt = now() + 600_000;
  const r = await grpcCall("PlaceOrder", gtdBuy(expiresAt), alice);
  assert.equal(r.status, "open");
  assert.equal(r.time_in_force, "gtd");
  assert.equal(r.expires_at, expiresAt);
  offset += 600_000;
  service.tick();
  assert.equal(
    (await call(h, "GET", `/v1/orders/${r.order_id}`, { headers: keyHeaders(alice) })).body.status,
    "expired",
  );
});

test("hidden: invisible in the REST, WebSocket and gRPC books, yet it matches", async () => {
  const hidden = await place(bob, { symbol: SYMBOL, side: "sell", price: 30_000, size: 0.5, hidden: true });
  assert.equal(hidden.status, 201, hidden.text);
  assert.equal(hidden.body.status, "open");
  assert.equal(hidden.body.hidden, true);
  assert.deepEqual((await restBook(SYMBOL)).asks, []);
  assert.deepEqual((await wsBook(SYMBOL)).asks, []);
  assert.deepEqual((await grpcCall("GetOrderBook", { symbol: SYMBOL, depth: 10 })).asks, []);
  const g = await grpcCall(
    "PlaceOrder",
    { symbol: SYMBOL, side: "sell", type: "limit", price: 30_001, size: 0.1, hidden: true },
    bob,
  );
  assert.equal(g.status, "open");
  assert.equal(g.hidden, true);
  assert.deepEqual((await grpcCall("GetOrderBook", { symbol: SYMBOL, depth: 10 })).asks, []);
  const take = await place(alice, { symbol: SYMBOL, side: "buy", price: 30_000, size: 0.5 });
  assert.equal(take.body.status, "filled", take.text);
  const maker = await call(h, "GET", `/v1/orders/${hidden.body.order_id}`, { headers: keyHeaders(bob) });
  assert.equal(maker.body.status, "filled");
  await cancelAll(bob);
});

test("hidden and iceberg_visible_size are refused where they cannot apply (400, nothing placed)", async () => {
  for (const body of [
    { side: "buy", price: 1000, size: 0.1, hidden: true, time_in_force: "ioc" },
    { side: "buy", type: "market", size: 0.1, hidden: true },
    { side: "buy", price: 1000, size: 0.1, iceberg_visible_size: 0.2 },
    { side: "buy", price: 1000, size: 0.1, iceberg_visible_size: 0.05, hidden: true },
    { side: "buy", price: 1000, size: 0.1, iceberg_visible_size: 0.00001 },
    { side: "buy", price: 1000, size: 0.1, hidden: "yes" },
  ]) {
    const r = await place(alice, body);
    assert.equal(r.status, 400, `${JSON.stringify(body)}: ${r.text}`);
    assert.equal(r.body.error.code, "INVALID_REQUEST");
  }
});

test("iceberg: shows only its slice, refreshes it after a fill, and the refreshed slice queues behind orders already at that price", async () => {
  const ice = await place(bob, { side: "sell", price: 2000, size: 1, iceberg_visible_size: 0.2 });
  assert.equal(ice.status, 201, ice.text);
  assert.equal(ice.body.iceberg_visible_size, 0.2);
  assert.deepEqual((await restBook()).asks, [{ price: 2000, size: 0.2 }]);
  assert.deepEqual((await wsBook("WETH-USD")).asks, [[2000, 0.2]]);
  const plain = await place(carol, { side: "sell", price: 2000, size: 0.3 });
  assert.deepEqual((await restBook()).asks, [{ price: 2000, size: 0.5 }]);
  // the slice is first in time: it fills, and the refreshed slice goes behind carol's order
  const t1 = await place(alice, { side: "buy", price: 2000, size: 0.2 });
  assert.equal(t1.body.status, "filled", t1.text);
  assert.equal(
    (await call(h, "GET", `/v1/orders/${ice.body.order_id}`, { headers: keyHeaders(bob) })).body.filled_size,
    0.2,
  );
  assert.deepEqual((await restBook()).asks, [{ price: 2000, size: 0.5 }], "the slice is refreshed");
  assert.deepEqual((await grpcCall("GetOrderBook", { symbol: "WETH-USD", depth: 10 })).asks, [
    { price: 2000, size: 0.5 },
  ]);
  const t2 = await place(alice, { side: "buy", price: 2000, size: 0.3 });
  assert.equal(t2.body.status, "filled", t2.text);
  assert.equal(
    (await call(h, "GET", `/v1/orders/${plain.body.order_id}`, { headers: keyHeaders(carol) })).body.status,
    "filled",
    "carol's order, older than the refreshed slice, filled first",
  );
  assert.equal(
    (await call(h, "GET", `/v1/orders/${ice.body.order_id}`, { headers: keyHeaders(bob) })).body.filled_size,
    0.2,
  );
  const g = await grpcCall(
    "PlaceOrder",
    { symbol: "WETH-USD", side: "sell", type: "limit", price: 2100, size: 1, iceberg_visible_size: 0.1 },
    carol,
  );
  assert.equal(g.status, "open");
  assert.equal(g.iceberg_visible_size, 0.1);
  assert.deepEqual(
    (await restBook()).asks.find((l: any) => l.price === 2100),
    { price: 2100, size: 0.1 },
  );
  await cancelAll(bob, carol);
});

test("one refusal rule: a well-formed order the book refuses is 201 rejected with its reason, echoing what was sent; a bad expiry is 400", async () => {
  await place(bob, { side: "sell", price: 2500, size: 0.1 });
  const postOnly = await place(alice, {
    side: "buy",
    price: 2600,
    size: 0.1,
    time_in_force: "post_only",
    client_order_id: "po-1",
  });
  assert.equal(postOnly.status, 201, postOnly.text);
  assert.deepEqual(
    pick(postOnly.body, ["status", "status_reason", "price", "size", "time_in_force", "client_order_id"]),
    {
      status: "rejected",
      status_reason: "post_only_would_take",
      price: 2600,
      size: 0.1,
      time_in_force: "post_only",
      client_order_id: "po-1",
    },
  );
  const fok = await place(alice, { side: "buy", price: 2500, size: 5, time_in_force: "fok" });
  assert.deepEqual(pick(fok.body, ["status", "status_reason", "price", "size"]), {
    status: "rejected",
    status_reason: "fok_not_fillable",
    price: 2500,
    size: 5,
  });
  // a trade at 2500 sets the last price; a buy stop_loss whose trigger is already crossed is refused
  assert.equal((await place(alice, { side: "buy", price: 2500, size: 0.1 })).body.status, "filled");
  const stop = await place(alice, {
    side: "buy",
    type: "stop_loss_limit",
    price: 2700,
    trigger_price: 2400,
    size: 0.1,
  });
  assert.equal(stop.status, 201, stop.text);
  assert.deepEqual(pick(stop.body, ["status", "status_reason", "price", "trigger_price"]), {
    status: "rejected",
    status_reason: "invalid_trigger_price",
    price: 2700,
    trigger_price: 2400,
  });
  const w = fundedWallet(h);
  await place(bob, { side: "sell", price: 2500, size: 0.1 });
  const signed = await call(h, "POST", "/v1/orders", {
    body: await signedOrderBody(w, { side: "buy", price: 2600, size: 0.1, time_in_force: "post_only" }),
  });
  assert.deepEqual(pick(signed.body, ["status", "status_reason", "price"]), {
    status: "rejected",
    status_reason: "post_only_would_take",
    price: 2600,
  });
  const g = await grpcCall(
    "PlaceOrder",
    { symbol: "WETH-USD", side: "buy", type: "limit", price: 2600, size: 0.1, time_in_force: "post_only" },
    alice,
  );
  assert.deepEqual(pick(g, ["status", "status_reason", "price", "size", "time_in_force"]), {
    status: "rejected",
    status_reason: "post_only_would_take",
    price: 2600,
    size: 0.1,
    time_in_force: "post_only",
  });
  // bad expiries: the request is wrong, nothing is created (400 with the spec body), on every path
  const past = await place(alice, { side: "buy", price: 1000, size: 0.1, time_in_force: "gtd", expires_at: now() - 1 });
  assert.equal(past.status, 400, past.text);
  assert.equal(past.body.error.details.field, "expires_at");
  await assert.rejects(
    grpcCall("PlaceOrder", gtdBuy(now() - 1), alice),
    (e: any) => e.metadata.get("x-error-code")[0] === "INVALID_REQUEST",
  );
  await cancelAll(bob);
});

function pick(o: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((k) => [k, o[k]]));
}
