// TradingService exercised with `buf curl` (a client none of us wrote), over a real socket, with the
// schema from proto/trading.proto and through server reflection; health check; status-code mapping.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { join } from "node:path";
import { createApiLogger } from "../logger";
import {
  call,
  createKey,
  fundedKey,
  fundedWallet,
  keyHeaders,
  startGrpc,
  startHarness,
  type Harness,
  type TestKey,
} from "../testing/harness";
import { signRequest } from "../auth/hmac";
import { protoPath as HEALTH_PROTO_PATH } from "grpc-health-check";
import { createGrpcServer, loadTradingPackage, PROTO_PATH, SERVICE_NAME, type DexGrpcServer } from "./server";
import * as grpc from "@grpc/grpc-js";
import { DexServiceError, type DexService } from "../../pipeline/service";

const ROOT = join(__dirname, "..", "..");
const BUF = join(ROOT, "node_modules", ".bin", "buf");

let h: Harness;
let grpcServer: DexGrpcServer;
let base: string;
let trader: TestKey;
let readOnly: TestKey;

before(async () => {
  h = await startHarness({ rateLimits: { ordersPerSecond: 1000 } });
  const started = await startGrpc(h);
  grpcServer = started.grpc;
  const address = started.address;
  base = `http://${address}`;
  const w = fundedWallet(h);
  trader = await createKey(h, w);
  readOnly = await createKey(h, w, { permissions: ["read"] });
});
after(async () => {
  await grpcServer.close();
  await h.close();
});

interface BufResult {
  code: number | null;
  stdout: string;
  stderr: string;
  json: any;
}

function bufCurl(args: string[]): Promise<BufResult> {
  return new Promise((resolve) => {
    execFile(
      BUF,
      ["curl", "--protocol", "grpc", "--http2-prior-knowledge", ...args],
      { cwd: ROOT, timeout: 30_000 },
      (err, stdout, stderr) => {
        const text = stdout.trim() || stderr.trim();
        let json: any = null;
        try {
          json = JSON.parse(text);
        } catch {
          json = null;
        }
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr, json });
      },
    );
  });
}

const withSchema = ["--schema", PROTO_PATH];
const auth = (k: TestKey) => ["-H", `x-api-key: ${k.apiKey}`, "-H", `x-api-secret: ${k.secret}`];
const url = (method: string) => `${base}/${SERVICE_NAME}/${method}`;

test("reflection lists TradingService and the health service; health says SERVING", async () => {
  const services = await bufCurl(["--list-services", base]);
  assert.equal(services.code, 0, services.stderr);
  assert.match(services.stdout, /dex\.v1\.TradingService/);
  assert.match(services.stdout, /grpc\.health\.v1\.Health/);
  const health = await bufCurl(["--schema", HEALTH_PROTO_PATH, "-d", "{}", `${base}/grpc.health.v1.Health/Check`]);
  assert.equal(health.code, 0, health.stderr);
  assert.equal(health.json.status, "SERVING");
});

test("the health service through reflection alone (no local schema): buf curl lists Health/Check and calls it, SERVING (#13)", async () => {
  const methods = await bufCurl(["--list-methods", base]);
  assert.equal(methods.code, 0, methods.stderr);
  assert.match(methods.stdout, /^grpc\.health\.v1\.Health\/Check$/m);
  assert.match(methods.stdout, /^dex\.v1\.TradingService\/PlaceOrder$/m);
  for (const service of ["", SERVICE_NAME]) {
    const health = await bufCurl(["-d", JSON.stringify({ service }), `${base}/grpc.health.v1.Health/Check`]);
    assert.equal(health.code, 0, health.stderr);
    assert.equal(health.json.status, "SERVING");
  }
});

test("PlaceOrder (schema from the .proto), GetOrderBook (reflection), CancelOrder", async () => {
  const placed = await bufCurl([
    ...withSchema,
    ...auth(trader),
    "-d",
    JSON.stringify({
      symbol: "WETH-USD",
      side: "buy",
      type: "limit",
      price: 1999.99,
      size: 0.25,
      client_order_id: "grpc-1",
    }),
    url("PlaceOrder"),
  ]);
  assert.equal(placed.code, 0, placed.stderr);
  assert.match(placed.json.order_id ?? placed.json.orderId, /^[0-9a-f-]{36}$/);
  assert.equal(placed.json.status, "open");
  const ts = Number(placed.json.timestamp);
  assert.ok(Math.abs(ts - Date.now()) < 60_000, "timestamp is Unix ms");

  const book = await bufCurl(["-d", JSON.stringify({ symbol: "WETH-USD", depth: 5 }), url("GetOrderBook")]);
  assert.equal(book.code, 0, book.stderr);
  assert.deepEqual(book.json.bids, [{ price: 1999.99, size: 0.25 }]);
  assert.equal(book.json.symbol, "WETH-USD");

  const orderId = placed.json.order_id ?? placed.json.orderId;
  const cancelled = await bufCurl([
    ...withSchema,
    ...auth(trader),
    "-d",
    JSON.stringify({ order_id: orderId }),
    url("CancelOrder"),
  ]);
  assert.equal(cancelled.code, 0, cancelled.stderr);
  assert.equal(cancelled.json.status, "cancelled");
  assert.equal((await h.service.getOrder(orderId))?.status, "cancelled");
});

