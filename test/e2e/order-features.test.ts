// GTD, hidden and iceberg orders and the one refusal rule (#13) through the real pipeline (real chain,
// deployed Settlement, journaled matcher service, the stack's dex-api): REST with an API key, wallet-signed
// REST, gRPC, and the WebSocket book and private channel. Before: a GTD order answered 201 rejected
// invalid_expiry (its expiry never reached the engine), hidden / iceberg_visible_size were unknown keys, and a
// rejected order echoed price / trigger_price null.
import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { privateKeyToAccount } from "viem/accounts";
import type { Address, PrivateKeyAccount } from "viem";
import type { MarketSpec } from "../../pipeline/service";
import { connectWs, type TestWs } from "../../api/testing/ws-client";
import { api, createApiKey, keyHeaders, signedOrderBody, type TestKey } from "../../api/testing/client";
import { ticksToPriceText, lotsToSizeText } from "../../api/dex/units";
import { dexApiUrls, ordersWs, withDexStack } from "../support/dex-stack";
import { signedOrderPoster } from "../support/signed-orders";

const PROTO = path.join(__dirname, "..", "..", "proto", "trading.proto");

test("GTD, hidden, iceberg and refusals through the real pipeline", { timeout: 180_000 }, async (t) => {
  await withDexStack({ prefix: "order-features-e2e-" }, async ({ config, stack, pipe, defer }) => {
    const sockets: TestWs[] = [];
    let rpc: any;
    defer(() => {
      for (const s of sockets) s.close();
      rpc?.close();
    });
    const urls = dexApiUrls(stack);
    const { origin } = urls;
    const m: MarketSpec = pipe.dexService.listMarkets().find((x) => x.symbol === "WETH-USD")!;
    const settlement = stack.deployments.home.contracts.Settlement as Address;
    const chainId = config.chains.home.chainId;
    const [A, B] = config.keys.demoTraders
      .slice(0, 2)
      .map((k) => privateKeyToAccount(k.privateKey)) as PrivateKeyAccount[];
    const price = (ticks: bigint) => Number(ticksToPriceText(m, ticks));
    const size = (lots: bigint) => Number(lotsToSizeText(m, lots));
    const aKey = await createApiKey(origin, A);
    const bKey = await createApiKey(origin, B);
    const pkg = grpc.loadPackageDefinition(
      protoLoader.loadSync(PROTO, { keepCase: true, longs: Number, enums: String, defaults: true }),
    ) as any;
    rpc = new pkg.dex.v1.TradingService(urls.grpc, grpc.credentials.createInsecure());
    const grpcCall = (method: string, req: object, k?: TestKey): Promise<any> =>
      new Promise((resolve, reject) => {
        const md = new grpc.Metadata();
        if (k) {
          md.set("x-api-key", k.apiKey);
          md.set("x-api-secret", k.secret);
        }
        rpc[method](req, md, (err: unknown, res: unknown) => (err ? reject(err) : resolve(res)));
      });
    const order = (k: TestKey, body: Record<string, unknown>) =>
      api(origin, "POST", "/v1/orders", {
        headers: keyHeaders(k),
        body: { symbol: "WETH-USD", type: "limit", ...body },
      });
    const restAsks = async () =>
      (await api(origin, "GET", "/v1/orderbook/WETH-USD?depth=100")).body.asks as { price: number; size: number }[];
    const postSigned = signedOrderPoster(origin, m, chainId, settlement);
    let nonce = 1n;

    await t.test("GTD rests and expires on time on every path; the expiry reaches the private channel", async () => {
      const aWs = await ordersWs(urls.ws, aKey);
      const bWs = await ordersWs(urls.ws, bKey);
      sockets.push(aWs, bWs);
      const expiresAt = Date.now() + 4_000;
      const keyGtd = await order(aKey, {
        side: "buy",
        price: price(100_000n),
        size: size(100n),
        time_in_force: "gtd",
        expires_at: expiresAt,
      });
      assert.equal(keyGtd.status, 201, keyGtd.text);
      assert.equal(keyGtd.body.status, "open", keyGtd.text);
      assert.equal(keyGtd.body.expires_at, expiresAt);
      const signedBody = await signedOrderBody(B, m, chainId, settlement, {
        side: "buy",
        priceTicks: 100_001n,
        sizeLots: 100n,
        nonce: nonce++,
        timeInForce: "gtd",
        expirySec: BigInt(Math.ceil(expiresAt / 1000)) + 10n,
      });
      const signedGtd = await api(origin, "POST", "/v1/orders", { body: { ...signedBody, expires_at: expiresAt } });
      assert.equal(signedGtd.status, 201, signedGtd.text);
      assert.equal(signedGtd.body.status, "open", signedGtd.text);
      const g = await grpcCall(
        "PlaceOrder",
        {
          symbol: "WETH-USD",
          side: "buy",
          type: "limit",
          price: price(100_002n),
          size: size(100n),
          time_in_force: "gtd",
          expires_at: expiresAt,
        },
        aKey,
      );
      assert.equal(g.status, "open");
      assert.equal(g.expires_at, expiresAt);
      for (const [ws, id] of [
        [aWs, keyGtd.body.order_id],
        [bWs, signedGtd.body.order_id],
        [aWs, g.order_id],
      ] as const) {
        const ev = await ws.next(
          (x) => x.type === "order" && x.order.order_id === id && x.order.status === "expired",
          15_000,
        );
        assert.equal(ev.order.status_reason, "expired");
        assert.ok(Date.now() >= expiresAt, "not before its time");
      }
      const late = Date.now() - expiresAt;
      assert.ok(late < 5_000, `expired ${late} ms after expires_at`);
      const bids = (await api(origin, "GET", "/v1/orderbook/WETH-USD?depth=100")).body.bids as { price: number }[];
      assert.ok(
        !bids.some((l) => l.price === price(100_000n) || l.price === price(100_001n) || l.price === price(100_002n)),
      );
    });

    await t.test(
      "hidden is invisible in the REST, WebSocket and gRPC books yet matches; an iceberg shows its slice only",
      async () => {
        const hidden = await order(aKey, { side: "sell", price: price(300_000n), size: size(1_000n), hidden: true });
        assert.equal(hidden.status, 201, hidden.text);
        assert.equal(hidden.body.hidden, true);
        const ice = await order(aKey, {
          side: "sell",
          price: price(300_100n),
          size: size(1_000n),
          iceberg_visible_size: size(200n),
        });
        assert.equal(ice.status, 201, ice.text);
        assert.equal(ice.body.status, "open");
        assert.deepEqual(await restAsks(), [{ price: price(300_100n), size: size(200n) }]);
        const ws = await connectWs(urls.ws);
        sockets.push(ws);
        ws.send({ type: "subscribe", channel: "orderbook", symbol: "WETH-USD", depth: 50 });
        const snap = await ws.next((x) => x.type === "orderbook_snapshot");
        assert.deepEqual(snap.asks, [[price(300_100n), size(200n)]]);
        const book = await grpcCall("GetOrderBook", { symbol: "WETH-USD", depth: 50 });
        assert.deepEqual(book.asks, [{ price: price(300_100n), size: size(200n) }]);
        const take = await postSigned(B, { side: "buy", priceTicks: 300_000n, sizeLots: 1_000n, nonce: nonce++ });
        assert.equal(take.status, 201, take.text);
        assert.equal(take.body.status, "filled", take.text);
        assert.equal(
          (await api(origin, "GET", `/v1/orders/${hidden.body.order_id}`, { headers: keyHeaders(aKey) })).body.status,
          "filled",
        );
        await api(origin, "DELETE", `/v1/orders/${ice.body.order_id}`, { headers: keyHeaders(aKey) });
      },
    );

    await t.test(
      "one refusal rule: 201 rejected with its reason, echoing the request's fields, on REST, signed REST and gRPC",
      async () => {
        await order(aKey, { side: "sell", price: price(300_000n), size: size(100n) });
        const po = await order(bKey, {
          side: "buy",
          price: price(300_500n),
          size: size(100n),
          time_in_force: "post_only",
        });
        assert.equal(po.status, 201, po.text);
        assert.deepEqual(
          [po.body.status, po.body.status_reason, po.body.price],
          ["rejected", "post_only_would_take", price(300_500n)],
        );
        const signedPo = await postSigned(B, {
          side: "buy",
          priceTicks: 300_500n,
          sizeLots: 100n,
          nonce: nonce++,
          timeInForce: "post_only",
        });
        assert.deepEqual(
          [signedPo.status, signedPo.body.status, signedPo.body.status_reason, signedPo.body.price],
          [201, "rejected", "post_only_would_take", price(300_500n)],
          signedPo.text,
        );
        const g = await grpcCall(
          "PlaceOrder",
          {
            symbol: "WETH-USD",
            side: "buy",
            type: "limit",
            price: price(300_500n),
            size: size(5_000n),
            time_in_force: "fok",
            client_order_id: "fok-1",
          },
          bKey,
        );
        assert.deepEqual(
          [g.status, g.status_reason, g.price, g.client_order_id],
          ["rejected", "fok_not_fillable", price(300_500n), "fok-1"],
        );
        // the last trade printed at 300_000: a buy stop whose trigger is below it is already crossed
        const stop = await order(bKey, {
          side: "buy",
          type: "stop_loss_limit",
          price: price(310_000n),
          trigger_price: price(290_000n),
          size: size(100n),
        });
        assert.equal(stop.status, 201, stop.text);
        assert.deepEqual(
          [stop.body.status, stop.body.status_reason, stop.body.price, stop.body.trigger_price],
          ["rejected", "invalid_trigger_price", price(310_000n), price(290_000n)],
        );
        const got = await api(origin, "GET", `/v1/orders/${stop.body.order_id}`, { headers: keyHeaders(bKey) });
        assert.equal(got.body.trigger_price, price(290_000n));
        const past = await order(aKey, {
          side: "buy",
          price: price(100_000n),
          size: size(100n),
          time_in_force: "gtd",
          expires_at: Date.now() - 1,
        });
        assert.equal(past.status, 400, past.text);
        assert.equal(past.body.error.code, "INVALID_REQUEST");
      },
    );
  });
});
