// The SDK's client parts against the real DEX REST app and gRPC server (over sockets, on the in-memory DEX
// service of api/testing): the HMAC signer equals the server's, the typed REST client's three auth schemes,
// wallet-signed orders from viem and ethers wallets (same signature, accepted), the gRPC client with both
// key schemes and its error mapping, and the WebSocket BookFeed against a scripted server (gap, checksum,
// dropped connection).
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { Wallet } from "ethers";
import { WebSocketServer, type WebSocket as WsSocket } from "ws";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { signRequest } from "../api/auth/hmac";
import { assertChecksumMatchesServer } from "../api/testing/checksum-property";
import type { DexGrpcServer } from "../api/grpc/server";
import { fund, fundedKey, startGrpc, startHarness, type Harness, type TestKey } from "../api/testing/harness";
import {
  BookFeed,
  BookFeedError,
  MAX_STREAM_BOOK_DEPTH,
  bookChecksum,
  buildOrder,
  createDexClient,
  createTradingClient,
  DexApiError,
  DexGrpcError,
  fromEthers,
  fromViem,
  getOrderHash,
  hmacSignature,
  ok,
  ORDER_TYPES,
  signWalletOrder,
  type MarketsResponse,
  type WsLevel,
} from "./index";
import { recoverTypedDataAddress, type Address } from "viem";

let h: Harness;
let grpcServer: DexGrpcServer;
let grpcAddress: string;
let trader: TestKey;
let markets: MarketsResponse;

before(async () => {
  h = await startHarness({ rateLimits: { ordersPerSecond: 1000 } });
  ({ grpc: grpcServer, address: grpcAddress } = await startGrpc(h));
  trader = await fundedKey(h);
  markets = await ok(createDexClient({ baseUrl: h.origin }).GET("/v1/markets"));
});
after(async () => {
  await grpcServer.close();
  await h.close();
});

test("hmacSignature equals the server's HMAC for any secret, method, path and body", () => {
  fc.assert(
    fc.property(
      fc.string(),
      fc.nat(),
      fc.constantFrom("get", "POST", "delete"),
      fc.string(),
      fc.string(),
      (secret, ts, method, path, body) => {
        assert.equal(
          hmacSignature(secret, ts, method, path, body),
          signRequest(secret, String(ts), method, path, body),
        );
      },
    ),
  );
});

test("bookChecksum (pure JS CRC32) equals the server's (zlib) for any levels", () => {
  const level = fc.tuple(
    fc.double({ min: 0.01, max: 1e9, noNaN: true }),
    fc.double({ min: 1e-8, max: 1e6, noNaN: true }),
  ) as fc.Arbitrary<WsLevel>;
  assertChecksumMatchesServer(bookChecksum, level, 30);
});

test("REST client: the key's secret, the HMAC scheme and a wallet's signature each authenticate; errors are DexApiError", async () => {
  for (const scheme of ["secret", "hmac"] as const) {
    const dex = createDexClient({
      baseUrl: h.origin,
      auth: { apiKey: trader.apiKey, apiSecret: trader.secret, scheme },
    });
    const { balances } = await ok(dex.GET("/v1/balances"));
    assert.ok(
      balances.some((b) => b.asset === "USD" && b.on_chain === "1000000"),
      JSON.stringify(balances),
    );
    // a query string and a body are signed as sent: an order with the HMAC scheme
    const placed = await ok(
      dex.POST("/v1/orders", {
        body: {
          symbol: "WETH-USD",
          side: "buy",
          type: "limit",
          price: 1000,
          size: 0.1,
          client_order_id: `c-${scheme}`,
        },
      }),
    );
    assert.equal(placed.status, "open");
    const listed = await ok(dex.GET("/v1/orders", { params: { query: { symbol: "WETH-USD", status: "open" } } }));
    assert.ok(JSON.stringify(listed).includes(placed.order_id));
  }
  // a wallet creates a key: the wallet scheme only
  const wallet = privateKeyToAccount(generatePrivateKey());
  const key = await ok(
    createDexClient({ baseUrl: h.origin, auth: { wallet: fromViem(wallet) } }).POST("/v1/api-keys", {
      body: { permissions: ["read"] },
    }),
  );
  assert.match(key.api_key, /\S/);
  // a wrong secret: 401 with the spec's error body, thrown as DexApiError
  const bad = createDexClient({
    baseUrl: h.origin,
    auth: { apiKey: trader.apiKey, apiSecret: "wrong", scheme: "hmac" },
  });
  await assert.rejects(
    ok(bad.GET("/v1/balances")),
    (e: DexApiError) => e instanceof DexApiError && e.status === 401 && e.code === "UNAUTHORIZED",
  );
  // a signature from a clock 6 s off (the window is 5 s): refused
  const skewed = createDexClient({
    baseUrl: h.origin,
    auth: { apiKey: trader.apiKey, apiSecret: trader.secret, scheme: "hmac" },
    now: () => Date.now() - 6_000,
  });
  await assert.rejects(ok(skewed.GET("/v1/balances")), (e: DexApiError) => e.status === 401);
});

