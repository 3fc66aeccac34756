// The exchange API's real time over real sockets: SSE at /api/realtime read by the `eventsource` package (a
// client no one here wrote), the legacy WebSocket, on the exchange API's server with the in-memory DEX
// service (the real matcher) and a test identity issuer. Market events come from real signed orders.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import net from "node:net";
import { EventSource } from "eventsource";
import WebSocket from "ws";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { createMemoryDexService, TEST_MARKETS, type MemoryDexService } from "../../testing/memory-dex-service";
import { signedPlacement } from "../../../simulator/orders";
import { CATALOGUE, type CatalogueAsset } from "../assets/catalogue";
import { startExchangeHarness, type ExchangeHarness } from "../testing/harness";
import { startTestIssuer, type TestIssuer } from "../testing/test-issuer";
import { createExchangeRealtime, type ExchangeRealtime } from "./index";

// the real catalogue (WETH and WBTC trade on the double's books) and 40 listed, untokenized assets, so that
// 50 distinct topics exist
const EXTRA: CatalogueAsset[] = Array.from({ length: 40 }, (_, i) => ({
  ...CATALOGUE.find((a) => a.id === "NOVA")!,
  id: `X${i}`,
  symbol: `X${i}`,
  token: null,
}));

let issuer: TestIssuer;
let dex: MemoryDexService;
let realtime: ExchangeRealtime;
let exchange: ExchangeHarness;
let origin: string;
const weth = TEST_MARKETS[0];
const maker = privateKeyToAccount(generatePrivateKey());
const taker = privateKeyToAccount(generatePrivateKey());
let nonce = 1n;

async function place(
  who: typeof maker,
  side: "buy" | "sell",
  priceTicks: bigint,
  sizeLots: bigint,
  tif: "gtc" | "ioc" = "gtc",
) {
  const req = await signedPlacement({
    account: who,
    market: weth,
    domain: dex.settlementDomain,
    side,
    priceTicks,
    sizeLots,
    timeInForce: tif,
    nonce: nonce++,
    expiry: BigInt(Math.floor(Date.now() / 1000) + 3600),
    nowMs: Date.now(),
  });
  return dex.placeOrder(req);
}

