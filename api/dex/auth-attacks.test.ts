// Issue #11 (DEX API): each attack through the public REST interface, refused, and the exact edge of each
// limit it meets. Every test here failed before the fix it names.
import { test } from "node:test";
import assert from "node:assert/strict";
import { request as httpRequest } from "node:http";
import { SECP256K1_N } from "../../sdk/signature";
import {
  assertRefused,
  call,
  createKey,
  fund,
  fundedKey,
  hmacHeaders,
  keyHeaders,
  newWallet,
  signApprovalBody,
  signedOrderBody,
  walletHeaders,
  withHarness,
  type Harness,
} from "../testing/harness";

/** (r, n - s, v ^ 1): the other signature of the same message under the same key. */
function mirror(sig: string): string {
  const r = sig.slice(2, 66);
  const s = BigInt(`0x${sig.slice(66, 130)}`);
  const v = parseInt(sig.slice(130, 132), 16);
  return `0x${r}${(SECP256K1_N - s).toString(16).padStart(64, "0")}${(v === 27 ? 28 : 27).toString(16)}`;
}

/** A GET with exactly these headers, Host included (fetch does not let a caller set Host). */
function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: "GET", headers }, (res) => {
      let text = "";
      res.on("data", (d) => (text += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** GET /v1/balances signed at exactly `win` ms from the server's clock `t` is accepted, one millisecond more
 *  is refused with timestamp_outside_window, in both directions. */
async function assertWindowEdges(
  h: Harness,
  t: number,
  win: number,
  headersAt: (ts: number) => Promise<Record<string, string>>,
) {
  for (const [ts, ok] of [
    [t - win, true],
    [t - win - 1, false],
    [t + win, true],
    [t + win + 1, false],
  ] as const) {
    const r = await call(h, "GET", "/v1/balances", { headers: await headersAt(ts) });
    if (ok) assert.equal(r.status, 200, `ts ${ts - t}: ${r.text}`);
    else assertRefused(r, 401, "UNAUTHORIZED", "timestamp_outside_window");
  }
}

// ------------------------------------------------------------------ wallet-signed requests

test("a replayed POST /v1/api-keys with the mirror-image signature gets no second key", async () => {
  await withHarness({}, async (h) => {
    const victim = newWallet();
    const body = JSON.stringify({ permissions: ["read", "trade"] });
    const headers = await walletHeaders(victim, h, "POST", "/v1/api-keys", body);
    const first = await call(h, "POST", "/v1/api-keys", { body, headers });
    assert.equal(first.status, 201, first.text);

    const m = await call(h, "POST", "/v1/api-keys", {
      body,
      headers: { ...headers, "X-Wallet-Signature": mirror(headers["X-Wallet-Signature"]) },
    });
    assertRefused(m, 401, "UNAUTHORIZED", "invalid_signature");
    assert.equal(m.body.error.details.problem, "s_high");
    const same = await call(h, "POST", "/v1/api-keys", { body, headers });
    assertRefused(same, 401, "UNAUTHORIZED", "signature_replayed");
    // a v of 0/1 is the same signature in another encoding: refused too
    const v01 =
      headers["X-Wallet-Signature"].slice(0, 130) +
      (parseInt(headers["X-Wallet-Signature"].slice(130), 16) - 27).toString(16).padStart(2, "0");
    assertRefused(
      await call(h, "POST", "/v1/api-keys", { body, headers: { ...headers, "X-Wallet-Signature": v01 } }),
      401,
      "UNAUTHORIZED",
      "invalid_signature",
    );
    assert.equal((await h.keys.listByOwner(victim.address)).length, 1, "one key, not two");
  });
});

test("a wallet request signed for another host is refused; the accepted hosts, when configured, are enforced", async () => {
  await withHarness({}, async (h) => {
    const w = newWallet();
    const body = JSON.stringify({ permissions: ["read"] });
    const other = await walletHeaders(w, "dex.other-venue.example", "POST", "/v1/api-keys", body);
    assertRefused(
      await call(h, "POST", "/v1/api-keys", { body, headers: other }),
      401,
      "UNAUTHORIZED",
      "invalid_signature",
    );
    assert.equal((await h.keys.listByOwner(w.address)).length, 0);
  });
  await withHarness({ config: { walletAuthHosts: ["dex.example"] } }, async (h) => {
    const w = newWallet();
    // signed over the Host it carries, but this deployment serves dex.example only
    const r = await call(h, "GET", "/v1/balances", { headers: await walletHeaders(w, h, "GET", "/v1/balances") });
    assertRefused(r, 401, "UNAUTHORIZED", "host_not_accepted");
    // the accepted host, sent as the Host header (what a proxy in front would forward)
    const headers = { ...(await walletHeaders(w, "dex.example", "GET", "/v1/balances")), Host: "dex.example" };
    const ok = await rawGet(`${h.origin}/v1/balances`, headers);
    assert.equal(ok.status, 200, ok.text);
  });
});

test("wallet timestamp: exactly the window away is accepted, one millisecond more is refused (both directions)", async () => {
  const t = Date.now();
  await withHarness({ now: () => t }, async (h) => {
    const w = newWallet();
    await assertWindowEdges(h, t, h.config.walletAuthWindowMs, (ts) =>
      walletHeaders(w, h, "GET", "/v1/balances", "", ts),
    );
  });
});

test("wallet replay cache across its rotation: a signature used just before a rotation is refused just after and at 2x window", async () => {
  let t = Date.now();
  await withHarness({ now: () => t }, async (h) => {
    const w = newWallet();
    const win = h.config.walletAuthWindowMs;
    const start = t;
    // the first use sets the rotation clock; the one under test is used 1 ms before the rotation
    assert.equal(
      (await call(h, "GET", "/v1/balances", { headers: await walletHeaders(w, h, "GET", "/v1/balances", "", t) }))
        .status,
      200,
    );
    t = start + 2 * win - 1;
    const signedAt = t + win; // the latest timestamp still accepted at the time of use
    const headers = await walletHeaders(w, h, "GET", "/v1/balances", "", signedAt);
    assert.equal((await call(h, "GET", "/v1/balances", { headers })).status, 200);
    t = start + 2 * win; // rotation: the signature moves to the previous generation
    assertRefused(await call(h, "GET", "/v1/balances", { headers }), 401, "UNAUTHORIZED", "signature_replayed");
    t = signedAt + win; // the last millisecond its timestamp is valid: still remembered
    assertRefused(await call(h, "GET", "/v1/balances", { headers }), 401, "UNAUTHORIZED", "signature_replayed");
    t = signedAt + win + 1; // past the window: refused for its timestamp
    assertRefused(await call(h, "GET", "/v1/balances", { headers }), 401, "UNAUTHORIZED", "timestamp_outside_window");
  });
});

// ------------------------------------------------------------------ HMAC scheme

test("HMAC: the signature is compared in full (last hex character flipped) and the window holds at its edge", async () => {
  const t = Date.now();
  await withHarness({ now: () => t }, async (h) => {
    const k = await fundedKey(h, { permissions: ["read"] });
    const hd = hmacHeaders(k.apiKey, k.secret, "GET", "/v1/balances", "", t);
    const sig = hd["X-SIGNATURE"];
    const flipped = sig.slice(0, 63) + (sig[63] === "0" ? "1" : "0");
    assertRefused(
      await call(h, "GET", "/v1/balances", { headers: { ...hd, "X-SIGNATURE": flipped } }),
      401,
      "UNAUTHORIZED",
      "invalid_signature",
    );
    assert.equal((await call(h, "GET", "/v1/balances", { headers: hd })).status, 200);
    await assertWindowEdges(h, t, h.config.hmacWindowMs, async (ts) =>
      hmacHeaders(k.apiKey, k.secret, "GET", "/v1/balances", "", ts),
    );
  });
});

// ------------------------------------------------------------------ DELETE /v1/api-keys/{id}

test("DELETE /v1/api-keys/{id} with the key itself obeys the key's IP allowlist", async () => {
  await withHarness({}, async (h) => {
    const w = newWallet();
    const outside = await createKey(h, w, { permissions: ["read"], ip_allowlist: ["10.0.0.0/8"] });
    const r = await call(h, "DELETE", `/v1/api-keys/${outside.id}`, { headers: keyHeaders(outside) });
    assertRefused(r, 403, "FORBIDDEN", "ip_not_allowed");
    assert.equal((await h.keys.getById(outside.id))?.revokedAtMs, null, "not revoked");
    // the edge: a /32 of the test client's own address lets it through
    const inside = await createKey(h, w, { permissions: ["read"], ip_allowlist: ["127.0.0.1/32"] });
    assert.equal((await call(h, "DELETE", `/v1/api-keys/${inside.id}`, { headers: keyHeaders(inside) })).status, 200);
  });
});

test("DELETE /v1/api-keys/{id} wipes the sealed agent key", async () => {
  await withHarness({}, async (h) => {
    const w = newWallet();
    const k = await createKey(h, w);
    const before = await h.db.query<{ c: string }>("SELECT agent_key_ciphertext AS c FROM dex_api_keys WHERE id = $1", [
      k.id,
    ]);
    assert.ok(before.rows[0].c.length > 10);
    const path = `/v1/api-keys/${k.id}`;
    assert.equal((await call(h, "DELETE", path, { headers: await walletHeaders(w, h, "DELETE", path) })).status, 200);
    const after = await h.db.query<{ c: string }>("SELECT agent_key_ciphertext AS c FROM dex_api_keys WHERE id = $1", [
      k.id,
    ]);
    assert.equal(after.rows[0].c, "");
    assert.equal(await h.keys.agentOf(k.id), null);
  });
});

// ------------------------------------------------------------------ agent approvals

async function pendingKey(h: Harness) {
  const w = newWallet();
  const body = JSON.stringify({ permissions: ["read", "trade"] });
  const created = await call(h, "POST", "/v1/api-keys", {
    body,
    headers: await walletHeaders(w, h, "POST", "/v1/api-keys", body),
  });
  assert.equal(created.status, 201, created.text);
  return { w, id: created.body.id as string, td: created.body.agent_approval };
}

test("20 approvals of one key sent at once cost one submission; a later one is 409 AGENT_ALREADY_APPROVED", async () => {
  await withHarness({}, async (h) => {
    const { w, id, td } = await pendingKey(h);
    const body = await signApprovalBody(w, td);
    const rs = await Promise.all(
      Array.from({ length: 20 }, () => call(h, "POST", `/v1/api-keys/${id}/agent-approval`, { body })),
    );
    assert.equal(rs.filter((r) => r.status === 200).length, 1, rs.map((r) => r.status).join(","));
    for (const r of rs.filter((x) => x.status !== 200)) assertRefused(r, 409, "AGENT_ALREADY_APPROVED");
    assert.equal(h.service.approvalSubmissions.length, 1);
    assertRefused(await call(h, "POST", `/v1/api-keys/${id}/agent-approval`, { body }), 409, "AGENT_ALREADY_APPROVED");
    assert.equal(h.service.approvalSubmissions.length, 1);
  });
});

test("20 approvals of 20 different keys at once all succeed", async () => {
  await withHarness({}, async (h) => {
    const keys = await Promise.all(Array.from({ length: 20 }, () => pendingKey(h)));
    const rs = await Promise.all(
      keys.map(async (k) =>
        call(h, "POST", `/v1/api-keys/${k.id}/agent-approval`, { body: await signApprovalBody(k.w, k.td) }),
      ),
    );
    assert.deepEqual(
      rs.map((r) => r.status),
      Array(20).fill(200),
    );
    assert.equal(h.service.approvalSubmissions.length, 20);
  });
});

test("an approval for another agent, or longer than the service's lifetime, is refused and frees nothing", async () => {
  const t = Date.now();
  await withHarness({ now: () => t }, async (h) => {
    const { w, id, td } = await pendingKey(h);
    const other = newWallet().address;
    assertRefused(
      await call(h, "POST", `/v1/api-keys/${id}/agent-approval`, {
        body: await signApprovalBody(w, td, { agent: other }),
      }),
      400,
      "INVALID_REQUEST",
      "approval_mismatch",
    );
    const max = Math.floor(t / 1000) + h.config.agentApprovalSeconds;
    assert.equal(BigInt(td.message.expiry), BigInt(max), "the service offers exactly its lifetime");
    assertRefused(
      await call(h, "POST", `/v1/api-keys/${id}/agent-approval`, {
        body: await signApprovalBody(w, td, { expiry: String(max + 1) }),
      }),
      400,
      "INVALID_REQUEST",
      "approval_too_long",
    );
    assert.equal(h.service.approvalSubmissions.length, 0);
    // a refused submission (bad signature) gives the key's one approval back
    const bad = { ...(await signApprovalBody(w, td)), signature: (await signApprovalBody(newWallet(), td)).signature };
    assertRefused(await call(h, "POST", `/v1/api-keys/${id}/agent-approval`, { body: bad }), 401, "UNAUTHORIZED");
    const ok = await call(h, "POST", `/v1/api-keys/${id}/agent-approval`, {
      body: await signApprovalBody(w, td, { expiry: String(max) }),
    });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.agent_status, "approved");
  });
});

test("the default agent approval lasts 30 days", async () => {
  await withHarness({}, async (h) => {
    assert.equal(h.config.agentApprovalSeconds, 30 * 24 * 3600);
  });
});

// ------------------------------------------------------------------ wallet-signed orders: verify first

test("50 junk orders naming a victim neither use up the victim's order limit nor reveal its client order ids", async () => {
  await withHarness({ rateLimits: { ordersPerSecond: 10 } }, async (h) => {
    const victim = newWallet();
    const attacker = newWallet();
    fund(h, victim.address);
    const placed = await call(h, "POST", "/v1/orders", {
      body: await signedOrderBody(victim, { side: "buy", price: 1000, size: 0.1, client_order_id: "victim-1" }),
    });
    assert.equal(placed.status, 201, placed.text);
    const callsBefore = h.service.placeCalls.length;

    // junk: the victim's order fields signed by someone else
    for (let i = 0; i < 50; i++) {
      const junk = await signedOrderBody(attacker, { side: "buy", price: 1000 + i, size: 0.1 });
      junk.order = { ...(junk.order as object), trader: victim.address };
      assertRefused(
        await call(h, "POST", "/v1/orders", { body: junk }),
        401,
        "UNAUTHORIZED",
        "invalid_order_signature",
      );
    }
    const probe = await signedOrderBody(attacker, { side: "buy", price: 1000, size: 0.1, client_order_id: "victim-1" });
    probe.order = { ...(probe.order as object), trader: victim.address };
    assertRefused(await call(h, "POST", "/v1/orders", { body: probe }), 401, "UNAUTHORIZED", "invalid_order_signature");
    assert.equal(h.service.placeCalls.length, callsBefore, "no junk reached the service");

    const real = await call(h, "POST", "/v1/orders", {
      body: await signedOrderBody(victim, { side: "buy", price: 999, size: 0.1 }),
    });
    assert.equal(real.status, 201, real.text);
  });
});
