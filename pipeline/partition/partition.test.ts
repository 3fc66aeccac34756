// The partition transport on NATS and the routed DexService over two partitions served on a one-node
// nats-server (real sockets), each serving the API's in-memory DexService narrowed to its own market.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { limitIntent } from "../testing/orders";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "@nats-io/transport-node";
import type { Msg, NatsConnection } from "@nats-io/nats-core";
import type { Address } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import {
  createMemoryDexService,
  SETTLEMENT_DOMAIN,
  TEST_MARKETS,
  USD,
  WBTC,
  WETH,
  type MemoryDexService,
} from "../../api/testing/memory-dex-service";
import { ORDER_TYPES, signAgentApproval, signOrder, type Order } from "../../sdk/eip712";
import { fixtureOrder } from "../testing/batcher-fixture";
import { metrics } from "../../runtime/metrics";
import { startNatsCluster, type NatsCluster } from "../replication/nats-cluster";
import { agentAccount, DexServiceError, type DexEvent, type DexService, type PlaceOrderRequest } from "../service";
import { callSubject, decodeWire, encodeWire, helloSubject } from "./wire";
import { servePartition, type PartitionServer } from "./serve";
import { createRoutedDexService, type RoutedDexService } from "./routed";
import { narrowed, waitFor as waitForIt } from "../testing/partitions";

let nats: NatsCluster;
let dir: string;
const conns: NatsConnection[] = [];
before(async () => {
  dir = mkdtempSync(join(tmpdir(), "partition-nats-"));
  nats = await startNatsCluster({ dataDir: dir, size: 1 });
});
after(async () => {
  await Promise.all(conns.map((c) => c.close().catch(() => undefined)));
  await nats.stop();
  rmSync(dir, { recursive: true, force: true });
});
const natsConnection = async () => {
  const nc = await connect({ servers: nats.urls });
  conns.push(nc);
  return nc;
};
const route = (symbols: string[], index: number) => ({ symbols, index });
const routedOver = (routes: { symbols: string[]; index: number }[], readyTimeoutMs = 20_000) =>
  createRoutedDexService({ routes, servers: [nats.urls], readyTimeoutMs });
const trader = privateKeyToAccount(generatePrivateKey());
const other = privateKeyToAccount(generatePrivateKey());
const ETH = TEST_MARKETS.find((m) => m.symbol === "WETH-USD")!;
const BTC = TEST_MARKETS.find((m) => m.symbol === "WBTC-USD")!;

const waitFor = (what: string, f: () => boolean | Promise<boolean>, timeoutMs = 20_000) =>
  waitForIt(what, f, timeoutMs, 20);

let nonce = 0n;
async function signedBuy(
  m: typeof ETH,
  priceTicks: bigint,
  sizeLots: bigint,
  who = trader,
  side: "buy" | "sell" = "buy",
): Promise<PlaceOrderRequest> {
  const order = {
    trader: who.address,
    baseToken: m.baseToken,
    quoteToken: m.quoteToken,
    side: side === "buy" ? 0 : 1,
    price: priceTicks * m.tickSize,
    amount: sizeLots * m.lotSize,
    expiry: BigInt(Math.floor(Date.now() / 1000) + 3600),
    nonce: ++nonce,
    flags: 0,
  } as const;
  return {
    kind: "signed",
    ...limitIntent(m.symbol, side, priceTicks, sizeLots),
    trader: who.address,
    order,
    signature: await signOrder(who, SETTLEMENT_DOMAIN, order),
  };
}

/** `agent` whose typed-data signatures are counted (`signed()`). */
function countingSigns<A extends { signTypedData: (td: never) => Promise<unknown> }>(agent: A) {
  let n = 0;
  const counting: A = {
    ...agent,
    signTypedData: (async (td: never) => {
      n++;
      return agent.signTypedData(td);
    }) as A["signTypedData"],
  };
  return { counting, signed: () => n };
}

interface Two {
  eth: MemoryDexService;
  btc: MemoryDexService;
  nc: NatsConnection;
  servers: PartitionServer[];
  routed: RoutedDexService;
  close(): Promise<void>;
}

