// The exchange API's SSE fan-out: 1,000 subscribers of `quote:WETH` on GET /api/realtime (200 users x 5
// connections, spec 8's per-user limit; identity tokens of a test issuer, verified by discovery + JWKS as in
// production), the exchange API over the in-memory DEX service (the real matcher, no chain: the figure is
// the real-time path's). Per round one signed order moves the best bid; the delay runs from just before
// the placement to each subscriber's receipt of the quote carrying the new bid (the hub coalesces a book's
// events for DEFAULT_COALESCE_MS, included). Subscribers run in this process beside the server (their
// parsing competes with it for the CPU: a pessimistic figure). Prints p50/p99/max of the last subscriber's
// delay over the rounds, and of all receipts.
// Standalone: `npx tsx bench/api/exchange-sse.ts`; bench:api (bench/api/run.ts) prints it too.
// Env: BENCH_SSE_SUBSCRIBERS (1000), BENCH_SSE_ROUNDS (30).
import http from "node:http";
import os from "node:os";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { createMemoryDexService, TEST_MARKETS } from "../../api/testing/memory-dex-service";
import { startExchangeHarness } from "../../api/exchange/testing/harness";
import { startTestIssuer, type TestIssuer } from "../../api/exchange/testing/test-issuer";
import { createExchangeRealtime } from "../../api/exchange/realtime";
import { DEFAULT_COALESCE_MS } from "../../api/exchange/realtime/hub";
import { signedPlacement } from "../../simulator/orders";
import { pct } from "./main";

export interface SseFanoutFigures {
  subscribers: number;
  rounds: number;
  lastP50Ms: number;
  lastP99Ms: number;
  lastMaxMs: number;
  allP50Ms: number;
  allP99Ms: number;
  missing: number;
  connectMs: number;
  load: string;
}

/** The exchange API over the in-memory DEX service, and a maker whose bids move the quote. */
async function startSseStack(issuer: TestIssuer) {
  const dex = createMemoryDexService();
  const weth = TEST_MARKETS[0];
  const maker = privateKeyToAccount(generatePrivateKey());
  dex.credit(maker.address, weth.quoteToken, 10n ** 15n);
  dex.credit(maker.address, weth.baseToken, 10n ** 24n);
  const realtime = createExchangeRealtime({ dex });
  const api = await startExchangeHarness({
    issuers: [issuer],
    rateLimits: { ipPerMinute: 1e9, authenticatedPerMinute: 1e9 },
    extensions: [(x) => realtime.extension(x)],
  });
  let nonce = 1n;
  const place = async (priceTicks: bigint) =>
    dex.placeOrder(
      await signedPlacement({
        account: maker,
        market: weth,
        domain: dex.settlementDomain,
        side: "buy",
        priceTicks,
        sizeLots: 1_000n,
        timeInForce: "gtc",
        nonce: nonce++,
        expiry: BigInt(Math.floor(Date.now() / 1000) + 3600),
        nowMs: Date.now(),
      }),
    );
  const close = async () => {
    await realtime.close();
    await api.close();
  };
  return { url: new URL(`${api.url.replace(/\/v1$/, "")}/api/realtime?subscribe=quote:WETH`), place, close };
}

/** One SSE subscriber: records in `got` the time it first received each bid; resolves on the first bytes. */
function subscribe(url: URL, agent: http.Agent, token: string, got: Map<number, number>) {
  return new Promise<http.ClientRequest>((resolve, reject) => {
    const req = http.get(
      url,
      { agent, headers: { accept: "text/event-stream", authorization: `Bearer ${token}` } },
      (res) => {
        if (res.statusCode !== 200) return reject(new Error(`subscriber: ${res.statusCode}`));
        res.setEncoding("utf8");
        let buf = "";
        res.once("data", () => resolve(req));
        res.on("data", (chunk: string) => {
          buf += chunk;
          let end: number;
          while ((end = buf.indexOf("\n\n")) >= 0) {
            const message = buf.slice(0, end);
            buf = buf.slice(end + 2);
            const data = /^data: ?(.*)$/m.exec(message)?.[1];
            if (!data || !/^event: ?quote$/m.test(message)) continue;
            const bid = (JSON.parse(data) as { bid: number | null }).bid;
            if (bid !== null && !got.has(bid)) got.set(bid, performance.now());
          }
        });
      },
    );
    req.on("error", reject);
  });
}

