// The DEX API end to end (issue 5 acceptance) over real sockets against the started stack (real chains,
// deployed Settlement, the pipeline and the dex-api components from the stack's registry, free ports, a
// temp data dir):
//  1. a bot with an API key (created through the API, agent approved on chain by the wallet) and a wallet
//     signing its own EIP-712 order trade over REST; the trade reaches the WS `trades` channel, each one's
//     private `orders` channel and gRPC StreamTrades, and is settled on chain by the exact amounts;
//  2. a WS client applying snapshot + updates holds exactly the REST book after a burst of 200 orders and
//     cancels from four accounts, and detects a dropped update (sequence) and a corrupted one (checksum);
//  3. a short security and bad-input smoke through the real wiring.
import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { crc32 } from "node:zlib";
import { execFile } from "node:child_process";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { createPublicClient, http, type Address, type PrivateKeyAccount } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { settlementAbi } from "../../sdk/abi";
import type { MarketSpec } from "../../pipeline/service";
import { connectWs, type TestWs } from "../../api/testing/ws-client";
import { feeFor } from "../../sdk/eip712";
import {
  api,
  createApiKey,
  hmacHeaders,
  keyHeaders,
  keyOrderBody,
  signedOrderBody,
  walletHeaders,
  type Res,
  type TestKey,
} from "../../api/testing/client";
import { settledTradesOf } from "../../sdk/settled-trades";
import { poll } from "../support/poll";
import { dexApiUrls, ordersWs, withDexStack } from "../support/dex-stack";

const PROTO = path.join(__dirname, "..", "..", "proto", "trading.proto");
const BUF = path.join(__dirname, "..", "..", "node_modules", ".bin", "buf");

/** `buf curl` over plaintext HTTP/2 with the server's reflection service; resolves with its exit code and JSON. */
function bufCurl(args: string[]): Promise<{ code: number; stdout: string; stderr: string; json: any }> {
  return new Promise((resolve) => {
    execFile(
      BUF,
      ["curl", "--protocol", "grpc", "--http2-prior-knowledge", ...args],
      { timeout: 30_000 },
      (err, stdout, stderr) => {
        let json: any = null;
        try {
          json = JSON.parse(stdout);
        } catch {
          json = null;
        }
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr, json });
      },
    );
  });
}

type Level = [number, number];
interface BookMsg {
  type: "orderbook_snapshot" | "orderbook_update";
  bids: Level[];
  asks: Level[];
  sequence: number;
  prev_sequence?: number;
  checksum: number;
  depth: number;
}

/** The client under test, written here from the documented book sync only (docs/integrate.md): snapshot
 *  (from the WebSocket, or from REST with its sequence and no checksum), then updates (size 0 removes):
 *  one whose sequence we hold is stale, one whose prev_sequence is past ours is a gap; CRC32 of the top
 *  levels. */
class WsBook {
  bids = new Map<number, number>();
  asks = new Map<number, number>();
  sequence: number | null = null;
  /** a REST (or gRPC) book of the same depth as the snapshot */
  fromRest(b: {
    bids: { price: number; size: number }[];
    asks: { price: number; size: number }[];
    sequence: number;
  }): this {
    this.bids = new Map(b.bids.map((l) => [l.price, l.size]));
    this.asks = new Map(b.asks.map((l) => [l.price, l.size]));
    this.sequence = b.sequence;
    return this;
  }
  apply(m: BookMsg): "ok" | "stale" | "gap" | "checksum_mismatch" {
    if (m.type === "orderbook_snapshot") {
      this.bids = new Map(m.bids);
      this.asks = new Map(m.asks);
    } else {
      if (this.sequence !== null && m.sequence <= this.sequence) return "stale";
      if (this.sequence === null || m.prev_sequence! > this.sequence) return "gap";
      for (const [p, s] of m.bids) s === 0 ? this.bids.delete(p) : this.bids.set(p, s);
      for (const [p, s] of m.asks) s === 0 ? this.asks.delete(p) : this.asks.set(p, s);
    }
    this.sequence = m.sequence;
    return this.checksum(Math.min(m.depth, 10)) === m.checksum ? "ok" : "checksum_mismatch";
  }
  levels(): { bids: Level[]; asks: Level[] } {
    return { bids: [...this.bids].sort((a, b) => b[0] - a[0]), asks: [...this.asks].sort((a, b) => a[0] - b[0]) };
  }
  checksum(n: number): number {
    const { bids, asks } = this.levels();
    const parts: string[] = [];
    for (let i = 0; i < n; i++) {
      if (i < bids.length) parts.push(`${bids[i][0]}:${bids[i][1]}`);
      if (i < asks.length) parts.push(`${asks[i][0]}:${asks[i][1]}`);
    }
    return crc32(parts.join(":")) >>> 0;
  }
}