/** Runs `fn` over two partitions and a routed DEX (two()), closed afterwards whatever `fn` does. */
async function withTwo(fn: (t: Two) => Promise<void>): Promise<void> {
  const t = await two();
  try {
    await fn(t);
  } finally {
    await t.close();
  }
}

async function two(): Promise<Two> {
  const eth = createMemoryDexService();
  const btc = createMemoryDexService();
  // one chain: both partitions read the same on-chain balances
  for (const svc of [eth, btc])
    for (const who of [trader, other]) {
      svc.credit(who.address, USD, 10n ** 12n);
      svc.credit(who.address, WETH, 10n ** 20n);
      svc.credit(who.address, WBTC, 10n ** 10n);
    }
  const nc = await natsConnection();
  const servers = [
    servePartition({ nc, service: narrowed(eth, ["WETH-USD"]), index: 0 }),
    servePartition({ nc, service: narrowed(btc, ["WBTC-USD"]), index: 1 }),
  ];
  const routed = await routedOver([route(["WETH-USD"], 0), route(["WBTC-USD"], 1)]);
  return {
    eth,
    btc,
    nc,
    servers,
    routed,
    async close() {
      routed.close();
      await Promise.all(servers.map((s) => s.close()));
    },
  };
}

test("codec: bigints are lossless past 2^64, nested, negative; a {$n} that is not an integer stays an object", () => {
  const v = { a: 2n ** 200n + 1n, b: [-(2n ** 70n), { c: 0n }], d: { $n: "1.5" }, e: "x" };
  const back = decodeWire(encodeWire(v)) as typeof v;
  assert.equal(back.a, 2n ** 200n + 1n);
  assert.equal(back.b[0], -(2n ** 70n));
  assert.deepEqual(back.b[1], { c: 0n });
  assert.deepEqual(back.d, { $n: "1.5" });
});

test("a call that is not one, an unknown method or bad params: INVALID_REQUEST, nothing placed; a process that does not lead answers nothing", {
  timeout: 60_000,
}, async () => {
  const svc = createMemoryDexService();
  const nc = await natsConnection();
  let leads = true;
  const server = servePartition({ nc, service: svc, index: 7, isLeader: () => leads });
  try {
    const ask = async (body: string) =>
      decodeWire((await nc.request(callSubject(7), body, { timeout: 5_000 })).string());
    const codeOf = (a: unknown) => (a as { error: { code: string } }).error.code;
    assert.equal(codeOf(await ask("not json")), "INVALID_REQUEST");
    assert.equal(codeOf(await ask(encodeWire({ method: "nope", params: {} }))), "INVALID_REQUEST");
    const bad = encodeWire({ method: "placeOrder", params: { kind: "signed", symbol: "WETH-USD", sizeLots: 1n } });
    assert.equal(codeOf(await ask(bad)), "INVALID_REQUEST");
    assert.equal(svc.placeCalls.length, 0);
    // no longer the leader (a paused process woken past its lease): silent, the caller's request times out
    leads = false;
    await assert.rejects(nc.request(helloSubject(7), "", { timeout: 500 }), /TIMEOUT/i);
    const routed = routedOver([route(["WETH-USD"], 7)], 1_500);
    await assert.rejects(routed, (e: DexServiceError) => e.code === "SERVICE_UNAVAILABLE");
  } finally {
    await server.close();
  }
});

