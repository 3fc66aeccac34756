// The load-generating process of bench:e2e (forked by bench/e2e/run.ts): drives orders the way clients send
// them, over one entry, and reports what it saw over IPC. Entries:
//   rest-wallet  POST /v1/orders, wallet-signed bodies (EIP-712 order + signature), keep-alive http.Agent
//   rest-key     POST /v1/orders, API-key orders (X-API-Key + X-API-Secret), keep-alive http.Agent
//   ws-wallet    WebSocket order entry (`order` messages), wallet-signed bodies, no login
//   ws-key       WebSocket order entry, one connection per API key, logged in once with the HMAC scheme
// Closed loop: `inflight` clients, each sending its next order when the previous one is answered (over
// WebSocket: that many unanswered orders spread over the connections). Orders come in pairs at one price
// and size, a sell by trader k then a buy by trader k+1, so that every two orders make one trade. An order
// shed for the settlement backlog (503) is retried after its retry hint. Wallet-signed orders are signed
// before the clock starts (the client's cost): native ECDSA over the EIP-712 digest.
// Several API processes (bench:e2e BENCH_API_PROCESSES=N): the job names each one's URLs; wallet-signed orders
// go round-robin (order i to API i mod N; over WebSocket connection c to API c mod N), API-key orders of trader t
// to API t mod N, where its key was made (each API process keeps its keys in its own database).
import http from "node:http";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import type { Address, Hex } from "viem";
import { WebSocket } from "ws";
import { signRequest } from "../../api/auth/hmac";
import { signedOrderToWire } from "../../api/dex/order-intent";
import { lotsToSizeText, ticksToPriceText } from "../../api/dex/units";
import { createOrderDigester } from "../../runtime/order-digest";
import { marketFromJson } from "../../pipeline/markets";
import type { Order } from "../../sdk/eip712";

// eslint-disable-next-line @typescript-eslint/no-require-imports
const native = require("secp256k1/bindings") as {
  ecdsaSign(msg: Uint8Array, key: Uint8Array): { signature: Uint8Array; recid: number };
};

export type Entry = "rest-wallet" | "rest-key" | "ws-wallet" | "ws-key";

export interface LoadJob {
  entry: Entry;
  /** one per API process (`.../v1`) */
  restUrls: string[];
  /** one per API process (`ws://.../ws`), in the same order */
  wsUrls: string[];
  /** the market as JSON (bigints as strings) */
  market: Record<string, string | number>;
  domainSeparator: Hex;
  traders: { address: Address; privateKey: Hex }[];
  /** per trader (same order), for the key entries: trader t's made on API t mod N */
  keys: { apiKey: string; secret: string }[];
  /** first EIP-712 nonce of this run (nonces are used once per trader) */
  nonceBase: number;
  priceTicks: string;
  sizeLots: string;
  warmupS: number;
  seconds: number;
  inflight: number;
  wsConnections: number;
  /** orders to prepare (the run stops early when they run out) */
  orders: number;
}

export interface LoadResult {
  entry: Entry;
  prepareMs: number;
  /** Unix ms: the measured window */
  warmEnd: number;
  windowEnd: number;
  accepted: number;
  warmAccepted: number;
  rejected: number;
  shed: number;
  firstErrors: string[];
  ackMs: number[];
  exhausted: boolean;
  /** CPU this process used from the start of the warm-up to the end (user + system, ms) */
  cpuMs: number;
}

/** order i: a pair index i>>1; the sell (even i) by trader k, the buy by trader k+1 */
const traderOf = (i: number, n: number) => {
  const k = (i >> 1) % n;
  return (i & 1) === 0 ? k : (k + 1) % n;
};

