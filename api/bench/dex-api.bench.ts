// Throughput and latency of the DEX API surfaces themselves, over real sockets, against the in-memory
// test double (so the figures are the API's cost, not the pipeline's): requests/s and p99 of
// GET /v1/orderbook and POST /v1/orders (autocannon), and the delay for N WebSocket subscribers to all
// receive one book update.   npx tsx api/bench/dex-api.bench.ts   (BENCH_SECONDS, BENCH_SUBSCRIBERS)
import autocannon from "autocannon";
import { WebSocket } from "ws";
import { createApiLogger } from "../logger";
import { createWsServer } from "../ws/server";
import { createKey, fundedKey, fundedWallet, keyHeaders, startHarness } from "../testing/harness";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 1000);

function run(opts: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => autocannon(opts, (err, res) => (err ? reject(err) : resolve(res))));
}

async function main() {
  const h = await startHarness({
    ws: { maxConnectionsPerUser: SUBSCRIBERS + 10, connectionsPerMinutePerIp: SUBSCRIBERS * 2 },
  });
  const w = fundedWallet(h);
  const key = await createKey(h, w);
  // the sells come from another account: one account's crossing orders would meet self-trade prevention
  const sellerKey = await fundedKey(h);
  // a book of 50 levels per side
  const agent = (await h.keys.agentOf(key.id))!;
  const rest = (clientOrderId: string, side: "buy" | "sell", priceTicks: bigint) =>
    h.service.placeOrder({
      kind: "api_key",
      agent,
      apiKeyId: key.id,
      trader: w.address,
      orderId: crypto.randomUUID(),
      clientOrderId,
      symbol: "WETH-USD",
      side,
      type: "limit",
      timeInForce: "gtc",
      priceTicks,
      triggerPriceTicks: null,
      sizeLots: 10n,
      expiresAtMs: null,
      receivedAtMs: Date.now(),
    });
  for (let i = 0; i < 50; i++) {
    await rest(`b${i}`, "buy", 100_000n + BigInt(i));
    await rest(`s${i}`, "sell", 300_000n + BigInt(i));
  }

  const book = await run({ url: `${h.url}/orderbook/WETH-USD?depth=20`, connections: 32, duration: SECONDS });
  console.log(
    `GET /v1/orderbook/WETH-USD?depth=20: ${Math.round(book.requests.average)} req/s, p50 ${book.latency.p50} ms, p99 ${book.latency.p99} ms, non-2xx ${book.non2xx}`,
  );

  const buy = JSON.stringify({ symbol: "WETH-USD", side: "buy", type: "limit", price: 2000, size: 0.0001 });
  const sell = JSON.stringify({ symbol: "WETH-USD", side: "sell", type: "limit", price: 2000, size: 0.0001 });
  const headers = { "content-type": "application/json", ...keyHeaders(key) };
  const sellerHeaders = { "content-type": "application/json", ...keyHeaders(sellerKey) };
  const orders = await run({
    url: `${h.url}/orders`,
    connections: 16,
    duration: SECONDS,
    requests: [
      { method: "POST", headers, body: buy },
      { method: "POST", headers: sellerHeaders, body: sell },
    ],
  });
  console.log(
    `POST /v1/orders (API key, buy/sell crossing): ${Math.round(orders.requests.average)} req/s, p50 ${orders.latency.p50} ms, p99 ${orders.latency.p99} ms, non-2xx ${orders.non2xx}`,
  );

  const srv = await createWsServer({
    config: h.config,
    logger: createApiLogger({ level: "silent" }),
    service: h.service,
    auth: h.auth,
  });
  const { url } = await srv.listen(0);
  const clients: WebSocket[] = [];
  let waiting: ((n: number) => void) | null = null;
  let received = 0;
  for (let i = 0; i < SUBSCRIBERS; i++) {
    const ws = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      ws.once("open", () => resolve());
      ws.once("error", reject);
    });
    ws.on("message", (d) => {
      if (d.toString().includes('"orderbook_update"')) {
        received += 1;
        if (received === SUBSCRIBERS && waiting) waiting(performance.now());
      }
    });
    ws.send(JSON.stringify({ type: "subscribe", channel: "orderbook", symbol: "WETH-USD", depth: 10 }));
    clients.push(ws);
  }
  await new Promise((r) => setTimeout(r, 500));
  const delays: number[] = [];
  for (let round = 0; round < 5; round++) {
    received = 0;
    const done = new Promise<number>((resolve) => (waiting = resolve));
    const t0 = performance.now();
    await h.service.placeOrder({
      kind: "api_key",
      agent: (await h.keys.agentOf(key.id))!,
      apiKeyId: key.id,
      trader: w.address,
      orderId: crypto.randomUUID(),
      clientOrderId: `ws${round}`,
      symbol: "WETH-USD",
      side: "buy",
      type: "limit",
      timeInForce: "gtc",
      priceTicks: 150_000n + BigInt(round),
      triggerPriceTicks: null,
      sizeLots: 1n,
      expiresAtMs: null,
      receivedAtMs: Date.now(),
    });
    delays.push((await done) - t0);
  }
  delays.sort((a, b) => a - b);
  console.log(
    `WebSocket: ${SUBSCRIBERS} subscribers all received one book update in ${delays.map((d) => d.toFixed(1)).join(", ")} ms (median ${delays[2].toFixed(1)} ms)`,
  );
  for (const c of clients) c.terminate();
  await srv.close();
  await h.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