test("routed: each market's orders go to its partition, cross there, and every read answers as one DEX", {
  timeout: 60_000,
}, async () => {
  await withTwo(async (t) => {
    const events: DexEvent[] = [];
    const off = t.routed.subscribe((e) => events.push(e));
    assert.deepEqual(
      t.routed.listMarkets().map((m) => m.symbol),
      ["WETH-USD", "WBTC-USD"],
    );
    assert.deepEqual(t.routed.settlementDomain, SETTLEMENT_DOMAIN);

    const ethBuy = await t.routed.placeOrder(await signedBuy(ETH, 2_000n, 10n));
    const btcBuy = await t.routed.placeOrder(await signedBuy(BTC, 30_000n, 5n));
    assert.equal(t.eth.placeCalls.length, 1);
    assert.equal(t.btc.placeCalls.length, 1);
    // a sell on each crosses the buy on its own partition
    const ethSell = await t.routed.placeOrder(await signedBuy(ETH, 2_000n, 4n, other, "sell"));
    assert.equal(ethSell.status, "filled");
    assert.equal((await t.routed.getOrder(ethBuy.orderId))!.status, "partially_filled");
    assert.equal((await t.routed.getOrder(btcBuy.orderId))!.status, "open");
    assert.equal(await t.routed.getOrder(randomUUID()), null);
    // books are the owner's, and bigints survive the wire
    const book = await t.routed.getOrderBook("WETH-USD");
    assert.deepEqual(book!.bids, [{ priceTicks: 2_000n, sizeLots: 6n }]);
    assert.equal(await t.routed.getOrderBook("NOPE-USD"), null);
    assert.equal((await t.routed.getRecentTrades("WETH-USD", 10)).length, 1);

    // the account's orders merged newest first; by symbol from the owner only
    const mine = await t.routed.listOrders({ account: trader.address, limit: 10 });
    assert.deepEqual(new Set(mine.map((o) => o.orderId)), new Set([ethBuy.orderId, btcBuy.orderId]));
    assert.deepEqual(
      (await t.routed.listOrders({ account: trader.address, symbol: "WBTC-USD", limit: 10 })).map((o) => o.orderId),
      [btcBuy.orderId],
    );
    assert.equal((await t.routed.listOrders({ account: trader.address, limit: 1 })).length, 1);

    // balances: the chain's balance once, both partitions' USD locks summed
    const [eb, bb] = await Promise.all([t.eth.getBalances(trader.address), t.btc.getBalances(trader.address)]);
    const usdLock = (l: typeof eb) => l.find((b) => b.token === USD)!.lockedUnits;
    assert.ok(usdLock(eb) > 0n && usdLock(bb) > 0n);
    const merged = (await t.routed.getBalances(trader.address)).find((b) => b.token === USD)!;
    assert.equal(merged.lockedUnits, usdLock(eb) + usdLock(bb));
    assert.equal(merged.onChainUnits, eb.find((b) => b.token === USD)!.onChainUnits);
    assert.equal(merged.availableUnits, merged.onChainUnits - merged.lockedUnits - merged.pendingWithdrawalUnits);

    // cancel finds the owner; another account's order is not found; a cancelled one is not open
    await assert.rejects(
      t.routed.cancelOrder({ orderId: btcBuy.orderId, account: other.address, reason: "user_cancelled" }),
      (e: DexServiceError) => e.code === "ORDER_NOT_FOUND",
    );
    assert.equal(
      (await t.routed.cancelOrder({ orderId: btcBuy.orderId, account: trader.address, reason: "user_cancelled" }))
        .orderId,
      btcBuy.orderId,
    );
    await assert.rejects(
      t.routed.cancelOrder({ orderId: btcBuy.orderId, account: trader.address, reason: "user_cancelled" }),
      (e: DexServiceError) => e.code === "ORDER_NOT_OPEN",
    );
    await assert.rejects(
      t.routed.cancelOrder({ orderId: randomUUID(), account: trader.address, reason: "user_cancelled" }),
      (e: DexServiceError) => e.code === "ORDER_NOT_FOUND",
    );

    // a refusal crosses the wire with its code and bigint details
    await assert.rejects(
      t.routed.placeOrder(await signedBuy(ETH, 10n ** 9n, 10n ** 7n)),
      (e: DexServiceError) => e instanceof DexServiceError && e.code === "INSUFFICIENT_BALANCE",
    );
    await assert.rejects(
      t.routed.placeOrder({ ...(await signedBuy(ETH, 2_000n, 1n)), symbol: "NOPE-USD" }),
      (e: DexServiceError) => e.code === "INVALID_SYMBOL",
    );

    // both partitions' events fan in: the trade on WETH-USD, the cancel on WBTC-USD
    await waitFor(
      "both partitions' events",
      () =>
        events.some((e) => e.kind === "trade" && e.trade.symbol === "WETH-USD") &&
        events.some((e) => e.kind === "order" && e.order.orderId === btcBuy.orderId && e.order.status === "cancelled"),
    );
    off();
  });
});