/** Per round a new best bid (1,500.00 + r USD): the delay to the last subscriber and to every receipt. */
async function runRounds(rounds: number, place: (ticks: bigint) => Promise<unknown>, received: Map<number, number>[]) {
  const last: number[] = [];
  const all: number[] = [];
  let missing = 0;
  for (let r = 0; r < rounds; r++) {
    const ticks = 150_000n + BigInt(r) * 100n;
    const bid = Number(ticks) / 100;
    const start = performance.now();
    await place(ticks);
    const deadline = Date.now() + 10_000;
    while (received.some((g) => !g.has(bid)) && Date.now() < deadline) await new Promise((res) => setTimeout(res, 5));
    let worst = 0;
    for (const g of received) {
      const at = g.get(bid);
      if (at === undefined) {
        missing++;
        continue;
      }
      all.push(at - start);
      worst = Math.max(worst, at - start);
    }
    last.push(worst);
  }
  return { last: last.sort((a, b) => a - b), all: all.sort((a, b) => a - b), missing };
}

export async function benchSseFanout(o: { subscribers?: number; rounds?: number } = {}): Promise<SseFanoutFigures> {
  const subscribers = o.subscribers ?? Number(process.env.BENCH_SSE_SUBSCRIBERS ?? 1000);
  const rounds = o.rounds ?? Number(process.env.BENCH_SSE_ROUNDS ?? 30);
  const issuer = await startTestIssuer({ alg: "ES256" });
  const stack = await startSseStack(issuer);
  await stack.place(100_000n);
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  const tokens: string[] = [];
  for (let u = 0; u < Math.ceil(subscribers / 5); u++)
    tokens.push(await issuer.sign({ sub: `bench-${u}`, owner: "bench", phone: "+15550000000" }));
  // per subscriber: the time it received each bid
  const received = Array.from({ length: subscribers }, () => new Map<number, number>());
  const t0 = Date.now();
  const requests = await Promise.all(
    received.map((got, i) => subscribe(stack.url, agent, tokens[Math.floor(i / 5)], got)),
  );
  const connectMs = Date.now() - t0;
  const { last, all, missing } = await runRounds(rounds, stack.place, received);
  const load = os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
  for (const req of requests) req.destroy();
  agent.destroy();
  await stack.close();
  await issuer.close();
  return {
    subscribers,
    rounds,
    lastP50Ms: pct(last, 50),
    lastP99Ms: pct(last, 99),
    lastMaxMs: last.at(-1) ?? NaN,
    allP50Ms: pct(all, 50),
    allP99Ms: pct(all, 99),
    missing,
    connectMs,
    load,
  };
}

export function formatSseFanoutFigures(f: SseFanoutFigures): string {
  const ms = (x: number) => `${x.toFixed(1)} ms`;
  return [
    `exchange API SSE fan-out: ${f.subscribers} subscribers of quote:WETH on /api/realtime (${f.subscribers / 5} users x 5), ${f.rounds} rounds, one quote each (coalescing window ${DEFAULT_COALESCE_MS} ms included)`,
    `  delay to the LAST subscriber: p50 ${ms(f.lastP50Ms)}, p99 ${ms(f.lastP99Ms)}, max ${ms(f.lastMaxMs)}`,
    `  every receipt: p50 ${ms(f.allP50Ms)}, p99 ${ms(f.allP99Ms)}; missing ${f.missing}; ${f.subscribers} connections opened in ${f.connectMs} ms`,
    `  load average ${f.load} (subscribers in the server's process)`,
  ].join("\n");
}

if (process.argv[1] && /exchange-sse\.ts$/.test(process.argv[1])) {
  benchSseFanout().then(
    (f) => {
      console.log(formatSseFanoutFigures(f));
      process.exit(0);
    },
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