test("wallet-signed orders: viem and ethers sign the same bytes; the order is accepted; bad decimals are refused before signing", async () => {
  const key = generatePrivateKey();
  const account = privateKeyToAccount(key);
  fund(h, account.address);
  const viemSigner = fromViem(account);
  const ethersSigner = fromEthers(new Wallet(key));
  assert.equal(await ethersSigner.getAddress(), account.address);
  const input = {
    symbol: "WETH-USD",
    side: "sell" as const,
    price: "2000.5",
    size: "0.25",
    nonce: 77n,
    expiry: 2_000_000_000n,
  };
  const a = await signWalletOrder(viemSigner, markets, input);
  const b = await signWalletOrder(ethersSigner, markets, input);
  assert.equal(a.signature, b.signature);
  // the signature recovers to the trader over the contract's Order hash
  const order = buildOrder(markets, account.address, input);
  const d = markets.eip712.domain;
  const domain = {
    name: d.name,
    version: d.version,
    chainId: d.chainId,
    verifyingContract: d.verifyingContract as Address,
  };
  assert.deepEqual(markets.eip712.types.Order, ORDER_TYPES.Order);
  assert.equal(
    await recoverTypedDataAddress({
      domain,
      types: ORDER_TYPES,
      primaryType: "Order",
      message: order,
      signature: a.signature,
    }),
    account.address,
  );
  assert.ok(getOrderHash(domain, order));
  const placed = await ok(createDexClient({ baseUrl: h.origin }).POST("/v1/orders", { body: b }));
  assert.equal(placed.status, "open");
  // the exponents: one more decimal than the tick allows is refused here, the boundary is accepted
  const m = markets.markets.find((x) => x.symbol === "WETH-USD")!;
  const exp = m.signed_order.price_exponent;
  assert.doesNotThrow(() => buildOrder(markets, account.address, { ...input, price: `1.${"1".repeat(exp)}` }));
  assert.throws(
    () => buildOrder(markets, account.address, { ...input, price: `1.${"1".repeat(exp + 1)}` }),
    RangeError,
  );
  assert.throws(() => buildOrder(markets, account.address, { ...input, size: "0" }), RangeError);
  assert.throws(() => buildOrder(markets, account.address, { ...input, symbol: "NOPE-USD" }), /no market/);
  // post_only / limit_maker set the signed flag
  assert.equal(
    buildOrder(markets, account.address, { ...input, type: "limit_maker" }).flags,
    markets.eip712.flags.post_only,
  );
  assert.equal(buildOrder(markets, account.address, input).flags, 0);
});