test("routed: an API-key placement is signed by the API process's agent (the key never crosses), the approval goes through the first partition", {
  timeout: 60_000,
}, async () => {
  await withTwo(async (t) => {
    const agent = privateKeyToAccount(generatePrivateKey());
    const expiry = BigInt(Math.floor(Date.now() / 1000) + 86_400);
    const typed = await t.routed.prepareAgentApproval(trader.address, agent.address, expiry);
    const approval = typed.message as {
      trader: Address;
      agent: Address;
      expiry: bigint;
      nonce: bigint;
      deadline: bigint;
    };
    assert.equal(typeof approval.nonce, "bigint");
    await t.routed.submitAgentApproval(approval, await signAgentApproval(trader, SETTLEMENT_DOMAIN, approval));
    assert.equal(t.eth.approvalSubmissions.length, 1);
    assert.equal(t.btc.approvalSubmissions.length, 0);
    // the memory double keeps approvals per instance: approve on the second too (one chain in production)
    await t.btc.submitAgentApproval(approval, await signAgentApproval(trader, SETTLEMENT_DOMAIN, approval));

    const { counting, signed } = countingSigns(agent);
    const placed = await t.routed.placeOrder({
      kind: "api_key",
      orderId: randomUUID(),
      clientOrderId: "bot-1",
      symbol: "WBTC-USD",
      side: "buy",
      type: "limit",
      timeInForce: "gtc",
      priceTicks: 30_000n,
      triggerPriceTicks: null,
      sizeLots: 2n,
      expiresAtMs: null,
      receivedAtMs: Date.now(),
      trader: trader.address,
      apiKeyId: "key-1",
      agent: counting,
    });
    assert.equal(signed(), 1);
    assert.equal(placed.apiKeyId, "key-1");
    assert.equal(t.btc.placeCalls.length, 1);
    const hit = await t.routed.findOrderByClientOrderId(trader.address, "bot-1");
    assert.equal(hit!.order.orderId, placed.orderId);
    assert.equal(await t.routed.findOrderByClientOrderId(trader.address, "bot-2"), null);
    assert.deepEqual(await t.routed.cancelOrdersOfApiKey("key-1", trader.address, "api_key_revoked"), [placed.orderId]);

    // an agent the partition does not know: its refusal, mapped as in process
    const stranger = privateKeyToAccount(generatePrivateKey());
    await assert.rejects(
      t.routed.placeOrder({
        kind: "api_key",
        orderId: randomUUID(),
        clientOrderId: "bot-3",
        symbol: "WETH-USD",
        side: "buy",
        type: "limit",
        timeInForce: "gtc",
        priceTicks: 2_000n,
        triggerPriceTicks: null,
        sizeLots: 1n,
        expiresAtMs: null,
        receivedAtMs: Date.now(),
        trader: trader.address,
        apiKeyId: "key-2",
        agent: stranger,
      }),
      (e: DexServiceError) => e.code === "AGENT_NOT_APPROVED",
    );
  });
});

