// The web server over real sockets: the built app's files (and nothing outside them), the public config
// (development keys in the sandbox only), the JSON-RPC allowlist and its limits at the boundary and one
// past it, the REST forward (Host kept, X-Forwarded-For set by us), the indexer's absence, the WebSocket relay,
// the exchange app's page and its forwards (the exchange API under /exchange-api, the identity provider's
// three login paths under /identity and nothing else of it).
import { INTEGRATOR_DEV_KEY } from "../config/dev-accounts";
import { test, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import type { AddressInfo } from "node:net";
import { WebSocket, WebSocketServer } from "ws";
import { MAX_RPC_BATCH, MAX_RPC_BODY, startWebServer, type RunningWebServer } from "./server";

const dist = fs.mkdtempSync(path.join(os.tmpdir(), "web-dist-"));
fs.mkdirSync(path.join(dist, "assets"));
fs.writeFileSync(path.join(dist, "index.html"), "<!doctype html><title>t</title>");
fs.writeFileSync(path.join(dist, "exchange.html"), "<!doctype html><title>exchange</title>");
fs.writeFileSync(path.join(dist, "assets", "app-abc.js"), "console.log(1)");
const bigScript = `export const rows = [${Array.from({ length: 400 }, (_, i) => `"row ${i}"`).join(",")}];`;
fs.writeFileSync(path.join(dist, "assets", "big-abc.js"), bigScript);
const bigJson = JSON.stringify({
  markets: Array.from({ length: 100 }, (_, i) => ({ symbol: `M${i}-USD`, last: "2800.10" })),
});
fs.writeFileSync(path.join(os.tmpdir(), "web-secret.txt"), "secret");

const rpcCalls: unknown[] = [];
const restSeen: { host?: string; xff?: string; path?: string; body?: string }[] = [];
const originsSeen: (string | undefined)[] = [];
const listen = (s: http.Server) =>
  new Promise<number>((r) => s.listen(0, "127.0.0.1", () => r((s.address() as AddressInfo).port)));
const rpc = http.createServer((req, res) => {
  let b = "";
  req.on("data", (d) => (b += d));
  req.on("end", () => {
    const body = JSON.parse(b);
    rpcCalls.push(body);
    const answer = (c: { id: number }) => ({ jsonrpc: "2.0", id: c.id, result: "0x7a69" });
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify(Array.isArray(body) ? body.map(answer) : answer(body)));
  });
});
const rest = http.createServer((req, res) => {
  let b = "";
  req.on("data", (d) => (b += d));
  req.on("end", () => {
    restSeen.push({ host: req.headers.host, xff: req.headers["x-forwarded-for"] as string, path: req.url, body: b });
    originsSeen.push(req.headers.origin);
    if (req.url === "/v1/big") {
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(bigJson) });
      return void res.end(bigJson);
    }
    res.writeHead(201, { "content-type": "application/json", "x-ratelimit-limit": "100" });
    res.end(JSON.stringify({ ok: true }));
  });
});
const wsHttp = http.createServer();
const wss = new WebSocketServer({ server: wsHttp, path: "/ws" });
wss.on("connection", (s) => s.on("message", (m) => s.send(`echo:${m}`)));

let servers: Record<string, RunningWebServer> = {};
let upstreams: Promise<number[]> | undefined;
async function start(mode: "sandbox" | "production"): Promise<RunningWebServer> {
  if (servers[mode]) return servers[mode];
  upstreams ??= Promise.all([listen(rpc), listen(rest), listen(wsHttp)]);
  const [rpcPort, restPort, wsPort] = await upstreams;
  const ports = { rpc: rpcPort, rest: restPort, ws: wsPort };
  servers[mode] = await startWebServer({
    host: "127.0.0.1",
    port: 0,
    distDir: dist,
    upstream: {
      dexRest: `http://127.0.0.1:${ports.rest}`,
      dexWs: `ws://127.0.0.1:${ports.ws}/ws`,
      rpc: `http://127.0.0.1:${ports.rpc}`,
      indexer: () => undefined,
      // the exchange API and the identity provider: the same recording server (production: none configured)
      ...(mode === "sandbox"
        ? { exchangeApi: `http://127.0.0.1:${ports.rest}`, identity: `http://127.0.0.1:${ports.rest}` }
        : {}),
    },
    chainId: 31337,
    mode,
    devWalletKeys: ["0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a"],
    integratorKey: INTEGRATOR_DEV_KEY,
  });
  return servers[mode];
}
after(async () => {
  for (const s of Object.values(servers)) await s.close();
  for (const s of [rpc, rest, wsHttp]) s.closeAllConnections?.();
  wss.close();
  await Promise.all([rpc, rest, wsHttp].map((s) => new Promise((r) => s.close(r))));
  servers = {};
});

