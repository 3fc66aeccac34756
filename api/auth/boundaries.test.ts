// Every limit of API authentication at its exact boundary (issue #11, "tests that hold every limit"):
// time windows at their end and one millisecond past it, signatures differing in one character, the replay
// cache across its rotations, malformed and unparseable client addresses, CIDR edges, key sizes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import type { Request } from "express";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { ApiError } from "../errors";
import type { ApiKeyRecord, ApiKeyStore } from "./api-keys";
import { authorize, createAuthenticator, header, rawBodyOf, walletSigningText, type AuthContext } from "./authenticate";
import { constantTimeEqual, signRequest } from "./hmac";
import { ipAllowed, normalizeIp, parseAllowEntry } from "./ip-allowlist";
import { ReplayCache } from "./replay-cache";
import { createSecretBox } from "./secret-box";
import { SECP256K1_N } from "../../sdk/signature";

const WINDOW = 5_000;
const SECRET = "ab".repeat(32);
const API_KEY = "0123456789abcdef0123456789abcdef";
const OWNER = "0x90F79bf6EB2c4f870365E785982E1f101E93b906" as const;
const wallet = privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");
const other = privateKeyToAccount("0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a");

const record = (over: Partial<ApiKeyRecord> = {}): ApiKeyRecord => ({
  id: "11111111-1111-1111-1111-111111111111",
  apiKey: API_KEY,
  owner: OWNER,
  label: "k",
  permissions: ["read", "trade"],
  ipAllowlist: [],
  positionLimitE18: null,
  dailyLossLimitE18: null,
  agentAddress: "0x0000000000000000000000000000000000000001",
  agentStatus: "approved",
  createdAtMs: 0,
  revokedAtMs: null,
  ...over,
});

function keyStore(): ApiKeyStore {
  const none = async () => {
    throw new Error("not used");
  };
  return {
    findByApiKey: async (k: string) => (k === API_KEY ? { record: record(), secret: SECRET } : null),
    create: none,
    getById: none,
    listByOwner: none,
    agentOf: none,
    markAgentApproved: none,
    revoke: none,
  } as unknown as ApiKeyStore;
}

/** An authenticator whose clock the test sets. */
function setup(walletHosts?: string[]) {
  let t = Date.now();
  const auth = createAuthenticator({
    keys: keyStore(),
    hmacWindowMs: WINDOW,
    walletWindowMs: WINDOW,
    walletHosts,
    now: () => t,
  });
  return { auth, at: (ms: number) => (t = ms), now: () => t };
}

/** setup() with its clock at this moment, `t`. */
function setupNow(walletHosts?: string[]) {
  const s = setup(walletHosts);
  const t = Date.now();
  s.at(t);
  return { ...s, t };
}

function req(
  headers: Record<string, string | string[]>,
  over: { method?: string; url?: string; body?: Buffer | unknown } = {},
): Request {
  const lower: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(headers)) lower[k.toLowerCase()] = v;
  return {
    headers: lower,
    method: over.method ?? "POST",
    originalUrl: over.url ?? "/v1/orders",
    body: "body" in over ? over.body : Buffer.from("{}"),
  } as unknown as Request;
}

async function refusal(
  p: Promise<unknown>,
): Promise<{ code: string; reason: unknown; details: Record<string, unknown>; message: string }> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof ApiError, `expected an ApiError, got ${String(e)}`);
    return { code: e.code, reason: e.details.reason, details: e.details, message: e.message };
  }
  assert.fail("expected a refusal");
}

const hmacHeaders = (ts: string, sig: string) => ({ "x-api-key": API_KEY, "x-timestamp": ts, "x-signature": sig });
const hmacReq = (tsMs: number | string, over: { sig?: string; body?: string } = {}) => {
  const ts = String(tsMs);
  const body = over.body ?? "{}";
  return req(hmacHeaders(ts, over.sig ?? signRequest(SECRET, ts, "POST", "/v1/orders", body)), {
    body: Buffer.from(body),
  });
};
const flip = (hex: string, i: number) => hex.slice(0, i) + (hex[i] === "0" ? "1" : "0") + hex.slice(i + 1);

// ---- HMAC scheme -------------------------------------------------------------------------------------