function refused(r: Res, status: number, code: string, reason?: string): void {
  assert.equal(r.status, status, r.text);
  assert.equal(r.body?.error?.code, code, r.text);
  assert.equal(typeof r.body.error.message, "string");
  assert.equal(typeof r.body.error.details, "object");
  if (reason) assert.equal(r.body.error.details.reason, reason, r.text);
}

test("DEX API end to end over the running stack", { timeout: 240_000 }, async (t) => {
  await withDexStack({ prefix: "dex-api-e2e-" }, async ({ config, stack, pipe, defer }) => {
    const sockets: TestWs[] = [];
    let grpcClient: grpc.Client | undefined;
    defer(() => {
      for (const s of sockets) s.close();
      grpcClient?.close();
    });
    const dexUrls = dexApiUrls(stack);
    const { origin, ws: wsUrl } = dexUrls;
    const m: MarketSpec = pipe.dexService.listMarkets().find((x) => x.symbol === "WETH-USD")!;
    const settlement = stack.deployments.home.contracts.Settlement as Address;
    const chainId = config.chains.home.chainId;
    const client = createPublicClient({ transport: http(stack.chains.home.rpcUrl) });
    const abi = settlementAbi;
    const bal = (a: Address, tok: Address) =>
      client.readContract({ address: settlement, abi, functionName: "balanceOf", args: [a, tok] }) as Promise<bigint>;
    const [A, B, C, D] = config.keys.demoTraders
      .slice(0, 4)
      .map((k) => privateKeyToAccount(k.privateKey)) as PrivateKeyAccount[];
    let nonce = 1n; // wallet-signed nonces (B's), one per order, from 1 (decisions: Settlement contract)

    await t.test(
      "1. a bot (API key) and a wallet (EIP-712) trade; WS trades + private channels, gRPC StreamTrades, settled on chain",
      async () => {
        // the bot's key, through the API: created by A's wallet signature, agent approved on chain
        const botKey = await createApiKey(origin, A);
        const listed = await api(origin, "GET", "/v1/api-keys", { headers: keyHeaders(botKey) });
        assert.equal(listed.status, 200, listed.text);
        const agent = listed.body.api_keys.find((k: { id: string }) => k.id === botKey.id);
        assert.equal(agent.agent_status, "approved");
        const agentExpiry = (await client.readContract({
          address: settlement,
          abi,
          functionName: "agentExpiry",
          args: [A.address, agent.agent_address],
        })) as bigint;
        assert.ok(agentExpiry > BigInt(Math.floor(Date.now() / 1000)), "the agent approval is on chain");
        // the wallet holds a read-only key only to authenticate its WebSocket private channel
        const walletReadKey = await createApiKey(origin, B, { permissions: ["read"] }, false);

        const pub = await connectWs(wsUrl);
        sockets.push(pub);
        pub.send({ type: "subscribe", channel: "trades", symbol: "WETH-USD" });
        const subAck = await pub.next((x) => x.type === "subscribed" && x.channel === "trades");
        const botWs = await ordersWs(wsUrl, botKey);
        const walletWs = await ordersWs(wsUrl, walletReadKey);
        sockets.push(botWs, walletWs);

        const pkg = grpc.loadPackageDefinition(
          protoLoader.loadSync(PROTO, { keepCase: true, longs: Number, enums: String, defaults: true }),
        ) as any;
        grpcClient = new pkg.dex.v1.TradingService(dexUrls.grpc, grpc.credentials.createInsecure()) as grpc.Client;
        const grpcTrades: any[] = [];
        const stream = (grpcClient as any).StreamTrades({ symbol: "WETH-USD" });
        stream.on("data", (tr: unknown) => grpcTrades.push(tr));
        stream.on("error", () => {}); // cancelled at the end
        // the stream subscribes when the server receives the call; GetOrderBook on the same channel after it
        await new Promise<void>((resolve, reject) =>
          (grpcClient as any).GetOrderBook({ symbol: "WETH-USD", depth: 5 }, (err: unknown) =>
            err ? reject(err) : resolve(),
          ),
        );
        await new Promise((r) => setTimeout(r, 300));

        const before = {
          aW: await bal(A.address, m.baseToken),
          aU: await bal(A.address, m.quoteToken),
          bW: await bal(B.address, m.baseToken),
          bU: await bal(B.address, m.quoteToken),
        };
        const sizeLots = 5_000n; // 0.5 WETH
        const priceTicks = 250_000n; // 2,500.00 USD
        const ask = await api(origin, "POST", "/v1/orders", {
          body: await signedOrderBody(B, m, chainId, settlement, {
            side: "sell",
            priceTicks,
            sizeLots,
            nonce: nonce++,
            clientOrderId: "wallet-ask-1",
          }),
        });
        assert.equal(ask.status, 201, ask.text);
        assert.equal(ask.body.status, "open");
        const bid = await api(origin, "POST", "/v1/orders", {
          headers: keyHeaders(botKey),
          body: keyOrderBody(m, { side: "buy", priceTicks, sizeLots, clientOrderId: "bot-bid-1" }),
        });
        assert.equal(bid.status, 201, bid.text);
        assert.equal(bid.body.status, "filled");
        assert.equal(bid.body.filled_size, 0.5);
        assert.match(bid.body.order_id, /^[0-9a-f-]{36}$/);

        const wsTrade = await pub.next((x) => x.type === "trade");
        assert.deepEqual(
          {
            symbol: wsTrade.symbol,
            price: wsTrade.price,
            size: wsTrade.size,
            side: wsTrade.side,
            sequence: wsTrade.sequence,
          },
          { symbol: "WETH-USD", price: 2500, size: 0.5, side: "buy", sequence: subAck.sequence + 1 },
        );
        assert.equal(typeof wsTrade.timestamp, "number");
        const botFill = await botWs.next((x) => x.type === "order" && x.order.order_id === bid.body.order_id && x.fill);
        assert.equal(botFill.order.status, "filled");
        assert.equal(botFill.fill.liquidity, "taker");
        assert.equal(botFill.fill.trade_id, wsTrade.trade_id);
        const walletFill = await walletWs.next(
          (x) => x.type === "order" && x.order.order_id === ask.body.order_id && x.fill,
        );
        assert.equal(walletFill.order.status, "filled");
        assert.equal(walletFill.fill.liquidity, "maker");
        assert.equal(walletFill.fill.trade_id, wsTrade.trade_id);
        // neither sees the other's order on its private channel
        assert.ok(!botWs.messages.some((x) => x.type === "order" && x.order.order_id === ask.body.order_id));
        assert.ok(!walletWs.messages.some((x) => x.type === "order" && x.order.order_id === bid.body.order_id));
        const gTrade = await poll(
          "the gRPC trade",
          async () => grpcTrades.find((x) => x.trade_id === wsTrade.trade_id),
          15_000,
        );
        assert.deepEqual(
          {
            symbol: gTrade.symbol,
            price: gTrade.price,
            size: gTrade.size,
            side: gTrade.side,
            sequence: gTrade.sequence,
          },
          { symbol: "WETH-USD", price: 2500, size: 0.5, side: "buy", sequence: 1 },
        );
        stream.cancel();

        // settled: the bot's order reports its fill settled with a tx hash, and the chain moved exactly
        const settled = await poll("settlement", async () => {
          const r = await api(origin, "GET", `/v1/orders/${bid.body.order_id}`, { headers: keyHeaders(botKey) });
          return r.body?.fills?.[0]?.settlement === "settled" ? r.body : undefined;
        });
        const receipt = await client.getTransactionReceipt({ hash: settled.fills[0].tx_hash });
        const logs = await settledTradesOf(client, receipt.logs, settlement);
        assert.equal(logs.length, 1);
        const ev = logs[0]!;
        const base = sizeLots * m.lotSize;
        const quote = (base * priceTicks * m.tickSize) / 10n ** 18n;
        const [makerBps, takerBps] = (await client.readContract({
          address: settlement,
          abi,
          functionName: "fees",
        })) as [number, number];
        const makerFee = feeFor(quote, makerBps); // the seller (maker) receives quote
        const takerFee = feeFor(base, takerBps); // the buyer (taker) receives base
        assert.deepEqual(
          [ev.maker, ev.taker, ev.takerIsBuy, ev.baseAmount, ev.quoteAmount, ev.makerFee, ev.takerFee],
          [B.address.toLowerCase(), A.address.toLowerCase(), true, base, quote, makerFee, takerFee],
        );
        assert.equal(await bal(A.address, m.baseToken), before.aW + base - takerFee);
        assert.equal(await bal(A.address, m.quoteToken), before.aU - quote);
        assert.equal(await bal(B.address, m.baseToken), before.bW - base);
        assert.equal(await bal(B.address, m.quoteToken), before.bU + quote - makerFee);
        // idempotency: the same client order id returns the first result, no second order
        const retry = await api(origin, "POST", "/v1/orders", {
          headers: keyHeaders(botKey),
          body: keyOrderBody(m, { side: "buy", priceTicks, sizeLots, clientOrderId: "bot-bid-1" }),
        });
        assert.equal(retry.status, 201);
        assert.equal(retry.body.order_id, bid.body.order_id);
        assert.equal(retry.headers.get("idempotent-replayed"), "true");
      },
    );

    const keys = new Map<string, TestKey>();
    await t.test(
      "2. a WebSocket book client holds exactly the REST book after a burst, and detects a dropped or corrupted update",
      async (t2) => {
        for (const w of [A, C, D]) keys.set(w.address, await createApiKey(origin, w));
        const depth = 100;
        const bookWs = await connectWs(wsUrl);
        sockets.push(bookWs);
        const received: BookMsg[] = [];
        const live = new WsBook();
        const results: string[] = [];
        bookWs.ws.on("message", (d) => {
          const x = JSON.parse(d.toString());
          if (x.type !== "orderbook_snapshot" && x.type !== "orderbook_update") return;
          received.push(x);
          results.push(live.apply(x));
        });
        bookWs.send({ type: "subscribe", channel: "orderbook", symbol: "WETH-USD", depth });
        await poll("the snapshot", async () => (received.length ? true : undefined), 10_000);

        // 200 operations from 4 accounts (3 API keys, 1 wallet signing its orders): ~70% orders on 40
        // price levels whose buy and sell ranges overlap (so some cross), ~30% cancels of own open orders.
        let seed = 42;
        const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
        const open = new Map<string, string[]>();
        let placed = 0;
        let cancelled = 0;
        let traded = 0;
        const one = async (w: PrivateKeyAccount, i: number) => {
          const mine = open.get(w.address) ?? [];
          open.set(w.address, mine);
          if (mine.length > 0 && rnd() < 0.3) {
            const id = mine.splice(Math.floor(rnd() * mine.length), 1)[0];
            const p = `/v1/orders/${id}`;
            const key = keys.get(w.address);
            const r = await api(origin, "DELETE", p, {
              headers: key ? keyHeaders(key) : await walletHeaders(w, origin, "DELETE", p),
            });
            // an order may have been filled meanwhile by another account's order
            assert.ok(r.status === 200 || (r.status === 409 && r.body.error.code === "ORDER_NOT_OPEN"), r.text);
            if (r.status === 200) cancelled++;
            return;
          }
          const buy = rnd() < 0.5;
          const priceTicks = 240_000n + 10n * BigInt(buy ? Math.floor(rnd() * 25) : 15 + Math.floor(rnd() * 25));
          const sizeLots = 100n * BigInt(1 + Math.floor(rnd() * 20));
          const cid = `burst-${w.address.slice(2, 8)}-${i}`;
          const key = keys.get(w.address);
          const body = key
            ? keyOrderBody(m, { side: buy ? "buy" : "sell", priceTicks, sizeLots, clientOrderId: cid })
            : await signedOrderBody(w, m, chainId, settlement, {
                side: buy ? "buy" : "sell",
                priceTicks,
                sizeLots,
                nonce: nonce++,
                clientOrderId: cid,
              });
          const r = await api(origin, "POST", "/v1/orders", { headers: key ? keyHeaders(key) : {}, body });
          assert.equal(r.status, 201, r.text);
          placed++;
          if (r.body.filled_size > 0) traded++;
          if (r.body.status === "open" || r.body.status === "partially_filled") mine.push(r.body.order_id);
        };
        // a REST snapshot taken mid-burst, to line up with the stream afterwards (one book sequence)
        const midBurst = (async () => {
          await new Promise((r) => setTimeout(r, 2_500));
          const r = await api(origin, "GET", `/v1/orderbook/WETH-USD?depth=${depth}`);
          assert.equal(r.status, 200, r.text);
          return r.body as {
            bids: { price: number; size: number }[];
            asks: { price: number; size: number }[];
            sequence: number;
          };
        })();
        // each account at ~8 requests/s (under spec 8's 10 orders/s), the four concurrently
        await Promise.all(
          [A, B, C, D].map(async (w) => {
            for (let i = 0; i < 50; i++) {
              const t0 = Date.now();
              await one(w, i);
              await new Promise((r) => setTimeout(r, Math.max(0, 125 - (Date.now() - t0))));
            }
          }),
        );
        assert.ok(
          placed >= 120 && cancelled >= 20 && traded >= 5,
          `placed ${placed}, cancelled ${cancelled}, crossed ${traded}`,
        );

        const rest = await poll(
          "the WS book to equal the REST book",
          async () => {
            const r = await api(origin, "GET", `/v1/orderbook/WETH-USD?depth=${depth}`);
            assert.equal(r.status, 200, r.text);
            const want = {
              bids: r.body.bids.map((l: any) => [l.price, l.size]),
              asks: r.body.asks.map((l: any) => [l.price, l.size]),
            };
            try {
              assert.deepEqual(live.levels(), want);
              return want;
            } catch {
              return undefined;
            }
          },
          15_000,
        );
        assert.ok(rest.bids.length >= 5 && rest.asks.length >= 5, "the burst left a two-sided book");
        // one book sequence: the quiet book's REST, gRPC and WebSocket sequences are the same number
        const restNow = await api(origin, "GET", `/v1/orderbook/WETH-USD?depth=${depth}`);
        const grpcNow = await new Promise<any>((resolve, reject) =>
          (grpcClient as any).GetOrderBook({ symbol: "WETH-USD", depth }, (err: unknown, res: unknown) =>
            err ? reject(err) : resolve(res),
          ),
        );
        assert.equal(Number(grpcNow.sequence), restNow.body.sequence, "gRPC and REST carry the same book sequence");
        assert.equal(
          live.sequence,
          restNow.body.sequence,
          "the WebSocket's last update carries the REST book's sequence",
        );
        // the mid-burst REST snapshot lined up with the stream: stale updates skipped, the rest applied with
        // their checksums verified, ends at the REST book
        const snap = await midBurst;
        const lined = new WsBook().fromRest(snap);
        const lineup = received.slice(1).map((x) => lined.apply(x));
        assert.ok(
          lineup.includes("stale") && lineup.includes("ok"),
          `the snapshot (sequence ${snap.sequence}) fell inside the stream: ${[...new Set(lineup)]}`,
        );
        assert.deepEqual(
          [...new Set(lineup.filter((r) => r !== "stale"))],
          ["ok"],
          "after the REST snapshot every update applies with a matching checksum",
        );
        assert.deepEqual(lined.levels(), rest);
        assert.ok(received.length > 50, `${received.length} book messages`);
        assert.deepEqual(
          [...new Set(results)],
          ["ok"],
          "every live message applied in sequence with a matching checksum",
        );
        t2.diagnostic(
          `burst: ${placed} orders (${traded} crossed), ${cancelled} cancels; ${received.length} book messages; final book ${rest.bids.length} bids / ${rest.asks.length} asks`,
        );

        // an injected gap: the same messages with one update dropped client side
        const drop = Math.floor(received.length / 2);
        const gapped = new WsBook();
        const outcome = received.filter((_, i) => i !== drop).map((x) => gapped.apply(x));
        assert.deepEqual(outcome.slice(0, drop), Array(drop).fill("ok"));
        assert.equal(outcome[drop], "gap", "the update after the dropped one is detected as a gap");
        // a corrupted update: one changed size fails the checksum
        const corrupt = new WsBook();
        const bad = received.findIndex(
          (x, i) => i > 0 && x.bids.length + x.asks.length > 0 && [...x.bids, ...x.asks].some(([, s]) => s > 0),
        );
        const outcome2 = received.slice(0, bad + 1).map((x, i) => {
          if (i !== bad) return corrupt.apply(x);
          const side = x.bids.some(([, s]) => s > 0) ? "bids" : "asks";
          const levels = x[side].map(([p, s]) => [p, s > 0 ? s + 0.0001 : s] as Level);
          return corrupt.apply({ ...x, [side]: levels });
        });
        assert.equal(outcome2[bad], "checksum_mismatch");
        // recovery: resubscribe, a fresh snapshot equals the REST book
        bookWs.send({ type: "unsubscribe", channel: "orderbook", symbol: "WETH-USD", depth });
        await bookWs.next((x) => x.type === "unsubscribed");
        const before = received.length;
        bookWs.send({ type: "subscribe", channel: "orderbook", symbol: "WETH-USD", depth });
        await poll("the new snapshot", async () => (received.length > before ? true : undefined), 10_000);
        const fresh = new WsBook();
        assert.equal(fresh.apply(received[before]), "ok");
        assert.deepEqual(fresh.levels(), rest);
      },
    );

    await t.test("3. security and bad-input smoke through the real wiring", async () => {
      const cKey = keys.get(C.address)!;
      const dKey = keys.get(D.address)!;
      // the signed scheme on the ticker: right signature 200, wrong one 401 invalid_signature
      const ok = await api(origin, "GET", "/v1/ticker/WETH-USD", {
        headers: hmacHeaders(cKey.apiKey, cKey.secret, "GET", "/v1/ticker/WETH-USD"),
      });
      assert.equal(ok.status, 200, ok.text);
      assert.equal(ok.body.symbol, "WETH-USD");
      refused(
        await api(origin, "GET", "/v1/ticker/WETH-USD", {
          headers: hmacHeaders(cKey.apiKey, "0".repeat(64), "GET", "/v1/ticker/WETH-USD"),
        }),
        401,
        "UNAUTHORIZED",
        "invalid_signature",
      );
      const wrongSecretOrder = keyOrderBody(m, {
        side: "buy",
        priceTicks: 100_000n,
        sizeLots: 100n,
        clientOrderId: "wrong-secret",
      });
      refused(
        await api(origin, "POST", "/v1/orders", {
          headers: { "X-API-Key": cKey.apiKey, "X-API-Secret": "1".repeat(64) },
          body: wrongSecretOrder,
        }),
        401,
        "UNAUTHORIZED",
        "invalid_secret",
      );

      // one account cannot cancel (or read) another's order; the order stays open
      const victim = await api(origin, "POST", "/v1/orders", {
        headers: keyHeaders(cKey),
        body: keyOrderBody(m, { side: "buy", priceTicks: 100_000n, sizeLots: 100n, clientOrderId: "victim" }),
      });
      assert.equal(victim.status, 201, victim.text);
      refused(
        await api(origin, "DELETE", `/v1/orders/${victim.body.order_id}`, { headers: keyHeaders(dKey) }),
        404,
        "ORDER_NOT_FOUND",
      );
      refused(
        await api(origin, "GET", `/v1/orders/${victim.body.order_id}`, { headers: keyHeaders(dKey) }),
        404,
        "ORDER_NOT_FOUND",
      );
      assert.equal(
        (await api(origin, "GET", `/v1/orders/${victim.body.order_id}`, { headers: keyHeaders(cKey) })).body.status,
        "open",
      );

      // revoking a key cancels every open order placed with it; the key no longer works
      const temp = await createApiKey(origin, D);
      const placedIds: string[] = [];
      for (const [i, p] of [100_100n, 100_200n].entries()) {
        const r = await api(origin, "POST", "/v1/orders", {
          headers: keyHeaders(temp),
          body: keyOrderBody(m, { side: "buy", priceTicks: p, sizeLots: 200n, clientOrderId: `revoked-${i}` }),
        });
        assert.equal(r.status, 201, r.text);
        placedIds.push(r.body.order_id);
      }
      const bookHas = async (price: number) =>
        (await api(origin, "GET", "/v1/orderbook/WETH-USD?depth=1000")).body.bids.some((l: any) => l.price === price);
      assert.ok(await bookHas(1001));
      const revoked = await api(origin, "DELETE", `/v1/api-keys/${temp.id}`, { headers: keyHeaders(temp) });
      assert.equal(revoked.status, 200, revoked.text);
      assert.deepEqual([...revoked.body.cancelled_order_ids].sort(), [...placedIds].sort());
      for (const id of placedIds) {
        const o = await api(origin, "GET", `/v1/orders/${id}`, { headers: keyHeaders(dKey) });
        assert.equal(o.body.status, "cancelled");
        assert.equal(o.body.status_reason, "api_key_revoked");
      }
      assert.ok(!(await bookHas(1001)) && !(await bookHas(1002)), "the revoked key's orders left the book");
      refused(
        await api(origin, "POST", "/v1/orders", {
          headers: keyHeaders(temp),
          body: keyOrderBody(m, { side: "buy", priceTicks: 100_000n, sizeLots: 100n, clientOrderId: "after-revoke" }),
        }),
        401,
        "UNAUTHORIZED",
        "invalid_api_key",
      );

      // a 1 MB body: the spec's error body, not a 500 (and nothing placed)
      const huge = JSON.stringify({
        symbol: "WETH-USD",
        side: "buy",
        type: "limit",
        price: 1000,
        size: 0.01,
        pad: "x".repeat(1 << 20),
      });
      const tooBig = await api(origin, "POST", "/v1/orders", { headers: keyHeaders(cKey), body: huge });
      refused(tooBig, 413, "PAYLOAD_TOO_LARGE");
      refused(
        await api(origin, "POST", "/v1/orders", { headers: keyHeaders(cKey), body: '{"symbol": "WETH-USD",' }),
        400,
        "INVALID_REQUEST",
      );
      refused(await api(origin, "GET", "/v1/orderbook/DOGE-USD"), 400, "INVALID_SYMBOL");

      // order placement over 10/s for one key: 429 RATE_LIMIT_EXCEEDED with Retry-After; headers everywhere
      // (a fixed 1 s window: 40 at once cannot all fall into windows with room, even on a slow machine)
      const burst = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          api(origin, "POST", "/v1/orders", {
            headers: keyHeaders(cKey),
            body: keyOrderBody(m, {
              side: "buy",
              priceTicks: 100_000n + BigInt(i),
              sizeLots: 100n,
              clientOrderId: `rl-${i}`,
            }),
          }),
        ),
      );
      const limited = burst.filter((r) => r.status === 429);
      assert.ok(limited.length >= 1, `429s: ${limited.length}, statuses ${burst.map((r) => r.status).join(",")}`);
      assert.equal(burst.filter((r) => r.status === 201).length, 40 - limited.length);
      for (const r of limited) {
        refused(r, 429, "RATE_LIMIT_EXCEEDED");
        assert.ok(Number(r.headers.get("retry-after")) >= 1, "Retry-After");
      }
      for (const r of burst)
        for (const h of ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"])
          assert.ok(r.headers.get(h), `${h} on ${r.status}`);
    });

    await t.test(
      "4. buf curl (a gRPC client none of us wrote) against the running stack: reflection, health, GetOrderBook = REST book",
      async () => {
        const base = `http://${dexUrls.grpc.replace(/^[a-z]+:\/\//, "")}`;
        const services = await bufCurl(["--list-services", base]);
        assert.equal(services.code, 0, services.stderr);
        assert.match(services.stdout, /dex\.v1\.TradingService/);
        assert.match(services.stdout, /grpc\.health\.v1\.Health/);
        const book = await bufCurl([
          "-d",
          JSON.stringify({ symbol: "WETH-USD", depth: 1000 }),
          `${base}/dex.v1.TradingService/GetOrderBook`,
        ]);
        assert.equal(book.code, 0, book.stderr);
        const rest = (await api(origin, "GET", "/v1/orderbook/WETH-USD?depth=1000")).body;
        const levels = (xs: any[] | undefined) => (xs ?? []).map((l: any) => [Number(l.price), Number(l.size)]);
        assert.ok(levels(rest.bids).length + levels(rest.asks).length > 0, "the book is not empty after the burst");
        assert.deepEqual(levels(book.json.bids), levels(rest.bids));
        assert.deepEqual(levels(book.json.asks), levels(rest.asks));
        const unknown = await bufCurl([
          "-d",
          JSON.stringify({ symbol: "NOPE-USD", depth: 5 }),
          `${base}/dex.v1.TradingService/GetOrderBook`,
        ]);
        assert.notEqual(unknown.code, 0, "an unknown symbol is refused");
      },
    );

    // every trade of the run settles: the batcher drains without halting
    await pipe.pipeline.batcher.drain();
    const health = await pipe.health!();
    assert.equal(health.ok, true, health.detail);
  });
});
