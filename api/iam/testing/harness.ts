// An IAM on a free port over an in-memory PGlite, with a clock the test moves, for the IAM's tests.
import pino from "pino";
import { readRes } from "../../testing/read-res";
import { suiteResource } from "../../testing/suite-resource";
import { createDb, type Db } from "../../../db";
import { freePort } from "../../../runtime/ports";
import { iamConfig, type IamConfig, type IamLimits, type IamTokenLifetimes } from "../config";
import { startIam, type IamHandle } from "../server";

export const TEST_KEY_HEX = "11".repeat(32);
export const TEST_REDIRECT = "http://127.0.0.1:9/callback";

export interface TestClock {
  now(): number;
  advance(ms: number): void;
}

export function testClock(start = Date.now()): TestClock {
  let t = start;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

export interface TestIam {
  iam: IamHandle;
  url: string;
  db: Db;
  clock: TestClock;
  config: IamConfig;
  stop(): Promise<void>;
}

export async function startTestIam(
  o: {
    mode?: "sandbox" | "production";
    limits?: Partial<IamLimits>;
    tokens?: Partial<IamTokenLifetimes>;
    db?: Db;
    clock?: TestClock;
    keyRotationMs?: number;
    trustProxy?: IamConfig["trustProxy"];
  } = {},
): Promise<TestIam> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const db = o.db ?? (await createDb());
  const clock = o.clock ?? testClock();
  const config = iamConfig({
    mode: o.mode ?? "sandbox",
    issuer: url,
    resource: "http://127.0.0.1:3000/v1",
    clients: [
      { clientId: "exchange-web", redirectUris: [TEST_REDIRECT], passwordGrant: true, codeFlow: true },
      { clientId: "code-only", redirectUris: [TEST_REDIRECT], passwordGrant: false, codeFlow: true },
    ],
    // the per-IP limits are tested on their own; other tests make many requests from 127.0.0.1
    limits: { otpRequestsPerIp: 10_000, failedLoginsPerIp: 10_000, ...o.limits },
    tokens: o.tokens,
    ...(o.keyRotationMs !== undefined ? { keyRotationMs: o.keyRotationMs } : {}),
    ...(o.trustProxy !== undefined ? { trustProxy: o.trustProxy } : {}),
  });
  const iam = await startIam({
    config,
    db,
    clock,
    logger: pino({ level: "silent" }),
    encryptionKeyHex: TEST_KEY_HEX,
    host: "127.0.0.1",
    port,
  });
  return {
    iam,
    url,
    db,
    clock,
    config,
    async stop() {
      await iam.close();
      if (!o.db) await db.close();
    },
  };
}

/** POST a form (x-www-form-urlencoded) */
export async function postForm(url: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(fields).toString(),
    redirect: "manual",
  });
  return jsonOrText(res);
}

export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return jsonOrText(res);
}

/** Requests a code for `phone` and reads it from the sandbox outbox. */
export async function requestCode(baseUrl: string, phone: string): Promise<string> {
  const r = await postJson(`${baseUrl}/api/otp`, { phone });
  if (r.status !== 200) throw new Error(`POST /api/otp ${r.status} ${JSON.stringify(r.body)}`);
  return readOutbox(baseUrl, phone, r.body);
}

/** The sandbox phone keys this test process holds, by IAM URL and phone (the first code request's answer). */
const phoneKeys = new Map<string, string>();

/** The key of `phone` this process holds at `baseUrl` (remembered from `otpAnswer` when it carries one). */
export function phoneKeyOf(baseUrl: string, phone: string, otpAnswer?: unknown): string | undefined {
  const given = (otpAnswer as { data?: { sandboxPhoneKey?: string } } | undefined)?.data?.sandboxPhoneKey;
  if (given) phoneKeys.set(`${baseUrl}|${phone}`, given);
  return phoneKeys.get(`${baseUrl}|${phone}`);
}

/** The newest code in `phone`'s sandbox outbox, read with its key (`otpAnswer`: the body of the POST
 *  /api/otp that sent it, whose sandboxPhoneKey is remembered when it is the phone's first). */
export async function readOutbox(baseUrl: string, phone: string, otpAnswer?: unknown): Promise<string> {
  const key = phoneKeyOf(baseUrl, phone, otpAnswer);
  const out = await fetch(`${baseUrl}/api/sandbox/outbox?phone=${encodeURIComponent(phone)}&limit=1`, {
    headers: key ? { "x-sandbox-phone-key": key } : {},
  });
  const body = (await out.json()) as { data: { code: string }[] };
  if (out.status !== 200) throw new Error(`GET /api/sandbox/outbox ${out.status} ${JSON.stringify(body)}`);
  return body.data[0].code;
}

/** The password grant of spec 4.A. */
export function passwordGrant(baseUrl: string, phone: string, code: string, extra: Record<string, string> = {}) {
  return postForm(`${baseUrl}/api/login/oauth/access_token`, {
    grant_type: "password",
    client_id: "exchange-web",
    username: phone,
    password: code,
    scope: "openid profile email phone",
    ...extra,
  });
}

/** The identity provider of a test suite (a `describe`, or the file): started before its tests (the returned
 *  object's fields are filled in then) and stopped after them. */
export function suiteIam(o: Parameters<typeof startTestIam>[0] = {}): TestIam {
  return suiteResource(
    () => startTestIam(o),
    (t) => t.stop(),
  );
}

/** A response as these tests read it: the body parsed as JSON, or its text when it is not JSON. */
async function jsonOrText(res: Response): Promise<{ status: number; headers: Headers; body: any }> {
  const r = await readRes(res);
  return { status: r.status, headers: r.headers, body: r.body === undefined ? r.text : r.body };
}
