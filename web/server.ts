// Serves the built trading app and, on the same origin, what it talks to (so the DEX API needs no CORS
// and the wallet-signed requests sign over this Host): /v1/* -> the DEX REST API (Host kept), /ws -> the
// DEX WebSocket (both with X-Forwarded-For: the browser's address, for the per-address limits and API-key
// allowlists of services that trust this hop), /rpc -> the home chain's JSON-RPC (an allowlist of read and raw-transaction methods: never
// eth_sendTransaction or a node's admin methods), /indexer/candles -> the indexer, and /config.json (the
// chain id and, in the sandbox only, the demo traders' public development keys for the built-in wallet).
// The exchange app (/exchange, exchange.html) talks to /exchange-api/v1/* -> the exchange API's /v1/* and
// /identity/api/{otp, sandbox/outbox, login/oauth/access_token} -> the identity provider (an allowlist).
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { WebSocket, WebSocketServer } from "ws";
import { WEB_CALLBACK_PATH } from "../sdk/exchange-client";
import { chooseEncoding, compressSync, COMPRESS_MIN_BYTES, pipeResponse, sendBody, type Encoding } from "./compress";

export interface WebServerOptions {
  host: string;
  port: number;
  /** the built app (web/build.ts) */
  distDir: string;
  upstream: {
    /** DEX REST origin, without /v1 */
    dexRest: string;
    /** DEX WebSocket URL (ws://host:port/ws) */
    dexWs: string;
    /** home chain JSON-RPC URL */
    rpc: string;
    /** the indexer's base URL now; undefined when it does not run */
    indexer: () => string | undefined;
    /** the exchange API's origin, without /v1 (the exchange app: /exchange-api/v1/* goes there) */
    exchangeApi?: string;
    /** the identity provider's origin (the exchange app's login: /identity/api/... , an allowlist) */
    identity?: string;
    /** the local address this server connects to the upstreams from (default: the system's choice); they
     *  believe the X-Forwarded-For it sets from this address only (their TRUSTED_PROXIES) */
    localAddress?: string;
  };
  chainId: number;
  mode: "sandbox" | "production";
  /** sandbox: the demo traders' keys for the development wallet (ignored in production) */
  devWalletKeys: readonly `0x${string}`[];
  /** sandbox: the integrator's wallet, the development wallet offered first (ignored in production) */
  integratorKey?: `0x${string}`;
}

export interface RunningWebServer {
  url: string;
  close(): Promise<void>;
}

/** JSON-RPC methods the page may call through /rpc. */
export const RPC_METHODS = new Set([
  "eth_chainId",
  "net_version",
  "eth_blockNumber",
  "eth_call",
  "eth_estimateGas",
  "eth_gasPrice",
  "eth_maxPriorityFeePerGas",
  "eth_feeHistory",
  "eth_getBalance",
  "eth_getCode",
  "eth_getTransactionCount",
  "eth_getBlockByNumber",
  "eth_getBlockByHash",
  "eth_getTransactionByHash",
  "eth_getTransactionReceipt",
  "eth_getLogs",
  "eth_sendRawTransaction",
]);
export const MAX_RPC_BODY = 256 * 1024;

/** The identity provider's paths the exchange app may call through /identity (method, path). */
export const IDENTITY_PATHS: ReadonlyMap<string, string> = new Map([
  ["/api/otp", "POST"],
  ["/api/sandbox/outbox", "GET"],
  ["/api/login/oauth/access_token", "POST"],
]);
export const MAX_RPC_BATCH = 50;

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json",
  ".woff2": "font/woff2",
};

const SECURITY_HEADERS = {
  "Content-Security-Policy":
    "default-src 'self'; script-src 'self'; connect-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "X-Frame-Options": "DENY",
};

function sendError(
  res: http.ServerResponse,
  status: number,
  code: string,
  message: string,
  details: Record<string, unknown> = {},
): void {
  if (res.headersSent) return void res.destroy();
  res.writeHead(status, { "content-type": "application/json", ...SECURITY_HEADERS });
  res.end(JSON.stringify({ error: { code, message, details } }));
}

