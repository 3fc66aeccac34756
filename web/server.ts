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
import { sendBody } from "./compress";
import { SECURITY_HEADERS, sendError } from "./server-http";
import { proxyExchange, proxyIdentity, proxyIndexer, proxyRest, proxyRpc, upstreamsOf } from "./server-proxies";
import { StaticFiles } from "./server-static";
import { relayWebSockets } from "./server-ws";

export { IDENTITY_PATHS, MAX_RPC_BATCH, MAX_RPC_BODY, RPC_METHODS } from "./server-proxies";

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
  const files = new StaticFiles(dist);
  const u = upstreamsOf(o.upstream);
  const server = http.createServer((req, res) => {
    let url: URL;
    try {
      url = new URL(req.url ?? "/", "http://web.local");
    } catch {
      return sendError(res, 400, "INVALID_REQUEST", "malformed URL");
    }
    const p = url.pathname;
    if (p === "/v1" || p.startsWith("/v1/")) return proxyRest(u, req, res);
    if (p.startsWith("/exchange-api/v1/")) return proxyExchange(u, req, res, url);
    if (p.startsWith("/identity/")) return proxyIdentity(u, req, res, url);
    if (p === "/rpc")
      return void proxyRpc(u, req, res).catch(() => sendError(res, 500, "INTERNAL_ERROR", "internal error"));
    if (p === "/indexer/candles")
      return void proxyIndexer(u, req, res, url).catch(() => sendError(res, 500, "INTERNAL_ERROR", "internal error"));
    if (p === "/config.json") {
      return sendBody(
        req,
        res,
        200,
        { "content-type": "application/json", "cache-control": "no-cache", ...SECURITY_HEADERS },
        publicConfig,
      );
    }
    files.serve(req, res, p);
  });
  const wss = relayWebSockets(server, o.upstream);
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
