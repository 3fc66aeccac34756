// The web server passes each browser's address on (X-Forwarded-For), and the services believe it from the
// web server's address only (their trustProxy): two clients behind the web app are two clients to the DEX
// API's API-key IP allowlist and to the identity provider's failed-login limit, and a client that calls
// the APIs directly with a forged X-Forwarded-For is still itself. Loopback aliases stand for the
// machines: the web server forwards from 127.0.0.2, the clients are 127.0.0.3 and 127.0.0.4, a direct
// caller 127.0.0.1.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import WebSocket from "ws";
import { signRequest } from "../api/auth/hmac";
import { createApiLogger } from "../api/logger";
import { createKey, keyHeaders, newWallet, startHarness, type Harness, type TestKey } from "../api/testing/harness";
import { plainRequest } from "../api/testing/host-request";
import { createWsServer, type DexWsServer } from "../api/ws/server";
import { readOutbox, startTestIam, type TestIam } from "../api/iam/testing/harness";
import { startWebServer, type RunningWebServer } from "./server";

const WEB = "127.0.0.2";
const ALICE = "127.0.0.3";
const BOB = "127.0.0.4";

let dex: Harness;
let dexWs: DexWsServer;
let dexWsUrl: string;
let iam: TestIam;
let web: RunningWebServer;
const dist = fs.mkdtempSync(path.join(os.tmpdir(), "web-dist-xff-"));

before(async () => {
  fs.writeFileSync(path.join(dist, "index.html"), "<!doctype html><title>t</title>");
  dex = await startHarness({ config: { trustProxy: [WEB] } });
  dexWs = await createWsServer({
    config: dex.config,
    logger: createApiLogger({ level: "silent" }),
    service: dex.service,
    auth: dex.auth,
  });
  dexWsUrl = (await dexWs.listen(0)).url;
  iam = await startTestIam({ trustProxy: [WEB], limits: { failedLoginsPerIp: 100 } });
  web = await startWebServer({
    host: "127.0.0.1",
    port: 0,
    distDir: dist,
    upstream: {
      dexRest: dex.origin,
      dexWs: dexWsUrl,
      rpc: "http://127.0.0.1:9",
      indexer: () => undefined,
      identity: iam.url,
      localAddress: WEB,
    },
    chainId: 31337,
    mode: "sandbox",
    devWalletKeys: [],
  });
});

after(async () => {
  await web.close();
  await iam.stop();
  await dexWs.close();
  await dex.close();
  fs.rmSync(dist, { recursive: true, force: true });
});

/** One HTTP request from the local address `from`. */
const send = (
  from: string,
  url: string,
  o: { method?: string; headers?: Record<string, string>; body?: string } = {},
) => plainRequest(url, { ...o, localAddress: from });

const form = (fields: Record<string, string>) => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams(fields).toString(),
});
const wrongCode = (phone: string) =>
  form({ grant_type: "password", client_id: "exchange-web", username: phone, password: "000000", scope: "openid" });

test("an API key allowlisted to one client's address works for that client through the web app, not for another, nor for a forger", async () => {
  const owner = newWallet();
  const alices = await createKey(dex, owner, { permissions: ["read"], ip_allowlist: [ALICE] });
  const viaWeb = (from: string, k = alices) => send(from, `${web.url}/v1/balances`, { headers: keyHeaders(k) });
  assert.equal((await viaWeb(ALICE)).status, 200);
  const bob = await viaWeb(BOB);
  assert.equal(bob.status, 403);
  assert.equal(bob.body.error.details.reason, "ip_not_allowed");
  // a browser's own X-Forwarded-For is replaced by the web server, not appended to
  assert.equal(
    (await send(BOB, `${web.url}/v1/balances`, { headers: { ...keyHeaders(alices), "x-forwarded-for": ALICE } }))
      .status,
    403,
  );
  // directly, a forged X-Forwarded-For is not believed: the socket's address is the client's
  assert.equal(
    (await send(BOB, `${dex.origin}/v1/balances`, { headers: { ...keyHeaders(alices), "x-forwarded-for": ALICE } }))
      .status,
    403,
  );
  // a key allowlisted to the web server's address is not everyone's through the web app
  const webs = await createKey(dex, owner, { permissions: ["read"], ip_allowlist: [WEB] });
  assert.equal((await viaWeb(ALICE, webs)).status, 403);
});