test("the signed scheme in metadata works once per signature", async () => {
  const ts = String(Date.now());
  const sig = signRequest(trader.secret, ts, "POST", `/${SERVICE_NAME}/PlaceOrder`, "");
  const args = [
    ...withSchema,
    "-H",
    `x-api-key: ${trader.apiKey}`,
    "-H",
    `x-timestamp: ${ts}`,
    "-H",
    `x-signature: ${sig}`,
    "-d",
    JSON.stringify({ symbol: "WETH-USD", side: "sell", type: "limit", price: 5000, size: 0.1 }),
    url("PlaceOrder"),
  ];
  const first = await bufCurl(args);
  assert.equal(first.code, 0, first.stderr);
  const replay = await bufCurl(args);
  assert.notEqual(replay.code, 0);
  assert.equal(replay.json.code, "unauthenticated");
});

test("errors map to gRPC status codes; off-grid doubles are refused, nothing placed", async () => {
  const count = h.service.orderCount();
  // a buy of 0.1 WETH at 1000 unless `over` says otherwise (its fields stay in this order)
  const buy = (over: Record<string, unknown> = {}) =>
    JSON.stringify({ symbol: "WETH-USD", side: "buy", type: "limit", price: 1000, size: 0.1, ...over });
  const rpc = (method: string, body: string, headers: string[] = []) => [
    ...withSchema,
    ...headers,
    "-d",
    body,
    url(method),
  ];
  const wrongSecret = ["-H", `x-api-key: ${trader.apiKey}`, "-H", `x-api-secret: ${readOnly.secret}`];
  const cases: [string, string[], string][] = [
    ["no credentials", rpc("PlaceOrder", buy()), "unauthenticated"],
    ["wrong secret", rpc("PlaceOrder", buy(), wrongSecret), "unauthenticated"],
    ["read-only key", rpc("PlaceOrder", buy(), auth(readOnly)), "permission_denied"],
    ["unknown symbol", rpc("PlaceOrder", buy({ symbol: "DOGE-USD" }), auth(trader)), "invalid_argument"],
    ["price off the tick", rpc("PlaceOrder", buy({ price: 1000.001 }), auth(trader)), "invalid_argument"],
    [
      "size 0.1 + 0.2 (not exactly a lot multiple)",
      rpc("PlaceOrder", buy({ size: 0.1 + 0.2 }), auth(trader)),
      "invalid_argument",
    ],
    ["negative size", rpc("PlaceOrder", buy({ size: -1 }), auth(trader)), "invalid_argument"],
    [
      "NaN price",
      rpc("PlaceOrder", '{"symbol":"WETH-USD","side":"buy","type":"limit","price":"NaN","size":0.1}', auth(trader)),
      "invalid_argument",
    ],
    ["unknown type", rpc("PlaceOrder", buy({ type: "iceberg" }), auth(trader)), "invalid_argument"],
    ["insufficient balance", rpc("PlaceOrder", buy({ price: 9000, size: 9000 }), auth(trader)), "failed_precondition"],
    [
      "cancel an unknown order",
      rpc("CancelOrder", JSON.stringify({ order_id: "00000000-0000-4000-8000-000000000000" }), auth(trader)),
      "not_found",
    ],
    [
      "cancel with a malformed id",
      rpc("CancelOrder", JSON.stringify({ order_id: "x" }), auth(trader)),
      "invalid_argument",
    ],
    ["book of an unknown symbol", rpc("GetOrderBook", JSON.stringify({ symbol: "DOGE-USD" })), "invalid_argument"],
    [
      "book depth too large",
      rpc("GetOrderBook", JSON.stringify({ symbol: "WETH-USD", depth: 100000 })),
      "invalid_argument",
    ],
    ["trades of an unknown symbol", rpc("StreamTrades", JSON.stringify({ symbol: "DOGE-USD" })), "invalid_argument"],
  ];
  for (const [name, args, code] of cases) {
    const r = await bufCurl(args);
    assert.notEqual(r.code, 0, name);
    assert.equal(r.json?.code, code, `${name}: ${r.stderr}`);
  }
  assert.equal(h.service.orderCount(), count, "nothing placed");
});

