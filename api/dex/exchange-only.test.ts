// A restricted security's book takes orders through the exchange API only (docs/decisions/api.md "The book
// respects it"): the DEX API's one placer (REST, WebSocket order entry, gRPC) refuses any order there, signed
// or API-key, with 403 FORBIDDEN exchange_only_book, and nothing reaches the book; other books are unaffected.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ApiError } from "../errors";
import { beforeTests, call, fileHarness, fileKey, fund } from "../testing/harness";
import { keyHeaders, newWallet, signedOrderBody } from "../testing/signing";

const h = fileHarness({ config: { exchangeOnlySymbols: ["WETH-USD"] } });
const wallet = newWallet();
beforeTests(h, () => fund(h, wallet.address));
const bot = fileKey(h, { permissions: ["read", "trade"], label: "bot" });

const refusal = (r: { status: number; body: any }) => [
  r.status,
  r.body?.error?.code,
  r.body?.error?.details?.reason,
  r.body?.error?.details?.symbol,
]; // eslint-disable-line @typescript-eslint/no-explicit-any

test("REST: a wallet-signed and an API-key order on an exchange-only book are refused 403 and the book stays empty", async () => {
  const signed = await call(h, "POST", "/v1/orders", {
    body: await signedOrderBody(wallet, { side: "buy", price: 2500, size: 1, client_order_id: "w-1" }),
  });
  assert.deepEqual(refusal(signed), [403, "FORBIDDEN", "exchange_only_book", "WETH-USD"]);
  assert.match(signed.body.error.message, /exchange API/);
  const keyed = await call(h, "POST", "/v1/orders", {
    headers: keyHeaders(bot),
    body: {
      symbol: "WETH-USD",
      side: "sell",
      type: "limit",
      price: 2500,
      size: 1,
      time_in_force: "GTC",
      client_order_id: "k-1",
    },
  });
  assert.deepEqual(refusal(keyed), [403, "FORBIDDEN", "exchange_only_book", "WETH-USD"]);
  const book = await call(h, "GET", "/v1/orderbook/WETH-USD?depth=5");
  assert.deepEqual([book.body.bids, book.body.asks], [[], []]);
  assert.deepEqual(await h.service.listOrders({ account: wallet.address, limit: 10 }), []);
});

test("the placer the WebSocket order entry and gRPC share refuses it too; another book takes the same order", async () => {
  const body = (await signedOrderBody(wallet, { side: "buy", price: 2500, size: 1, client_order_id: "w-2" })) as never;
  await assert.rejects(
    h.placeOrder(body, null),
    (e: unknown) =>
      e instanceof ApiError &&
      e.code === "FORBIDDEN" &&
      (e.details as { reason?: string }).reason === "exchange_only_book",
  );
  const other = await call(h, "POST", "/v1/orders", {
    headers: keyHeaders(bot),
    body: {
      symbol: "WBTC-USD",
      side: "sell",
      type: "limit",
      price: 60000,
      size: 0.5,
      time_in_force: "GTC",
      client_order_id: "k-2",
    },
  });
  assert.equal(other.status, 201, other.text);
});