test("gRPC client: place (secret and HMAC schemes), read the book, cancel; refusals carry the DEX error code", async () => {
  for (const scheme of ["secret", "hmac"] as const) {
    const c = createTradingClient(grpcAddress, { auth: { apiKey: trader.apiKey, apiSecret: trader.secret, scheme } });
    try {
      const placed = await c.placeOrder({
        symbol: "WETH-USD",
        side: "sell",
        type: "limit",
        price: 3000,
        size: 0.5,
        time_in_force: "gtc",
      });
      assert.equal(placed.status, "open");
      assert.match(placed.order_id, /^[0-9a-f-]{36}$/);
      const book = await c.getOrderBook("WETH-USD", 5);
      assert.ok(
        book.asks.some((l) => l.price === 3000 && l.size >= 0.5),
        JSON.stringify(book),
      );
      const cancelled = await c.cancelOrder(placed.order_id);
      assert.deepEqual(
        { id: cancelled.order_id, status: cancelled.status },
        { id: placed.order_id, status: "cancelled" },
      );
      await assert.rejects(
        c.cancelOrder(placed.order_id),
        (e: DexGrpcError) => e instanceof DexGrpcError && e.code === "ORDER_NOT_OPEN",
      );
      await assert.rejects(
        c.placeOrder({ symbol: "WETH-USD", side: "buy", type: "limit", price: 1000.001, size: 0.1 }),
        (e: DexGrpcError) => e.code === "INVALID_ORDER" || e.code === "INVALID_REQUEST",
      );
    } finally {
      c.close();
    }
  }
  // StreamTrades: a crossing pair from two traders arrives on the stream, with the taker's side
  const other = await fundedKey(h);
  const maker = createTradingClient(grpcAddress, { auth: { apiKey: trader.apiKey, apiSecret: trader.secret } });
  const taker = createTradingClient(grpcAddress, {
    auth: { apiKey: other.apiKey, apiSecret: other.secret, scheme: "hmac" },
  });
  // the stream is open once the server subscribed it to the service's events: seen by wrapping subscribe
  const subscribe = h.service.subscribe;
  const subscribed = new Promise<void>((resolve) => {
    h.service.subscribe = (listener) => {
      const off = subscribe.call(h.service, listener);
      resolve();
      return off;
    };
  });
  const stream = maker.streamTrades("WETH-USD");
  try {
    const first = new Promise<any>((resolve, reject) => {
      stream.on("data", resolve);
      stream.on("error", reject);
    });
    await subscribed;
    // 1500: between the earlier tests' resting bids (1000) and asks (2000.5), so the pair trades with each other
    await maker.placeOrder({ symbol: "WETH-USD", side: "sell", type: "limit", price: 1500, size: 0.2 });
    const filled = await taker.placeOrder({
      symbol: "WETH-USD",
      side: "buy",
      type: "limit",
      price: 1500,
      size: 0.2,
      time_in_force: "ioc",
    });
    assert.equal(filled.status, "filled", JSON.stringify(filled));
    const t = await first;
    assert.deepEqual(
      { symbol: t.symbol, price: t.price, size: t.size, side: t.side, sequence: t.sequence },
      { symbol: "WETH-USD", price: 1500, size: 0.2, side: "buy", sequence: 1 },
    );
  } finally {
    h.service.subscribe = subscribe;
    stream.cancel();
    maker.close();
    taker.close();
  }
  const anon = createTradingClient(grpcAddress);
  try {
    await assert.rejects(
      anon.placeOrder({ symbol: "WETH-USD", side: "buy", type: "limit", price: 1000, size: 0.1 }),
      (e: DexGrpcError) => e.code === "UNAUTHORIZED",
    );
  } finally {
    anon.close();
  }
});

/** A scripted orderbook server: records what the client sends, lets the test send what it wants. */
async function scriptedServer() {
  const wss = new WebSocketServer({ port: 0, host: "127.0.0.1" });
  await new Promise<void>((r) => wss.once("listening", () => r()));
  const received: any[] = [];
  const conns: WsSocket[] = [];
  const waiters: (() => void)[] = [];
  wss.on("connection", (ws) => {
    conns.push(ws);
    ws.on("message", (d) => {
      received.push(JSON.parse(String(d)));
      waiters.splice(0).forEach((w) => w());
    });
  });
  const until = async (pred: () => boolean) => {
    while (!pred()) await new Promise<void>((r) => waiters.push(r));
  };
  const msg = (
    type: "orderbook_snapshot" | "orderbook_update",
    sequence: number,
    bids: WsLevel[],
    asks: WsLevel[],
    book: { bids: WsLevel[]; asks: WsLevel[] },
    depth = 20,
  ) =>
    JSON.stringify({
      type,
      symbol: "WETH-USD",
      depth,
      sequence,
      bids,
      asks,
      checksum: bookChecksum(book.bids, book.asks, Math.min(depth, 10)),
    });
  return { url: `ws://127.0.0.1:${(wss.address() as { port: number }).port}`, wss, received, conns, until, msg };
}

test("BookFeed: a first connection that fails rejects open() (no endless retry)", async () => {
  const s = await scriptedServer();
  const url = s.url;
  await new Promise<void>((r) => s.wss.close(() => r()));
  await assert.rejects(BookFeed.open({ url, symbol: "WETH-USD" }), /could not connect/);
});

