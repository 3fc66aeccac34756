// Shared by the exchange API's end-to-end tests: their stack, polling until a condition holds, and a user's session
// as the exchange app makes it (one-time code from the sandbox outbox, password grant, tenant token).
import { passwordGrant, requestCode } from "../../api/iam/testing/harness";
import assert from "node:assert/strict";
import { poll } from "../support/poll";
import type { Address } from "viem";
import type { DexService } from "../../pipeline/service";
import type { RunningStack } from "../../scripts/stack";
import { dexServiceOf, withTestStack, type TestStack } from "../support/test-stack";

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Polls `probe` until it returns a value (not undefined), every `everyMs`; throws after `timeoutMs`. */
export const waitFor = <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 120_000, everyMs = 200) =>
  poll(what, probe, timeoutMs, everyMs);

/** Logs `phone` in at the identity provider `iam` and opens an exchange API (`api`) session; `call` asserts no 5xx. */
export async function loginExchange(iam: string, api: string, phone: string) {
  const grant = await passwordGrant(iam, phone, await requestCode(iam, phone));
  assert.equal(grant.status, 200, `password grant: ${grant.status}`);
  const auth = { authorization: `Bearer ${grant.body.access_token}` };
  const { token } = (await (await fetch(`${api}/auth/tenant-token`, { method: "POST", headers: auth })).json()) as {
    token: string;
  };
  const headers = { ...auth, "tenant-authorization": token, "content-type": "application/json" };
  const call = async (method: string, p: string, body?: unknown) => {
    const r = await fetch(`${api}${p}`, {
      method,
      headers,
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
    const text = await r.text();
    assert.ok(r.status < 500, `${method} ${p}: ${r.status} ${text}`);
    return { status: r.status, headers: r.headers, body: (text ? JSON.parse(text) : {}) as Json };
  };
  /** POST /orders of a market order */
  const marketOrder = (assetId: string, side: "BUY" | "SELL", quantity: number) =>
    call("POST", "/orders", { assetId, side, orderType: "market", quantity });
  const account = (await call("GET", "/account")).body.data as Json;
  return { call, marketOrder, account, address: account.settlementAddress as Address, auth, headers };
}

export interface ExchangeStack extends TestStack {
  /** the identity provider's URL */
  iam: string;
  /** the exchange API's URL (…/v1) */
  api: string;
  /** the home chain's deployment */
  home: RunningStack["deployments"]["home"];
  dex: DexService;
  /** `phone` logged in as the exchange app does it (loginExchange) */
  login(phone: string): ReturnType<typeof loginExchange>;
}

/** Runs `fn` over a stack of the identity provider, the pipeline and the exchange API (withTestStack). */
export function withExchangeStack(prefix: string, fn: (s: ExchangeStack) => Promise<void>): Promise<void> {
  return withTestStack(prefix, ["iam", "pipeline", "exchange-api"], async (s) => {
    const iam = s.config.urls.identity;
    const api = s.config.urls.exchangeApi;
    const login = (phone: string) => loginExchange(iam, api, phone);
    await fn({ ...s, iam, api, home: s.stack.deployments.home, dex: dexServiceOf(s.stack), login });
  });
}

/** A user's real-time stream of the exchange API (SSE at `<origin>/api/realtime`, spec 6.1): every event as it
 *  arrives, parsed, in `events`; `close()` ends it. */
export async function openRealtime(origin: string, auth: Record<string, string>, subscribe: string) {
  const abort = new AbortController();
  const events: { event: string; data: Json }[] = [];
  const stream = await fetch(`${origin}/api/realtime?subscribe=${encodeURIComponent(subscribe)}`, {
    headers: { ...auth, accept: "text/event-stream" },
    signal: abort.signal,
  });
  assert.equal(stream.status, 200, `realtime: ${stream.status}`);
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for await (const chunk of stream.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: ?(.*)$/m.exec(block)?.[1];
          const data = block
            .split("\n")
            .filter((l) => l.startsWith("data:"))
            .map((l) => l.replace(/^data: ?/, ""))
            .join("\n");
          if (event && data) events.push({ event, data: JSON.parse(data) as Json });
        }
      }
    } catch {
      // aborted at the end
    }
  })();
  return { events, close: () => abort.abort() };
}