test("hmac: timestamp window, at its end and one millisecond past it, in both directions", async () => {
  const { auth, at } = setup();
  const t = 1_700_000_000_000;
  at(t);
  for (const ts of [t - WINDOW, t + WINDOW, t])
    assert.equal((await auth.authenticate(hmacReq(ts), { hmac: true })).scheme, "hmac");
  for (const ts of [t - WINDOW - 1, t + WINDOW + 1]) {
    const r = await refusal(auth.authenticate(hmacReq(ts), { hmac: true }));
    assert.equal(r.code, "UNAUTHORIZED");
    assert.equal(r.reason, "timestamp_outside_window");
    assert.equal(r.details.window_ms, WINDOW);
    assert.equal(r.details.server_time, t);
  }
});

test("hmac: the timestamp is 1 to 15 decimal digits, nothing else", async () => {
  const { auth, at } = setup();
  at(999_999_999_999_999);
  assert.equal((await auth.authenticate(hmacReq("999999999999999"), { hmac: true })).scheme, "hmac"); // 15 digits
  for (const ts of ["1000000000000000", "", "12a", "-1", " 1", "1.5", "0x10"]) {
    const r = await refusal(
      auth.authenticate(req(hmacHeaders(ts, signRequest(SECRET, ts, "POST", "/v1/orders", "{}"))), { hmac: true }),
    );
    assert.equal(r.reason, "invalid_timestamp", `timestamp ${JSON.stringify(ts)}`);
  }
  at(1);
  assert.equal((await auth.authenticate(hmacReq("1"), { hmac: true })).scheme, "hmac"); // 1 digit
  const missing = await refusal(
    auth.verifyHmac({
      apiKey: API_KEY,
      timestamp: undefined,
      signature: "0".repeat(64),
      method: "GET",
      path: "/",
      body: new Uint8Array(),
    }),
  );
  assert.equal(missing.reason, "invalid_timestamp");
});

test("hmac: the signature is exactly 64 lower-case hex characters and compared in full", async () => {
  const { auth, t } = setupNow();
  const good = signRequest(SECRET, String(t), "POST", "/v1/orders", "{}");
  for (const bad of [good.slice(0, 63), `${good}0`, good.toUpperCase(), `g${good.slice(1)}`]) {
    const r = await refusal(auth.authenticate(hmacReq(t, { sig: bad }), { hmac: true }));
    assert.equal(r.reason, "invalid_signature");
  }
  for (const i of [0, 31, 63]) {
    const r = await refusal(auth.authenticate(hmacReq(t, { sig: flip(good, i) }), { hmac: true }));
    assert.equal(r.reason, "invalid_signature", `differs at ${i}`);
  }
  assert.equal((await auth.authenticate(hmacReq(t, { sig: good }), { hmac: true })).account, OWNER);
});

test("hmac: unknown key, missing parts, and one use per signature", async () => {
  const { auth, t } = setupNow();
  const sig = signRequest(SECRET, String(t), "POST", "/v1/orders", "{}");
  const unknown = await refusal(
    auth.authenticate(req({ ...hmacHeaders(String(t), sig), "x-api-key": "f".repeat(32) }), { hmac: true }),
  );
  assert.equal(unknown.reason, "invalid_api_key");
  const noKey = await refusal(
    auth.verifyHmac({
      apiKey: "",
      timestamp: String(t),
      signature: sig,
      method: "POST",
      path: "/v1/orders",
      body: Buffer.from("{}"),
    }),
  );
  assert.equal(noKey.reason, "missing_credentials");
  const noSig = await refusal(
    auth.verifyHmac({
      apiKey: API_KEY,
      timestamp: String(t),
      signature: undefined,
      method: "POST",
      path: "/v1/orders",
      body: Buffer.from("{}"),
    }),
  );
  assert.equal(noSig.reason, "missing_credentials");
  const ctx = await auth.authenticate(hmacReq(t), { hmac: true });
  assert.deepEqual([ctx.scheme, ctx.account, ctx.key?.id], ["hmac", OWNER, record().id]);
  const again = await refusal(auth.authenticate(hmacReq(t), { hmac: true }));
  assert.equal(again.reason, "signature_replayed");
  // another body is another signature: accepted
  assert.equal((await auth.authenticate(hmacReq(t, { body: '{"a":1}' }), { hmac: true })).scheme, "hmac");
});

