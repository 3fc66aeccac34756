// Issue #11: revoking an API key ends its WebSocket sessions (they streamed the account's private order
// updates after the revocation). Through a real WebSocket client and the REST DELETE.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  call,
  createKey,
  fundedWallet,
  keyHeaders,
  newWallet,
  startHarness,
  startWs,
  walletHeaders,
} from "../testing/harness";
import { connectWs, ordersSession, wsAuthMessage } from "../testing/ws-client";
import { CLOSE_KEY_REVOKED } from "./server";

test("DELETE /v1/api-keys/{id} closes that key's WebSocket sessions (close code 4001) and no other", async () => {
  const h = await startHarness({ ws: { connectionsPerMinutePerIp: 10_000 } });
  const { ws: srv, url } = await startWs(h, { keys: h.keys });
  const clients: Awaited<ReturnType<typeof connectWs>>[] = [];
  try {
    const w = fundedWallet(h);
    const revoked = await createKey(h, w);
    const kept = await createKey(h, w);
    const a = await ordersSession(url, revoked, Date.now(), clients);
    const b = await ordersSession(url, kept, Date.now() + 1, clients);
    const placed = await call(h, "POST", "/v1/orders", {
      headers: keyHeaders(revoked),
      body: { symbol: "WETH-USD", side: "buy", type: "limit", price: 900, size: 0.1 },
    });
    assert.equal(placed.status, 201, placed.text);
    await a.next((m) => m.type === "order" && m.order.order_id === placed.body.order_id);

    const path = `/v1/api-keys/${revoked.id}`;
    const del = await call(h, "DELETE", path, { headers: await walletHeaders(w, h, "DELETE", path) });
    assert.equal(del.status, 200, del.text);
    const notice = await a.next((m) => m.type === "error");
    assert.equal(notice.error.code, "UNAUTHORIZED");
    assert.equal(notice.error.details.reason, "api_key_revoked");
    assert.deepEqual(await a.closed, { code: CLOSE_KEY_REVOKED, reason: "api_key_revoked" });

    // the other key's session streams on
    const next = await call(h, "POST", "/v1/orders", {
      headers: keyHeaders(kept),
      body: { symbol: "WETH-USD", side: "buy", type: "limit", price: 901, size: 0.1 },
    });
    assert.equal(next.status, 201, next.text);
    await b.next((m) => m.type === "order" && m.order.order_id === next.body.order_id);
  } finally {
    for (const c of clients) c.close();
    await srv.close();
    await h.close();
  }
});

test("a key revoked by another process (same database) is closed at the next heartbeat", async () => {
  const h = await startHarness({ ws: { heartbeatIntervalMs: 100, connectionsPerMinutePerIp: 10_000 } });
  const { ws: srv, url } = await startWs(h, { keys: h.keys });
  const c = await connectWs(url);
  try {
    const k = await createKey(h, newWallet());
    c.send(wsAuthMessage(k));
    await c.next((m) => m.type === "authenticated");
    // the other process's revocation: the row changes, this process's store hears nothing
    await h.db.query("UPDATE dex_api_keys SET revoked_at = now() WHERE id = $1", [k.id]);
    const closed = await Promise.race([c.closed, new Promise<null>((r) => setTimeout(() => r(null), 10_000))]);
    assert.deepEqual(closed, { code: CLOSE_KEY_REVOKED, reason: "api_key_revoked" });
  } finally {
    c.close();
    await srv.close();
    await h.close();
  }
});
