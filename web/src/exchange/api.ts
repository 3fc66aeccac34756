// The exchange app's calls, all on this origin (web/server.ts forwards them): /exchange-api/v1/* is the
// exchange API, /identity/api/* the identity provider's login paths. Login (spec 5.1): a one-time code to
// the phone, the password grant (client exchange-web), the tenant token; both tokens go on every
// authenticated call and live in sessionStorage (this tab only) until they expire or the user logs out.
import { ExchangeError } from "./model";

const API = "/exchange-api/v1";
const IDENTITY = "/identity/api";
const SESSION_KEY = "exchange-session";

export interface Session {
  accessToken: string;
  tenantToken: string;
  phone: string;
  expiresAtMs: number;
}

let session: Session | null = null;
let onExpired: () => void = () => {};

export function loadSession(): Session | null {
  try {
    const s = JSON.parse(sessionStorage.getItem(SESSION_KEY) ?? "null") as Session | null;
    session = s && typeof s.accessToken === "string" && s.expiresAtMs > Date.now() + 30_000 ? s : null;
  } catch {
    session = null;
  }
  return session;
}

export const currentSession = () => session;

export function setOnExpired(f: () => void): void {
  onExpired = f;
}

export function logout(): void {
  session = null;
  sessionStorage.removeItem(SESSION_KEY);
}

async function send(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch {
    throw new ExchangeError(0, "NETWORK", "the exchange cannot be reached");
  }
}

async function parse<T>(res: Response): Promise<T> {
  const text = await res.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON */
  }
  if (!res.ok) {
    const e = (body as { error?: unknown; error_description?: string } | null)?.error;
    if (e && typeof e === "object") {
      const x = e as { code?: string; message?: string; details?: Record<string, unknown> };
      throw new ExchangeError(
        res.status,
        x.code ?? `HTTP_${res.status}`,
        x.message ?? `the server answered ${res.status}`,
        x.details ?? {},
      );
    }
    if (typeof e === "string")
      throw new ExchangeError(res.status, e, (body as { error_description?: string }).error_description ?? e);
    throw new ExchangeError(res.status, `HTTP_${res.status}`, `the server answered ${res.status}`);
  }
  return body as T;
}

/** A public read of the exchange API (market data, navigation). */
export async function publicGet<T>(path: string): Promise<T> {
  return parse<T>(await send(API + path, { headers: { accept: "application/json" } }));
}

/** An authenticated call with both tokens; a 401 ends the session. */
export async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  if (!session) {
    onExpired();
    throw new ExchangeError(401, "UNAUTHORIZED", "not logged in");
  }
  const headers: Record<string, string> = {
    accept: "application/json",
    authorization: `Bearer ${session.accessToken}`,
    "tenant-authorization": session.tenantToken,
  };
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await send(API + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (res.status === 401) {
    logout();
    onExpired();
  }
  return parse<T>(res);
}

/** Sandbox: a phone's key (its simulated SIM), answered once by the phone's first code request, kept in
 *  this browser's localStorage: the outbox is read with it, so only this browser sees the phone's codes. */
const phoneKeyStorage = (phone: string) => `sandboxPhoneKey:${phone}`;

