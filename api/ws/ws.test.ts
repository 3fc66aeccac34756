// The DEX WebSocket over real sockets against the in-memory test double.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createApiLogger } from "../logger";
import {
  call,
  fileHarness,
  fileKey,
  fileWs,
  fundedKey,
  keyHeaders,
  startHarness,
  startWs,
  type TestKey,
} from "../testing/harness";
import { connectWs, wsAuthMessage, type TestWs } from "../testing/ws-client";
import { OrderBook } from "../../sdk/book";

const h = fileHarness({
  ws: { maxConnectionsPerUser: 5, maxSubscriptionsPerConnection: 50, connectionsPerMinutePerIp: 10_000 },
});
const open: TestWs[] = [];
const server = fileWs(h, () => ({ logger: createApiLogger({ level: process.env.WS_TEST_LOG ?? "silent" }) }), open);
const alice = fileKey(h);
const bob = fileKey(h);

async function client(): Promise<TestWs> {
  const c = await connectWs(server.url);
  open.push(c);
  return c;
}
const place = (k: TestKey, side: "buy" | "sell", price: number, size: number, symbol = "WETH-USD") =>
  call(h, "POST", "/v1/orders", { headers: keyHeaders(k), body: { symbol, side, type: "limit", price, size } });
const authMsg = (k: TestKey, ts = Date.now()) => wsAuthMessage(k, ts);

async function restBook(depth: number) {
  const r = await call(h, "GET", `/v1/orderbook/WETH-USD?depth=${depth}`);
  return { bids: r.body.bids.map((l: any) => [l.price, l.size]), asks: r.body.asks.map((l: any) => [l.price, l.size]) };
}

/** The SDK's book (what a client holds), bids descending and asks ascending, as the REST book is compared. */
const levelsOf = (book: OrderBook) => ({ bids: book.levels("bid"), asks: book.levels("ask") });