/** raw request (fetch would normalise ".." and decompress) */
function raw(
  url: string,
  p: string,
  init: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string; bytes: Buffer }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { hostname: u.hostname, port: u.port, path: p, method: init.method ?? "GET", headers: init.headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (d: Buffer) => chunks.push(d));
        res.on("end", () => {
          const bytes = Buffer.concat(chunks);
          resolve({ status: res.statusCode!, headers: res.headers, body: bytes.toString("utf8"), bytes });
        });
      },
    );
    req.on("error", reject);
    req.end(init.body);
  });
}

/** A POST of `body` as `type`, with `more` headers after the content type. */
const postAs = (url: string, p: string, type: string, body: string, more: Record<string, string> = {}) =>
  raw(url, p, { method: "POST", headers: { "content-type": type, ...more }, body });

test("serves the app with a strict CSP; assets cached for good; nothing outside the build", async () => {
  const s = await start("sandbox");
  const index = await raw(s.url, "/");
  assert.equal(index.status, 200);
  assert.match(index.headers["content-security-policy"] as string, /default-src 'self'; script-src 'self'/);
  assert.equal(index.headers["x-frame-options"], "DENY");
  const asset = await raw(s.url, "/assets/app-abc.js");
  assert.equal(asset.status, 200);
  assert.match(asset.headers["cache-control"] as string, /immutable/);
  assert.match(asset.headers["content-type"] as string, /javascript/);
  for (const p of [
    "/../web-secret.txt",
    "/%2e%2e/web-secret.txt",
    "/assets/..%2f..%2fweb-secret.txt",
    "/assets/%00",
    "/nope.js",
  ]) {
    const r = await raw(s.url, p);
    assert.equal(r.status, 404, p);
    assert.doesNotMatch(r.body, /secret/);
    assert.equal(JSON.parse(r.body).error.code, "NOT_FOUND");
  }
  assert.equal((await raw(s.url, "/", { method: "POST" })).status, 405);
});

test("compression: brotli or gzip for text over 1 KiB (files and forwarded API answers), none below or unasked", async () => {
  const s = await start("sandbox");
  const unzip = (r: { headers: http.IncomingHttpHeaders; bytes: Buffer }) =>
    (r.headers["content-encoding"] === "br" ? zlib.brotliDecompressSync(r.bytes) : zlib.gunzipSync(r.bytes)).toString(
      "utf8",
    );
  for (const [p, body] of [
    ["/assets/big-abc.js", bigScript],
    ["/v1/big", bigJson],
  ] as const) {
    const br = await raw(s.url, p, { headers: { "accept-encoding": "gzip, deflate, br" } });
    assert.equal(br.headers["content-encoding"], "br", p);
    assert.match(br.headers.vary as string, /Accept-Encoding/);
    assert.ok(br.bytes.length < body.length / 3, `${p}: ${br.bytes.length} of ${body.length} bytes`);
    assert.equal(unzip(br), body);
    const gz = await raw(s.url, p, { headers: { "accept-encoding": "gzip" } });
    assert.equal(gz.headers["content-encoding"], "gzip", p);
    assert.equal(unzip(gz), body);
    const plain = await raw(s.url, p, { headers: { "accept-encoding": "br;q=0, identity" } });
    assert.equal(plain.headers["content-encoding"], undefined, p);
    assert.equal(plain.body, body);
  }
  // at or under the threshold: sent as is
  const small = await raw(s.url, "/assets/app-abc.js", { headers: { "accept-encoding": "br, gzip" } });
  assert.equal(small.headers["content-encoding"], undefined);
  assert.equal(small.body, "console.log(1)");
  const rpcBig = await postAs(
    s.url,
    "/rpc",
    "application/json",
    JSON.stringify(Array.from({ length: 40 }, (_, id) => ({ jsonrpc: "2.0", id, method: "eth_chainId" }))),
    { "accept-encoding": "gzip" },
  );
  assert.equal(rpcBig.headers["content-encoding"], "gzip");
  assert.equal(JSON.parse(unzip(rpcBig)).length, 40);
});

