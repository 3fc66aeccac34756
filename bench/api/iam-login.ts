// Password-grant logins per second against the identity provider (api/iam): a real HTTP server over
// PGlite in a temporary data dir, as `npm start` runs it. Codes for BENCH_IAM_LOGINS distinct phones are
// requested first (POST /api/otp, timed apart), then every login (POST /api/login/oauth/access_token with
// its code: OTP check, user lookup, grant saved, ES256 access token and id_token signed) is sent at
// BENCH_IAM_CONCURRENCY. The per-IP limits are raised (one client address sends everything).
// Standalone: `npx tsx bench/api/iam-login.ts`; bench:api (bench/api/run.ts) prints it too.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { createDb } from "../../db";
import { iamConfig } from "../../api/iam/config";
import { startIam } from "../../api/iam/server";
import { freePort } from "../../runtime/ports";
import { phoneKeyOf, readOutbox } from "../../api/iam/testing/harness";
import { systemClock } from "../../runtime/clock";
import { runBenchMain, pct } from "./main";

export interface IamLoginFigures {
  logins: number;
  concurrency: number;
  loginsPerSecond: number;
  loginP50Ms: number;
  loginP99Ms: number;
  codeRequestsPerSecond: number;
  failures: number;
}

async function pool<T>(items: T[], concurrency: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await fn(items[next++]);
    }),
  );
}

export async function benchIamLogins(o: { logins?: number; concurrency?: number } = {}): Promise<IamLoginFigures> {
  const logins = o.logins ?? Number(process.env.BENCH_IAM_LOGINS ?? 500);
  const concurrency = o.concurrency ?? Number(process.env.BENCH_IAM_CONCURRENCY ?? 16);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-iam-"));
  const db = await createDb({ dataDir: path.join(dir, "pglite") });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const config = iamConfig({
    issuer: url,
    resource: "http://127.0.0.1:3000/v1",
    limits: { otpRequestsPerIp: 1e9, failedLoginsPerIp: 1e9 },
  });
  const iam = await startIam({
    config,
    db,
    clock: systemClock,
    logger: pino({ level: "silent" }),
    encryptionKeyHex: "42".repeat(32),
    host: "127.0.0.1",
    port,
  });
  try {
    const phones = Array.from({ length: logins }, (_, i) => `+1555${String(i).padStart(7, "0")}`);
    const codes = new Map<string, string>();
    const t0 = performance.now();
    await pool(phones, concurrency, async (phone) => {
      const r = await fetch(`${url}/api/otp`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ phone }),
      });
      if (r.status !== 200) throw new Error(`POST /api/otp ${r.status}`);
      phoneKeyOf(url, phone, await r.json());
    });
    const codeRequestsPerSecond = logins / ((performance.now() - t0) / 1000);
    for (const phone of phones) {
      codes.set(phone, await readOutbox(url, phone));
    }
    const latencies: number[] = [];
    let failures = 0;
    const t1 = performance.now();
    await pool(phones, concurrency, async (phone) => {
      const s = performance.now();
      const r = await fetch(`${url}/api/login/oauth/access_token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "password",
          client_id: "exchange-web",
          username: phone,
          password: codes.get(phone)!,
          scope: "openid profile email phone",
        }).toString(),
      });
      await r.arrayBuffer();
      latencies.push(performance.now() - s);
      if (r.status !== 200) failures++;
    });
    const seconds = (performance.now() - t1) / 1000;
    latencies.sort((a, b) => a - b);
    return {
      logins,
      concurrency,
      loginsPerSecond: logins / seconds,
      loginP50Ms: pct(latencies, 50),
      loginP99Ms: pct(latencies, 99),
      codeRequestsPerSecond,
      failures,
    };
  } finally {
    await iam.close();
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export function formatIamLoginFigures(f: IamLoginFigures): string {
  return [
    `| identity provider (api/iam, PGlite on disk) | load | per s | p50 ms | p99 ms | failed |`,
    `| --- | --- | ---: | ---: | ---: | ---: |`,
    `| POST /api/login/oauth/access_token (password grant, new user each) | ${f.logins} logins, ${f.concurrency} conns | ${Math.round(f.loginsPerSecond)} | ${f.loginP50Ms.toFixed(1)} | ${f.loginP99Ms.toFixed(1)} | ${f.failures} |`,
    `| POST /api/otp (code requests) | ${f.logins}, ${f.concurrency} conns | ${Math.round(f.codeRequestsPerSecond)} | | | |`,
  ].join("\n");
}

if (require.main === module) runBenchMain(benchIamLogins, formatIamLoginFigures, (f) => f.failures === 0);
