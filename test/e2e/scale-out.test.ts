// Past one machine (#17): ONE external chain node (Anvil, plus one for the remote chain the stack requires),
// ONE external Postgres server, ONE nats-server (the partitions' order logs, calls and events: ORDER_LOG_URL),
// the exchange deployed once, then as child processes two matcher partitions
// (WETH-USD with the default operator on settle lane 0; WBTC-USD with an operator of its own on lane 1) and two API
// processes (each routing to both partitions, one database). A client sees one consistent DEX: orders placed
// through API 1 and API 2 on both partitions' markets cross and settle on chain exactly once, each by its
// partition's operator; both APIs answer the same book, order and balances; API 2's WebSocket shows the
// trade of an order placed through API 1; an API key made through API 1 trades through API 2. A trader who
// over-commits across the partitions has the second trade refused by the contract, the venue keeps
// settling. The exchange API runs in both API processes over the same partitions: a user's exchange orders
// placed through one process on either partition's market fill, settle, and show (order, SSE settlement event,
// transactions, portfolio) through the other. Killing one partition makes its markets alone unavailable, in
// both APIs: an exchange order there is 503 with nothing written, the other partition's market still trades.
// The exchange API's chain writers run in one API process, the other's standing by until that process is killed.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { createPublicClient, http, type Address, type PrivateKeyAccount } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { createTestConfig, defaultComponents, startStack } from "../../scripts/stack";
import { startNatsCluster } from "../../pipeline/replication/nats-cluster";
import type { PipelineHandle } from "../../scripts/stack/components/pipeline";
import type { MarketSpec } from "../../pipeline/service";
import { settlementAbi } from "../../sdk/abi";
import { OPERATOR_ROLE } from "../../sdk/eip712";
import { api, createApiKey, keyHeaders, keyOrderBody, signedOrderBody, walletHeaders } from "../../api/testing/client";
import { connectWs, type TestWs } from "../../api/testing/ws-client";
import { decimalPriceToTicks, sizeToLots } from "../../api/dex/units";
import { startExternalAnvil, startPostgresServer } from "../support/external-parts";
import { createDb } from "../../db";
import { loginExchange, openRealtime } from "./exchange-session";
import { healthy, spawnStack, stopChildren, waitFor, type StackChild } from "../support/stack-process";
import { settledTradesOf } from "../../sdk/settled-trades";

const ENCRYPTION_KEY = randomBytes(32).toString("hex");
const LANE1 = 1n << 56n;

const ticks = (m: MarketSpec, p: string) => (decimalPriceToTicks(m, p) as { ok: true; value: bigint }).value;
/** The exchange API's chain writers in a child stack (its /health detail): "writing" or "standby". */
const chainWriters = async (c: StackChild) => {
  const h = (await (await fetch(`http://127.0.0.1:${c.env.HEALTH_PORT}/health`)).json()) as {
    components: { name: string; detail?: string }[];
  };
  return /chain writers: (\w+)/.exec(h.components.find((x) => x.name === "exchange-api")?.detail ?? "")?.[1];
};
const lots = (m: MarketSpec, s: string) => (sizeToLots(m, s) as { ok: true; value: bigint }).value;