export async function requestCode(phone: string): Promise<{ expiresIn: number }> {
  const r = await parse<{ data: { expiresIn: number; sandboxPhoneKey?: string } }>(
    await send(`${IDENTITY}/otp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ phone }),
    }),
  );
  if (r.data.sandboxPhoneKey) localStorage.setItem(phoneKeyStorage(phone), r.data.sandboxPhoneKey);
  return r.data;
}

/** Sandbox only: the newest code sent to the phone (what an SMS would carry), with the phone's key. */
export async function sandboxOutbox(phone: string): Promise<{ code: string; sentAt: string } | null> {
  const key = localStorage.getItem(phoneKeyStorage(phone));
  const headers: Record<string, string> = {
    accept: "application/json",
    ...(key ? { "x-sandbox-phone-key": key } : {}),
  };
  const r = await parse<{ data: { code: string; sentAt: string }[] }>(
    await send(`${IDENTITY}/sandbox/outbox?phone=${encodeURIComponent(phone)}&limit=1`, { headers }),
  );
  return r.data[0] ?? null;
}

export async function login(phone: string, code: string): Promise<Session> {
  const form = new URLSearchParams({
    grant_type: "password",
    client_id: "exchange-web",
    username: phone,
    password: code,
    scope: "openid profile email phone",
  });
  const grant = await parse<{ access_token: string; expires_in: number }>(
    await send(`${IDENTITY}/login/oauth/access_token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: form,
    }),
  );
  const tt = await parse<{ token: string }>(
    await send(`${API}/auth/tenant-token`, {
      method: "POST",
      headers: { authorization: `Bearer ${grant.access_token}`, accept: "application/json" },
    }),
  );
  session = {
    accessToken: grant.access_token,
    tenantToken: tt.token,
    phone,
    expiresAtMs: Date.now() + grant.expires_in * 1000,
  };
  sessionStorage.setItem(SESSION_KEY, JSON.stringify(session));
  return session;
}

// ---------------------------------------------------------------- shapes (spec 2, plus the API's extras)

export interface Rail {
  id: string;
  label: string;
  categories: { id: string; label: string }[];
}

export interface AssetSummary {
  id: string;
  symbol: string;
  name: string;
  type: string;
  exchange: string | null;
  status: string;
  /** before any trade the offering's reference price (priceSource "reference") */
  price: number;
  change: number;
  changesPercentage: number;
  priceSource: "trades" | "reference";
  image: string;
  marketRail: string;
  tradeable: boolean;
}

export interface AssetDetail extends AssetSummary {
  accreditationType: "506c" | "506b" | null;
  offeringType: string;
  regime: string;
  market: string | null;
  marketData: {
    perDay: { timestamp: string; open: number; high: number; low: number; close: number; volume: number }[];
  };
}

export interface Quote {
  assetId: string;
  last: number;
  open: number;
  high: number;
  low: number;
  prevClose: number;
  change: number;
  changePercent: number;
  volume: number;
  priceSource: "trades" | "reference";
  timestamp: string;
}

export interface Book {
  assetId: string;
  bids: { price: number; size: number }[];
  asks: { price: number; size: number }[];
  timestamp: string;
}

export interface Candle {
  time: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
}

export interface Order {
  orderId: string;
  assetId: string;
  side: "BUY" | "SELL";
  orderType: "market" | "limit";
  quantity: number;
  limitPrice?: number;
  status: "PENDING" | "EXECUTED" | "CANCELLED";
  filledQuantity?: number;
  averagePrice?: number | null;
  createdAt: string;
  executedAt?: string;
  cancelledAt?: string;
  settlement?: string;
}

export interface Holding {
  assetId: string;
  symbol: string;
  name: string;
  type: string;
  quantity: number;
  averageCost: number;
  currentPrice: number | null;
  marketValue: number | null;
  unrealizedPnl: number | null;
  unrealizedPnlPercent: number | null;
  realizedPnl?: number;
}

export interface Lot {
  quantity: number;
  acquisitionDate: string;
  restrictionEndDate: string;
  isRestricted: boolean;
  offeringType: string;
  regime?: string;
}

export interface LotHolding {
  assetId: string;
  symbol: string;
  name: string;
  type: string;
  quantity: number;
  averageCost: number;
  lots: Lot[];
}

export interface Transaction {
  id: string;
  type: "deposit" | "withdrawal" | "trade";
  assetId: string;
  side: string;
  quantity: number;
  price: number;
  total: number;
  fee: number;
  status: string;
  timestamp: string;
  method?: string;
  completesAt?: string;
}

export interface Account {
  userId: string;
  accountId: string;
  phone: string;
  email: string | null;
  kycStatus: string;
  accreditationStatus: string;
  accreditationType: string;
  cashBalance: number;
  buyingPower: number;
  settlementAddress: string;
}