test("routed: a partition that is down makes its markets SERVICE_UNAVAILABLE only, and it is used again once back", {
  timeout: 60_000,
}, async () => {
  await withTwo(async (t) => {
    const resting = await t.routed.placeOrder(await signedBuy(BTC, 30_000n, 1n));
    await t.servers[1].close();
    await waitFor("the routed service to see the partition down", () => !t.routed.partitions[1].up);
    const unavailable = (e: DexServiceError) =>
      e instanceof DexServiceError && e.code === "SERVICE_UNAVAILABLE" && e.retryable === true;
    // no leader subscribed: refused at once, and nothing was sent (details.sent false)
    await assert.rejects(
      t.routed.placeOrder(await signedBuy(BTC, 30_000n, 1n)),
      (e: DexServiceError) => unavailable(e) && e.details?.sent === false,
    );
    await assert.rejects(t.routed.getOrderBook("WBTC-USD"), unavailable);
    // a lookup that could be on the missing partition is not answered "not found"
    await assert.rejects(t.routed.getOrder(randomUUID()), unavailable);
    await assert.rejects(t.routed.getBalances(trader.address), unavailable);
    // its markets stay listed (known, unavailable), the other partition's serve as before
    assert.deepEqual(
      t.routed.listMarkets().map((m) => m.symbol),
      ["WETH-USD", "WBTC-USD"],
    );
    const ethOrder = await t.routed.placeOrder(await signedBuy(ETH, 2_000n, 1n));
    assert.equal(ethOrder.status, "open");
    assert.ok(await t.routed.getOrderBook("WETH-USD"));
    assert.equal((await t.routed.getOrder(ethOrder.orderId))!.orderId, ethOrder.orderId);

    // a leader again (another process, or the same back): found on the same subject, nothing to reconnect
    t.servers[1] = servePartition({ nc: t.nc, service: narrowed(t.btc, ["WBTC-USD"]), index: 1 });
    await waitFor("the partition up again", () => t.routed.partitions[1].up);
    assert.equal((await t.routed.getOrder(resting.orderId))!.status, "open");
    assert.equal((await t.routed.getBalances(trader.address)).length, 3);
  });
});

test("routed: a placement whose answer is late or lost is sent again and placed once; a cancel is not sent again", {
  timeout: 60_000,
}, async () => {
  const svc = createMemoryDexService();
  svc.credit(trader.address, USD, 10n ** 12n);
  const nc = await natsConnection();
  // the first placement waits (a log append waiting out a stream leader's election) past 3 attempts
  let delayMs = 1_000;
  let answers = true;
  const slow: DexService = {
    ...narrowed(svc, ["WETH-USD"]),
    placeOrder: async (req) => {
      await new Promise((r) => setTimeout(r, delayMs));
      return svc.placeOrder(req);
    },
  };
  const server = servePartition({ nc, service: slow, index: 5, isLeader: () => answers });
  const routed = await createRoutedDexService({
    routes: [route(["WETH-USD"], 5)],
    servers: [nats.urls],
    callTimeoutMs: 1_000,
    attemptMs: 300,
    callDeadlineMs: 5_000,
  });
  const retries = () => metrics.partitionCallRetries.get().then((m) => m.values.reduce((n, v) => n + v.value, 0));
  try {
    const before = await retries();
    const late = await signedBuy(ETH, 2_000n, 1n);
    const placed = await routed.placeOrder(late);
    assert.equal(placed.orderId, late.orderId);
    assert.equal(svc.placeCalls.length, 1, "the retries joined the placement on its way");
    assert.ok((await retries()) - before >= 2);
    // placed, its answer lost (the leader stopped answering meanwhile): the retry finds the order, places nothing
    delayMs = 200;
    const lost = await signedBuy(ETH, 2_000n, 1n);
    setTimeout(() => (answers = false), 50);
    setTimeout(() => (answers = true), 500);
    assert.equal((await routed.placeOrder(lost)).orderId, lost.orderId);
    assert.equal(svc.placeCalls.length, 3, "placed, then looked up once more");
    assert.equal((await svc.listOrders({ account: trader.address, limit: 100 })).length, 2);
    // a cancel unanswered is not sent again (a second one would answer ORDER_NOT_OPEN): SERVICE_UNAVAILABLE
    answers = false;
    await assert.rejects(
      routed.cancelOrder({ orderId: late.orderId, account: trader.address, reason: "user_cancelled" }),
      (e: DexServiceError) => e.code === "SERVICE_UNAVAILABLE",
    );
  } finally {
    routed.close();
    await server.close();
  }
});