function readBody(req: http.IncomingMessage, limit: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        resolve(null);
        req.resume();
        return;
      }
      chunks.push(c);
    });
    req.on("end", () => resolve(size > limit ? null : Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

export async function startWebServer(o: WebServerOptions): Promise<RunningWebServer> {
  const dist = path.resolve(o.distDir);
  fs.accessSync(path.join(dist, "index.html"));
  const sandbox = o.mode === "sandbox";
  const publicConfig = JSON.stringify({
    chainId: o.chainId,
    mode: o.mode,
    devWalletKeys: sandbox ? o.devWalletKeys : [],
    integratorKey: sandbox ? o.integratorKey : undefined,
  });
  const dexRest = new URL(o.upstream.dexRest);

  function serveStatic(req: http.IncomingMessage, res: http.ServerResponse, pathname: string): void {
    if (req.method !== "GET" && req.method !== "HEAD")
      return sendError(res, 405, "METHOD_NOT_ALLOWED", "only GET and HEAD are served here");
    if (pathname === "/" || pathname === "/index.html" || pathname === WEB_CALLBACK_PATH) {
      return sendFile(req, res, path.join(dist, "index.html"), TYPES[".html"], "no-cache");
    }
    if (pathname === "/exchange" || pathname === "/exchange/") pathname = "/exchange.html";
    let decoded: string;
    try {
      decoded = decodeURIComponent(pathname);
    } catch {
      return sendError(res, 400, "INVALID_REQUEST", "malformed path");
    }
    const file = path.resolve(dist, `.${path.posix.normalize(decoded)}`);
    if (!file.startsWith(dist + path.sep) || decoded.includes("\0"))
      return sendError(res, 404, "NOT_FOUND", "no such file");
    fs.stat(file, (err, st) => {
      if (err || !st.isFile()) return sendError(res, 404, "NOT_FOUND", "no such file");
      const type = TYPES[path.extname(file)] ?? "application/octet-stream";
      // Vite names every asset by its content hash: cache it for good
      const cache = pathname.startsWith("/assets/") ? "public, max-age=31536000, immutable" : "no-cache";
      sendFile(req, res, file, type, cache);
    });
  }

  // the build never changes under a running server: each file is read once and compressed once per encoding
  const files = new Map<string, Buffer>();
  function sendFile(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    file: string,
    type: string,
    cache: string,
  ): void {
    let body = files.get(file);
    if (!body) files.set(file, (body = fs.readFileSync(file)));
    const enc: Encoding | null = body.length > COMPRESS_MIN_BYTES ? chooseEncoding(req, type) : null;
    const headers: http.OutgoingHttpHeaders = {
      "content-type": type,
      "cache-control": cache,
      vary: "Accept-Encoding",
      ...SECURITY_HEADERS,
    };
    if (enc) {
      const key = `${enc}:${file}`;
      let z = files.get(key);
      if (!z) files.set(key, (z = compressSync(body, enc)));
      body = z;
      headers["content-encoding"] = enc;
    }
    headers["content-length"] = body.length;
    res.writeHead(200, headers);
    res.end(req.method === "HEAD" ? undefined : body);
  }

  /** Forwards the request to `target` at `upstreamPath` (Host kept for the DEX API's signed scheme, else the target's).
   *  X-Forwarded-For is this connection's peer only: what a browser sent in it is dropped, so a client cannot
   *  name another address through this hop. */
  function forward(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    target: URL,
    upstreamPath: string,
    keepHost: boolean,
    name: string,
  ): void {
    const headers = { ...req.headers, connection: "close", "x-forwarded-for": req.socket.remoteAddress ?? "" };
    if (!keepHost) headers.host = target.host;
    const up = http.request(
      {
        protocol: target.protocol,
        hostname: target.hostname,
        port: target.port,
        localAddress: o.upstream.localAddress,
        method: req.method,
        path: upstreamPath,
        headers,
      },
      (r) => pipeResponse(req, res, r),
    );
    up.on("error", () =>
      sendError(res, 503, "SERVICE_UNAVAILABLE", `the ${name} cannot be reached: try again shortly`),
    );
    req.pipe(up);
  }

  function proxyRest(req: http.IncomingMessage, res: http.ServerResponse): void {
    forward(req, res, dexRest, req.url ?? "/", true, "DEX API");
  }

  const exchangeApi = o.upstream.exchangeApi ? new URL(o.upstream.exchangeApi) : null;
  const identity = o.upstream.identity ? new URL(o.upstream.identity) : null;

  function proxyExchange(req: http.IncomingMessage, res: http.ServerResponse, url: URL): void {
    if (!exchangeApi) return sendError(res, 503, "SERVICE_UNAVAILABLE", "the exchange API does not run here");
    forward(req, res, exchangeApi, url.pathname.slice("/exchange-api".length) + url.search, false, "exchange API");
  }

  function proxyIdentity(req: http.IncomingMessage, res: http.ServerResponse, url: URL): void {
    if (!identity) return sendError(res, 503, "SERVICE_UNAVAILABLE", "the identity provider does not run here");
    const p = url.pathname.slice("/identity".length);
    const method = IDENTITY_PATHS.get(p);
    if (!method)
      return sendError(res, 404, "NOT_FOUND", "this identity provider path is not available through the web app");
    if (req.method !== method) return sendError(res, 405, "METHOD_NOT_ALLOWED", `${p} takes ${method} only`);
    // the provider checks a browser's Origin against its clients' web origins; here the page is this
    // server's own, so we check it (another site's page is refused) and forward as the server-side client
    const origin = req.headers.origin;
    if (origin !== undefined) {
      let host: string | null = null;
      try {
        host = new URL(origin).host;
      } catch {
        /* "null" or malformed */
      }
      if (host !== req.headers.host)
        return sendError(res, 403, "FORBIDDEN", "the login paths take requests from this web app's own pages only");
      delete req.headers.origin;
    }
    forward(req, res, identity, p + url.search, false, "identity provider");
  }

  async function proxyRpc(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (req.method !== "POST") return sendError(res, 405, "METHOD_NOT_ALLOWED", "JSON-RPC is POST only");
    const body = await readBody(req, MAX_RPC_BODY);
    if (body === null)
      return sendError(res, 413, "PAYLOAD_TOO_LARGE", `a JSON-RPC request is at most ${MAX_RPC_BODY} bytes`, {
        limit: MAX_RPC_BODY,
      });
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString("utf8"));
    } catch {
      return sendError(res, 400, "INVALID_REQUEST", "the body is not JSON");
    }
    const calls = Array.isArray(parsed) ? parsed : [parsed];
    if (calls.length === 0 || calls.length > MAX_RPC_BATCH)
      return sendError(res, 400, "INVALID_REQUEST", `a batch holds 1 to ${MAX_RPC_BATCH} calls`, {
        limit: MAX_RPC_BATCH,
      });
    for (const c of calls) {
      const method = (c as { method?: unknown })?.method;
      if (typeof method !== "string" || !RPC_METHODS.has(method)) {
        return sendError(res, 403, "FORBIDDEN", "this JSON-RPC method is not available through the web app", {
          method: typeof method === "string" ? method.slice(0, 64) : null,
        });
      }
    }
    try {
      const r = await fetch(o.upstream.rpc, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
        signal: AbortSignal.timeout(30_000),
      });
      sendBody(req, res, r.status, { "content-type": "application/json", ...SECURITY_HEADERS }, await r.text());
    } catch {
      sendError(res, 503, "SERVICE_UNAVAILABLE", "the chain cannot be reached: try again shortly");
    }
  }

  async function proxyIndexer(req: http.IncomingMessage, res: http.ServerResponse, url: URL): Promise<void> {
    if (req.method !== "GET") return sendError(res, 405, "METHOD_NOT_ALLOWED", "GET only");
    const base = o.upstream.indexer();
    if (!base) return sendError(res, 503, "SERVICE_UNAVAILABLE", "the indexer does not run: candles are unavailable");
    try {
      const r = await fetch(`${base}/candles${url.search}`, { signal: AbortSignal.timeout(10_000) });
      sendBody(
        req,
        res,
        r.status,
        { "content-type": "application/json", "cache-control": "no-cache", ...SECURITY_HEADERS },
        await r.text(),
      );
    } catch {
      sendError(res, 503, "SERVICE_UNAVAILABLE", "the indexer cannot be reached: candles are unavailable");
    }
  }

  const server = http.createServer((req, res) => {
    let url: URL;
    try {
      url = new URL(req.url ?? "/", "http://web.local");
    } catch {
      return sendError(res, 400, "INVALID_REQUEST", "malformed URL");
    }
    const p = url.pathname;
    if (p === "/v1" || p.startsWith("/v1/")) return proxyRest(req, res);
    if (p.startsWith("/exchange-api/v1/")) return proxyExchange(req, res, url);
    if (p.startsWith("/identity/")) return proxyIdentity(req, res, url);
    if (p === "/rpc")
      return void proxyRpc(req, res).catch(() => sendError(res, 500, "INTERNAL_ERROR", "internal error"));
    if (p === "/indexer/candles")
      return void proxyIndexer(req, res, url).catch(() => sendError(res, 500, "INTERNAL_ERROR", "internal error"));
    if (p === "/config.json") {
      return sendBody(
        req,
        res,
        200,
        { "content-type": "application/json", "cache-control": "no-cache", ...SECURITY_HEADERS },
        publicConfig,
      );
    }
    serveStatic(req, res, p);
  });

  // /ws: each browser socket gets its own socket to the DEX WebSocket; messages relayed both ways
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  server.on("upgrade", (req, socket, head) => {
    if (new URL(req.url ?? "/", "http://web.local").pathname !== "/ws") return socket.destroy();
    wss.handleUpgrade(req, socket, head, (client) => {
      const upstream = new WebSocket(o.upstream.dexWs, {
        maxPayload: 16 * 1024 * 1024,
        localAddress: o.upstream.localAddress,
        headers: { "x-forwarded-for": req.socket.remoteAddress ?? "" },
      });
      const pending: { data: unknown; binary: boolean }[] = [];
      client.on("message", (data, binary) => {
        if (upstream.readyState === WebSocket.OPEN) upstream.send(data as Buffer, { binary });
        else if (pending.length < 64) pending.push({ data, binary });
        else client.close(1013, "feed not ready");
      });
      upstream.on("open", () => {
        for (const m of pending.splice(0)) upstream.send(m.data as Buffer, { binary: m.binary });
      });
      upstream.on("message", (data, binary) => {
        if (client.readyState === WebSocket.OPEN) client.send(data as Buffer, { binary });
      });
      const end = () => {
        if (client.readyState === WebSocket.OPEN || client.readyState === WebSocket.CONNECTING)
          client.close(1011, "feed closed");
        if (upstream.readyState === WebSocket.OPEN || upstream.readyState === WebSocket.CONNECTING)
          upstream.terminate();
      };
      upstream.on("close", end);
      upstream.on("error", end);
      client.on("close", end);
      client.on("error", end);
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.port, o.host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  return {
    url: `http://${o.host}:${addr.port}`,
    async close() {
      for (const c of wss.clients) c.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