test("BookFeed: snapshot and updates in sequence; a gap and a wrong checksum each resubscribe; a dropped connection reconnects", async () => {
  const s = await scriptedServer();
  const resyncs: string[] = [];
  const feed = await BookFeed.open({ url: s.url, symbol: "WETH-USD", onResync: (r) => resyncs.push(r) });
  try {
    await s.until(() => s.received.length === 1);
    assert.deepEqual(s.received[0], { type: "subscribe", channel: "orderbook", symbol: "WETH-USD", depth: 20 });
    const ws = s.conns[0]!;
    ws.send(s.msg("orderbook_snapshot", 10, [[100, 1]], [[101, 2]], { bids: [[100, 1]], asks: [[101, 2]] }));
    ws.send(
      s.msg("orderbook_update", 11, [[99, 3]], [], {
        bids: [
          [100, 1],
          [99, 3],
        ],
        asks: [[101, 2]],
      }),
    );
    await feed.until((b) => b.sequence === 11);
    assert.deepEqual(
      { bids: feed.book.levels("bid"), asks: feed.book.levels("ask") },
      {
        bids: [
          [100, 1],
          [99, 3],
        ],
        asks: [[101, 2]],
      },
    );
    // another market's or another depth's messages are not ours
    ws.send(
      JSON.stringify({
        type: "orderbook_update",
        symbol: "WBTC-USD",
        depth: 20,
        sequence: 99,
        bids: [],
        asks: [],
        checksum: 0,
      }),
    );
    // a gap (13 after 11): the book is reset and the feed resubscribes
    ws.send(s.msg("orderbook_update", 13, [[98, 1]], [], { bids: [], asks: [] }));
    await s.until(() => s.received.length === 3);
    assert.deepEqual(resyncs, ["gap"]);
    assert.deepEqual(
      s.received.slice(1).map((m) => m.type),
      ["unsubscribe", "subscribe"],
    );
    assert.equal(feed.book.synced, false);
    // updates before the fresh snapshot are ignored; the snapshot makes it whole again
    ws.send(s.msg("orderbook_update", 14, [[97, 1]], [], { bids: [], asks: [] }));
    ws.send(s.msg("orderbook_snapshot", 20, [[100, 1]], [], { bids: [[100, 1]], asks: [] }));
    await feed.until((b) => b.sequence === 20);
    assert.deepEqual(feed.book.levels("bid"), [[100, 1]]);
    // a checksum that differs from ours (the server holds a level we do not): resubscribe again
    ws.send(
      s.msg("orderbook_update", 21, [[99, 1]], [], {
        bids: [
          [100, 1],
          [99, 1],
          [98, 5],
        ],
        asks: [],
      }),
    );
    await s.until(() => s.received.length === 5);
    assert.deepEqual(resyncs, ["gap", "checksum"]);
    // the connection drops: the feed reconnects and subscribes again
    ws.terminate();
    await s.until(() => s.conns.length === 2 && s.received.length === 6);
    assert.deepEqual(s.received[5], { type: "subscribe", channel: "orderbook", symbol: "WETH-USD", depth: 20 });
    s.conns[1]!.send(s.msg("orderbook_snapshot", 1, [], [[105, 1]], { bids: [], asks: [[105, 1]] }));
    await feed.until((b) => b.sequence === 1);
    assert.deepEqual(feed.book.levels("ask"), [[105, 1]]);
  } finally {
    feed.close();
    await new Promise<void>((r) => s.wss.close(() => r()));
  }
});

test("BookFeed: depth is what the WebSocket accepts (1 to MAX_STREAM_BOOK_DEPTH); until() returns the book; a refusal rejects until() with its code and details", async () => {
  const s = await scriptedServer();
  try {
    for (const depth of [0, MAX_STREAM_BOOK_DEPTH + 1, 1.5])
      await assert.rejects(BookFeed.open({ url: s.url, symbol: "WETH-USD", depth }), RangeError);
    assert.equal(s.conns.length, 0, "a refused depth opens no connection");
    const feed = await BookFeed.open({ url: s.url, symbol: "WETH-USD", depth: MAX_STREAM_BOOK_DEPTH });
    const errors: Error[] = [];
    const refused = await BookFeed.open({ url: s.url, symbol: "NOPE-USD", onError: (e) => errors.push(e) });
    try {
      await s.until(() => s.received.length === 2);
      assert.equal(s.received[0].depth, MAX_STREAM_BOOK_DEPTH);
      const book = { bids: [[100, 1]] as WsLevel[], asks: [] as WsLevel[] };
      s.conns[0]!.send(s.msg("orderbook_snapshot", 7, book.bids, book.asks, book, MAX_STREAM_BOOK_DEPTH));
      const got = await feed.until();
      assert.equal(got, feed.book);
      assert.equal(got.sequence, 7);
      // the server refuses the second subscription: until() rejects with the error body, and onError sees it
      const pending = refused.until();
      const details = { field: "symbol", value: "NOPE-USD" };
      s.conns[1]!.send(
        JSON.stringify({ type: "error", error: { code: "INVALID_SYMBOL", message: "unknown market", details } }),
      );
      await assert.rejects(
        pending,
        (e: BookFeedError) =>
          e instanceof BookFeedError &&
          e.code === "INVALID_SYMBOL" &&
          assert.deepEqual(e.details, details) === undefined,
      );
      // a later until() rejects at once with the same error (no snapshot came since)
      await assert.rejects(refused.until(), /INVALID_SYMBOL: unknown market/);
      assert.equal(errors.length, 1);
      // close() rejects what still waits
      const never = feed.until((b) => b.sequence === 99);
      feed.close();
      await assert.rejects(never, /closed/);
    } finally {
      feed.close();
      refused.close();
    }
  } finally {
    await new Promise<void>((r) => s.wss.close(() => r()));
  }
});