test("hmac: the signed text is timestamp + upper-case method + path + body bytes", () => {
  const expected = createHmac("sha256", SECRET).update("123GET/v1/x?y=1{}").digest("hex");
  assert.equal(signRequest(SECRET, "123", "get", "/v1/x?y=1", "{}"), expected);
  assert.equal(signRequest(SECRET, "123", "GET", "/v1/x?y=1", Buffer.from("{}")), expected);
  assert.notEqual(signRequest(SECRET, "123", "GET", "/v1/x?y=1", ""), expected);
});

test("constantTimeEqual: equal only when every character and the length agree", () => {
  assert.equal(constantTimeEqual("abc", "abc"), true);
  assert.equal(constantTimeEqual("", ""), true);
  assert.equal(constantTimeEqual("abc", "abd"), false);
  assert.equal(constantTimeEqual("abc", "abcd"), false);
  assert.equal(constantTimeEqual("abc", "ab"), false);
});

// ---- secret scheme and scheme selection ---------------------------------------------------------------

test("secret scheme: the secret compared in full; unknown key; missing secret", async () => {
  const { auth } = setup();
  const ok = await auth.authenticate(req({ "x-api-key": API_KEY, "x-api-secret": SECRET }), { apiKey: true });
  assert.deepEqual([ok.scheme, ok.account], ["api_key", OWNER]);
  for (const bad of [flip(SECRET, 63), flip(SECRET, 0), SECRET.slice(0, 63), `${SECRET}a`]) {
    const r = await refusal(auth.authenticate(req({ "x-api-key": API_KEY, "x-api-secret": bad }), { apiKey: true }));
    assert.equal(r.reason, "invalid_secret");
  }
  const unknown = await refusal(
    auth.authenticate(req({ "x-api-key": "f".repeat(32), "x-api-secret": SECRET }), { apiKey: true }),
  );
  assert.equal(unknown.reason, "invalid_api_key");
  const missing = await refusal(auth.authenticate(req({ "x-api-key": API_KEY }), { apiKey: true }));
  assert.equal(missing.reason, "missing_credentials");
  const empty = await refusal(auth.authenticate(req({ "x-api-key": API_KEY, "x-api-secret": "" }), { apiKey: true }));
  assert.equal(empty.reason, "missing_credentials");
});

test("scheme selection: ambiguous credentials, schemes not accepted, nothing sent", async () => {
  const { auth } = setup();
  const t = String(Date.now());
  const both = await refusal(
    auth.authenticate(req({ ...hmacHeaders(t, "0".repeat(64)), "x-api-secret": SECRET }), { apiKey: true, hmac: true }),
  );
  assert.equal(both.reason, "ambiguous_credentials");
  const hmacOff = await refusal(auth.authenticate(hmacReq(t), { apiKey: true }));
  assert.equal(hmacOff.reason, "scheme_not_accepted");
  const secretOff = await refusal(
    auth.authenticate(req({ "x-api-key": API_KEY, "x-api-secret": SECRET }), { hmac: true }),
  );
  assert.equal(secretOff.reason, "scheme_not_accepted");
  const walletOff = await refusal(
    auth.authenticate(req({ "x-wallet-address": wallet.address }), { apiKey: true, hmac: true }),
  );
  assert.equal(walletOff.reason, "missing_credentials");
  const nothing = await refusal(auth.authenticate(req({}), { apiKey: true, hmac: true, wallet: true }));
  assert.deepEqual([nothing.code, nothing.reason], ["UNAUTHORIZED", "missing_credentials"]);
});

test("header() takes the first of repeated headers; rawBodyOf() only a Buffer", () => {
  assert.equal(header(req({ "X-Api-Key": ["a", "b"] }), "x-api-key"), "a");
  assert.equal(header(req({}), "x-api-key"), undefined);
  assert.deepEqual(rawBodyOf(req({}, { body: Buffer.from("xy") })), Buffer.from("xy"));
  assert.equal(rawBodyOf(req({}, { body: { parsed: true } })).length, 0);
});

// ---- wallet scheme ------------------------------------------------------------------------------------

