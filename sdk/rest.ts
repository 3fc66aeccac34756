// The DEX REST API's typed client: openapi-fetch over the types generated from the API's OpenAPI document
// (sdk/openapi/dex-api.ts, `npm run gen:sdk`). Every path, parameter, body and answer is typed:
//   const dex = createDexClient({ baseUrl: "http://127.0.0.1:3001", auth: { apiKey, apiSecret, scheme: "hmac" } });
//   const { data, error } = await dex.GET("/v1/orderbook/{symbol}", { params: { path: { symbol: "WETH-USD" } } });
// Authentication is added per request by a middleware over the exact bytes sent: an API key and secret
// (headers, or the HMAC scheme) or a wallet (EIP-191 over timestamp + METHOD + host + path + body).
import createClient, { type Client, type Middleware } from "openapi-fetch";
import { hmacHeaders, type ApiKeyCredentials } from "./hmac";
import type { paths } from "./openapi/dex-api";
import type { TradingSigner } from "./signers";

export type { paths as DexPaths } from "./openapi/dex-api";
export type DexClient = Client<paths>;

export type DexAuth =
  /** X-API-Key + X-API-Secret, or (scheme "hmac") X-API-KEY + X-TIMESTAMP + X-SIGNATURE */
  | (ApiKeyCredentials & { scheme?: "secret" | "hmac" })
  /** a wallet's EIP-191 signature of each request (creating API keys; reading with no key) */
  | { wallet: TradingSigner };

export interface DexClientOptions {
  /** the API's origin, e.g. http://127.0.0.1:3001 (paths start with /v1) */
  baseUrl: string;
  auth?: DexAuth;
  /** a fetch of your own (tests, proxies); default: the global fetch */
  fetch?: typeof fetch;
  /** the signed schemes' clock: Unix ms (default Date.now; the server allows 5 s for HMAC, 60 s for wallets) */
  now?: () => number;
}

/** An HTTP answer with the spec's error body `{error: {code, message, details}}` and its status: the base of
 *  each API client's error (DexApiError, BridgeApiError). */
export class SpecApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: unknown,
  ) {
    super(`${status} ${code}: ${message}`);
  }
}

/** The spec's error body, thrown by `ok()`. */
export class DexApiError extends SpecApiError {
  override name = "DexApiError";
}

/** The answer's data, or a DexApiError with the spec error body `{error: {code, message, details}}`. */
export async function ok<T>(result: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await result;
  if (response.ok) return data as T;
  const e = (error as { error?: { code?: string; message?: string; details?: unknown } } | undefined)?.error;
  throw new DexApiError(response.status, e?.code ?? "HTTP_ERROR", e?.message ?? response.statusText, e?.details);
}

/** The middleware that signs each request as `auth` says. */
export function dexAuthMiddleware(auth: DexAuth, now: () => number = Date.now): Middleware {
  return {
    async onRequest({ request }) {
      const url = new URL(request.url);
      const target = url.pathname + url.search;
      const body = request.body === null ? new Uint8Array() : new Uint8Array(await request.clone().arrayBuffer());
      if ("wallet" in auth) {
        const timestamp = String(now());
        const text = new TextEncoder().encode(`${timestamp}${request.method.toUpperCase()}${url.host}${target}`);
        const raw = new Uint8Array(text.length + body.length);
        raw.set(text);
        raw.set(body, text.length);
        request.headers.set("X-Wallet-Address", await auth.wallet.getAddress());
        request.headers.set("X-Wallet-Timestamp", timestamp);
        request.headers.set("X-Wallet-Signature", await auth.wallet.signMessage(raw));
      } else if (auth.scheme === "hmac") {
        for (const [k, v] of Object.entries(
          hmacHeaders(auth, { method: request.method, path: target, body, timestamp: now() }),
        ))
          request.headers.set(k, v);
      } else {
        request.headers.set("X-API-Key", auth.apiKey);
        request.headers.set("X-API-Secret", auth.apiSecret);
      }
      return request;
    },
  };
}

/** A typed client of the DEX REST API. */
export function createDexClient(opts: DexClientOptions): DexClient {
  const client = createClient<paths>({ baseUrl: opts.baseUrl.replace(/\/+$/, ""), fetch: opts.fetch });
  if (opts.auth) client.use(dexAuthMiddleware(opts.auth, opts.now));
  return client;
}
