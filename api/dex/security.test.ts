// Security table: every refusal has the right status, code and reason, and changes nothing (the service
// holds no new order, the book and the victim's order are as before).
import { test } from "node:test";
import assert from "node:assert/strict";
import { beforeTests, call, createKey, fileHarness, fileKey, fundedWallet, type Res } from "../testing/harness";
import { hmacHeaders, keyHeaders, newWallet, signedOrderBody, walletHeaders, type TestKey } from "../testing/signing";
import { SETTLEMENT_DOMAIN } from "../testing/memory-dex-service";
import type { PrivateKeyAccount } from "viem";

const h = fileHarness();
const alice = fileKey(h); // read + trade
const bob = fileKey(h); // another account
let victimOrderId: string;
const order = (price = 1000, size = 0.1, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ symbol: "WETH-USD", side: "buy", type: "limit", price, size, ...extra });

beforeTests(h, async () => {
  const v = await call(h, "POST", "/v1/orders", { headers: keyHeaders(bob), body: order(900, 1) });
  assert.equal(v.status, 201);
  victimOrderId = v.body.order_id;
});

/** POST /v1/orders of `body` with the API key `k`. */
const placeWith = (k: TestKey, body: string) => call(h, "POST", "/v1/orders", { body, headers: keyHeaders(k) });
/** A wallet-signed limit order of `w`, posted. */
const placeSigned = async (w: PrivateKeyAccount, side: "buy" | "sell", price: number, size: number) =>
  call(h, "POST", "/v1/orders", { body: await signedOrderBody(w, { side, price, size }) });

async function state() {
  const book = await call(h, "GET", "/v1/orderbook/WETH-USD?depth=50");
  const victim = await h.service.getOrder(victimOrderId);
  return { orders: h.service.orderCount(), bids: book.body.bids, asks: book.body.asks, victim: victim?.status };
}

function refused(r: Res, status: number, code: string, reason?: string) {
  assert.equal(r.status, status, r.text);
  assert.equal(r.body.error.code, code, r.text);
  assert.equal(typeof r.body.error.message, "string");
  if (reason) assert.equal(r.body.error.details.reason, reason, r.text);
}

/** Refused with this status, code and reason, and nothing changed (no new order, the book and the victim's
 *  order as before). */
async function refusedUnchanged(request: () => Promise<Res>, status: number, code: string, reason: string) {
  const before = await state();
  const r = await request();
  refused(r, status, code, reason);
  assert.deepEqual(await state(), before);
  return r;
}

/** `k`'s order refused 403 FORBIDDEN for `reason`, changing nothing. */
const forbiddenOrder = (k: TestKey, body: string, reason: string) =>
  refusedUnchanged(() => placeWith(k, body), 403, "FORBIDDEN", reason);

interface Case {
  name: string;
  status: number;
  code: string;
  reason?: string;
  reachesService?: boolean;
  run: () => Promise<Res>;
}

/** A case refused 401 UNAUTHORIZED for `reason`. */
const unauthorized = (name: string, reason: string, run: () => Promise<Res>, more: Partial<Case> = {}): Case => ({
  name,
  status: 401,
  code: "UNAUTHORIZED",
  reason,
  run,
  ...more,
});

/** POST /v1/orders with `order()` as its body and these headers. */
const postOrder = (headers?: Record<string, string>) =>
  call(h, "POST", "/v1/orders", { body: order(), ...(headers ? { headers } : {}) });