test("routed: refuses to start when a partition owns other markets than routed, or no leader answers", {
  timeout: 60_000,
}, async () => {
  const a = createMemoryDexService();
  const nc = await natsConnection();
  const servers = [
    servePartition({ nc, service: narrowed(a, ["WETH-USD"]), index: 3 }),
    servePartition({ nc, service: narrowed(a, ["WBTC-USD"]), index: 4 }),
  ];
  try {
    await assert.rejects(routedOver([route(["WETH-USD", "WBTC-USD"], 3)]), /owns WETH-USD/);
    await assert.rejects(routedOver([route(["WBTC-USD"], 3), route(["WETH-USD"], 4)]), /owns WETH-USD/);
    // a partition nobody leads: the start fails with SERVICE_UNAVAILABLE after its wait
    await assert.rejects(
      routedOver([route(["WETH-USD"], 5)], 1_000),
      (e: DexServiceError) => e.code === "SERVICE_UNAVAILABLE",
    );
  } finally {
    await Promise.all(servers.map((s) => s.close()));
  }
});

/** A forged partition 0 owning WETH-USD: at a call, it asks the caller's sign subject to sign each typed data,
 *  collects the answers, then refuses the call. */
async function forgedPartition(typedData: unknown[]) {
  const nc = await natsConnection();
  const answers: ({ signature: `0x${string}` } | { refused: string })[] = [];
  const hello = { index: 0, domain: SETTLEMENT_DOMAIN, markets: [ETH], fees: { makerFeeBps: 0n, takerFeeBps: 0n } };
  const subs = [
    nc.subscribe(helloSubject(0), { callback: (_e: Error | null, m: Msg) => m.respond(encodeWire(hello)) }),
    nc.subscribe(callSubject(0), {
      callback: (_e: Error | null, m: Msg) => {
        const call = decodeWire(m.string()) as { sign: { subject: string; call: number } };
        void (async () => {
          for (const td of typedData) {
            const r = await nc.request(call.sign.subject, encodeWire({ call: call.sign.call, typedData: td }));
            answers.push(decodeWire(r.string()) as (typeof answers)[number]);
          }
          m.respond(encodeWire({ error: { code: "AGENT_NOT_APPROVED", message: "done", details: {} } }));
        })();
      },
    }),
  ];
  const routed = await routedOver([route(["WETH-USD"], 0)]);
  return {
    answers,
    routed,
    close() {
      routed.close();
      for (const s of subs) s.unsubscribe();
    },
  };
}

const apiKeyPlacement = (agent: Extract<PlaceOrderRequest, { kind: "api_key" }>["agent"]): PlaceOrderRequest => ({
  kind: "api_key",
  orderId: randomUUID(),
  clientOrderId: "x",
  symbol: "WETH-USD",
  side: "buy",
  type: "limit",
  timeInForce: "gtc",
  priceTicks: 1n,
  triggerPriceTicks: null,
  sizeLots: 1n,
  expiresAtMs: null,
  receivedAtMs: Date.now(),
  trader: trader.address,
  apiKeyId: "k",
  agent,
});

test("a partition cannot make the API process's agent sign anything but the placement's order (trader, market, side, domain)", {
  timeout: 60_000,
}, async () => {
  const order = (over: Partial<Order>) =>
    fixtureOrder(1n, { trader: trader.address, baseToken: ETH.baseToken, quoteToken: ETH.quoteToken, ...over });
  const forged = [
    { domain: SETTLEMENT_DOMAIN, message: order({ trader: other.address }) },
    { domain: SETTLEMENT_DOMAIN, message: order({ baseToken: BTC.baseToken }) },
    { domain: SETTLEMENT_DOMAIN, message: order({ side: 1 }) },
    {
      domain: { ...SETTLEMENT_DOMAIN, verifyingContract: "0x00000000000000000000000000000000000000ff" },
      message: order({}),
    },
    { domain: SETTLEMENT_DOMAIN, message: order({}), primaryType: "AgentApproval" },
  ].map((x) => ({ types: {}, primaryType: "Order", ...x }));
  const p = await forgedPartition(forged);
  try {
    const { counting, signed } = countingSigns(privateKeyToAccount(generatePrivateKey()));
    await assert.rejects(
      p.routed.placeOrder(apiKeyPlacement(counting)),
      (e: DexServiceError) => e.code === "AGENT_NOT_APPROVED",
    );
    assert.equal(signed(), 0);
    assert.equal(p.answers.filter((a) => "refused" in a).length, forged.length);
  } finally {
    p.close();
  }
});