function prepareBodies(job: LoadJob): string[] {
  const m = marketFromJson(job.market);
  const priceTicks = BigInt(job.priceTicks);
  const sizeLots = BigInt(job.sizeLots);
  const common = {
    symbol: m.symbol,
    type: "limit",
    price: Number(ticksToPriceText(m, priceTicks)),
    size: Number(lotsToSizeText(m, sizeLots)),
    time_in_force: "gtc",
  };
  const n = job.traders.length;
  if (!job.entry.endsWith("wallet")) {
    // API-key orders: the server signs with the key's agent; the body is the same for every order of a side
    return [JSON.stringify({ ...common, side: "sell" }), JSON.stringify({ ...common, side: "buy" })];
  }
  const digest = createOrderDigester(job.domainSeparator);
  const expiry = BigInt(Math.floor(Date.now() / 1000) + 3600);
  const keys = job.traders.map((t) => hexToBytes(t.privateKey.slice(2)));
  const bodies: string[] = new Array(job.orders);
  for (let i = 0; i < job.orders; i++) {
    const k = traderOf(i, n);
    const sell = (i & 1) === 0;
    const order: Order = {
      trader: job.traders[k].address,
      baseToken: m.baseToken,
      quoteToken: m.quoteToken,
      side: sell ? 1 : 0,
      price: priceTicks * m.tickSize,
      amount: sizeLots * m.lotSize,
      expiry,
      nonce: BigInt(job.nonceBase + i),
      flags: 0,
    };
    const sig = native.ecdsaSign(hexToBytes(digest(order).slice(2)), keys[k]);
    const signature = `0x${bytesToHex(sig.signature)}${(27 + sig.recid).toString(16)}`;
    bodies[i] = JSON.stringify({ ...common, side: sell ? "sell" : "buy", order: signedOrderToWire(order), signature });
  }
  return bodies;
}

interface Answer {
  status: number;
  body: {
    status?: string;
    error?: {
      code: string;
      message: string;
      details?: { reason?: string; retryAfterMs?: number; retry_after?: number };
    };
  };
}

/** How the measured loop sends order i and waits for its answer. */
type Send = (i: number) => Promise<Answer>;

function restSender(job: LoadJob, bodies: string[]): { send: Send; close(): void } {
  const agents = job.restUrls.map(() => new http.Agent({ keepAlive: true, maxSockets: job.inflight }));
  const urls = job.restUrls.map((u) => new URL(`${u}/orders`));
  const apis = urls.length;
  const n = job.traders.length;
  const wallet = job.entry === "rest-wallet";
  const send: Send = (i) =>
    new Promise((resolve, reject) => {
      const body = wallet ? bodies[i] : bodies[i & 1];
      const headers: Record<string, string | number> = {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(body),
      };
      let a = i % apis;
      if (!wallet) {
        const t = traderOf(i, n);
        const key = job.keys[t];
        headers["x-api-key"] = key.apiKey;
        headers["x-api-secret"] = key.secret;
        a = t % apis;
      }
      const url = urls[a];
      const req = http.request(
        { agent: agents[a], hostname: url.hostname, port: url.port, path: url.pathname, method: "POST", headers },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => {
            try {
              resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) });
            } catch (e) {
              reject(e);
            }
          });
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      req.end(body);
    });
  return { send, close: () => agents.forEach((a) => a.destroy()) };
}