const cases: Case[] = [
  unauthorized("HMAC signature over another body", "invalid_signature", () =>
    postOrder(hmacHeaders(alice.apiKey, alice.secret, "POST", "/v1/orders", order(1001))),
  ),
  unauthorized("HMAC signature made with a wrong secret", "invalid_signature", () =>
    postOrder(hmacHeaders(alice.apiKey, "f".repeat(64), "POST", "/v1/orders", order())),
  ),
  unauthorized("stale HMAC timestamp (10 s old)", "timestamp_outside_window", () =>
    postOrder(hmacHeaders(alice.apiKey, alice.secret, "POST", "/v1/orders", order(), Date.now() - 10_000)),
  ),
  unauthorized("HMAC timestamp from the future (10 s ahead)", "timestamp_outside_window", () =>
    postOrder(hmacHeaders(alice.apiKey, alice.secret, "POST", "/v1/orders", order(), Date.now() + 10_000)),
  ),
  unauthorized("HMAC signature of a GET re-used on a POST", "invalid_signature", () =>
    postOrder(hmacHeaders(alice.apiKey, alice.secret, "GET", "/v1/orders")),
  ),
  unauthorized("HMAC signature without the query string it was sent with", "invalid_signature", () =>
    call(h, "GET", "/v1/orders?status=all", {
      headers: hmacHeaders(alice.apiKey, alice.secret, "GET", "/v1/orders"),
    }),
  ),
  unauthorized("upper-case hex signature", "invalid_signature", () => {
    const hd = hmacHeaders(alice.apiKey, alice.secret, "POST", "/v1/orders", order());
    return postOrder({ ...hd, "X-SIGNATURE": hd["X-SIGNATURE"].toUpperCase() });
  }),
  unauthorized("wrong X-API-Secret", "invalid_secret", () =>
    postOrder({ "X-API-Key": alice.apiKey, "X-API-Secret": bob.secret }),
  ),
  unauthorized("unknown API key", "invalid_api_key", () =>
    postOrder({ "X-API-Key": "0".repeat(32), "X-API-Secret": alice.secret }),
  ),
  unauthorized("no credentials", "missing_credentials", () => postOrder()),
  unauthorized(
    "wallet-signed order signed by another wallet",
    "invalid_order_signature",
    async () => {
      const body = await signedOrderBody(newWallet(), { side: "buy", price: 1000, size: 0.1 });
      (body.order as Record<string, unknown>).trader = alice.owner.address;
      return call(h, "POST", "/v1/orders", { body });
    },
    { reachesService: true }, // the service verifies order signatures (and refuses)
  ),
  unauthorized("wallet auth headers signed by another wallet", "invalid_signature", async () => {
    const hd = await walletHeaders(newWallet(), h, "GET", "/v1/balances");
    return call(h, "GET", "/v1/balances", { headers: { ...hd, "X-Wallet-Address": alice.owner.address } });
  }),
  {
    name: "reading another account's order",
    status: 404,
    code: "ORDER_NOT_FOUND",
    run: () => call(h, "GET", `/v1/orders/${victimOrderId}`, { headers: keyHeaders(alice) }),
  },
  {
    name: "cancelling another account's order",
    status: 404,
    code: "ORDER_NOT_FOUND",
    run: () => call(h, "DELETE", `/v1/orders/${victimOrderId}`, { headers: keyHeaders(alice) }),
  },
  {
    name: "revoking another account's key",
    status: 404,
    code: "API_KEY_NOT_FOUND",
    run: async () =>
      call(h, "DELETE", `/v1/api-keys/${bob.id}`, {
        headers: await walletHeaders(alice.owner, h, "DELETE", `/v1/api-keys/${bob.id}`),
      }),
  },
];

for (const c of cases) {
  test(`refused: ${c.name}`, async () => {
    const before = await state();
    const calls = h.service.placeCalls.length;
    const r = await c.run();
    refused(r, c.status, c.code, c.reason);
    assert.deepEqual(await state(), before, "nothing changed");
    if (!c.reachesService) assert.equal(h.service.placeCalls.length, calls, "refused before the service");
  });
}

test("refused: an order signed under another EIP-712 domain; the error names the domain expected", async () => {
  const before = await state();
  const wrong = { ...SETTLEMENT_DOMAIN, chainId: SETTLEMENT_DOMAIN.chainId + 1 };
  const r = await call(h, "POST", "/v1/orders", {
    body: await signedOrderBody(alice.owner, { side: "buy", price: 1000, size: 0.1, domain: wrong }),
  });
  refused(r, 401, "UNAUTHORIZED", "invalid_order_signature");
  assert.deepEqual(r.body.error.details.expected_domain, SETTLEMENT_DOMAIN);
  const d = SETTLEMENT_DOMAIN;
  for (const part of [
    `name "${d.name}"`,
    `version "${d.version}"`,
    `chainId ${d.chainId}`,
    `verifyingContract ${d.verifyingContract}`,
  ])
    assert.ok(r.body.error.message.includes(part), `${part} in ${r.body.error.message}`);
  assert.deepEqual(await state(), before, "nothing changed");
});

test("refused: a replayed HMAC signature (the first use succeeds, the replay changes nothing)", async () => {
  const body = order(800, 0.1);
  const headers = hmacHeaders(alice.apiKey, alice.secret, "POST", "/v1/orders", body);
  const first = await call(h, "POST", "/v1/orders", { body, headers });
  assert.equal(first.status, 201, first.text);
  await refusedUnchanged(
    () => call(h, "POST", "/v1/orders", { body, headers }),
    401,
    "UNAUTHORIZED",
    "signature_replayed",
  );
});