const HOST = "api.example.com";
async function walletReq(o: {
  ts: number | string;
  host?: string;
  signedHost?: string;
  url?: string;
  body?: string;
  signer?: typeof wallet;
  address?: string;
  sig?: (s: Hex) => string;
}) {
  const ts = String(o.ts);
  const body = o.body ?? "{}";
  const url = o.url ?? "/v1/api-keys";
  const signer = o.signer ?? wallet;
  const sig: Hex = await signer.signMessage({
    message: { raw: walletSigningText(ts, "POST", o.signedHost ?? o.host ?? HOST, url, body) },
  });
  return req(
    {
      host: o.host ?? HOST,
      "x-wallet-address": o.address ?? wallet.address,
      "x-wallet-timestamp": ts,
      "x-wallet-signature": o.sig ? o.sig(sig) : sig,
    },
    { url, body: Buffer.from(body) },
  );
}
/** `auth` on a wallet-signed request (walletReq) that accepts the wallet scheme. */
const walletAuth = async (auth: ReturnType<typeof createAuthenticator>, o: Parameters<typeof walletReq>[0]) =>
  auth.authenticate(await walletReq(o), { wallet: true });
const mirror = (sig: Hex): string => {
  const s = BigInt(`0x${sig.slice(66, 130)}`);
  const v = parseInt(sig.slice(130), 16);
  return sig.slice(0, 66) + (SECP256K1_N - s).toString(16).padStart(64, "0") + (v === 27 ? "1c" : "1b");
};

test("wallet: timestamp window, at its end and one millisecond past it", async () => {
  const { auth, at } = setup();
  const t = 1_700_000_000_000;
  at(t);
  for (const ts of [t - WINDOW, t + WINDOW]) {
    const ctx = await walletAuth(auth, { ts });
    assert.deepEqual([ctx.scheme, ctx.account, ctx.key], ["wallet", wallet.address, null]);
  }
  for (const ts of [t - WINDOW - 1, t + WINDOW + 1]) {
    assert.equal((await refusal(walletAuth(auth, { ts }))).reason, "timestamp_outside_window");
  }
  assert.equal((await refusal(walletAuth(auth, { ts: "1e12" }))).reason, "invalid_timestamp");
});

test("wallet: address of exactly 40 hex digits, signature of exactly 65 bytes", async () => {
  const { auth, t } = setupNow();
  for (const address of [
    wallet.address.slice(0, 41),
    `${wallet.address}0`,
    wallet.address.slice(2),
    `0x${"g".repeat(40)}`,
  ]) {
    assert.equal((await refusal(walletAuth(auth, { ts: t, address }))).reason, "missing_credentials");
  }
  for (const sig of [(s: Hex) => s.slice(0, 131), (s: Hex) => `${s}0`, (s: Hex) => `${s.slice(0, 131)}z`, () => ""]) {
    assert.equal((await refusal(walletAuth(auth, { ts: t, sig }))).reason, "missing_credentials");
  }
  // lower-case address accepted, the account comes back checksummed
  assert.equal((await walletAuth(auth, { ts: t, address: wallet.address.toLowerCase() })).account, wallet.address);
});

test("wallet: the Host is signed over and must be one of the accepted hosts", async () => {
  const { auth, t } = setupNow([HOST, "127.0.0.1:3001"]);
  assert.equal((await walletAuth(auth, { ts: t, host: "API.Example.COM", signedHost: HOST })).scheme, "wallet");
  assert.equal((await walletAuth(auth, { ts: t, host: "127.0.0.1:3001" })).scheme, "wallet");
  const elsewhere = await refusal(walletAuth(auth, { ts: t, host: "127.0.0.1:3002" }));
  assert.deepEqual([elsewhere.reason, elsewhere.details.host], ["host_not_accepted", "127.0.0.1:3002"]);
  const noHost = await refusal(walletAuth(auth, { ts: t, host: "" }));
  assert.equal(noHost.reason, "host_not_accepted");
  // signed for another venue, sent here: the signature does not match this host
  const { auth: open } = setup();
  const moved = await refusal(walletAuth(open, { ts: t, host: HOST, signedHost: "evil.example.com" }));
  assert.equal(moved.reason, "invalid_signature");
});