test("scale-out: two matcher partitions and two API processes on one external chain and one Postgres are one consistent DEX", {
  timeout: 600_000,
}, async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "scale-out-e2e-"));
  const children: StackChild[] = [];
  const sockets: TestWs[] = [];
  const streams: { close(): void }[] = [];
  const parts: { stop(): Promise<void> }[] = [];
  try {
    const [home, remote, pg, nats] = await Promise.all([
      startExternalAnvil({ chainId: 31337 }),
      startExternalAnvil({ chainId: 31338 }),
      startPostgresServer(),
      startNatsCluster({ dataDir: path.join(root, "nats"), size: 1 }),
    ]);
    parts.push(home, remote, pg, nats);
    // the second partition's operator: a key of its own, with gas (never a deployer's or another operator's)
    const operatorBKey = generatePrivateKey();
    const operatorB = privateKeyToAccount(operatorBKey);
    await fetch(home.rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "anvil_setBalance",
        params: [operatorB.address, "0x3635c9adc5dea00000"],
      }),
    });
    const shared = {
      HOME_CHAIN_RPC_URL: home.rpcUrl,
      REMOTE_CHAIN_RPC_URL: remote.rpcUrl,
      DEPLOYMENTS_FILE: path.join(root, "deployments.json"),
      DATABASE_URL: pg.url,
      // one key seals the API keys and the exchange API's tenant-token key in the one database
      API_KEY_ENCRYPTION_KEY: ENCRYPTION_KEY,
      LOG_LEVEL: "warn",
      SIMULATOR: "off",
    };

    // ---- deploy once (the provisioning child grants the second partition's operator its role; the exchange
    // API's provisioning deploys the asset tokens and the eligibility registry)
    const { config } = await createTestConfig(path.join(root, "deploy"), {
      ...shared,
      EXTRA_OPERATOR_ADDRESSES: operatorB.address,
    });
    const deployer = await startStack({
      config,
      components: defaultComponents(["pipeline", "exchange-api"]),
      onComponentError: "fail",
    });
    const all = (
      deployer.components.find((c) => c.name === "pipeline")!.handle as PipelineHandle
    ).dexService.listMarkets();
    const settlement = deployer.deployments.home.contracts.Settlement as Address;
    const startBlock = BigInt(deployer.deployments.home.startBlock);
    await deployer.stop();
    const eth = all.find((m) => m.symbol === "WETH-USD")!;
    const btc = all.find((m) => m.symbol === "WBTC-USD")!;
    const chain = createPublicClient({ transport: http(home.rpcUrl) });
    assert.equal(
      await chain.readContract({
        address: settlement,
        abi: settlementAbi,
        functionName: "hasRole",
        args: [OPERATOR_ROLE, operatorB.address],
      }),
      true,
    );

    // ---- two partitions, then two API processes, each its own process and data dir
    const partitionEnv = async (n: number, markets: string, extra: Record<string, string> = {}) =>
      (
        await createTestConfig(path.join(root, `partition-${n}`), {
          ...shared,
          STACK_COMPONENTS: "pipeline",
          PIPELINE_MARKETS: markets,
          PARTITION_INDEX: String(n - 1),
          ORDER_LOG_URL: nats.urls,
          ORDER_LOG_REPLICAS: "1",
          ...extra,
        })
      ).env;
    const p1 = spawnStack("partition 1", await partitionEnv(1, "WETH-USD"));
    const p2 = spawnStack("partition 2", await partitionEnv(2, "WBTC-USD", { OPERATOR_PRIVATE_KEY: operatorBKey }));
    children.push(p1, p2);
    await Promise.all([healthy(p1), healthy(p2)]);
    // each serves the DEX API and the exchange API; API 1 also runs the identity provider both exchange APIs trust
    const apiEnv = async (n: number, extra: Record<string, string>) =>
      (
        await createTestConfig(path.join(root, `api-${n}`), {
          ...shared,
          DEX_IP_RATE_LIMIT: "100000",
          ORDER_LOG_URL: nats.urls,
          DEX_PARTITIONS: "WETH-USD=0;WBTC-USD=1",
          ...extra,
        })
      ).env;
    const a1Env = await apiEnv(1, { STACK_COMPONENTS: "iam,dex-api,exchange-api" });
    const iam1 = `http://127.0.0.1:${a1Env.IAM_PORT}`;
    const a1 = spawnStack("api 1", a1Env);
    const a2 = spawnStack(
      "api 2",
      await apiEnv(2, { STACK_COMPONENTS: "dex-api,exchange-api", EXCHANGE_OIDC_ISSUERS: iam1 }),
    );
    children.push(a1, a2);
    await Promise.all([healthy(a1), healthy(a2)]);
    // the exchange API's chain writers (funding loop, eligibility registry sync) run in one API process only
    const [writerApi, standbyApi] = await waitFor(
      "one API process's chain writers writing, the other's standing by",
      async () => {
        const states = [await chainWriters(a1), await chainWriters(a2)];
        if (states.includes("waiting")) return undefined;
        assert.deepEqual([...states].sort(), ["standby", "writing"], `chain writers: ${states.join(", ")}`);
        return states[0] === "writing" ? [a1, a2] : [a2, a1];
      },
      60_000,
      [a1, a2],
    );
    const api1 = `http://127.0.0.1:${a1.env.DEX_API_PORT}`;
    const api2 = `http://127.0.0.1:${a2.env.DEX_API_PORT}`;
    const ws2Url = `ws://127.0.0.1:${a2.env.DEX_WS_PORT}/ws`;

    // both APIs list both partitions' markets
    for (const origin of [api1, api2]) {
      const r = await api(origin, "GET", "/v1/markets");
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(
        JSON.stringify(r.body)
          .match(/W(ETH|BTC)-USD/g)!
          .filter((s: string, i: number, a: string[]) => a.indexOf(s) === i)
          .sort(),
        ["WBTC-USD", "WETH-USD"],
      );
    }

    const [A, B, C, D] = config.keys.demoTraders
      .slice(0, 4)
      .map((k) => privateKeyToAccount(k.privateKey)) as PrivateKeyAccount[];
    const nonces = new Map<string, bigint>();
    const place = async (
      origin: string,
      w: PrivateKeyAccount,
      m: MarketSpec,
      side: "buy" | "sell",
      price: string,
      size: string,
    ) => {
      const nonce = (nonces.get(w.address) ?? 10_000n) + 1n;
      nonces.set(w.address, nonce);
      return api(origin, "POST", "/v1/orders", {
        body: await signedOrderBody(w, m, home.chainId, settlement, {
          side,
          priceTicks: ticks(m, price),
          sizeLots: lots(m, size),
          nonce,
        }),
      });
    };
    const get = async (origin: string, w: PrivateKeyAccount, p: string) =>
      api(origin, "GET", p, { headers: await walletHeaders(w, origin, "GET", p) });
    const settledFill = (origin: string, w: PrivateKeyAccount, orderId: string) =>
      waitFor(
        `order ${orderId}'s fill settled`,
        async () => {
          const r = await get(origin, w, `/v1/orders/${orderId}`);
          return r.status === 200 &&
            r.body.fills.length > 0 &&
            r.body.fills.every((f: { settlement: string }) => f.settlement === "settled")
            ? r.body
            : undefined;
        },
        60_000,
        children,
      );

    // API 2's public trade feed of WETH-USD (partition 1)
    const ws2 = await connectWs(ws2Url);
    sockets.push(ws2);
    ws2.send({ type: "subscribe", channel: "trades", symbol: "WETH-USD" });
    await ws2.next((x) => x.type === "subscribed" && x.channel === "trades", 30_000);

    // ---- orders through both APIs on both partitions' markets cross
    const ask1 = await place(api2, A, eth, "sell", "2500", "1");
    assert.equal(ask1.status, 201, ask1.text);
    assert.equal(ask1.body.status, "open");
    const bid1 = await place(api1, B, eth, "buy", "2500", "1");
    assert.equal(bid1.status, 201, bid1.text);
    assert.equal(bid1.body.status, "filled");
    const bid2 = await place(api1, A, btc, "buy", "60000", "0.1");
    assert.equal(bid2.status, 201, bid2.text);
    const ask2 = await place(api2, B, btc, "sell", "60000", "0.1");
    assert.equal(ask2.status, 201, ask2.text);
    assert.equal(ask2.body.status, "filled");

    // API 2's feed shows the trade of the order placed through API 1
    const wsTrade = await ws2.next((x) => x.type === "trade" && x.symbol === "WETH-USD", 30_000);
    const ethFill = await settledFill(api1, B, bid1.body.order_id);
    assert.equal(wsTrade.trade_id, ethFill.fills[0].trade_id);
    assert.equal(wsTrade.price, 2500);
    const btcFill = await settledFill(api2, A, bid2.body.order_id);

    // settled on chain exactly once each, by its partition's own operator, in its own lane
    const logs = await settledTradesOf(
      chain,
      await chain.getLogs({ address: settlement, fromBlock: startBlock }),
      settlement,
    );
    assert.equal(logs.length, 2, "two trades settled");
    const byBase = (t: Address) => logs.filter((l) => l.baseToken === t.toLowerCase());
    const [ethLog] = byBase(eth.baseToken);
    const [btcLog] = byBase(btc.baseToken);
    assert.ok(ethLog!.batchId < LANE1, "partition 1 settles in lane 0");
    assert.ok(btcLog!.batchId >= LANE1 && btcLog!.batchId < 2n * LANE1, "partition 2 settles in lane 1");
    assert.equal(ethLog!.transactionHash, ethFill.fills[0].tx_hash.toLowerCase());
    assert.equal(btcLog!.transactionHash, btcFill.fills[0].tx_hash.toLowerCase());
    assert.equal(
      (await chain.getTransaction({ hash: ethLog!.transactionHash! })).from.toLowerCase(),
      config.keys.operator.address.toLowerCase(),
    );
    assert.equal(
      (await chain.getTransaction({ hash: btcLog!.transactionHash! })).from.toLowerCase(),
      operatorB.address.toLowerCase(),
    );

    // ---- both APIs answer the same book, the same order, the same balances
    for (const symbol of ["WETH-USD", "WBTC-USD"]) {
      await place(api1, C, symbol === "WETH-USD" ? eth : btc, "buy", symbol === "WETH-USD" ? "2000" : "50000", "0.5");
      const [b1, b2] = await Promise.all([
        api(api1, "GET", `/v1/orderbook/${symbol}`),
        api(api2, "GET", `/v1/orderbook/${symbol}`),
      ]);
      assert.equal(b1.status, 200, b1.text);
      const strip = (b: Record<string, unknown>) => ({ ...b, timestamp: 0 });
      assert.deepEqual(strip(b2.body), strip(b1.body));
      assert.equal(b1.body.bids.length, 1);
    }
    const [o1, o2] = [
      await get(api1, A, `/v1/orders/${ask1.body.order_id}`),
      await get(api2, A, `/v1/orders/${ask1.body.order_id}`),
    ];
    assert.equal(o1.status, 200, o1.text);
    assert.deepEqual(o2.body, o1.body);
    assert.equal(o1.body.status, "filled");
    const [bal1, bal2] = [await get(api1, C, "/v1/balances"), await get(api2, C, "/v1/balances")];
    assert.equal(bal1.status, 200, bal1.text);
    assert.deepEqual(bal2.body, bal1.body);
    // C's two resting buys lock USD on both partitions: the merged balance holds both locks
    const usd = (bal1.body.balances as { asset: string; locked: number | string }[]).find((b) => b.asset === "USD")!;
    assert.equal(Number(usd.locked), 2000 * 0.5 + 50000 * 0.5);

    // ---- an API key made through API 1 (approval sent by partition 1) trades through API 2 on partition 2
    const key = await createApiKey(api1, C);
    const kOrder = await api(api2, "POST", "/v1/orders", {
      headers: keyHeaders(key),
      body: keyOrderBody(btc, {
        side: "buy",
        priceTicks: ticks(btc, "40000"),
        sizeLots: lots(btc, "0.01"),
        clientOrderId: "scale-bot-1",
      }),
    });
    assert.equal(kOrder.status, 201, kOrder.text);
    const kSeen = await api(api1, "GET", `/v1/orders/${kOrder.body.order_id}`, { headers: keyHeaders(key) });
    assert.equal(kSeen.status, 200, kSeen.text);
    assert.equal(kSeen.body.status, "open");
    const kCancel = await api(api1, "DELETE", `/v1/orders/${kOrder.body.order_id}`, { headers: keyHeaders(key) });
    assert.equal(kCancel.status, 200, kCancel.text);

    // ---- cross-partition risk: D commits 750,000 of its 1,000,000 USD on each partition; each partition
    // accepts its order (it sees only its own locks); the contract refuses the second trade to settle and
    // the poisoned-order handling cancels D's order there; both partitions keep settling
    assert.equal((await place(api2, A, eth, "sell", "2500", "300")).status, 201);
    assert.equal((await place(api1, B, btc, "sell", "62500", "12")).status, 201);
    const [dEth, dBtc] = await Promise.all([
      place(api1, D, eth, "buy", "2500", "300"),
      place(api2, D, btc, "buy", "62500", "12"),
    ]);
    assert.equal(dEth.status, 201, dEth.text);
    assert.equal(dBtc.status, 201, dBtc.text);
    assert.equal(dEth.body.status, "filled");
    assert.equal(dBtc.body.status, "filled");
    const outcome = await waitFor(
      "both over-committed orders decided",
      async () => {
        const rs = await Promise.all([
          get(api1, D, `/v1/orders/${dEth.body.order_id}`),
          get(api2, D, `/v1/orders/${dBtc.body.order_id}`),
        ]);
        const settled = rs.filter((r) => r.body.status === "filled" && r.body.fills[0]?.settlement === "settled");
        const refused = rs.filter(
          (r) => r.body.status === "cancelled" && String(r.body.status_reason).startsWith("settlement_rejected"),
        );
        return settled.length === 1 && refused.length === 1 ? { refused: refused[0].body } : undefined;
      },
      90_000,
      children,
    );
    assert.match(String(outcome.refused.status_reason), /settlement_rejected:SettlementInsufficientBalance/);
    // the refused side's market still trades and settles
    const refusedMarket = outcome.refused.symbol === "WETH-USD" ? eth : btc;
    const price = refusedMarket === eth ? "2400" : "61000";
    assert.equal((await place(api1, A, refusedMarket, "sell", price, "0.01")).status, 201);
    const after = await place(api2, B, refusedMarket, "buy", price, "0.01");
    assert.equal(after.body.status, "filled", after.text);
    await settledFill(api2, B, after.body.order_id);

    // ---- the exchange API over the partitions: a user logged in at API 1's identity provider, her tenant token
    // made by API 2, trades through both processes; each process's fills watcher follows both partitions
    const ex1 = `http://127.0.0.1:${a1.env.EXCHANGE_API_PORT}/v1`;
    const ex2 = `http://127.0.0.1:${a2.env.EXCHANGE_API_PORT}/v1`;
    const alice = await loginExchange(iam1, ex2, "+14155550301");
    const ex = (origin: string, method: string, p: string, body?: object) =>
      api(origin, method, p, { headers: alice.headers, body });
    /** alice's exchange limit BUY of `quantity` `assetId` at `limitPrice`, through the API at `origin` */
    const exBuy = (origin: string, assetId: string, quantity: string, limitPrice: string) =>
      ex(origin, "POST", "/orders", { assetId, side: "BUY", orderType: "limit", quantity, limitPrice });
    await waitFor(
      "alice's sandbox dollars",
      async () => {
        const r = await ex(ex1, "GET", "/account");
        return r.status === 200 && BigInt(r.body.data.cashBalanceUnits) > 0n;
      },
      60_000,
      children,
    );
    const stream1 = await openRealtime(ex1.replace(/\/v1$/, ""), alice.auth, "quote:WETH");
    streams.push(stream1);
    assert.equal((await place(api1, A, eth, "sell", "2450", "0.5")).status, 201);
    assert.equal((await place(api2, B, btc, "sell", "61500", "0.01")).status, 201);
    // WETH (partition 1) through API 2, WBTC (partition 2) through API 1
    const xEth = await exBuy(ex2, "WETH", "0.5", "2450");
    assert.equal(xEth.status, 201, xEth.text);
    assert.equal(xEth.body.data.status, "EXECUTED");
    const xBtc = await exBuy(ex1, "WBTC", "0.01", "61500");
    assert.equal(xBtc.status, 201, xBtc.text);
    assert.equal(xBtc.body.data.status, "EXECUTED");
    // API 1's stream carries the settlement of both, each by its partition's operator
    const settlementEvent = (id: string) =>
      waitFor(
        `API 1's settlement event of ${id}`,
        async () => stream1.events.find((e) => e.event === "settlement" && e.data.orderId === id),
        60_000,
        children,
      );
    const [sEth, sBtc] = await Promise.all([
      settlementEvent(xEth.body.data.orderId),
      settlementEvent(xBtc.body.data.orderId),
    ]);
    assert.equal(sEth.data.status, "EXECUTED");
    assert.equal(sBtc.data.status, "EXECUTED");
    const sender = async (hash: string) =>
      (await chain.getTransaction({ hash: hash as `0x${string}` })).from.toLowerCase();
    assert.equal(await sender(sEth.data.txHashes[0]), config.keys.operator.address.toLowerCase());
    assert.equal(await sender(sBtc.data.txHashes[0]), operatorB.address.toLowerCase());
    // each order as the other process shows it; transactions and portfolio equal the chain
    const gotEth = await ex(ex1, "GET", `/orders/${xEth.body.data.orderId}`);
    assert.equal(gotEth.status, 200, gotEth.text);
    assert.deepEqual(
      [gotEth.body.data.status, gotEth.body.data.filledQuantity, gotEth.body.data.settlement],
      ["EXECUTED", 0.5, "settled"],
    );
    const gotBtc = await ex(ex2, "GET", `/orders/${xBtc.body.data.orderId}`);
    assert.deepEqual(
      [gotBtc.body.data.status, gotBtc.body.data.filledQuantity, gotBtc.body.data.settlement],
      ["EXECUTED", 0.01, "settled"],
    );
    const trades = await ex(ex1, "GET", "/transactions?type=trade");
    assert.equal(trades.status, 200, trades.text);
    assert.deepEqual(
      (trades.body.data as { orderId: string; status: string }[]).map((t) => [t.orderId, t.status]).sort(),
      [
        [xEth.body.data.orderId, "completed"],
        [xBtc.body.data.orderId, "completed"],
      ].sort(),
    );
    const portfolio = await ex(ex2, "GET", "/portfolio");
    assert.equal(portfolio.status, 200, portfolio.text);
    for (const [assetId, m] of [
      ["WETH", eth],
      ["WBTC", btc],
    ] as const) {
      const held = (portfolio.body.data as { assetId: string; quantityUnits: string }[]).find(
        (h) => h.assetId === assetId,
      );
      const onChain = await chain.readContract({
        address: settlement,
        abi: settlementAbi,
        functionName: "balanceOf",
        args: [alice.address, m.baseToken],
      });
      assert.equal(held?.quantityUnits, onChain.toString(), `${assetId} holding = Settlement balance`);
      // what she bought, less a fee taken in the asset
      assert.ok(
        onChain > 0n && onChain <= lots(m, assetId === "WETH" ? "0.5" : "0.01") * m.lotSize,
        `${assetId}: ${onChain}`,
      );
    }
    // a resting exchange order on partition 2's market, for the hold counted while that partition is down
    const xRest = await exBuy(ex1, "WBTC", "0.01", "30000");
    assert.equal(xRest.status, 201, xRest.text);
    assert.equal(xRest.body.data.status, "PENDING");

    // ---- partition 2 dies: WBTC-USD alone is unavailable
    p2.proc.kill("SIGKILL");
    await p2.exited;
    const down = await waitFor(
      "WBTC-USD unavailable",
      async () => {
        const r = await api(api1, "GET", "/v1/orderbook/WBTC-USD");
        return r.status === 503 ? r : undefined;
      },
      30_000,
    );
    assert.equal(down.body.error.code, "SERVICE_UNAVAILABLE");
    const placeDown = await place(api2, A, btc, "buy", "30000", "0.01");
    assert.equal(placeDown.status, 503, placeDown.text);
    assert.equal(placeDown.body.error.code, "SERVICE_UNAVAILABLE");
    assert.doesNotMatch(placeDown.text, /127\.0\.0\.1/, "no internal address reaches the client");
    assert.equal((await api(api2, "GET", "/v1/orderbook/WETH-USD")).status, 200);
    const stillOn = await place(api1, A, eth, "buy", "1000", "0.01");
    assert.equal(stillOn.status, 201, stillOn.text);
    assert.equal(stillOn.body.status, "open");
    // the exchange API too: an order on WBTC is the spec's 503 with nothing written; WETH still trades
    const exDb = await createDb({ databaseUrl: pg.url, schema: "exchange_api" });
    try {
      const rows = async () =>
        Number((await exDb.query<{ n: string }>("SELECT count(*)::text AS n FROM exchange_orders")).rows[0].n);
      const before = await rows();
      const xDown = await exBuy(ex2, "WBTC", "0.01", "31000");
      assert.equal(xDown.status, 503, xDown.text);
      assert.equal(xDown.body.error.code, "SERVICE_UNAVAILABLE");
      assert.equal(typeof xDown.body.error.message, "string");
      assert.equal(typeof xDown.body.error.details, "object");
      assert.doesNotMatch(xDown.text, /127\.0\.0\.1|:\d{4,5}\b/, "no internal address reaches the client");
      assert.equal(await rows(), before, "a refused exchange order leaves no row");
      const xOn = await exBuy(ex1, "WETH", "0.01", "1000");
      assert.equal(xOn.status, 201, xOn.text);
      assert.equal(xOn.body.data.status, "PENDING");
      assert.equal(await rows(), before + 1);
    } finally {
      await exDb.close();
    }
    assert.equal((await api(ex2, "GET", "/assets/WBTC/book")).status, 503);
    assert.equal((await api(ex2, "GET", "/assets/WETH/book")).status, 200);
    // the order on the live partition reads as before; the account's orders across markets would be partial: 503
    assert.equal((await ex(ex2, "GET", `/orders/${xEth.body.data.orderId}`)).status, 200);
    const list = await ex(ex1, "GET", "/orders");
    assert.equal(list.status, 503, list.text);
    assert.equal(list.body.error.code, "SERVICE_UNAVAILABLE");

    // ---- the API process running the chain writers dies: the other's take over
    assert.equal(await chainWriters(standbyApi), "standby");
    writerApi.proc.kill("SIGKILL");
    await writerApi.exited;
    await waitFor(
      "the other API process's chain writers writing",
      async () => (await chainWriters(standbyApi)) === "writing",
      60_000,
      [standbyApi],
    );
  } finally {
    for (const s of sockets) s.close();
    for (const s of streams) s.close();
    await stopChildren(children);
    for (const p of parts.reverse()) await p.stop().catch(() => undefined);
    fs.rmSync(root, { recursive: true, force: true });
  }
});
