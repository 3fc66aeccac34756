// The legacy WebSocket's lifetime and its door: a connection ends when its identity token expires (header
// or message authentication alike), with an error that says why, and no private event reaches it after;
// connections not yet authenticated are capped per client address (5 open, the sixth refused with 429),
// another address and an authenticated connection are not counted, and authenticating frees the slot.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import WebSocket from "ws";
import { startExchangeHarness, type ExchangeHarness } from "../testing/harness";
import { startTestIssuer, type TestIssuer } from "../testing/test-issuer";
import { MAX_UNAUTHENTICATED_PER_ADDRESS } from "./topics";
import { TOKEN_EXPIRED_CLOSE } from "./ws";
import { createExchangeRealtime, type ExchangeRealtime } from "./index";

let issuer: TestIssuer;
let realtime: ExchangeRealtime;
let h: ExchangeHarness;
let wsUrl: string;

before(async () => {
  issuer = await startTestIssuer();
  realtime = createExchangeRealtime({ dex: undefined, coalesceMs: 5, limits: { heartbeatMs: 60_000 } });
  h = await startExchangeHarness({ issuers: [issuer], extensions: [(x) => realtime.extension(x)] });
  wsUrl = `${h.url.replace(/\/v1$/, "").replace("http", "ws")}/ws`;
});

after(async () => {
  await realtime.close();
  await h.close();
  await issuer.close();
});

interface Client {
  ws: WebSocket;
  got: { type: string; data?: Record<string, unknown>; error?: { code: string; details: Record<string, unknown> } }[];
  closed: Promise<{ code: number; reason: string }>;
}

function open(o: { headers?: Record<string, string>; localAddress?: string } = {}): Promise<Client> {
  const ws = new WebSocket(wsUrl, { headers: o.headers, localAddress: o.localAddress });
  const got: Client["got"] = [];
  ws.on("message", (m) => got.push(JSON.parse(m.toString())));
  const closed = new Promise<{ code: number; reason: string }>((r) =>
    ws.on("close", (code, reason) => r({ code, reason: reason.toString() })),
  );
  return new Promise((resolve, reject) => {
    ws.once("open", () => resolve({ ws, got, closed }));
    ws.once("unexpected-response", (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    ws.once("error", reject);
  });
}

const within = <T>(p: Promise<T>, ms: number, what: string) =>
  Promise.race([
    p,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no ${what} within ${ms} ms`)), ms).unref()),
  ]);

async function waitFor(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; !cond(); i++) {
    if (i > 500) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

test("a connection ends when its identity token expires, with a message that says why; nothing private after", async () => {
  const user = { issuer: issuer.issuer, orgId: "org-1", userId: "short-lived" };
  const exp = Math.floor(Date.now() / 1000) + 2;
  const bearer = await issuer.sign({ sub: user.userId, owner: user.orgId, phone: "+15550000001", exp });
  const byHeader = await open({ headers: { authorization: `Bearer ${bearer}` } });
  const byMessage = await open();
  byMessage.ws.send(JSON.stringify({ type: "auth", token: bearer }));
  await waitFor(() => byMessage.got.some((m) => m.type === "authenticated"), "authenticated");
  realtime.publishToUser(user, "order", { orderId: "o-1", status: "PENDING" });
  await waitFor(
    () => byHeader.got.some((m) => m.type === "order") && byMessage.got.some((m) => m.type === "order"),
    "the order event before exp",
  );
  for (const c of [byHeader, byMessage]) {
    const closed = await within(c.closed, exp * 1000 - Date.now() + 1500, "close after the token's exp");
    assert.ok(Date.now() >= exp * 1000 - 50, "not closed before exp");
    assert.deepEqual(closed, { code: TOKEN_EXPIRED_CLOSE.code, reason: TOKEN_EXPIRED_CLOSE.reason });
    const last = c.got[c.got.length - 1];
    assert.equal(last.type, "error");
    assert.equal(last.error!.code, "UNAUTHORIZED");
    assert.equal(last.error!.details.reason, "token_expired");
  }
  realtime.publishToUser(user, "settlement", { orderId: "o-1" });
  await new Promise((r) => setTimeout(r, 100));
  for (const c of [byHeader, byMessage]) assert.equal(c.got.filter((m) => m.type === "settlement").length, 0);
});

test(`at most ${MAX_UNAUTHENTICATED_PER_ADDRESS} unauthenticated connections per address: the next is refused with 429`, async () => {
  const opened: Client[] = [];
  try {
    for (let i = 0; i < MAX_UNAUTHENTICATED_PER_ADDRESS; i++) opened.push(await open());
    await assert.rejects(open(), /HTTP 429/);
    // another address is counted apart; an authenticated upgrade is not counted
    opened.push(await open({ localAddress: "127.0.0.2" }));
    const bearer = await issuer.sign({ sub: "door", owner: "org-1", phone: "+15550000002" });
    opened.push(await open({ headers: { authorization: `Bearer ${bearer}` } }));
    // authenticating one frees its slot: exactly one more opens
    opened[0].ws.send(JSON.stringify({ type: "auth", token: bearer }));
    await waitFor(() => opened[0].got.some((m) => m.type === "authenticated"), "authenticated");
    opened.push(await open());
    await assert.rejects(open(), /HTTP 429/);
    // closing one frees its slot
    opened[1].ws.close();
    await opened[1].closed;
    await new Promise((r) => setTimeout(r, 50));
    opened.push(await open());
    await assert.rejects(open(), /HTTP 429/);
  } finally {
    for (const c of opened) c.ws.terminate();
  }
});