test("wallet: v must be 27/28 and s low; a mirror-image or re-encoded signature is the same request", async () => {
  const { auth, t } = setupNow();
  const high = await refusal(walletAuth(auth, { ts: t, sig: mirror }));
  assert.deepEqual([high.reason, high.details.problem], ["invalid_signature", "s_high"]);
  const v01 = await refusal(
    walletAuth(auth, { ts: t, sig: (s) => s.slice(0, 130) + (s.endsWith("1b") ? "00" : "01") }),
  );
  assert.deepEqual([v01.reason, v01.details.problem], ["invalid_signature", "v"]);
  const first = await walletReq({ ts: t });
  assert.equal((await auth.authenticate(first, { wallet: true })).scheme, "wallet");
  const sameAgain = await refusal(auth.authenticate(first, { wallet: true }));
  assert.equal(sameAgain.reason, "signature_replayed");
  // the same signature in upper-case hex is the same (signer, digest): still a replay
  const upper = await refusal(walletAuth(auth, { ts: t, sig: (s) => `0x${s.slice(2).toUpperCase()}` }));
  assert.equal(upper.reason, "signature_replayed");
});

test("wallet: a signature from another key, or over another path or body, is refused", async () => {
  const { auth, t } = setupNow();
  const wrongSigner = await refusal(walletAuth(auth, { ts: t, signer: other }));
  assert.equal(wrongSigner.reason, "invalid_signature");
  const good = await walletReq({ ts: t, url: "/v1/api-keys?x=1" });
  const tampered = { ...good, originalUrl: "/v1/api-keys?x=2" } as unknown as Request;
  assert.equal((await refusal(auth.authenticate(tampered, { wallet: true }))).reason, "invalid_signature");
  const otherBody = { ...good, body: Buffer.from('{"a":2}') } as unknown as Request;
  assert.equal((await refusal(auth.authenticate(otherBody, { wallet: true }))).reason, "invalid_signature");
  // r = 0 does not recover
  const rZero = await refusal(walletAuth(auth, { ts: t, sig: (s) => `0x${"0".repeat(64)}${s.slice(66)}` }));
  assert.equal(rZero.reason, "invalid_signature");
});

test("walletSigningText: timestamp + upper-case method + host + path, then the body bytes", () => {
  assert.deepEqual(walletSigningText("1", "post", "h:1", "/v1/p", "{}"), Buffer.from("1POSTh:1/v1/p{}"));
  assert.deepEqual(
    walletSigningText("1", "GET", "h", "/p", new Uint8Array([0xff])),
    Buffer.concat([Buffer.from("1GETh/p"), Buffer.from([0xff])]),
  );
});

// ---- replay cache -------------------------------------------------------------------------------------

test("replay cache: an id is refused for at least two windows after its first use, across rotations", () => {
  const w = 1000;
  const t0 = 1_000_000;
  // rotation is due at t0 + 2w: one millisecond before, nothing rotates
  const c = new ReplayCache(w, { now: () => t0 });
  assert.equal(c.firstUse("a", t0), true);
  assert.equal(c.firstUse("a", t0), false);
  assert.equal(c.firstUse("b", t0 + 2 * w - 1), true);
  assert.equal(c.firstUse("c", t0 + 2 * w), true); // rotates: {a, b} become the previous generation
  assert.equal(c.firstUse("a", t0 + 2 * w), false);
  assert.equal(c.firstUse("b", t0 + 4 * w - 1), false); // b is 2w + 1 old: still remembered
  assert.equal(c.firstUse("c", t0 + 4 * w - 1), false);
  assert.equal(c.firstUse("d", t0 + 4 * w), true); // rotates again: {a, b} are forgotten, {c} is previous
  assert.equal(c.firstUse("a", t0 + 4 * w), true);
  assert.equal(c.firstUse("b", t0 + 4 * w), true);
  assert.equal(c.firstUse("c", t0 + 4 * w), false);
});

test("replay cache: after a silence of four windows both generations are dropped, one millisecond less keeps the last", () => {
  const w = 1000;
  const t0 = 5_000_000;
  const keep = new ReplayCache(w, { now: () => t0 });
  keep.firstUse("a", t0);
  assert.equal(keep.firstUse("a", t0 + 4 * w - 1), false);
  const drop = new ReplayCache(w, { now: () => t0 });
  drop.firstUse("a", t0);
  assert.equal(drop.firstUse("a", t0 + 4 * w), true);
  // the clock's default is the real one
  const real = new ReplayCache(60_000);
  assert.equal(real.firstUse("x"), true);
  assert.equal(real.firstUse("x"), false);
});

