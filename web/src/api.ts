// The DEX REST API, same origin (the web server forwards /v1 to it): public reads, and the account's
// reads and writes signed by the wallet itself (X-Wallet-* headers: EIP-191 over timestamp + METHOD + host
// + path + body, docs/integrate.md "Integrate"). Errors keep the spec's body {error:{code,message,details}}.
import { hmacHeaders, type ApiKeyCredentials } from "../../sdk/hmac";
import type { MarketsInfo } from "./order";
import type { operations } from "../../sdk/openapi/dex-api";
import { jsonOrNull } from "./json-body";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: unknown = {},
  ) {
    super(message);
  }
}

export interface WalletSigner {
  address: `0x${string}`;
  signRaw(bytes: Uint8Array): Promise<`0x${string}`>;
  /** a session key approved once by the wallet: account requests are HMAC-signed with it, no wallet prompt */
  session?: ApiKeyCredentials;
}

async function parse<T>(res: Response): Promise<T> {
  const body = await jsonOrNull(res);
  if (!res.ok) {
    const e = (body as { error?: { code?: string; message?: string; details?: unknown } } | null)?.error;
    throw new ApiError(
      res.status,
      e?.code ?? `HTTP_${res.status}`,
      e?.message ?? `the server answered ${res.status}`,
      e?.details ?? {},
    );
  }
  return body as T;
}

/** A request to this origin, its answer parsed; a network failure is an ApiError NETWORK. */
async function send<T>(path: string, init: RequestInit): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, init);
  } catch {
    throw new ApiError(0, "NETWORK", "The server cannot be reached. Check that the exchange is running.");
  }
  return parse<T>(res);
}

export async function getJson<T>(path: string): Promise<T> {
  return send<T>(path, { headers: { accept: "application/json" } });
}

let clockOffsetMs = 0;
let lastTimestamp = 0;

/** Aligns signed timestamps with the server's clock (GET /v1/time). */
export async function syncClock(): Promise<void> {
  const before = Date.now();
  const t = await getJson<{ timestamp: number }>("/v1/time");
  clockOffsetMs = t.timestamp - Math.round((before + Date.now()) / 2);
}

/** The headers of the wallet's signature (EIP-191) or, with a session, of the session key's HMAC. */
async function authHeaders(wallet: WalletSigner, ts: number, method: string, path: string, text: string) {
  if (wallet.session) return hmacHeaders(wallet.session, { method, path, body: text, timestamp: ts });
  const timestamp = String(ts);
  const signature = await wallet.signRaw(
    new TextEncoder().encode(`${timestamp}${method}${location.host}${path}${text}`),
  );
  return { "X-Wallet-Address": wallet.address, "X-Wallet-Timestamp": timestamp, "X-Wallet-Signature": signature };
}

/** A request signed for the wallet (by the wallet, or by its session key); every timestamp differs from the
 *  last, so two equal requests never share a signature. */
export async function signedRequest<T>(wallet: WalletSigner, method: string, path: string, body?: unknown): Promise<T> {
  try {
    return await signedOnce<T>(wallet, method, path, body);
  } catch (err) {
    // refused before anything happened because this page's clock drifted from the server's (the HMAC
    // window is 5 s): align with the server time the refusal gives, and sign once more
    const d = err instanceof ApiError ? (err.details as { reason?: string; server_time?: number }) : null;
    if (d?.reason !== "timestamp_outside_window" || typeof d.server_time !== "number") throw err;
    clockOffsetMs = d.server_time - Date.now();
    return signedOnce<T>(wallet, method, path, body);
  }
}

async function signedOnce<T>(wallet: WalletSigner, method: string, path: string, body?: unknown): Promise<T> {
  const text = body === undefined ? "" : JSON.stringify(body);
  const ts = Math.max(Date.now() + clockOffsetMs, lastTimestamp + 1);
  lastTimestamp = ts;
  const headers: Record<string, string> = {
    accept: "application/json",
    ...(await authHeaders(wallet, ts, method, path, text)),
  };
  if (body !== undefined) headers["content-type"] = "application/json";
  return send<T>(path, { method, headers, body: body === undefined ? undefined : text });
}

export const placeOrder = (body: Record<string, unknown>): Promise<ApiOrder> => postPublic("/v1/orders", body);

export const getMarkets = () => getJson<MarketsInfo>("/v1/markets");

export interface ApiOrder {
  order_id: string;
  symbol: string;
  side: "buy" | "sell";
  type: string;
  price: number | null;
  trigger_price: number | null;
  size: number;
  filled_size: number;
  average_price: number | null;
  time_in_force: string;
  status: string;
  status_reason: string | null;
  created_at: number;
  hidden: boolean;
  iceberg_visible_size: number | null;
  fills?: ApiFill[];
}

export interface ApiFill {
  trade_id: string;
  price: number;
  size: number;
  liquidity: "maker" | "taker";
  fee: string;
  fee_token: string;
  timestamp: number;
  settlement: "pending" | "settled";
  tx_hash: string | null;
}

export interface ApiBalance {
  asset: string;
  token: `0x${string}`;
  decimals: number;
  available: string;
  locked: string;
  on_chain: string;
  pending_withdrawal: string;
}

export interface ApiTrade {
  trade_id: string;
  price: number;
  size: number;
  side: "buy" | "sell";
  timestamp: number;
}

/** One market of the public GET /v1/market-summary. */
export interface ApiTicker {
  symbol: string;
  bid: string | null;
  ask: string | null;
  last: string | null;
  open24h: string | null;
  change24h: string | null;
  volume24h: string;
}

/** Every market's last price, 24 h change and volume (public: the per-symbol ticker is signed-only). */
export async function marketSummary(): Promise<Map<string, ApiTicker>> {
  const r = await getJson<{ markets: ApiTicker[] }>("/v1/market-summary");
  return new Map(r.markets.map((m) => [m.symbol, m]));
}

/** A refusal in words for a person (the API's message is already a sentence; a few codes get more help). */
export function explain(err: unknown): string {
  if (err instanceof ApiError) {
    if (err.code === "INSUFFICIENT_BALANCE")
      return `Not enough balance in the Settlement contract: ${err.message}. Deposit first.`;
    if (err.code === "RATE_LIMIT_EXCEEDED") return "Too many requests: wait a moment and try again.";
    if (err.code === "CHAIN_UNAVAILABLE" || err.code === "SERVICE_UNAVAILABLE")
      return `The exchange cannot settle right now (${err.message}). Try again in a few seconds.`;
    return err.message;
  }
  const e = err as { shortMessage?: string; message?: string };
  if (e?.shortMessage) return e.shortMessage;
  return e?.message ?? String(err);
}

/** An unauthenticated POST (the body carries its own signature, e.g. the agent approval). */
export function postPublic<T>(path: string, body: unknown): Promise<T> {
  return send<T>(path, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify(body),
  });
}

/** An API key as `GET /v1/api-keys` lists it (the DEX API's OpenAPI document, generated into the SDK). */
export type ApiKey = operations["getV1ApiKeys"]["responses"][200]["content"]["application/json"]["api_keys"][number];