async function waitFor(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; !cond(); i++) {
    if (i > 3000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

before(async () => {
  issuer = await startTestIssuer();
  dex = createMemoryDexService();
  for (const a of [maker.address, taker.address]) {
    dex.credit(a, weth.quoteToken, 10n ** 15n);
    dex.credit(a, weth.baseToken, 10n ** 24n);
  }
  realtime = createExchangeRealtime({
    dex,
    catalogue: [...CATALOGUE, ...EXTRA],
    coalesceMs: 5,
    limits: { heartbeatMs: 200, retryMs: 50 },
  });
  exchange = await startExchangeHarness({ issuers: [issuer], extensions: [(x) => realtime.extension(x)] });
  origin = exchange.url.replace(/\/v1$/, "");
  // a resting book: bids 1999.00 / 1998.00, asks 2001.00 / 2002.00 (ticks of 0.01)
  await place(maker, "buy", 199_900n, 10_000n);
  await place(maker, "buy", 199_800n, 10_000n);
  await place(maker, "sell", 200_100n, 10_000n);
  await place(maker, "sell", 200_200n, 10_000n);
});

after(async () => {
  await realtime.close();
  await exchange.close();
  await issuer.close();
});

const token = (sub: string, owner = "org-1") => issuer.sign({ sub, owner, phone: "+15550000001" });

interface Received {
  id: string;
  event: string;
  data: Record<string, unknown>;
}

/** An `eventsource` client with the Authorization header, recording every quote, book, order and gap event. */
function openSse(url: string, bearer: string, extraHeaders: Record<string, string> = {}) {
  const got: Received[] = [];
  const errors: unknown[] = [];
  const es = new EventSource(url, {
    fetch: (input, init) =>
      fetch(input, { ...init, headers: { ...init.headers, authorization: `Bearer ${bearer}`, ...extraHeaders } }),
  });
  for (const name of ["quote", "book", "order", "settlement", "gap"])
    es.addEventListener(name, (m) =>
      got.push({ id: m.lastEventId, event: name, data: JSON.parse(m.data) as Record<string, unknown> }),
    );
  es.addEventListener("error", (e) => errors.push(e));
  return { es, got, errors };
}

/** A raw SSE request (fetch): its status and, when refused, the body. */
async function rawSse(query: string, headers: Record<string, string>) {
  const ctrl = new AbortController();
  const res = await fetch(`${origin}/api/realtime${query}`, {
    headers: { accept: "text/event-stream", ...headers },
    signal: ctrl.signal,
  });
  const body =
    res.status === 200
      ? null
      : ((await res.json()) as { error: { code: string; message: string; details: Record<string, unknown> } });
  return { status: res.status, body, close: () => ctrl.abort() };
}

test("eventsource receives quote and book events, is cut off, reconnects with Last-Event-ID and misses nothing", async () => {
  const bearer = await token("alice");
  const url = `${origin}/api/realtime?subscribe=quote:WETH,book:WETH`;
  // a witness connected directly, and the client under test through a proxy the test can cut
  const witness = openSse(url, bearer);
  let cut = false;
  const sockets = new Set<net.Socket>();
  let reconnects = 0;
  const upstream = new URL(origin);
  const proxy = net.createServer((client) => {
    if (cut) return client.destroy();
    reconnects++;
    const server = net.connect(Number(upstream.port), upstream.hostname);
    client.pipe(server).pipe(client);
    const both = () => {
      client.destroy();
      server.destroy();
      sockets.delete(client);
    };
    client.on("error", both).on("close", both);
    server.on("error", both).on("close", both);
    sockets.add(client);
  });
  await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", () => r()));
  const proxyUrl = `http://127.0.0.1:${(proxy.address() as net.AddressInfo).port}/api/realtime?subscribe=quote:WETH,book:WETH`;
  const client = openSse(proxyUrl, bearer);
  try {
    // the current state first: one quote and one book of the resting orders
    await waitFor(
      () => client.got.some((e) => e.event === "book") && client.got.some((e) => e.event === "quote"),
      "the first quote and book",
    );
    const book = client.got.find((e) => e.event === "book")!.data;
    assert.deepEqual(book.bids, [
      { price: 1999, size: 1 },
      { price: 1998, size: 1 },
    ]);
    assert.deepEqual(book.asks, [
      { price: 2001, size: 1 },
      { price: 2002, size: 1 },
    ]);
    const quote = client.got.find((e) => e.event === "quote")!.data;
    assert.equal(quote.assetId, "WETH");
    assert.equal(quote.bid, 1999);
    assert.equal(quote.ask, 2001);
    assert.match(String(quote.timestamp), /^\d{4}-\d\d-\d\dT/);
    assert.ok(Number(client.got[0].id) > 0);

    // a trade while connected
    await place(taker, "buy", 200_100n, 2_000n, "ioc");
    await waitFor(() => client.got.some((e) => e.event === "quote" && e.data.last === 2001), "the quote of the trade");

    // cut the client off; while it is away the market moves (several trades, book changes)
    cut = true;
    for (const s of sockets) s.destroy();
    await waitFor(() => client.errors.length > 0, "the client to see the failure");
    const idsBefore = client.got.length;
    await place(taker, "buy", 200_100n, 1_000n, "ioc");
    await waitFor(
      () => witness.got.some((e) => e.event === "book" && JSON.stringify(e.data.asks).includes('"size":0.7')),
      "the first move",
    );
    await place(taker, "sell", 199_900n, 3_000n, "ioc");
    await waitFor(() => witness.got.some((e) => e.event === "quote" && e.data.last === 1999), "the second move");
    await place(maker, "buy", 199_950n, 5_000n);
    await waitFor(() => witness.got.some((e) => e.event === "quote" && e.data.bid === 1999.5), "the third move");
    assert.equal(client.got.length, idsBefore, "nothing reached the client while it was cut off");

    // back: the client reconnects by itself with its Last-Event-ID and catches up
    cut = false;
    const lastWitnessId = witness.got.at(-1)!.id;
    await waitFor(() => client.got.some((e) => e.id === lastWitnessId), "the client to catch up");
    assert.ok(reconnects >= 2, "the client reconnected");
    const from = witness.got.findIndex((e) => e.id === client.got[0].id);
    assert.ok(from >= 0);
    // exactly the witness's events, in order, none twice, none missing, none a gap
    assert.deepEqual(
      client.got.map((e) => `${e.id} ${e.event} ${JSON.stringify(e.data)}`),
      witness.got.slice(from).map((e) => `${e.id} ${e.event} ${JSON.stringify(e.data)}`),
    );
    assert.ok(!client.got.some((e) => e.event === "gap"));
    const ids = client.got.map((e) => Number(e.id));
    assert.deepEqual(
      [...ids].sort((a, b) => a - b),
      ids,
    );
    assert.equal(new Set(ids).size, ids.length);
  } finally {
    client.es.close();
    witness.es.close();
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => proxy.close(() => r()));
  }
});

test("Last-Event-ID resumes exactly after it; an id from before this run is answered with a gap and the current state", async () => {
  const bearer = await token("bob");
  const all = openSse(`${origin}/api/realtime?subscribe=book:WETH`, bearer);
  await waitFor(() => all.got.length > 0, "the book");
  await place(maker, "sell", 200_300n, 1_000n);
  await place(maker, "sell", 200_400n, 1_000n);
  await waitFor(() => all.got.some((e) => JSON.stringify(e.data.asks).includes("2004")), "both changes");
  all.es.close();
  const [first, ...rest] = all.got;
  const resumed = openSse(`${origin}/api/realtime?subscribe=book:WETH`, bearer, { "last-event-id": first.id });
  await waitFor(() => resumed.got.some((e) => e.id === rest.at(-1)!.id), "the replay");
  assert.deepEqual(
    resumed.got.map((e) => e.id),
    rest.map((e) => e.id),
  );
  resumed.es.close();
  // an id older than this run: a gap event, then what the buffer holds (its newest is the current book)
  const old = openSse(`${origin}/api/realtime?subscribe=book:WETH`, bearer, { "last-event-id": "1000" });
  await waitFor(() => old.got.some((e) => e.id === all.got.at(-1)!.id), "the replay after a gap");
  assert.equal(old.got[0].event, "gap");
  assert.equal(old.got[0].data.topic, "book:WETH");
  old.es.close();
});

test("5 SSE connections per user: the sixth is refused with 429 and the spec body; another user is not counted", async () => {
  const bearer = await token("carol");
  const q = "?subscribe=quote:WETH";
  const open: Awaited<ReturnType<typeof rawSse>>[] = [];
  try {
    for (let i = 0; i < 5; i++) {
      const r = await rawSse(q, { authorization: `Bearer ${bearer}` });
      assert.equal(r.status, 200, `connection ${i + 1}`);
      open.push(r);
    }
    const sixth = await rawSse(q, { authorization: `Bearer ${bearer}` });
    assert.equal(sixth.status, 429);
    assert.equal(sixth.body!.error.code, "RATE_LIMIT_EXCEEDED");
    assert.equal(sixth.body!.error.details.limit, 5);
    // the same user under a fresh token is the same user
    const again = await rawSse(q, { authorization: `Bearer ${await token("carol")}` });
    assert.equal(again.status, 429);
    const other = await rawSse(q, { authorization: `Bearer ${await token("dave")}` });
    assert.equal(other.status, 200);
    other.close();
    // one closes: the next is accepted (the slot is given back when the stream ends)
    open.shift()!.close();
    let next: Awaited<ReturnType<typeof rawSse>> | undefined;
    for (let i = 0; i < 200; i++) {
      next = await rawSse(q, { authorization: `Bearer ${bearer}` });
      if (next.status === 200) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(next!.status, 200);
    open.push(next!);
  } finally {
    for (const r of open) r.close();
  }
});

test("50 subscriptions per connection are accepted, 51 refused; bad requests get the spec body and no stream", async () => {
  const bearer = await token("erin");
  const auth = { authorization: `Bearer ${bearer}` };
  const fifty = [...EXTRA.slice(0, 25).flatMap((a) => [`quote:${a.id}`, `book:${a.id}`])];
  assert.equal(fifty.length, 50);
  const ok = await rawSse(`?subscribe=${fifty.join(",")}`, auth);
  assert.equal(ok.status, 200);
  ok.close();
  // duplicates count once
  const dup = await rawSse(`?subscribe=${[...fifty, fifty[0]].join(",")}`, auth);
  assert.equal(dup.status, 200);
  dup.close();
  const cases: [string, Record<string, string>, number, string][] = [
    [`?subscribe=${[...fifty, "quote:X30"].join(",")}`, auth, 400, "INVALID_REQUEST"],
    ["?subscribe=quote:WETH", {}, 401, "UNAUTHORIZED"],
    ["?subscribe=quote:WETH", { authorization: "Bearer not.a.token" }, 401, "UNAUTHORIZED"],
    ["?subscribe=quote:WETH", { authorization: bearer }, 401, "UNAUTHORIZED"],
    [
      "?subscribe=quote:WETH",
      { authorization: `Bearer ${await issuer.sign({ sub: "x", owner: "o", aud: "other" })}` },
      401,
      "UNAUTHORIZED",
    ],
    ["", auth, 400, "INVALID_REQUEST"],
    ["?subscribe=", auth, 400, "INVALID_REQUEST"],
    ["?subscribe=trades:WETH", auth, 400, "INVALID_REQUEST"],
    ["?subscribe=quote:", auth, 400, "INVALID_REQUEST"],
    ["?subscribe=quote:WETH,,book:WETH", auth, 400, "INVALID_REQUEST"],
    ["?subscribe=quote:NOPE", auth, 404, "ASSET_NOT_FOUND"],
    ["?subscribe=quote:WETH&subscribe=book:WETH", auth, 400, "INVALID_REQUEST"],
    [`?subscribe=${"quote:WETH,".repeat(900)}quote:WETH`, auth, 400, "INVALID_REQUEST"],
    ["?subscribe=quote:WETH", { ...auth, "last-event-id": "abc" }, 400, "INVALID_REQUEST"],
    ["?subscribe=quote:WETH", { ...auth, "last-event-id": "-1" }, 400, "INVALID_REQUEST"],
  ];
  for (const [query, headers, status, code] of cases) {
    const r = await rawSse(query, headers);
    assert.equal(r.status, status, `${query.slice(0, 60)} ${JSON.stringify(headers).slice(0, 60)}`);
    assert.equal(r.body!.error.code, code);
    assert.equal(typeof r.body!.error.message, "string");
    assert.ok(!JSON.stringify(r.body).includes("    at "), "no stack trace");
  }
  // none of the refusals held a connection slot
  const after5: Awaited<ReturnType<typeof rawSse>>[] = [];
  for (let i = 0; i < 5; i++) after5.push(await rawSse("?subscribe=quote:WETH", auth));
  assert.deepEqual(
    after5.map((r) => r.status),
    [200, 200, 200, 200, 200],
  );
  for (const r of after5) r.close();
});

interface WsClient {
  ws: WebSocket;
  got: { type: string; id?: number; data?: Record<string, unknown>; [k: string]: unknown }[];
  send(m: unknown): void;
  closed: Promise<{ code: number }>;
}

async function openWs(headers: Record<string, string> = {}): Promise<WsClient> {
  const ws = new WebSocket(`${origin.replace("http", "ws")}/ws`, { headers });
  const got: WsClient["got"] = [];
  ws.on("message", (m) => got.push(JSON.parse(m.toString())));
  const closed = new Promise<{ code: number }>((r) => ws.on("close", (code) => r({ code })));
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  return { ws, got, send: (m) => ws.send(JSON.stringify(m)), closed };
}

test("the legacy WebSocket delivers the same events as SSE (same ids, same data)", async () => {
  const bearer = await token("frank");
  const sse = openSse(`${origin}/api/realtime?subscribe=quote:WETH,book:WETH`, bearer);
  const ws = await openWs({ authorization: `Bearer ${bearer}` });
  try {
    ws.send({ type: "subscribe", subscribe: "quote:WETH,book:WETH" });
    await waitFor(
      () =>
        ws.got.some((m) => m.type === "subscribed") && sse.got.length >= 2 && ws.got.filter((m) => m.id).length >= 2,
      "both subscribed",
    );
    await place(taker, "buy", 200_400n, 500n, "ioc");
    await place(maker, "buy", 199_960n, 700n);
    await waitFor(() => sse.got.some((e) => e.event === "quote" && e.data.bid === 1999.6), "SSE moves");
    const lastId = Number(sse.got.at(-1)!.id);
    await waitFor(() => ws.got.some((m) => m.id === lastId), "the WebSocket catches up");
    // from the trade on (before it, each side's first events are the topics' state when it subscribed)
    const from = Math.max(Number(sse.got[0].id), Number(ws.got.find((m) => m.id !== undefined)!.id));
    const viaWs = ws.got
      .filter((m) => m.id !== undefined && m.id >= from)
      .map((m) => `${m.id} ${m.type} ${JSON.stringify(m.data)}`);
    const viaSse = sse.got
      .filter((e) => Number(e.id) >= from)
      .map((e) => `${e.id} ${e.event} ${JSON.stringify(e.data)}`);
    assert.deepEqual(viaWs, viaSse);
    assert.ok(viaSse.length >= 3, `${viaSse.length} events compared`);
  } finally {
    sse.es.close();
    ws.ws.close();
  }
});

test("order and settlement events reach every connection of their owner only, over SSE and the WebSocket", async () => {
  const owner = await token("grace", "org-2");
  const stranger = await token("heidi", "org-2");
  const sse = openSse(`${origin}/api/realtime?subscribe=quote:WETH`, owner);
  const otherSse = openSse(`${origin}/api/realtime?subscribe=quote:WETH`, stranger);
  // browser form: authenticated by its first message
  const ws = await openWs();
  try {
    ws.send({ type: "auth", token: owner });
    await waitFor(
      () => ws.got.some((m) => m.type === "authenticated") && sse.got.length > 0 && otherSse.got.length > 0,
      "connected",
    );
    const e1 = realtime.publishToUser({ issuer: issuer.issuer, orgId: "org-2", userId: "grace" }, "order", {
      orderId: "ord_1",
      status: "EXECUTED",
    });
    const e2 = realtime.publishToUser({ issuer: issuer.issuer, orgId: "org-2", userId: "grace" }, "settlement", {
      orderId: "ord_1",
      txHash: "0xabc",
    });
    await waitFor(
      () => sse.got.some((e) => e.id === String(e2.id)) && ws.got.some((m) => m.id === e2.id),
      "owner events",
    );
    assert.deepEqual(
      sse.got.filter((e) => e.event === "order").map((e) => e.data),
      [{ orderId: "ord_1", status: "EXECUTED" }],
    );
    assert.deepEqual(
      ws.got.filter((m) => m.type === "settlement").map((m) => m.data),
      [{ orderId: "ord_1", txHash: "0xabc" }],
    );
    assert.equal(Number(sse.got.find((e) => e.event === "order")!.id), e1.id);
    // another user of the same organization, and the same user id under another organization: nothing
    realtime.publishToUser({ issuer: issuer.issuer, orgId: "org-3", userId: "grace" }, "order", { orderId: "ord_x" });
    await place(maker, "buy", 199_970n, 100n);
    await waitFor(
      () =>
        otherSse.got.some((e) => e.event === "quote" && e.data.bid === 1999.7) &&
        sse.got.some((e) => e.event === "quote" && e.data.bid === 1999.7),
      "a later event",
    );
    assert.ok(!otherSse.got.some((e) => e.event === "order" || e.event === "settlement"));
    assert.ok(!sse.got.some((e) => JSON.stringify(e.data).includes("ord_x")));
  } finally {
    sse.es.close();
    otherSse.es.close();
    ws.ws.close();
  }
});

test("legacy WebSocket limits and refusals: 5 per user then 429, 50 subscriptions then an error, nothing before auth", async () => {
  const bearer = await token("ivan");
  const conns: WsClient[] = [];
  try {
    for (let i = 0; i < 5; i++) conns.push(await openWs({ authorization: `Bearer ${bearer}` }));
    await assert.rejects(openWs({ authorization: `Bearer ${bearer}` }), /429/);
    // the sixth by message auth: an error, then closed
    const sixth = await openWs();
    sixth.send({ type: "auth", token: bearer });
    assert.equal((await sixth.closed).code, 1008);
    assert.equal(sixth.got[0].type, "error");
    assert.equal((sixth.got[0].error as { code: string }).code, "RATE_LIMIT_EXCEEDED");
    await assert.rejects(openWs({ authorization: "Bearer nope" }), /401/);

    const c = conns[0];
    const fifty = EXTRA.slice(0, 25).flatMap((a) => [`quote:${a.id}`, `book:${a.id}`]);
    c.send({ type: "subscribe", subscribe: fifty.slice(0, 30).join(",") });
    c.send({ type: "subscribe", subscribe: fifty.slice(30).join(",") });
    c.send({ type: "subscribe", subscribe: "quote:WETH" });
    c.send({ type: "subscribe", subscribe: "trades:WETH" });
    c.send({ type: "subscribe", subscribe: "quote:NOPE" });
    c.send({ type: "nonsense" });
    c.ws.send("not json");
    c.send({ type: "ping" });
    await waitFor(() => c.got.some((m) => m.type === "pong"), "the pong");
    const answers = c.got
      .filter((m) => m.id === undefined)
      .map((m) =>
        m.type === "error"
          ? `error ${(m.error as { code: string }).code}`
          : m.type === "subscribed"
            ? `subscribed ${(m.topics as string[]).length}`
            : m.type,
      );
    assert.deepEqual(answers, [
      "subscribed 30",
      "subscribed 50",
      "error INVALID_REQUEST",
      "error INVALID_REQUEST",
      "error ASSET_NOT_FOUND",
      "error INVALID_REQUEST",
      "error INVALID_REQUEST",
      "pong",
    ]);
    // unsubscribing frees a slot
    c.send({ type: "unsubscribe", subscribe: fifty[0] });
    c.send({ type: "subscribe", subscribe: "quote:WETH" });
    await waitFor(() => c.got.filter((m) => m.type === "subscribed").length === 3, "the third subscription");

    // a connection that never authenticates may not subscribe
    const anon = await openWs();
    anon.send({ type: "subscribe", subscribe: "quote:WETH" });
    await waitFor(() => anon.got.length > 0, "the refusal");
    assert.equal((anon.got[0].error as { code: string }).code, "UNAUTHORIZED");
    anon.ws.close();
  } finally {
    for (const c of conns) c.ws.close();
  }
});