test("refused: a replayed wallet-auth signature", async () => {
  const headers = await walletHeaders(alice.owner, h, "GET", "/v1/balances");
  assert.equal((await call(h, "GET", "/v1/balances", { headers })).status, 200);
  refused(await call(h, "GET", "/v1/balances", { headers }), 401, "UNAUTHORIZED", "signature_replayed");
});

test("refused: a key without the trade permission (read works)", async () => {
  const readOnly = await createKey(h, alice.owner, { permissions: ["read"] });
  const before = await state();
  refused(await placeWith(readOnly, order()), 403, "FORBIDDEN", "missing_permission");
  refused(
    await call(h, "DELETE", `/v1/orders/${victimOrderId}`, { headers: keyHeaders(readOnly) }),
    403,
    "FORBIDDEN",
    "missing_permission",
  );
  assert.deepEqual(await state(), before);
  assert.equal((await call(h, "GET", "/v1/balances", { headers: keyHeaders(readOnly) })).status, 200);
});

test("refused: a request from outside the key's IP allowlist (an allowed address works)", async () => {
  const fenced = await createKey(h, alice.owner, {
    permissions: ["read", "trade"],
    ip_allowlist: ["10.0.0.0/8", "2001:db8::/32"],
  });
  const before = await state();
  refused(await placeWith(fenced, order()), 403, "FORBIDDEN", "ip_not_allowed");
  refused(await call(h, "GET", "/v1/balances", { headers: keyHeaders(fenced) }), 403, "FORBIDDEN", "ip_not_allowed");
  assert.deepEqual(await state(), before);
  const local = await createKey(h, alice.owner, { permissions: ["read"], ip_allowlist: ["127.0.0.1"] });
  assert.equal((await call(h, "GET", "/v1/balances", { headers: keyHeaders(local) })).status, 200);
});

test("refused: an order over the key's position limit (one under it passes)", async () => {
  const limited = await createKey(h, alice.owner, { permissions: ["read", "trade"], position_limit: "1000" });
  // 0.5 WETH at 1500 = 750 USD: fits; another 0.2 at 1500 = 300 more: 1050 > 1000.
  const ok = await placeWith(limited, order(1500, 0.5));
  assert.equal(ok.status, 201, ok.text);
  const r = await forbiddenOrder(limited, order(1500, 0.2), "position_limit_exceeded");
  assert.equal(r.body.error.details.open_notional, "750");
  assert.equal(r.body.error.details.would_be, "1050");
});

test("refused: the daily loss limit once the key's fills lost that much", async () => {
  const limited = await createKey(h, alice.owner, { permissions: ["read", "trade"], daily_loss_limit: "50" });
  const seller = fundedWallet(h);
  // The key buys 1 WETH at 2600 from `seller`, then the market trades at 2500: marked loss 100 >= 50.
  assert.equal((await placeSigned(seller, "sell", 2600, 1)).status, 201);
  const buy = await placeWith(limited, order(2600, 1));
  assert.equal(buy.body.status, "filled", buy.text);
  await placeSigned(seller, "sell", 2500, 0.1);
  await placeSigned(fundedWallet(h), "buy", 2500, 0.1);
  const r = await forbiddenOrder(limited, order(1000, 0.1), "daily_loss_limit_reached");
  assert.equal(r.body.error.details.loss_today, "100");
});

test("refused: a key whose agent is not approved on chain yet", async () => {
  const pending = await createKey(h, alice.owner, { permissions: ["read", "trade"] }, false);
  await forbiddenOrder(pending, order(), "agent_not_approved");
});

test("revoking a key cancels its open orders; the revoked key is refused", async () => {
  const k = await createKey(h, alice.owner);
  const other = await placeWith(alice, order(700, 0.1));
  const ids: string[] = [];
  for (const p of [600, 601]) {
    const r = await placeWith(k, order(p, 0.1));
    ids.push(r.body.order_id);
  }
  // an API key may revoke only itself
  refused(
    await call(h, "DELETE", `/v1/api-keys/${k.id}`, { headers: keyHeaders(alice) }),
    403,
    "FORBIDDEN",
    "not_this_key",
  );
  const path = `/v1/api-keys/${k.id}`;
  const r = await call(h, "DELETE", path, { headers: await walletHeaders(alice.owner, h, "DELETE", path) });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual([...r.body.cancelled_order_ids].sort(), [...ids].sort());
  for (const id of ids) assert.equal((await h.service.getOrder(id))?.status, "cancelled");
  assert.equal((await h.service.getOrder(other.body.order_id))?.status, "open", "another key's order stays");
  await refusedUnchanged(() => placeWith(k, order()), 401, "UNAUTHORIZED", "invalid_api_key");
});
