// Token verification on an authenticated exchange API call: a real identity provider (api/iam, PGlite in a
// temporary dir) logs a user in (code, outbox, password grant: an ES256 access token), the exchange API
// (api/exchange's app over its real verifiers: discovery + JWKS of that IAM, its own ES256 tenant key)
// serves GET /v1/account under autocannon, and the time each request spends verifying its two tokens
// (identity token against the JWKS, tenant token and their binding) is recorded. Custody here answers a
// fixed balance (no chain: the figure is the verification's, the chain read is not measured).
// Standalone: `npx tsx bench/api/exchange-auth.ts`; bench:api (bench/api/run.ts) prints it too.
// Env: BENCH_SECONDS (10), BENCH_CONNECTIONS (32).
import autocannon from "autocannon";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { createDb } from "../../db";
import { iamConfig } from "../../api/iam/config";
import { startIam } from "../../api/iam/server";
import { passwordGrant, requestCode } from "../../api/iam/testing/harness";
import { createSecretBox } from "../../api/auth/secret-box";
import { listenDexRest } from "../../api/dex/app";
import { createAccountStore } from "../../api/exchange/accounts";
import { createExchangeApp } from "../../api/exchange/app";
import { exchangeApiConfig } from "../../api/exchange/config";
import { createIdentityVerifier, type IdentityVerifier } from "../../api/exchange/identity-tokens";
import { createTenantTokens, type TenantTokens } from "../../api/exchange/tenant-tokens";
import { freePort } from "../../runtime/ports";
import { systemClock } from "../../runtime/clock";
import { runBenchMain, pct } from "./main";

export interface ExchangeAuthFigures {
  seconds: number;
  connections: number;
  requests: number;
  requestsPerSecond: number;
  callP50Ms: number;
  callP99Ms: number;
  verifyP50Ms: number;
  verifyP99Ms: number;
  /** the same two verifications one after the other, in process, no HTTP and no concurrency */
  aloneP50Ms: number;
  aloneP99Ms: number;
  non2xx: number;
}

/** A user logs in as a person would: a one-time code from the outbox, then the password grant. */
async function logIn(issuer: string): Promise<string> {
  const phone = "+15550001234";
  const grant = await passwordGrant(issuer, phone, await requestCode(issuer, phone));
  return (grant.body as { access_token: string }).access_token;
}

/** The two verifiers, each verification timed: identity.verify starts the clock, tenants.verify ends it. */
function timedVerifiers(identity: IdentityVerifier, tenants: TenantTokens) {
  const started = new WeakMap<object, number>();
  const timing = { verifyMs: [] as number[], recording: false };
  const timedIdentity: IdentityVerifier = {
    async verify(token) {
      const t = performance.now();
      const claims = await identity.verify(token);
      started.set(claims, t);
      return claims;
    },
  };
  const timedTenants: TenantTokens = {
    issue: (i) => tenants.issue(i),
    async verify(token, claims) {
      await tenants.verify(token, claims);
      const t = started.get(claims);
      if (timing.recording && t !== undefined) timing.verifyMs.push(performance.now() - t);
    },
  };
  return { timedIdentity, timedTenants, timing };
}

/** Custody answering a fixed balance: the figure is the verification's, the chain read is not measured. */
const fixedCustody = {
  ensureAccount: async () => undefined,
  balances: async () => ({
    address: "0x0000000000000000000000000000000000000001" as const,
    cashUnits: 100_000_000_000n,
    availableCashUnits: 100_000_000_000n,
  }),
};

async function startTimedExchange(issuer: string, apiDb: Awaited<ReturnType<typeof createDb>>) {
  const config = exchangeApiConfig({
    issuers: [issuer],
    audience: "exchange-api",
    rateLimits: { ipPerMinute: 1e9, authenticatedPerMinute: 1e9 },
  });
  const identity = createIdentityVerifier({
    issuers: config.issuers,
    audience: config.audience,
    clockToleranceS: config.clockToleranceS,
    fetchTimeoutMs: config.identityFetchTimeoutMs,
  });
  const tenants = await createTenantTokens({
    db: apiDb,
    box: createSecretBox(randomBytes(32).toString("hex")),
    maxLifetimeS: config.tenantTokenMaxLifetimeS,
    clockToleranceS: config.clockToleranceS,
  });
  const { timedIdentity, timedTenants, timing } = timedVerifiers(identity, tenants);
  const app = createExchangeApp({
    config,
    logger: pino({ level: "silent" }),
    identity: timedIdentity,
    tenants: timedTenants,
    accounts: createAccountStore(apiDb),
    custody: fixedCustody,
    cashDecimals: 6,
  });
  const http = await listenDexRest(app, 0);
  return { http, identity, tenants, timing };
}