test("the public config: development keys in the sandbox, none in production", async () => {
  const sandbox = JSON.parse((await raw((await start("sandbox")).url, "/config.json")).body);
  assert.equal(sandbox.chainId, 31337);
  assert.equal(sandbox.devWalletKeys.length, 1);
  assert.equal(sandbox.integratorKey, INTEGRATOR_DEV_KEY, "the integrator's wallet, offered first");
  const prod = JSON.parse((await raw((await start("production")).url, "/config.json")).body);
  assert.deepEqual(prod.devWalletKeys, []);
  assert.equal(prod.integratorKey, undefined);
});

test("/rpc forwards allowed methods only, batches up to the limit, bodies up to the limit", async () => {
  const s = await start("sandbox");
  const post = (body: string) => postAs(s.url, "/rpc", "application/json", body);
  const ok = await post(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }));
  assert.equal(ok.status, 200);
  assert.equal(JSON.parse(ok.body).result, "0x7a69");
  const before = rpcCalls.length;
  for (const method of [
    "eth_sendTransaction",
    "eth_sign",
    "hardhat_setBalance",
    "evm_mine",
    "anvil_impersonateAccount",
    "personal_sign",
    "debug_traceTransaction",
  ]) {
    const r = await post(JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: [] }));
    assert.equal(r.status, 403, method);
    assert.equal(JSON.parse(r.body).error.code, "FORBIDDEN");
  }
  // one forbidden call hides in a batch: nothing of the batch is forwarded
  const mixed = await post(
    JSON.stringify([
      { jsonrpc: "2.0", id: 1, method: "eth_chainId" },
      { jsonrpc: "2.0", id: 2, method: "eth_sendTransaction" },
    ]),
  );
  assert.equal(mixed.status, 403);
  assert.equal(rpcCalls.length, before);
  const batch = (n: number) =>
    JSON.stringify(Array.from({ length: n }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "eth_blockNumber" })));
  assert.equal((await post(batch(MAX_RPC_BATCH))).status, 200);
  assert.equal((await post(batch(MAX_RPC_BATCH + 1))).status, 400);
  assert.equal((await post("[]")).status, 400);
  assert.equal((await post("{not json")).status, 400);
  assert.equal((await raw(s.url, "/rpc")).status, 405);
  // size: exactly the limit is read (and judged as JSON); one byte more is refused unread
  const pad = (n: number) => {
    const head = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] });
    return `${head.slice(0, -1)},"x":"${"a".repeat(n - head.length - 7)}"}`;
  };
  assert.equal(pad(MAX_RPC_BODY).length, MAX_RPC_BODY);
  assert.equal((await post(pad(MAX_RPC_BODY))).status, 200);
  const big = await post(pad(MAX_RPC_BODY + 1));
  assert.equal(big.status, 413);
  assert.equal(JSON.parse(big.body).error.code, "PAYLOAD_TOO_LARGE");
});

test("/v1 is forwarded with the browser's Host (wallet signatures cover it) and our X-Forwarded-For", async () => {
  const s = await start("sandbox");
  const r = await raw(s.url, "/v1/orders?x=1", {
    method: "POST",
    headers: { host: "trade.example:3004", "x-forwarded-for": "6.6.6.6", "content-type": "application/json" },
    body: '{"a":1}',
  });
  assert.equal(r.status, 201);
  assert.equal(r.headers["x-ratelimit-limit"], "100");
  const seen = restSeen.at(-1)!;
  assert.deepEqual(seen, { host: "trade.example:3004", xff: "127.0.0.1", path: "/v1/orders?x=1", body: '{"a":1}' });
});

test("candles without an indexer: 503 with the spec's error body", async () => {
  const s = await start("sandbox");
  const r = await raw(s.url, "/indexer/candles?pair=WETH-USD&interval=1m");
  assert.equal(r.status, 503);
  assert.equal(JSON.parse(r.body).error.code, "SERVICE_UNAVAILABLE");
});

test("/ws relays both ways; other upgrade paths are refused", async () => {
  const s = await start("sandbox");
  const ws = new WebSocket(`${s.url.replace("http", "ws")}/ws`);
  const got = await new Promise<string>((resolve, reject) => {
    ws.on("open", () => ws.send("hello")); // sent before the upstream is open: buffered
    ws.on("message", (m) => resolve(String(m)));
    ws.on("error", reject);
  });
  assert.equal(got, "echo:hello");
  ws.close();
  const other = new WebSocket(`${s.url.replace("http", "ws")}/other`);
  await new Promise<void>((resolve) => other.on("error", () => resolve()));
});