// ---- authorization and IP allowlists -----------------------------------------------------------------

const keyCtx = (over: Partial<ApiKeyRecord>): AuthContext => ({ scheme: "hmac", account: OWNER, key: record(over) });
const forbidden = (f: () => void): string | undefined => {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof ApiError);
    assert.equal(e.code, "FORBIDDEN");
    return e.details.reason as string;
  }
  return undefined;
};

test("authorize: the permission must be held; none needed with null; a wallet holds every right", () => {
  assert.equal(
    forbidden(() => authorize(keyCtx({ permissions: ["read"] }), "trade", "1.2.3.4")),
    "missing_permission",
  );
  assert.equal(
    forbidden(() => authorize(keyCtx({ permissions: ["read", "trade"] }), "trade", "1.2.3.4")),
    undefined,
  );
  assert.equal(
    forbidden(() => authorize(keyCtx({ permissions: [] }), null, "1.2.3.4")),
    undefined,
  );
  assert.equal(
    forbidden(() => authorize({ scheme: "wallet", account: OWNER, key: null }, "transfer", "bogus")),
    undefined,
  );
});

test("authorize: the IP allowlist applies to every request with the key, including null-permission ones", () => {
  const ctx = keyCtx({ ipAllowlist: ["10.0.0.0/24"] });
  assert.equal(
    forbidden(() => authorize(ctx, null, "10.0.0.255")),
    undefined,
  );
  assert.equal(
    forbidden(() => authorize(ctx, null, "10.0.1.0")),
    "ip_not_allowed",
  );
  assert.equal(
    forbidden(() => authorize(ctx, "read", "::ffff:10.0.0.7")),
    undefined,
  );
  assert.equal(
    forbidden(() => authorize(ctx, "read", undefined)),
    "ip_not_allowed",
  );
  assert.equal(
    forbidden(() => authorize(ctx, "read", "not-an-ip")),
    "ip_not_allowed",
  );
});

test("parseAllowEntry: prefixes 0..32 (IPv4) and 0..128 (IPv6), one below and one above", () => {
  assert.deepEqual(parseAllowEntry("1.2.3.4"), { address: "1.2.3.4", prefix: 32, family: "ipv4" });
  assert.deepEqual(parseAllowEntry(" 10.0.0.0/8 "), { address: "10.0.0.0", prefix: 8, family: "ipv4" });
  assert.deepEqual(parseAllowEntry("0.0.0.0/0"), { address: "0.0.0.0", prefix: 0, family: "ipv4" });
  assert.deepEqual(parseAllowEntry("1.2.3.4/32"), { address: "1.2.3.4", prefix: 32, family: "ipv4" });
  assert.equal(parseAllowEntry("1.2.3.4/33"), null);
  assert.deepEqual(parseAllowEntry("2001:db8::/128"), { address: "2001:db8::", prefix: 128, family: "ipv6" });
  assert.deepEqual(parseAllowEntry("2001:db8::"), { address: "2001:db8::", prefix: 128, family: "ipv6" });
  assert.equal(parseAllowEntry("2001:db8::/129"), null);
  assert.deepEqual(parseAllowEntry("::/0"), { address: "::", prefix: 0, family: "ipv6" });
  for (const bad of [
    "1.2.3.4/-1",
    "1.2.3.4/",
    "1.2.3.4/1a",
    "1.2.3.4/0032",
    "1.2.3.4/8/8",
    "1.2.3",
    "host.example",
    "",
    "/8",
  ]) {
    assert.equal(parseAllowEntry(bad), null, JSON.stringify(bad));
  }
  assert.deepEqual(parseAllowEntry("1.2.3.4/032"), { address: "1.2.3.4", prefix: 32, family: "ipv4" });
});

test("normalizeIp: only an embedded IPv4 loses its ::ffff: prefix", () => {
  assert.equal(normalizeIp("::ffff:1.2.3.4"), "1.2.3.4");
  assert.equal(normalizeIp("::ffff:abcd"), "::ffff:abcd");
  assert.equal(normalizeIp("::1"), "::1");
  assert.equal(normalizeIp(undefined), "");
  assert.equal(normalizeIp(""), "");
});

