// DEX REST over a real socket against the in-memory test double: the happy paths of every route.
import { test } from "node:test";
import assert from "node:assert/strict";
import { beforeTests, call, fileHarness, fileKey, fund } from "../testing/harness";
import { hmacHeaders, keyHeaders, newWallet, signedOrderBody, walletHeaders } from "../testing/signing";
import { changePercentText } from "./routes/market";

const h = fileHarness();
const dapp = newWallet();
beforeTests(h, () => fund(h, dapp.address));
const bot = fileKey(h, { permissions: ["read", "trade"], label: "bot" });

test("an API-key bot and a wallet-signed order trade against each other", async () => {
  const ask = await call(h, "POST", "/v1/orders", {
    headers: keyHeaders(bot),
    body: {
      symbol: "WETH-USD",
      side: "sell",
      type: "limit",
      price: 2500.5,
      size: 1.5,
      time_in_force: "GTC",
      client_order_id: "bot-1",
    },
  });
  assert.equal(ask.status, 201, ask.text);
  assert.match(ask.body.order_id, /^[0-9a-f-]{36}$/);
  assert.deepEqual(
    {
      symbol: ask.body.symbol,
      side: ask.body.side,
      type: ask.body.type,
      price: ask.body.price,
      size: ask.body.size,
      status: ask.body.status,
      tif: ask.body.time_in_force,
    },
    { symbol: "WETH-USD", side: "sell", type: "limit", price: 2500.5, size: 1.5, status: "open", tif: "gtc" },
  );
  assert.equal(typeof ask.body.created_at, "number");

  const book = await call(h, "GET", "/v1/orderbook/WETH-USD?depth=5");
  assert.equal(book.status, 200);
  assert.deepEqual(book.body.asks, [{ price: 2500.5, size: 1.5 }]);
  assert.deepEqual(book.body.bids, []);
  assert.equal(book.body.symbol, "WETH-USD");

  const bid = await call(h, "POST", "/v1/orders", {
    body: await signedOrderBody(dapp, { side: "buy", price: 2500.5, size: 1, client_order_id: "dapp-1" }),
  });
  assert.equal(bid.status, 201, bid.text);
  assert.equal(bid.body.status, "filled");
  assert.equal(bid.body.average_price, 2500.5);

  const trades = await call(h, "GET", "/v1/trades?symbol=WETH-USD&limit=10");
  assert.equal(trades.status, 200);
  assert.equal(trades.body.trades.length, 1);
  assert.deepEqual(
    { price: trades.body.trades[0].price, size: trades.body.trades[0].size, side: trades.body.trades[0].side },
    { price: 2500.5, size: 1, side: "buy" },
  );

  const mine = await call(h, "GET", `/v1/orders/${ask.body.order_id}`, { headers: keyHeaders(bot) });
  assert.equal(mine.status, 200);
  assert.equal(mine.body.status, "partially_filled");
  assert.equal(mine.body.filled_size, 1);
  assert.equal(mine.body.fills.length, 1);
  assert.equal(mine.body.fills[0].liquidity, "maker");

  const open = await call(h, "GET", "/v1/orders?status=open", { headers: keyHeaders(bot) });
  assert.deepEqual(
    open.body.orders.map((o: { order_id: string }) => o.order_id),
    [ask.body.order_id],
  );

  const dappOrders = await call(h, "GET", "/v1/orders?status=all", {
    headers: await walletHeaders(dapp, h, "GET", "/v1/orders?status=all"),
  });
  assert.equal(dappOrders.status, 200, dappOrders.text);
  assert.deepEqual(
    dappOrders.body.orders.map((o: { status: string }) => o.status),
    ["filled"],
  );

  const balances = await call(h, "GET", "/v1/balances", {
    headers: await walletHeaders(dapp, h, "GET", "/v1/balances"),
  });
  const usd = balances.body.balances.find((b: { asset: string }) => b.asset === "USD");
  assert.equal(usd.on_chain, "997499.5");
  assert.equal(usd.available, "997499.5");
  const weth = balances.body.balances.find((b: { asset: string }) => b.asset === "WETH");
  assert.equal(weth.on_chain, "1001");

  const cancel = await call(h, "DELETE", `/v1/orders/${ask.body.order_id}`, { headers: keyHeaders(bot) });
  assert.equal(cancel.status, 200, cancel.text);
  assert.equal(cancel.body.status, "cancelled");
  assert.equal(cancel.body.status_reason, "user_cancelled");
  const again = await call(h, "DELETE", `/v1/orders/${ask.body.order_id}`, { headers: keyHeaders(bot) });
  assert.equal(again.status, 409);
  assert.equal(again.body.error.code, "ORDER_NOT_OPEN");
});