test("the exchange app: its page at /exchange; /exchange-api/v1/* to the exchange API's /v1/* with its own Host", async () => {
  const s = await start("sandbox");
  for (const p of ["/exchange", "/exchange/", "/exchange.html"]) {
    const r = await raw(s.url, p);
    assert.equal(r.status, 200, p);
    assert.match(r.body, /<title>exchange<\/title>/);
    assert.match(r.headers["content-security-policy"] as string, /connect-src 'self'/);
  }
  const r = await raw(s.url, "/exchange-api/v1/orders?status=PENDING", {
    method: "POST",
    headers: {
      host: "web.example",
      authorization: "Bearer t",
      "x-forwarded-for": "6.6.6.6",
      "content-type": "application/json",
    },
    body: '{"q":1}',
  });
  assert.equal(r.status, 201);
  const seen = restSeen.at(-1)!;
  const port = new URL(s.url).port;
  assert.equal(seen.path, "/v1/orders?status=PENDING");
  assert.equal(seen.body, '{"q":1}');
  assert.equal(seen.xff, "127.0.0.1");
  assert.notEqual(seen.host, "web.example");
  assert.notEqual(seen.host, `127.0.0.1:${port}`);
  // only /v1 of the exchange API: anything else under the prefix is this server's 404
  const n = restSeen.length;
  for (const p of ["/exchange-api/admin", "/exchange-api/v1/../admin", "/exchange-api/v2/x"])
    assert.equal((await raw(s.url, p)).status, 404, p);
  assert.equal(restSeen.length, n);
});

test("/identity forwards the three login paths with their methods only; without upstreams: 503", async () => {
  const s = await start("sandbox");
  const n = restSeen.length;
  const otp = await postAs(s.url, "/identity/api/otp", "application/json", '{"phone":"+14155550123"}');
  assert.equal(otp.status, 201);
  assert.equal(restSeen.at(-1)!.path, "/api/otp");
  assert.equal((await raw(s.url, "/identity/api/sandbox/outbox?phone=%2B14155550123&limit=1")).status, 201);
  assert.equal(restSeen.at(-1)!.path, "/api/sandbox/outbox?phone=%2B14155550123&limit=1");
  const grant = await postAs(
    s.url,
    "/identity/api/login/oauth/access_token",
    "application/x-www-form-urlencoded",
    "grant_type=password",
  );
  assert.equal(grant.status, 201);
  assert.equal(restSeen.at(-1)!.body, "grant_type=password");
  assert.equal(restSeen.length, n + 3);
  // the page's own Origin passes (and is not forwarded: the provider sees a server-side client); another site's is refused
  const host = new URL(s.url).host;
  const own = await raw(s.url, "/identity/api/otp", {
    method: "POST",
    headers: { "content-type": "application/json", origin: `http://${host}` },
    body: "{}",
  });
  assert.equal(own.status, 201);
  assert.equal(restSeen.length, n + 4);
  assert.equal(originsSeen.at(-1), undefined);
  for (const origin of ["http://evil.example", "null", `https://${host}.evil.example`]) {
    const r = await postAs(
      s.url,
      "/identity/api/login/oauth/access_token",
      "application/x-www-form-urlencoded",
      "grant_type=password",
      { origin },
    );
    assert.equal(r.status, 403, origin);
    assert.equal(JSON.parse(r.body).error.code, "FORBIDDEN");
  }
  assert.equal(restSeen.length, n + 4);
  // the provider's other paths (its sandbox writes, the authorization pages, JWKS) are not reachable here
  for (const [method, p, status] of [
    ["POST", "/identity/api/sandbox/users", 404],
    ["POST", "/identity/api/sandbox/organizations", 404],
    ["GET", "/identity/api/login/oauth/authorize", 404],
    ["GET", "/identity/.well-known/jwks.json", 404],
    ["GET", "/identity/api/otp", 405],
    ["POST", "/identity/api/sandbox/outbox", 405],
  ] as const) {
    const r = await raw(s.url, p, {
      method,
      headers: { "content-type": "application/json" },
      body: method === "POST" ? "{}" : undefined,
    });
    assert.equal(r.status, status, `${method} ${p}`);
    assert.ok(JSON.parse(r.body).error.code);
  }
  assert.equal(restSeen.length, n + 4);
  const prod = await start("production");
  for (const p of ["/exchange-api/v1/assets", "/identity/api/otp"]) {
    const r = await raw(prod.url, p, { method: p.includes("otp") ? "POST" : "GET" });
    assert.equal(r.status, 503, p);
    assert.equal(JSON.parse(r.body).error.code, "SERVICE_UNAVAILABLE");
  }
});
