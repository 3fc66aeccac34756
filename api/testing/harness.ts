// Test harness: the DEX REST app over a real socket on a free port, backed by the in-memory test double,
// with the client-side signing every test needs (./signing, re-exported here).
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after } from "node:test";
import type { Address, Hex, PrivateKeyAccount } from "viem";
import { createDb, type Db } from "../../db";
import { createApiKeyStore, type ApiKeyStore } from "../auth/api-keys";
import type { Authenticator } from "../auth/authenticate";
import { createSecretBox } from "../auth/secret-box";
import { createDexAuthenticator, createDexRestApp, listenDexRest } from "../dex/app";
import { createOrderPlacer, type OrderPlacer } from "../dex/place-order";
import { dexApiConfig, type DexApiConfig, type DexRateLimits, type DexWsLimits } from "../dex/config";
import { createApiLogger } from "../logger";
import { createMemoryDexService, type MemoryDexService } from "./memory-dex-service";
import { readRes, type Res } from "./read-res";
import { newWallet, walletHeaders, WETH_USD, type TestKey } from "./signing";
import { suiteResource } from "./suite-resource";
import { createGrpcServer, type DexGrpcServer, type GrpcServerDeps } from "../grpc/server";
import { createWsServer, type DexWsServer, type WsServerDeps } from "../ws/server";

/** Limits high enough that only the rate-limit tests (which set their own) ever meet them. */
export const RELAXED_LIMITS: DexRateLimits = {
  ipPerMinute: 1e6,
  publicPerMinute: 1e6,
  privatePerMinute: 1e6,
  ordersPerSecond: 1e6,
  signedMarketDataPerMinute: 1e6,
  signedAccountPerMinute: 1e6,
  signedOrdersPerMinute: 1e6,
  signedCancelsPerMinute: 1e6,
};

export interface Harness {
  url: string;
  origin: string;
  service: MemoryDexService;
  keys: ApiKeyStore;
  auth: Authenticator;
  db: Db;
  /** the REST app's order placer (give it to a gRPC server under test to share its in-flight registry) */
  placeOrder: OrderPlacer;
  config: DexApiConfig;
  logs: string[];
  close(): Promise<void>;
}

export interface HarnessOptions {
  rateLimits?: Partial<DexRateLimits>;
  ws?: Partial<DexWsLimits>;
  service?: MemoryDexService;
  now?: () => number;
  /** other settings (walletAuthHosts, agentApprovalSeconds, windows...) */
  config?: Partial<Omit<DexApiConfig, "rateLimits" | "ws">>;
  /** the API logger's level (debug: every request is logged into `logs`) */
  logLevel?: string;
}

export async function startHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const db = await createDb();
  const config = dexApiConfig({
    ...opts.config,
    apiKeyEncryptionKey: randomBytes(32).toString("hex"),
    rateLimits: { ...RELAXED_LIMITS, ...opts.rateLimits },
    ws: opts.ws,
  });
  const service = opts.service ?? createMemoryDexService();
  const keys = createApiKeyStore({ db, box: createSecretBox(config.apiKeyEncryptionKey) });
  const logs: string[] = [];
  const logger = createApiLogger({
    level: opts.logLevel ?? "debug",
    destination: { write: (s: string) => void logs.push(s) },
  });
  const auth = createDexAuthenticator({ config, keys, now: opts.now });
  const placeOrder = createOrderPlacer({
    service,
    keys,
    now: opts.now ?? Date.now,
    exchangeOnlySymbols: config.exchangeOnlySymbols,
  });
  const app = createDexRestApp({ config, logger, service, keys, auth, now: opts.now, placeOrder });
  const http = await listenDexRest(app, 0);
  return {
    url: http.url,
    origin: http.url.replace(/\/v1$/, ""),
    service,
    keys,
    auth,
    db,
    placeOrder,
    config,
    logs,
    async close() {
      await http.close();
      await db.close();
    },
  };
}

export { readRes, type Res };
export * from "./signing";

/** A new wallet, credited by `fund`. */
export function fundedWallet(h: Harness): PrivateKeyAccount {
  const w = newWallet();
  fund(h, w.address);
  return w;
}

/** An approved API key (read + trade unless `body` says otherwise) of a new funded wallet. */
export function fundedKey(h: Harness, body?: Record<string, unknown>): Promise<TestKey> {
  return createKey(h, fundedWallet(h), body);
}

const fileSteps = new WeakMap<Harness, Array<() => unknown>>();

/** A test file's harness, for its top level (suiteResource): started before the file's tests, then the steps
 *  given to `beforeTests` run in order; closed after the tests. */
export function fileHarness(opts: HarnessOptions = {}): Harness {
  const steps: Array<() => unknown> = [];
  const h = suiteResource(
    () => startHarness(opts),
    (started) => started.close(),
    async () => {
      for (const step of steps) await step();
    },
  );
  fileSteps.set(h, steps);
  return h;
}

/** A setup step of a `fileHarness` file, run once its harness has started, before the file's tests. */
export function beforeTests(h: Harness, step: () => unknown): void {
  const steps = fileSteps.get(h);
  if (!steps) throw new Error("beforeTests: not a fileHarness");
  steps.push(step);
}

/** A funded API key on a file's harness (`fundedKey`), made before the file's tests. */
export function fileKey(h: Harness, body?: Record<string, unknown>): TestKey {
  const k = {} as TestKey;
  beforeTests(h, async () => void Object.assign(k, await fundedKey(h, body)));
  return k;
}