test("ipAllowed: empty list allows all; CIDR edges; malformed entries and client addresses", () => {
  assert.equal(ipAllowed([], undefined), true);
  assert.equal(ipAllowed([], "garbage"), true);
  const list = ["192.168.1.0/24", "2001:db8::/32", "not an entry", "203.0.113.9"];
  assert.equal(ipAllowed(list, "192.168.1.0"), true);
  assert.equal(ipAllowed(list, "192.168.1.255"), true);
  assert.equal(ipAllowed(list, "192.168.0.255"), false);
  assert.equal(ipAllowed(list, "192.168.2.0"), false);
  assert.equal(ipAllowed(list, "203.0.113.9"), true);
  assert.equal(ipAllowed(list, "203.0.113.10"), false);
  assert.equal(ipAllowed(list, "::ffff:203.0.113.9"), true);
  assert.equal(ipAllowed(list, "2001:db8:ffff::1"), true);
  assert.equal(ipAllowed(list, "2001:db9::1"), false);
  assert.equal(ipAllowed(list, undefined), false);
  assert.equal(ipAllowed(list, "unparseable"), false);
  assert.equal(ipAllowed(["not an entry"], "1.2.3.4"), false);
});

// ---- secrets at rest ----------------------------------------------------------------------------------

test("secret box: a key of exactly 32 bytes of hex; round trip; wrong row, tampering and format refused", () => {
  const key = "0f".repeat(32);
  for (const bad of [key.slice(0, 63), `${key}0`, "zz".repeat(32), ""])
    assert.throws(() => createSecretBox(bad), /32 bytes of hex/);
  assert.doesNotThrow(() => createSecretBox(key.toUpperCase()));
  const box = createSecretBox(key);
  const sealed = box.seal("secret text", "row-1");
  assert.match(sealed, /^v1:/);
  assert.notEqual(box.seal("secret text", "row-1"), sealed); // a fresh IV each time
  assert.equal(box.open(sealed, "row-1"), "secret text");
  assert.equal(box.open(box.seal("", "r"), "r"), "");
  assert.throws(() => box.open(sealed, "row-2"));
  assert.throws(() => createSecretBox("1f".repeat(32)).open(sealed, "row-1"));
  const raw = Buffer.from(sealed.slice(3), "base64");
  raw[raw.length - 1] ^= 1;
  assert.throws(() => box.open(`v1:${raw.toString("base64")}`, "row-1"));
  assert.throws(() => box.open(sealed.replace(/^v1:/, "v2:"), "row-1"), /unknown ciphertext format/);
  assert.throws(() => box.open("v1:", "row-1"), /unknown ciphertext format/);
  assert.throws(() => box.open("v1", "row-1"), /unknown ciphertext format/);
});

// ---- what a refused client reads --------------------------------------------------------------------