test("the signed ticker: decimal strings and a millisecond timestamp", async () => {
  const path = "/v1/ticker/WETH-USD";
  const r = await call(h, "GET", path, { headers: hmacHeaders(bot.apiKey, bot.secret, "GET", path) });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.symbol, "WETH-USD");
  assert.equal(r.body.last, "2500.5");
  assert.equal(r.body.volume24h, "1");
  assert.ok(Math.abs(r.body.timestamp - Date.now()) < 5000);
  const unsigned = await call(h, "GET", path, { headers: keyHeaders(bot) });
  assert.equal(unsigned.status, 401);
  assert.equal(unsigned.body.error.details.reason, "scheme_not_accepted");
});

test("the public market summary: every market's last, 24 h change and volume, no key", async () => {
  const r = await call(h, "GET", "/v1/market-summary");
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.markets.length, h.service.listMarkets().length);
  const weth = r.body.markets.find((m: { symbol: string }) => m.symbol === "WETH-USD");
  assert.equal(weth.last, "2500.5");
  assert.equal(weth.open24h, "2500.5");
  assert.equal(weth.change24h, "0.00");
  assert.equal(weth.volume24h, "1");
  const idle = r.body.markets.find(
    (m: { symbol: string; last: string | null }) => m.symbol !== "WETH-USD" && m.last === null,
  );
  if (idle) assert.equal(idle.change24h, null);
  assert.equal(changePercentText(2000n, 2025n), "1.25");
  assert.equal(changePercentText(2000n, 1974n), "-1.30");
  assert.equal(changePercentText(3n, 2n), "-33.33");
});

test("the HMAC scheme is accepted on a private endpoint, body and query signed", async () => {
  const body = JSON.stringify({ symbol: "WETH-USD", side: "buy", type: "limit", price: 2000, size: 0.01 });
  const r = await call(h, "POST", "/v1/orders", {
    body,
    headers: hmacHeaders(bot.apiKey, bot.secret, "POST", "/v1/orders", body),
  });
  assert.equal(r.status, 201, r.text);
  const q = "/v1/orders?status=all&symbol=WETH-USD";
  const list = await call(h, "GET", q, { headers: hmacHeaders(bot.apiKey, bot.secret, "GET", q) });
  assert.equal(list.status, 200, list.text);
  assert.ok(list.body.orders.some((o: { order_id: string }) => o.order_id === r.body.order_id));
});

test("API keys: listed without secrets; the secret never reaches the log", async () => {
  const list = await call(h, "GET", "/v1/api-keys", { headers: keyHeaders(bot) });
  assert.equal(list.status, 200);
  assert.equal(list.body.api_keys.length, 1);
  assert.equal(list.body.api_keys[0].api_key, bot.apiKey);
  assert.equal(list.body.api_keys[0].agent_status, "approved");
  assert.ok(!list.text.includes(bot.secret));
  const stored = await h.db.query<{ secret_ciphertext: string }>("SELECT secret_ciphertext FROM dex_api_keys");
  assert.ok(!stored.rows[0].secret_ciphertext.includes(bot.secret), "stored encrypted");
  assert.ok(h.logs.length > 0);
  assert.ok(!h.logs.join("\n").includes(bot.secret));
});

test("unknown routes and the OpenAPI document", async () => {
  const r = await call(h, "GET", "/v1/nope");
  assert.equal(r.status, 404);
  assert.equal(r.body.error.code, "ROUTE_NOT_FOUND");
  assert.ok(r.headers.get("x-ratelimit-limit"));
  const doc = await call(h, "GET", "/v1/openapi.json");
  assert.equal(doc.status, 200);
  assert.equal(doc.body.openapi, "3.1.0");
});
