// The exchange app's calls, all on this origin (web/server.ts forwards them): /exchange-api/v1/* is the
// exchange API, /identity/api/* the identity provider's login paths. Login (spec 5.1): a one-time code to
// the phone, the password grant (client exchange-web), the tenant token; both tokens go on every
// authenticated call and live in sessionStorage (this tab only) until they expire or the user logs out.
import type { operations } from "../../../sdk/openapi/exchange-api";
import { ExchangeError } from "./model";
import { jsonOrNull } from "../json-body";

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
  const body = await jsonOrNull(res);
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

/** The header of a market-data answer whose figures are the last known ones (the indexer is not answering). */
const STALE_HEADER = "x-market-data-stale";

/** A public read that says whether its figures are the last known ones: `staleSince` is when the exchange last
 *  had them fresh (ISO 8601), null when they are live. */
export async function publicRead<T>(path: string): Promise<{ body: T; staleSince: string | null }> {
  const res = await send(API + path, { headers: { accept: "application/json" } });
  const staleSince = res.headers.get(STALE_HEADER);
  return { body: await parse<T>(res), staleSince };
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

// ---------------------------------------------------------------- shapes, from the API's OpenAPI document

type Ops = operations;
/** The JSON body of an operation's success answer (200, or 201 for a creation). */
type Body<K extends keyof Ops> = Ops[K]["responses"] extends { 200: { content: { "application/json": infer B } } }
  ? B
  : Ops[K]["responses"] extends { 201: { content: { "application/json": infer B } } }
    ? B
    : never;
type Data<K extends keyof Ops> = Body<K> extends { data: infer D } ? D : never;
type Item<T> = T extends readonly (infer I)[] ? I : never;

export type Rail = Item<Body<"getV1Navigation">["rails"]>;
export type AssetSummary = Item<Data<"getV1Assets">>;
export type AssetPage = Body<"getV1Assets">;
export type AssetDetail = Data<"getV1AssetsId">;
export type Quote = Body<"getV1AssetsIdQuote">;
export type Book = Body<"getV1AssetsIdBook">;
export type Candle = Item<Data<"getV1AssetsIdChart">>;
export type Order = Data<"postV1Orders">;
export type Holding = Item<Data<"getV1Portfolio">>;
export type LotHolding = Item<Data<"getV1ExchangePortfolio">>;
export type Lot = Item<LotHolding["lots"]>;
export type Transaction = Item<Data<"getV1Transactions">>;
export type FundingTransfer = Data<"postV1Deposits">;
export type Account = Data<"getV1Account">;