async function wsSender(job: LoadJob, bodies: string[]): Promise<{ send: Send; close(): void }> {
  const key = job.entry === "ws-key";
  const n = job.traders.length;
  // ws-key: one connection per trader's key (order i goes on its trader's); ws-wallet: `wsConnections`
  const count = key ? n : job.wsConnections;
  const pending = new Map<number, (a: Answer) => void>();
  const conns: WebSocket[] = [];
  for (let c = 0; c < count; c++) {
    const ws = new WebSocket(job.wsUrls[c % job.wsUrls.length], { perMessageDeflate: false });
    await new Promise<void>((resolve, reject) => {
      ws.once("open", () => resolve());
      ws.once("error", reject);
    });
    ws.on("message", (data) => {
      const m = JSON.parse(data.toString()) as { type: string; id?: number; status: number; body: Answer["body"] };
      if (m.type !== "order_result" || typeof m.id !== "number") return;
      const r = pending.get(m.id);
      if (r) {
        pending.delete(m.id);
        r({ status: m.status, body: m.body });
      }
    });
    if (key) {
      const ts = Date.now();
      const k = job.keys[c];
      const authed = new Promise<void>((resolve, reject) => {
        const onMsg = (data: Buffer) => {
          const m = JSON.parse(data.toString()) as { type: string; id?: string };
          if (m.id !== "login") return;
          ws.off("message", onMsg);
          if (m.type === "authenticated") resolve();
          else reject(new Error(`login refused: ${data.toString()}`));
        };
        ws.on("message", onMsg);
      });
      ws.send(
        JSON.stringify({
          type: "auth",
          id: "login",
          api_key: k.apiKey,
          timestamp: ts,
          signature: signRequest(k.secret, String(ts), "GET", "/ws", ""),
        }),
      );
      await authed;
    }
    conns.push(ws);
  }
  // a retried order gets a new correlation id (the old one was answered)
  let nextId = 0;
  const send: Send = (i) =>
    new Promise((resolve) => {
      const id = nextId++;
      pending.set(id, resolve);
      const body = key ? bodies[i & 1] : bodies[i];
      conns[key ? traderOf(i, n) : i % count].send(`{"type":"order","id":${id},"body":${body}}`);
    });
  return { send, close: () => conns.forEach((ws) => ws.terminate()) };
}

export async function runLoad(job: LoadJob): Promise<LoadResult> {
  const p0 = performance.now();
  const bodies = prepareBodies(job);
  const sender = job.entry.startsWith("rest") ? restSender(job, bodies) : await wsSender(job, bodies);
  const prepareMs = performance.now() - p0;
  const r: LoadResult = {
    entry: job.entry,
    prepareMs,
    warmEnd: 0,
    windowEnd: 0,
    accepted: 0,
    warmAccepted: 0,
    rejected: 0,
    shed: 0,
    firstErrors: [],
    ackMs: [],
    exhausted: false,
    cpuMs: 0,
  };
  const cpu0 = process.cpuUsage();
  const t0 = Date.now();
  r.warmEnd = t0 + job.warmupS * 1000;
  r.windowEnd = r.warmEnd + job.seconds * 1000;
  let next = 0;
  async function client(): Promise<void> {
    while (Date.now() < r.windowEnd) {
      if (next >= job.orders) {
        r.exhausted = true;
        return;
      }
      const i = next++;
      for (;;) {
        const s = performance.now();
        let a: Answer;
        try {
          a = await sender.send(i);
        } catch (e) {
          r.rejected += 1;
          if (r.firstErrors.length < 3) r.firstErrors.push(String(e));
          break;
        }
        if (a.status === 503) {
          // shed (settlement backlog full, or the chain unavailable): back off as told, then the same order again
          r.shed += 1;
          const d = a.body.error?.details;
          await new Promise((res) => setTimeout(res, d?.retryAfterMs ?? (d?.retry_after ?? 0.01) * 1000));
          if (Date.now() < r.windowEnd) continue;
          break;
        }
        const measured = Date.now() >= r.warmEnd;
        if (a.status !== 201 || a.body.status === "rejected") {
          r.rejected += 1;
          if (r.firstErrors.length < 3) r.firstErrors.push(`${a.status} ${JSON.stringify(a.body).slice(0, 300)}`);
        } else if (measured) r.accepted += 1;
        else r.warmAccepted += 1;
        if (measured) r.ackMs.push(performance.now() - s);
        break;
      }
    }
  }
  await Promise.all(Array.from({ length: job.inflight }, client));
  const cpu = process.cpuUsage(cpu0);
  r.cpuMs = (cpu.user + cpu.system) / 1000;
  sender.close();
  return r;
}

// forked: one job from the parent, its result back, then exit
if (process.send) {
  process.once("message", (job: LoadJob) => {
    runLoad(job).then(
      (r) => process.send!({ type: "result", result: r }, () => process.exit(0)),
      (e) => process.send!({ type: "error", error: String((e as Error).stack ?? e) }, () => process.exit(1)),
    );
  });
  process.send({ type: "ready" });
}