/** Runs `fn` on a harness of its own, closed after it whatever happens. */
export async function withHarness(opts: HarnessOptions, fn: (h: Harness) => Promise<void>): Promise<void> {
  const h = await startHarness(opts);
  try {
    await fn(h);
  } finally {
    await h.close();
  }
}

/** A DEX gRPC server over the harness's service, keys, authenticator and order placer, listening on a free
 *  port (silent logger unless `deps` brings one); `address` is its host:port. */
export async function startGrpc(
  h: Harness,
  deps: Partial<GrpcServerDeps> = {},
): Promise<{ grpc: DexGrpcServer; address: string }> {
  const grpc = createGrpcServer({
    config: h.config,
    logger: createApiLogger({ level: "silent" }),
    service: h.service,
    keys: h.keys,
    placeOrder: h.placeOrder,
    auth: h.auth,
    ...deps,
  });
  return { grpc, address: (await grpc.listen(0)).address };
}

/** A DEX WebSocket server (startWs, with `deps` of the started harness) on a file's harness, started before
 *  its tests; the `sockets` the tests open and the server are closed after them. */
export function fileWs(
  h: Harness,
  deps: (h: Harness) => Partial<WsServerDeps> = () => ({}),
  sockets: { close(): void }[] = [],
): { ws: DexWsServer; url: string } {
  const w = {} as { ws: DexWsServer; url: string };
  beforeTests(h, async () => void Object.assign(w, await startWs(h, deps(h))));
  after(async () => {
    for (const s of sockets) s.close();
    await w.ws?.close();
  });
  return w;
}

/** A DEX WebSocket server over the harness's service and authenticator, listening on a free port
 *  (silent logger unless `deps` brings one). */
export async function startWs(h: Harness, deps: Partial<WsServerDeps> = {}): Promise<{ ws: DexWsServer; url: string }> {
  const ws = await createWsServer({
    config: h.config,
    logger: createApiLogger({ level: "silent" }),
    service: h.service,
    auth: h.auth,
    ...deps,
  });
  return { ws, url: (await ws.listen(0)).url };
}

export async function call(
  h: Harness,
  method: string,
  path: string,
  opts: { body?: string | object; headers?: Record<string, string> } = {},
): Promise<Res> {
  const body =
    opts.body === undefined ? undefined : typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body);
  const r = await fetch(h.origin + path, {
    method,
    headers: { ...(body !== undefined ? { "content-type": "application/json" } : {}), ...opts.headers },
    body,
  });
  return readRes(r);
}

/** Asserts an error answer: its status, its code and, when given, details.reason. */
export function assertRefused(r: Res, status: number, code: string, reason?: string): void {
  assert.equal(r.status, status, r.text);
  assert.equal(r.body.error.code, code, r.text);
  if (reason !== undefined) assert.equal(r.body.error.details.reason, reason, r.text);
}

/** Creates a key through the API (wallet-signed) and approves its agent through the API. */
export async function createKey(
  h: Harness,
  owner: PrivateKeyAccount,
  body: Record<string, unknown> = { permissions: ["read", "trade"] },
  approve = true,
): Promise<TestKey> {
  const text = JSON.stringify(body);
  const created = await call(h, "POST", "/v1/api-keys", {
    body: text,
    headers: await walletHeaders(owner, h, "POST", "/v1/api-keys", text),
  });
  if (created.status !== 201) throw new Error(`create key: ${created.status} ${created.text}`);
  const k = created.body;
  if (approve) {
    const approval = await signApprovalBody(owner, k.agent_approval);
    const r = await call(h, "POST", `/v1/api-keys/${k.id}/agent-approval`, { body: approval });
    if (r.status !== 200) throw new Error(`approve: ${r.status} ${r.text}`);
  }
  return { id: k.id, apiKey: k.api_key, secret: k.api_secret, owner };
}

/** The body of POST /v1/api-keys/{id}/agent-approval: the wallet signs the typed data the key's creation
 *  returned, with `message` fields overridden when given (a test of what the server refuses). */
export async function signApprovalBody(
  owner: PrivateKeyAccount,
  td: { domain: any; types: any; message: Record<string, string> },
  override: Partial<Record<"trader" | "agent" | "expiry" | "nonce" | "deadline", string>> = {},
): Promise<{ approval: Record<string, string>; signature: Hex }> {
  const m = { ...td.message, ...override } as Record<string, string>;
  const message = {
    trader: m.trader as Address,
    agent: m.agent as Address,
    expiry: BigInt(m.expiry),
    nonce: BigInt(m.nonce),
    deadline: BigInt(m.deadline),
  };
  const signature = await owner.signTypedData({
    domain: td.domain,
    types: td.types,
    primaryType: "AgentApproval",
    message,
  });
  return { approval: m, signature };
}

/** Credits a wallet with 1,000,000 USD, 1,000 WETH and 1,000 WBTC in the test double. */
export function fund(h: Harness, a: Address): void {
  h.service.credit(a, WETH_USD.quoteToken, 1_000_000n * 10n ** 6n);
  h.service.credit(a, WETH_USD.baseToken, 1000n * 10n ** 18n);
  h.service.credit(a, "0x1000000000000000000000000000000000000003", 1000n * 10n ** 8n); // WBTC
}
