// The web server's proxies to what the page talks to, on its own origin: the DEX REST API (Host kept), the
// exchange API, an allowlist of the identity provider's login paths, an allowlist of JSON-RPC methods on the
// home chain, and the indexer's candles.
import http from "node:http";
import type { WebServerOptions } from "./server";
import { pipeResponse, sendBody } from "./compress";
import { readBody, SECURITY_HEADERS, sendError } from "./server-http";
import { WALLET_RPC_METHODS } from "../sdk/rpc-methods";

/** JSON-RPC methods the page may call through /rpc. */
export const RPC_METHODS = new Set<string>([...WALLET_RPC_METHODS, "eth_getBlockByHash", "eth_getLogs"]);
export const MAX_RPC_BODY = 256 * 1024;

/** The identity provider's paths the exchange app may call through /identity (method, path). */
export const IDENTITY_PATHS: ReadonlyMap<string, string> = new Map([
  ["/api/otp", "POST"],
  ["/api/sandbox/outbox", "GET"],
  ["/api/login/oauth/access_token", "POST"],
]);
export const MAX_RPC_BATCH = 50;

export interface Upstreams {
  upstream: WebServerOptions["upstream"];
  dexRest: URL;
  exchangeApi: URL | null;
  identity: URL | null;
}

export function upstreamsOf(upstream: WebServerOptions["upstream"]): Upstreams {
  return {
    upstream,
    dexRest: new URL(upstream.dexRest),
    exchangeApi: upstream.exchangeApi ? new URL(upstream.exchangeApi) : null,
    identity: upstream.identity ? new URL(upstream.identity) : null,
  };
}

/** Forwards the request to `target` at `upstreamPath` (Host kept for the DEX API's signed scheme, else the target's).
 *  X-Forwarded-For is this connection's peer only: what a browser sent in it is dropped, so a client cannot
 *  name another address through this hop. */
function forward(
  u: Upstreams,
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
      localAddress: u.upstream.localAddress,
      method: req.method,
      path: upstreamPath,
      headers,
    },
    (r) => pipeResponse(req, res, r),
  );
  up.on("error", () => sendError(res, 503, "SERVICE_UNAVAILABLE", `the ${name} cannot be reached: try again shortly`));
  req.pipe(up);
}

export function proxyRest(u: Upstreams, req: http.IncomingMessage, res: http.ServerResponse): void {
  forward(u, req, res, u.dexRest, req.url ?? "/", true, "DEX API");
}

export function proxyExchange(u: Upstreams, req: http.IncomingMessage, res: http.ServerResponse, url: URL): void {
  if (!u.exchangeApi) return sendError(res, 503, "SERVICE_UNAVAILABLE", "the exchange API does not run here");
  forward(u, req, res, u.exchangeApi, url.pathname.slice("/exchange-api".length) + url.search, false, "exchange API");
}

export function proxyIdentity(u: Upstreams, req: http.IncomingMessage, res: http.ServerResponse, url: URL): void {
  if (!u.identity) return sendError(res, 503, "SERVICE_UNAVAILABLE", "the identity provider does not run here");
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
  forward(u, req, res, u.identity, p + url.search, false, "identity provider");
}

export async function proxyRpc(u: Upstreams, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
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
    const r = await fetch(u.upstream.rpc, {
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

export async function proxyIndexer(
  u: Upstreams,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  url: URL,
): Promise<void> {
  if (req.method !== "GET") return sendError(res, 405, "METHOD_NOT_ALLOWED", "GET only");
  const base = u.upstream.indexer();
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