test("100 wrong codes from one client behind the web app lock that client out, not another; a direct forger locks only itself", async () => {
  const token = `${web.url}/identity/api/login/oauth/access_token`;
  // each wrong code for another phone (a phone's own lock would answer 429 at its fifth)
  const phoneOf = (who: number, i: number) => `+1415555${who}${String(i).padStart(3, "0")}`;
  for (let i = 0; i < 100; i++)
    assert.equal((await send(ALICE, token, wrongCode(phoneOf(1, i)))).status, 400, `Alice's wrong code ${i + 1}`);
  assert.equal((await send(ALICE, token, wrongCode(phoneOf(1, 100)))).status, 429, "Alice's 101st failure");
  // a direct caller naming Bob's address in X-Forwarded-For spends its own budget, not Bob's
  const direct = `${iam.url}/api/login/oauth/access_token`;
  const forged = (o: ReturnType<typeof form>) => ({ ...o, headers: { ...o.headers, "x-forwarded-for": BOB } });
  for (let i = 0; i < 100; i++)
    assert.equal((await send("127.0.0.1", direct, forged(wrongCode(phoneOf(2, i))))).status, 400);
  assert.equal(
    (await send("127.0.0.1", direct, forged(wrongCode(phoneOf(2, 100))))).status,
    429,
    "the forger's 101st failure",
  );
  // Bob, through the web app, requests a code and logs in
  const phone = "+14155550303";
  const otp = await send(BOB, `${web.url}/identity/api/otp`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ phone }),
  });
  assert.equal(otp.status, 200, JSON.stringify(otp.body));
  const code = await readOutbox(iam.url, phone, otp.body);
  const ok = await send(
    BOB,
    token,
    form({ grant_type: "password", client_id: "exchange-web", username: phone, password: code, scope: "openid" }),
  );
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
});

/** Opens a WebSocket from `from` and answers the first reply to an API-key auth message. */
function wsAuth(
  from: string,
  url: string,
  k: TestKey,
  headers: Record<string, string> = {},
): Promise<{ type: string; error?: { details: { reason: string } } }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { localAddress: from, headers });
    ws.once("error", reject);
    ws.once("open", () => {
      const ts = Date.now();
      ws.send(
        JSON.stringify({
          type: "auth",
          api_key: k.apiKey,
          timestamp: ts,
          signature: signRequest(k.secret, String(ts), "GET", "/ws", ""),
        }),
      );
    });
    ws.on("message", (m) => {
      const msg = JSON.parse(m.toString());
      if (msg.type !== "authenticated" && msg.type !== "error") return;
      ws.close();
      resolve(msg);
    });
  });
}

test("the DEX WebSocket through the web app: the key's allowlist sees each browser's address; a forger directly is itself", async () => {
  const alices = await createKey(dex, newWallet(), { permissions: ["read"], ip_allowlist: [ALICE] });
  const relay = `${web.url.replace("http", "ws")}/ws`;
  assert.equal((await wsAuth(ALICE, relay, alices)).type, "authenticated");
  const bob = await wsAuth(BOB, relay, alices);
  assert.equal(bob.type, "error");
  assert.equal(bob.error!.details.reason, "ip_not_allowed");
  assert.equal((await wsAuth(BOB, relay, alices, { "x-forwarded-for": ALICE })).type, "error");
  assert.equal(
    (await wsAuth(BOB, dexWsUrl, alices, { "x-forwarded-for": ALICE })).error!.details.reason,
    "ip_not_allowed",
  );
});