async function tenantToken(url: string, accessToken: string): Promise<string> {
  const res = await fetch(`${url}/auth/tenant-token`, {
    method: "POST",
    headers: { authorization: `Bearer ${accessToken}` },
  });
  return ((await res.json()) as { token: string }).token;
}

async function sortedTimes(n: number, fn: () => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b);
}

export async function benchExchangeAuth(
  o: { seconds?: number; connections?: number } = {},
): Promise<ExchangeAuthFigures> {
  const seconds = o.seconds ?? Number(process.env.BENCH_SECONDS ?? 10);
  const connections = o.connections ?? Number(process.env.BENCH_CONNECTIONS ?? 32);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-exchange-auth-"));
  const iamDb = await createDb({ dataDir: path.join(dir, "iam") });
  const apiDb = await createDb({ dataDir: path.join(dir, "api") });
  const iamPort = await freePort();
  const issuer = `http://127.0.0.1:${iamPort}`;
  const iam = await startIam({
    config: iamConfig({ issuer, resource: "http://127.0.0.1:3000/v1" }),
    db: iamDb,
    clock: systemClock,
    logger: pino({ level: "silent" }),
    encryptionKeyHex: randomBytes(32).toString("hex"),
    host: "127.0.0.1",
    port: iamPort,
  });
  let ex: Awaited<ReturnType<typeof startTimedExchange>> | undefined;
  try {
    const accessToken = await logIn(issuer);
    ex = await startTimedExchange(issuer, apiDb);
    const { http, identity, tenants, timing } = ex;
    const tenant = await tenantToken(http.url, accessToken);
    const headers = { authorization: `Bearer ${accessToken}`, "tenant-authorization": tenant };
    const warm = await fetch(`${http.url}/account`, { headers });
    if (warm.status !== 200) throw new Error(`GET /v1/account answered ${warm.status}: ${await warm.text()}`);
    timing.recording = true;
    const result = await new Promise<autocannon.Result>((resolve, reject) =>
      autocannon({ url: `${http.url}/account`, headers, connections, duration: seconds }, (err, res) =>
        err ? reject(err) : resolve(res),
      ),
    );
    timing.recording = false;
    const verifyMs = timing.verifyMs.sort((a, b) => a - b);
    const alone = await sortedTimes(1000, async () => tenants.verify(tenant, await identity.verify(accessToken)));
    return {
      seconds,
      connections,
      requests: result.requests.total,
      requestsPerSecond: result.requests.average,
      callP50Ms: result.latency.p50,
      callP99Ms: result.latency.p99,
      verifyP50Ms: pct(verifyMs, 50),
      verifyP99Ms: pct(verifyMs, 99),
      aloneP50Ms: pct(alone, 50),
      aloneP99Ms: pct(alone, 99),
      non2xx: result.non2xx,
    };
  } finally {
    await ex?.http.close();
    await iam.close();
    await iamDb.close();
    await apiDb.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export function formatExchangeAuthFigures(f: ExchangeAuthFigures): string {
  return [
    `| exchange API, authenticated GET /v1/account (IAM's ES256 access token + tenant token) | load | req/s | p50 ms | p99 ms | non-2xx |`,
    `| --- | --- | ---: | ---: | ---: | ---: |`,
    `| whole call | ${f.connections} conns, ${f.seconds} s | ${Math.round(f.requestsPerSecond)} | ${f.callP50Ms.toFixed(1)} | ${f.callP99Ms.toFixed(1)} | ${f.non2xx} |`,
    `| token verification within it (identity JWT vs JWKS, tenant JWT, binding; queueing included) | ${f.requests} calls | | ${f.verifyP50Ms.toFixed(2)} | ${f.verifyP99Ms.toFixed(2)} | |`,
    `| the same verification alone (in process, one at a time) | 1000 | | ${f.aloneP50Ms.toFixed(2)} | ${f.aloneP99Ms.toFixed(2)} | |`,
  ].join("\n");
}

if (require.main === module) runBenchMain(benchExchangeAuth, formatExchangeAuthFigures, (f) => f.non2xx === 0);