test("every refusal names its reason and says what to fix", async () => {
  const { auth, t } = setupNow([HOST]);
  const ts = String(t);
  const sig = signRequest(SECRET, ts, "POST", "/v1/orders", "{}");
  const cases: [Request, object, string, string][] = [
    [
      req({ "x-api-key": API_KEY, "x-timestamp": "x", "x-signature": sig }),
      { hmac: true },
      "invalid_timestamp",
      "timestamp must be Unix milliseconds",
    ],
    [
      hmacReq(t - WINDOW - 1),
      { hmac: true },
      "timestamp_outside_window",
      `timestamp is more than ${WINDOW} ms away from server time`,
    ],
    [
      req({ "x-api-key": API_KEY, "x-timestamp": ts, "x-signature": "" }),
      { hmac: true },
      "missing_credentials",
      "X-API-KEY, X-TIMESTAMP and X-SIGNATURE are required",
    ],
    // 65 characters ending in a valid one: refused for its form, not compared
    [
      req(hmacHeaders(ts, `a${sig}`)),
      { hmac: true },
      "invalid_signature",
      "X-SIGNATURE must be 64 lower-case hex characters",
    ],
    [
      req(hmacHeaders(ts, `${sig}a`)),
      { hmac: true },
      "invalid_signature",
      "X-SIGNATURE must be 64 lower-case hex characters",
    ],
    [
      req({ ...hmacHeaders(ts, sig), "x-api-key": "f".repeat(32) }),
      { hmac: true },
      "invalid_api_key",
      "unknown or revoked API key",
    ],
    [req(hmacHeaders(ts, flip(sig, 5))), { hmac: true }, "invalid_signature", "signature does not match"],
    [req({ "x-api-key": API_KEY }), { apiKey: true }, "missing_credentials", "X-API-Key and X-API-Secret are required"],
    [
      req({ "x-api-key": "f".repeat(32), "x-api-secret": SECRET }),
      { apiKey: true },
      "invalid_api_key",
      "unknown or revoked API key",
    ],
    [
      req({ "x-api-key": API_KEY, "x-api-secret": flip(SECRET, 1) }),
      { apiKey: true },
      "invalid_secret",
      "API secret does not match",
    ],
    [
      req({ ...hmacHeaders(ts, sig), "x-api-secret": SECRET }),
      { hmac: true, apiKey: true },
      "ambiguous_credentials",
      "send X-API-Secret or X-SIGNATURE, not both",
    ],
    [req(hmacHeaders(ts, sig)), { apiKey: true }, "scheme_not_accepted", "the signed scheme is not accepted here"],
    [
      req({ "x-api-key": API_KEY, "x-api-secret": SECRET }),
      { hmac: true },
      "scheme_not_accepted",
      "this endpoint needs the signed scheme (X-API-KEY, X-TIMESTAMP, X-SIGNATURE)",
    ],
    [req({}), { wallet: true }, "missing_credentials", "authentication required"],
    [
      await walletReq({ ts: t, address: `a${wallet.address}` }),
      { wallet: true },
      "missing_credentials",
      "X-Wallet-Address, X-Wallet-Timestamp and X-Wallet-Signature (65 bytes hex) are required",
    ],
    [
      await walletReq({ ts: t, sig: (s) => `0a${s}` }),
      { wallet: true },
      "missing_credentials",
      "X-Wallet-Address, X-Wallet-Timestamp and X-Wallet-Signature (65 bytes hex) are required",
    ],
    [
      await walletReq({ ts: t, host: "other.example.com" }),
      { wallet: true },
      "host_not_accepted",
      "the Host this request was signed for is not served here",
    ],
    [
      await walletReq({ ts: t, sig: mirror }),
      { wallet: true },
      "invalid_signature",
      "wallet signature must be 65 bytes with v 27 or 28 and a low s",
    ],
    [
      await walletReq({ ts: t, signer: other }),
      { wallet: true },
      "invalid_signature",
      "wallet signature is not from X-Wallet-Address",
    ],
  ];
  for (const [r, accept, reason, message] of cases) {
    const got = await refusal(auth.authenticate(r, accept));
    assert.deepEqual([got.code, got.reason, got.message], ["UNAUTHORIZED", reason, message]);
  }
  const once = await walletReq({ ts: t + 1 });
  await auth.authenticate(once, { wallet: true });
  const replay = await refusal(auth.authenticate(once, { wallet: true }));
  assert.deepEqual([replay.reason, replay.message], ["signature_replayed", "this signature was already used"]);
  const h = hmacReq(t + 2);
  await auth.authenticate(h, { hmac: true });
  assert.equal((await refusal(auth.authenticate(h, { hmac: true }))).message, "this signature was already used");
  const denied = (f: () => void) => {
    try {
      f();
    } catch (e) {
      return (e as ApiError).message;
    }
    return "";
  };
  assert.equal(
    denied(() => authorize(keyCtx({ permissions: ["read"] }), "trade", "1.2.3.4")),
    "this API key lacks the trade permission",
  );
  assert.equal(
    denied(() => authorize(keyCtx({ ipAllowlist: ["10.0.0.1"] }), null, "10.0.0.2")),
    "request from an address outside the key's IP allowlist",
  );
});

test("wallet: a checksummed signer and an upper-case address header are the same account", async () => {
  const { auth, t } = setupNow();
  const ctx = await auth.authenticate(
    await walletReq({ ts: t, address: `0x${wallet.address.slice(2).toUpperCase()}` }),
    { wallet: true },
  );
  assert.equal(ctx.account, wallet.address);
  // the replay key is the lower-case signer: the same request with the address in another case is a replay
  const again = await refusal(walletAuth(auth, { ts: t, address: wallet.address.toLowerCase() }));
  assert.equal(again.reason, "signature_replayed");
});