async function waitUntilEqual(book: OrderBook, depth: number, c: TestWs, results: string[]) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    while (c.messages.length) {
      const m = c.messages.shift();
      if (m.type === "orderbook_snapshot" || m.type === "orderbook_update") results.push(book.apply(m));
    }
    const rest = await restBook(depth);
    if (JSON.stringify(levelsOf(book)) === JSON.stringify(rest)) return rest;
    if (Date.now() > deadline)
      assert.deepEqual(levelsOf(book), rest, `WS book equals the REST book (results ${results.join(",")})`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test("orderbook: snapshot + updates hold exactly the REST book after a burst of orders", async () => {
  const c = await client();
  c.send({ type: "subscribe", channel: "orderbook", symbol: "WETH-USD", depth: 10 });
  await c.next((m) => m.type === "subscribed");
  const book = new OrderBook(10);
  const snap = await c.next((m) => m.type === "orderbook_snapshot");
  assert.deepEqual(Object.keys(snap).sort(), [
    "asks",
    "bids",
    "checksum",
    "depth",
    "sequence",
    "symbol",
    "timestamp",
    "type",
  ]);
  assert.equal(book.apply(snap), "ok");
  // a burst: 60 orders, crossing and resting, at prices around 2000, from two accounts
  let seed = 7;
  const rnd = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  await Promise.all(
    Array.from({ length: 60 }, (_, i) => {
      const side = rnd() < 0.5 ? "buy" : "sell";
      const price = 1990 + Math.floor(rnd() * 20);
      const size = (1 + Math.floor(rnd() * 20)) / 10;
      return place(i % 2 ? alice : bob, side, price, size);
    }),
  );
  const results: string[] = [];
  await waitUntilEqual(book, 10, c, results);
  assert.ok(results.length > 5, `got ${results.length} updates`);
  assert.deepEqual([...new Set(results)], ["ok"], "every update in sequence with a matching checksum");
  const update = c.messages.find((m) => m.type === "orderbook_update") ?? { type: "orderbook_update" };
  assert.equal(update.type, "orderbook_update");
});

test("orderbook: a dropped update is detected by the sequence; resubscribing resyncs", async () => {
  const c = await client();
  c.send({ type: "subscribe", channel: "orderbook", symbol: "WETH-USD", depth: 100 });
  const book = new OrderBook(100);
  assert.equal(book.apply(await c.next((m) => m.type === "orderbook_snapshot")), "ok");
  await place(alice, "buy", 1500, 0.1);
  await place(alice, "buy", 1501, 0.1);
  const first = await c.next((m) => m.type === "orderbook_update");
  const second = await c.next((m) => m.type === "orderbook_update");
  assert.equal(second.prev_sequence, first.sequence, "each update names the one before it");
  assert.ok(second.sequence > first.sequence);
  // the first update is lost on the way: the client sees the gap
  assert.equal(book.apply(second), "gap");
  c.send({ type: "unsubscribe", channel: "orderbook", symbol: "WETH-USD", depth: 100 });
  await c.next((m) => m.type === "unsubscribed");
  c.send({ type: "subscribe", channel: "orderbook", symbol: "WETH-USD", depth: 100 });
  assert.equal(book.apply(await c.next((m) => m.type === "orderbook_snapshot")), "ok");
  const results: string[] = [];
  await waitUntilEqual(book, 100, c, results);
});

test("orderbook: a gap in the service's own sequence is healed by the server (clients stay exact)", async () => {
  const c = await client();
  c.send({ type: "subscribe", channel: "orderbook", symbol: "WETH-USD", depth: 20 });
  const book = new OrderBook(20);
  assert.equal(book.apply(await c.next((m) => m.type === "orderbook_snapshot")), "ok");
  h.service.skipNextBookSequence();
  await place(bob, "sell", 2600, 0.3);
  await place(bob, "sell", 2601, 0.3);
  const results: string[] = [];
  await waitUntilEqual(book, 20, c, results);
  assert.deepEqual([...new Set(results)], ["ok"]);
});

test("trades: spec 6.3 fields, a sequence, the taker side", async () => {
  const c = await client();
  // WBTC-USD: a book no other test touches
  c.send({ type: "subscribe", channel: "trades", symbol: "WBTC-USD" });
  const ack = await c.next((m) => m.type === "subscribed");
  await place(alice, "sell", 60000, 0.5, "WBTC-USD");
  await place(bob, "buy", 60000, 0.5, "WBTC-USD");
  const t = await c.next((m) => m.type === "trade");
  assert.deepEqual(
    { symbol: t.symbol, price: t.price, size: t.size, side: t.side, seq: t.sequence },
    { symbol: "WBTC-USD", price: 60000, size: 0.5, side: "buy", seq: ack.sequence + 1 },
  );
  assert.equal(typeof t.timestamp, "number");
});

test("orders channel: own orders and fills after auth, nothing of another account", async () => {
  const c = await client();
  c.send({ type: "subscribe", channel: "orders" });
  const refused = await c.next((m) => m.type === "error");
  assert.equal(refused.error.code, "UNAUTHORIZED");
  c.send(authMsg(alice));
  const ok = await c.next((m) => m.type === "authenticated");
  assert.equal(ok.account, alice.owner.address);
  c.send({ type: "subscribe", channel: "orders" });
  await c.next((m) => m.type === "subscribed" && m.channel === "orders");
  const mine = await place(alice, "sell", 61000, 0.2, "WBTC-USD");
  await place(bob, "buy", 61000, 0.2, "WBTC-USD");
  const filled = await c.next((m) => m.type === "order" && m.order.order_id === mine.body.order_id && m.fill);
  assert.equal(filled.order.status, "filled");
  assert.equal(filled.fill.price, 61000);
  assert.equal(filled.fill.liquidity, "maker");
  await new Promise((r) => setTimeout(r, 50));
  assert.ok(
    !c.messages.some((m) => m.type === "order" && m.order.order_id !== mine.body.order_id && m.order.side === "buy"),
    "bob's order never shown to alice",
  );
});

const badMessages: [string, string | Buffer, string][] = [
  ["malformed JSON", "{type:", "INVALID_REQUEST"],
  ["a JSON array", "[]", "INVALID_REQUEST"],
  ["no type", JSON.stringify({ channel: "trades" }), "INVALID_REQUEST"],
  ["unknown type", JSON.stringify({ type: "withdraw", amount: 1 }), "INVALID_REQUEST"],
  ["type of the wrong type", JSON.stringify({ type: 5 }), "INVALID_REQUEST"],
  ["unknown channel", JSON.stringify({ type: "subscribe", channel: "candles", symbol: "WETH-USD" }), "INVALID_REQUEST"],
  ["unknown symbol", JSON.stringify({ type: "subscribe", channel: "trades", symbol: "DOGE-USD" }), "INVALID_SYMBOL"],
  ["missing symbol", JSON.stringify({ type: "subscribe", channel: "orderbook", depth: 5 }), "INVALID_REQUEST"],
  [
    "depth 0",
    JSON.stringify({ type: "subscribe", channel: "orderbook", symbol: "WETH-USD", depth: 0 }),
    "INVALID_REQUEST",
  ],
  [
    "depth negative",
    JSON.stringify({ type: "subscribe", channel: "orderbook", symbol: "WETH-USD", depth: -3 }),
    "INVALID_REQUEST",
  ],
  [
    "depth huge",
    JSON.stringify({ type: "subscribe", channel: "orderbook", symbol: "WETH-USD", depth: 1e9 }),
    "INVALID_REQUEST",
  ],
  [
    "depth a string",
    JSON.stringify({ type: "subscribe", channel: "orderbook", symbol: "WETH-USD", depth: "10" }),
    "INVALID_REQUEST",
  ],
  [
    "depth fractional",
    JSON.stringify({ type: "subscribe", channel: "orderbook", symbol: "WETH-USD", depth: 2.5 }),
    "INVALID_REQUEST",
  ],
  ["extra field", JSON.stringify({ type: "ping", admin: true }), "INVALID_REQUEST"],
  [
    "unsubscribe without a subscription",
    JSON.stringify({ type: "unsubscribe", channel: "trades", symbol: "WBTC-USD" }),
    "INVALID_REQUEST",
  ],
  ["a binary frame", Buffer.from([1, 2, 3]), "INVALID_REQUEST"],
  [
    "auth with a bad signature",
    JSON.stringify({ type: "auth", api_key: "ab", timestamp: Date.now(), signature: "00".repeat(32) }),
    "UNAUTHORIZED",
  ],
  [
    "auth with a stale timestamp",
    JSON.stringify({ type: "auth", api_key: "ab", timestamp: 1, signature: "00".repeat(32) }),
    "UNAUTHORIZED",
  ],
];

test("bad messages: an error in the spec's shape each time, the connection kept", async () => {
  const c = await client();
  for (const [name, msg, code] of badMessages) {
    c.ws.send(msg);
    const e = await c.next((m) => m.type === "error");
    assert.equal(e.error.code, code, name);
    assert.equal(typeof e.error.message, "string", name);
    assert.equal(typeof e.error.details, "object", name);
    c.send({ type: "ping", id: name });
    const pong = await c.next((m) => m.type === "pong");
    assert.equal(pong.id, name, `still connected after: ${name}`);
  }
});

test("a message above the size limit closes the connection (1009), memory stays bounded", async () => {
  for (const x of open.splice(0)) x.close();
  await new Promise((r) => setTimeout(r, 100));
  const c = await client();
  c.send(JSON.stringify({ type: "ping", pad: "x".repeat(1024 * 1024) }));
  const closed = await c.closed;
  assert.equal(closed.code, 1009);
});

test("auth: replayed signature refused; a key used on more than 5 connections refused", async () => {
  for (const x of open.splice(0)) x.close();
  await new Promise((r) => setTimeout(r, 100));
  const a = await client();
  const msg = authMsg(bob);
  a.send(msg);
  await a.next((m) => m.type === "authenticated");
  const b = await client();
  b.send(msg);
  assert.equal((await b.next((m) => m.type === "error")).error.details.reason, "signature_replayed");
  const conns = [a];
  for (let i = 0; i < 4; i++) {
    const x = await client();
    x.send(authMsg(bob, Date.now() + i + 1));
    await x.next((m) => m.type === "authenticated");
    conns.push(x);
  }
  b.send(authMsg(bob, Date.now() + 10));
  const e = await b.next((m) => m.type === "error");
  assert.equal(e.error.code, "RATE_LIMIT_EXCEEDED");
  assert.equal(e.error.details.reason, "connections_per_user");
  for (const x of conns) x.close();
  b.close();
});

test("limits: 5 anonymous connections per address, 50 subscriptions per connection", async () => {
  for (const c of open.splice(0)) c.close();
  await new Promise((r) => setTimeout(r, 100));
  const five = await Promise.all([1, 2, 3, 4, 5].map(() => client()));
  const sixth = await connectWs(server.url);
  const e = await sixth.next((m) => m.type === "error");
  assert.equal(e.error.code, "RATE_LIMIT_EXCEEDED");
  assert.equal((await sixth.closed).code, 1013);
  const c = five[0];
  for (let d = 1; d <= 50; d++)
    c.send({ type: "subscribe", channel: "orderbook", symbol: d % 2 ? "WETH-USD" : "WBTC-USD", depth: d });
  for (let d = 1; d <= 50; d++) await c.next((m) => m.type === "orderbook_snapshot");
  c.send({ type: "subscribe", channel: "trades", symbol: "WETH-USD" });
  const over = await c.next((m) => m.type === "error");
  assert.equal(over.error.details.reason, "subscriptions_per_connection");
  for (const x of open.splice(0)) x.close();
});

test("heartbeats arrive on their interval", async () => {
  const hb = await startHarness({ ws: { heartbeatIntervalMs: 100 } });
  const { ws: srv, url: hbUrl } = await startWs(hb);
  try {
    const c = await connectWs(hbUrl);
    const beat = await c.next((m) => m.type === "heartbeat", 2000);
    assert.equal(typeof beat.timestamp, "number");
    c.close();
  } finally {
    await srv.close();
    await hb.close();
  }
});

test("a slow consumer is disconnected instead of buffering without bound", async () => {
  const hb = await startHarness({ ws: { maxBufferedBytes: 64 * 1024, connectionsPerMinutePerIp: 10_000 } });
  const { ws: srv, url: hbUrl } = await startWs(hb);
  try {
    const k = await fundedKey(hb);
    // 100 levels per side: each snapshot is a few KB
    for (let i = 0; i < 100; i++) {
      await call(hb, "POST", "/v1/orders", {
        headers: keyHeaders(k),
        body: { symbol: "WETH-USD", side: "buy", type: "limit", price: 1000 + i, size: 0.1 },
      });
      await call(hb, "POST", "/v1/orders", {
        headers: keyHeaders(k),
        body: { symbol: "WETH-USD", side: "sell", type: "limit", price: 3000 + i, size: 0.1 },
      });
    }
    const c = await connectWs(hbUrl);
    // the client stops reading, but keeps asking for snapshots
    (c.ws as any)._socket.pause();
    for (let i = 0; i < 4000 && srv.connectionCount() > 0; i++) {
      c.send({ type: "subscribe", channel: "orderbook", symbol: "WETH-USD", depth: 100 });
      c.send({ type: "unsubscribe", channel: "orderbook", symbol: "WETH-USD", depth: 100 });
      if (i % 100 === 0) await new Promise((r) => setTimeout(r, 5));
    }
    const deadline = Date.now() + 15_000;
    while (srv.connectionCount() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.equal(srv.connectionCount(), 0, "the server dropped the slow consumer");
    c.close();
  } finally {
    await srv.close();
    await hb.close();
  }
});