test("an API key's agent signs a partition's canonical order natively (viem's signature byte for byte, no signTypedData); other types, another domain name, a field out of its range or an extra field are refused", {
  timeout: 60_000,
}, async () => {
  const message = {
    trader: trader.address,
    baseToken: ETH.baseToken,
    quoteToken: ETH.quoteToken,
    side: 0,
    price: 2n ** 200n,
    amount: 7n,
    expiry: 2n ** 64n - 1n,
    nonce: 2n ** 255n,
    flags: 1,
  };
  const requests = [
    { domain: SETTLEMENT_DOMAIN, types: ORDER_TYPES, message },
    { domain: SETTLEMENT_DOMAIN, types: { Order: ORDER_TYPES.Order.slice(0, 8) }, message },
    { domain: SETTLEMENT_DOMAIN, types: { ...ORDER_TYPES, Extra: [{ name: "x", type: "uint256" }] }, message },
    { domain: { ...SETTLEMENT_DOMAIN, name: "Other" }, types: ORDER_TYPES, message },
    { domain: SETTLEMENT_DOMAIN, types: ORDER_TYPES, message: { ...message, expiry: 2n ** 64n } },
    { domain: SETTLEMENT_DOMAIN, types: ORDER_TYPES, message: { ...message, price: -1n } },
    { domain: SETTLEMENT_DOMAIN, types: ORDER_TYPES, message: { ...message, extra: 1 } },
  ].map((x) => ({ primaryType: "Order", ...x }));
  const p = await forgedPartition(requests);
  try {
    const key = generatePrivateKey();
    const agent = agentAccount(key);
    let natively = 0;
    let typed = 0;
    const counting = {
      ...agent,
      signDigest: (digest: `0x${string}`) => (natively++, agent.signDigest(digest)),
      signTypedData: (async (td: never) => (typed++, agent.signTypedData(td))) as typeof agent.signTypedData,
    };
    await assert.rejects(
      p.routed.placeOrder(apiKeyPlacement(counting)),
      (e: DexServiceError) => e.code === "AGENT_NOT_APPROVED",
    );
    assert.deepEqual(
      p.answers.map((a) => "signature" in a),
      [true, false, false, false, false, false, false],
    );
    assert.equal(natively, 1);
    assert.equal(typed, 0);
    assert.equal(
      (p.answers[0] as { signature: string }).signature,
      await privateKeyToAccount(key).signTypedData({
        domain: SETTLEMENT_DOMAIN,
        types: ORDER_TYPES,
        primaryType: "Order",
        message: message as never,
      }),
    );
  } finally {
    p.close();
  }
});

test("every API process gets each event of a market (its subject), the same, and one leaving changes nothing for the others", {
  timeout: 60_000,
}, async () => {
  const t = await two();
  const second = await routedOver([route(["WETH-USD"], 0), route(["WBTC-USD"], 1)]);
  try {
    const a: DexEvent[] = [];
    const b: DexEvent[] = [];
    t.routed.subscribe((e) => a.push(e));
    second.subscribe((e) => b.push(e));
    const placed = await t.routed.placeOrder(await signedBuy(ETH, 2_100n, 3n));
    const ofIt = (xs: DexEvent[]) =>
      xs.filter((e) => e.kind === "order" && e.order.orderId === placed.orderId) as Extract<
        DexEvent,
        { kind: "order" }
      >[];
    await waitFor("both API processes heard the order", () => ofIt(a).length > 0 && ofIt(b).length > 0);
    assert.deepEqual(ofIt(b), ofIt(a));
    assert.equal(ofIt(a)[0].order.sizeLots, 3n);
    // the first leaves; the second still hears the next order
    t.routed.close();
    const next = await second.placeOrder(await signedBuy(ETH, 2_100n, 1n));
    await waitFor("the remaining API process heard the next order", () =>
      b.some((e) => e.kind === "order" && e.order.orderId === next.orderId),
    );
  } finally {
    second.close();
    await t.close();
  }
});