test("StreamTrades delivers a trade to a buf curl stream", async () => {
  const child = spawn(
    BUF,
    [
      "curl",
      "--protocol",
      "grpc",
      "--http2-prior-knowledge",
      ...withSchema,
      "-d",
      JSON.stringify({ symbol: "WETH-USD" }),
      url("StreamTrades"),
    ],
    { cwd: ROOT },
  );
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  try {
    const otherKey = await fundedKey(h);
    // keep trading until the stream (which needs a moment to connect) has seen a trade
    const deadline = Date.now() + 20_000;
    while (!/"tradeId"|"trade_id"/.test(out) && Date.now() < deadline) {
      await call(h, "POST", "/v1/orders", {
        headers: keyHeaders(otherKey),
        body: { symbol: "WETH-USD", side: "sell", type: "limit", price: 1500, size: 0.1 },
      });
      await call(h, "POST", "/v1/orders", {
        headers: keyHeaders(trader),
        body: { symbol: "WETH-USD", side: "buy", type: "limit", price: 1500, size: 0.1 },
      });
      await new Promise((r) => setTimeout(r, 300));
    }
    const first = JSON.parse(out.slice(0, out.indexOf("\n}") + 2));
    assert.equal(first.symbol, "WETH-USD");
    assert.equal(first.price, 1500);
    assert.equal(first.size, 0.1);
    assert.equal(first.side, "buy");
    assert.equal(Number(first.sequence), 1);
  } finally {
    child.kill("SIGKILL");
  }
});

test("a refusal while the home chain is down: UNAVAILABLE with retry-after metadata (seconds) to a grpc-js client, logged at warn without a stack", async () => {
  // the service as the pipeline answers while its chain's supervisor reports the node down
  const refusing: DexService = Object.assign(Object.create(h.service) as DexService, {
    placeOrder: async () => {
      throw new DexServiceError("CHAIN_UNAVAILABLE", "home chain 31337 is unavailable", {
        chainId: 31337,
        retry_after: 4,
      });
    },
  });
  const lines: Record<string, unknown>[] = [];
  const logger = createApiLogger({
    level: "info",
    destination: { write: (s: string) => void lines.push(JSON.parse(s)) },
  });
  const server = createGrpcServer({ config: h.config, logger, service: refusing, keys: h.keys, auth: h.auth });
  const { address } = await server.listen(0);
  const pkg = grpc.loadPackageDefinition(loadTradingPackage()) as unknown as {
    dex: { v1: { TradingService: grpc.ServiceClientConstructor } };
  };
  const client = new pkg.dex.v1.TradingService(address, grpc.credentials.createInsecure());
  try {
    const md = new grpc.Metadata();
    md.set("x-api-key", trader.apiKey);
    md.set("x-api-secret", trader.secret);
    const err = await new Promise<grpc.ServiceError>((resolve, reject) =>
      client.PlaceOrder(
        { symbol: "WETH-USD", side: "buy", type: "limit", price: 1999.99, size: 0.25 },
        md,
        (e: grpc.ServiceError | null) => (e ? resolve(e) : reject(new Error("placed while the chain is down"))),
      ),
    );
    assert.equal(err.code, grpc.status.UNAVAILABLE);
    assert.deepEqual(err.metadata.get("retry-after"), ["4"]);
    assert.deepEqual(err.metadata.get("x-error-code"), ["CHAIN_UNAVAILABLE"]);
    assert.deepEqual(JSON.parse(String(err.metadata.get("x-error-details")[0])), { chainId: 31337, retry_after: 4 });
    const logged = lines.filter((l) => l.msg === "grpc call failed");
    assert.equal(logged.length, 1);
    assert.equal(logged[0].level, 40, "warn");
    assert.equal(logged[0].code, "CHAIN_UNAVAILABLE");
    assert.equal(logged[0].retryAfterS, 4);
    assert.ok(!JSON.stringify(logged[0]).includes("stack") && logged[0].err === undefined, "no stack trace");
  } finally {
    client.close();
    await server.close();
  }
});

test("rate limit per key on concurrent calls: a burst of 3 PlaceOrder calls at 2 per second places 2 and refuses 1 with RESOURCE_EXHAUSTED", async () => {
  // each call reads its own count (not the burst's final count), so pipelined clients are not over-refused
  const limited = await startHarness({ rateLimits: { ordersPerSecond: 2 } });
  const t0 = Date.now(); // the limiter's clock stands still: the three calls share one window whatever the load
  const { grpc: server, address } = await startGrpc(limited, { clock: { now: () => t0 } });
  const pkg = grpc.loadPackageDefinition(loadTradingPackage()) as unknown as {
    dex: { v1: { TradingService: grpc.ServiceClientConstructor } };
  };
  const client = new pkg.dex.v1.TradingService(address, grpc.credentials.createInsecure());
  try {
    const key = await fundedKey(limited);
    const md = new grpc.Metadata();
    md.set("x-api-key", key.apiKey);
    md.set("x-api-secret", key.secret);
    const one = (i: number) =>
      new Promise<grpc.ServiceError | { status: string }>((resolve) =>
        client.PlaceOrder(
          { symbol: "WETH-USD", side: "buy", type: "limit", price: 1000 + i, size: 0.01 },
          md,
          (e: grpc.ServiceError | null, r: { status: string }) => resolve(e ?? r),
        ),
      );
    const results = await Promise.all([one(1), one(2), one(3)]);
    const refused = results.filter((r) => "code" in r);
    assert.equal(refused.length, 1, JSON.stringify(results));
    assert.equal((refused[0] as grpc.ServiceError).code, grpc.status.RESOURCE_EXHAUSTED);
    assert.equal(results.filter((r) => !("code" in r) && r.status === "open").length, 2);
  } finally {
    client.close();
    await server.close();
    await limited.close();
  }
});
