// Issue #11 ("secrets at rest"): DELETE /v1/api-keys/{id} revokes the key's agent on chain, through the REST
// interface over the in-memory service (its "chain" can fail or refuse on demand). The real-chain run is
// test/e2e/api-key-delete-renounces-agent.test.ts. What is checked here: the key is never wiped before its
// renouncement is stored, a failed send is answered `pending` and finished by the drain loop, a refusal
// ends `failed`, a key never approved sends nothing, an approval in flight at the DELETE is renounced once
// it lands, and concurrent DELETEs or drains send one renouncement.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Address } from "viem";
import { verifyTypedData } from "viem";
import { AGENT_RENOUNCEMENT_TYPES } from "../../sdk/eip712";
import { createApiLogger } from "../logger";
import {
  call,
  createKey,
  newWallet,
  signApprovalBody,
  walletHeaders,
  withHarness,
  type Harness,
  type TestKey,
} from "../testing/harness";
import { SETTLEMENT_DOMAIN } from "../testing/memory-dex-service";
import { createAgentRenouncer, RENOUNCEMENT_DEADLINE_MARGIN_SEC } from "./agent-renouncer";
import { DexServiceError } from "../../pipeline/service";

const silent = createApiLogger({ level: "silent" });
const renouncerOf = (h: Harness, leaseMs?: number) =>
  createAgentRenouncer({ keys: h.keys, service: h.service, logger: silent, leaseMs });

async function del(h: Harness, k: TestKey, ts = Date.now()) {
  const path = `/v1/api-keys/${k.id}`;
  return call(h, "DELETE", path, { headers: await walletHeaders(k.owner, h, "DELETE", path, "", ts) });
}

async function row(h: Harness, id: string) {
  return (
    await h.db.query<{
      k: string;
      r: { message: Record<string, string>; signature: `0x${string}` } | null;
      status: string | null;
      tx: string | null;
    }>(
      "SELECT agent_key_ciphertext AS k, agent_renouncement AS r, agent_renouncement_status AS status, agent_renouncement_tx AS tx FROM dex_api_keys WHERE id = $1",
      [id],
    )
  ).rows[0];
}

test("DELETE of an approved key: the agent's renouncement is sent and the approval is gone; the stored one is the agent's, nonce 0, deadline past any approval", async () => {
  const t = Date.now();
  await withHarness({ now: () => t }, async (h) => {
    const w = newWallet();
    const k = await createKey(h, w);
    const agent = (await h.keys.getById(k.id))!.agentAddress;
    assert.ok(h.service.agentExpiry(w.address, agent) > 0n);
    const r = await del(h, k);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.agent_revocation, { status: "done", tx_hash: `0x${"1".padStart(64, "0")}` });
    assert.equal(h.service.agentExpiry(w.address, agent), 0n);
    assert.equal(h.service.renouncementSubmissions.length, 1);
    const stored = await row(h, k.id);
    assert.equal(stored.k, "", "the agent key is wiped");
    assert.equal(await h.keys.agentOf(k.id), null);
    const m = stored.r!.message;
    assert.deepEqual([m.trader, m.agent, m.nonce], [w.address, agent, "0"]);
    assert.equal(
      BigInt(m.deadline),
      BigInt(Math.floor(t / 1000) + h.config.agentApprovalSeconds + RENOUNCEMENT_DEADLINE_MARGIN_SEC),
    );
    const message = {
      trader: m.trader as Address,
      agent: m.agent as Address,
      nonce: 0n,
      deadline: BigInt(m.deadline),
    };
    assert.ok(
      await verifyTypedData({
        address: agent,
        domain: SETTLEMENT_DOMAIN,
        types: AGENT_RENOUNCEMENT_TYPES,
        primaryType: "AgentRenouncement",
        message,
        signature: stored.r!.signature,
      }),
    );
    // DELETE again: the same answer, nothing sent
    const again = await del(h, k);
    assert.deepEqual(again.body.agent_revocation, r.body.agent_revocation);
    assert.equal(h.service.renouncementSubmissions.length, 1);
  });
});

test("the chain unavailable at DELETE: the key is revoked and wiped at once, the answer is pending, the drain loop finishes it", async () => {
  await withHarness({}, async (h) => {
    const w = newWallet();
    const k = await createKey(h, w);
    const agent = (await h.keys.getById(k.id))!.agentAddress;
    h.service.renouncementMode = "unavailable";
    const r = await del(h, k);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.agent_revocation, { status: "pending", tx_hash: null });
    const stored = await row(h, k.id);
    assert.equal(stored.k, "", "wiped before the renouncement is on chain: the signed renouncement is what is kept");
    assert.equal(stored.status, "pending");
    assert.ok(h.service.agentExpiry(w.address, agent) > 0n, "still approved on chain");
    assert.equal(
      (await call(h, "GET", "/v1/balances", { headers: { "X-API-Key": k.apiKey, "X-API-Secret": k.secret } })).status,
      401,
      "the key is dead already",
    );

    const renouncer = renouncerOf(h);
    await renouncer.drain(); // still failing: still pending
    assert.equal((await row(h, k.id)).status, "pending");
    h.service.renouncementMode = "ok";
    await renouncer.drain();
    assert.equal(h.service.agentExpiry(w.address, agent), 0n);
    const done = await row(h, k.id);
    assert.deepEqual([done.status, done.tx], ["done", `0x${"1".padStart(64, "0")}`]);
    assert.deepEqual((await del(h, k)).body.agent_revocation, { status: "done", tx_hash: done.tx });
  });
});

test("the drain loop started with start() retries until stop(); stop() waits for the attempt in progress", async () => {
  await withHarness({}, async (h) => {
    const k = await createKey(h, newWallet());
    h.service.renouncementMode = "unavailable";
    assert.equal((await del(h, k)).body.agent_revocation.status, "pending");
    h.service.renouncementMode = "ok";
    const renouncer = renouncerOf(h);
    renouncer.start(10);
    for (let i = 0; i < 500 && (await row(h, k.id)).status === "pending"; i++)
      await new Promise((r) => setTimeout(r, 10));
    await renouncer.stop();
    assert.equal((await row(h, k.id)).status, "done");
  });
});

test("the contract refusing the renouncement ends it failed (not retried for ever)", async () => {
  await withHarness({}, async (h) => {
    const k = await createKey(h, newWallet());
    h.service.renouncementMode = "refused";
    const r = await del(h, k);
    assert.deepEqual(r.body.agent_revocation, { status: "failed", tx_hash: null });
    h.service.renouncementMode = "ok";
    await renouncerOf(h).drain();
    assert.equal((await row(h, k.id)).status, "failed");
    assert.equal(h.service.renouncementSubmissions.length, 0);
  });
});

test("a key never approved: done with no transaction, nothing paid", async () => {
  await withHarness({}, async (h) => {
    const k = await createKey(h, newWallet(), { permissions: ["read"] }, false);
    const r = await del(h, k);
    assert.deepEqual(r.body.agent_revocation, { status: "done", tx_hash: null });
    assert.equal(h.service.renouncementSubmissions.length, 0);
    assert.equal((await row(h, k.id)).k, "");
  });
});

test("an approval still being submitted when the key is deleted is renounced once it lands", async () => {
  await withHarness({}, async (h) => {
    const w = newWallet();
    const body = JSON.stringify({ permissions: ["read", "trade"] });
    const created = await call(h, "POST", "/v1/api-keys", {
      body,
      headers: await walletHeaders(w, h, "POST", "/v1/api-keys", body),
    });
    const id = created.body.id as string;
    const k: TestKey = { id, apiKey: created.body.api_key, secret: created.body.api_secret, owner: w };
    // the approval route took the key's one approval and is waiting for the chain
    assert.equal(await h.keys.claimAgentApproval(id), true);
    const r = await del(h, k);
    assert.deepEqual(
      r.body.agent_revocation,
      { status: "pending", tx_hash: null },
      "nothing on chain yet, but it may land",
    );
    // it lands
    const signed = await signApprovalBody(w, created.body.agent_approval);
    const a = signed.approval;
    await h.service.submitAgentApproval(
      {
        trader: a.trader as Address,
        agent: a.agent as Address,
        expiry: BigInt(a.expiry),
        nonce: BigInt(a.nonce),
        deadline: BigInt(a.deadline),
      },
      signed.signature,
    );
    await h.keys.markAgentApproved(id);
    assert.ok(h.service.agentExpiry(w.address, a.agent as Address) > 0n);
    await renouncerOf(h).drain();
    assert.equal(h.service.agentExpiry(w.address, a.agent as Address), 0n);
    assert.equal((await row(h, id)).status, "done");
    assert.equal(h.service.renouncementSubmissions.length, 1);
  });
});

test("20 DELETEs of one key at once, then two drains at once: one renouncement sent", async () => {
  await withHarness({}, async (h) => {
    const k = await createKey(h, newWallet());
    // distinct timestamps: the same signed request twice would be a replay
    const t0 = Date.now();
    const rs = await Promise.all(Array.from({ length: 20 }, (_, i) => del(h, k, t0 - i)));
    assert.deepEqual(
      rs.map((r) => r.status),
      Array(20).fill(200),
    );
    await Promise.all([renouncerOf(h).drain(), renouncerOf(h).drain()]);
    assert.equal(h.service.renouncementSubmissions.length, 1);
    assert.equal((await row(h, k.id)).status, "done");
  });
});

test("an attempt holds the stored renouncement for its lease: a second claim inside it gets nothing, one with an elapsed lease gets it", async () => {
  await withHarness({}, async (h) => {
    const k = await createKey(h, newWallet());
    h.service.renouncementMode = "unavailable";
    await del(h, k);
    assert.ok(await h.keys.claimRenouncement(k.id, 60_000));
    assert.equal(await h.keys.claimRenouncement(k.id, 60_000), null, "held");
    assert.ok(await h.keys.claimRenouncement(k.id, 0), "a lease of 0 ms has elapsed");
    await h.keys.releaseRenouncement(k.id, null);
    assert.ok(await h.keys.claimRenouncement(k.id, 60_000), "released: free again");
    await h.keys.finishRenouncement(k.id, "done", null);
    assert.equal(await h.keys.claimRenouncement(k.id, 0), null, "finished: never again");
    assert.equal(await h.keys.claimRenouncement("00000000-0000-0000-0000-000000000000", 0), null);
  });
});

test("a key revoked because its creation failed half-way is revoked the same way: wiped, renouncement stored", async () => {
  await withHarness({}, async (h) => {
    const w = newWallet();
    const prepare = h.service.prepareAgentApproval;
    h.service.prepareAgentApproval = async () => {
      throw new DexServiceError("SERVICE_UNAVAILABLE", "chain down");
    };
    const body = JSON.stringify({ permissions: ["read"] });
    const r = await call(h, "POST", "/v1/api-keys", {
      body,
      headers: await walletHeaders(w, h, "POST", "/v1/api-keys", body),
    });
    h.service.prepareAgentApproval = prepare;
    assert.equal(r.status, 503, r.text);
    const [key] = await h.keys.listByOwner(w.address);
    assert.notEqual(key.revokedAtMs, null);
    const stored = await row(h, key.id);
    assert.deepEqual([stored.k, stored.status, stored.r!.message.agent], ["", "pending", key.agentAddress]);
    await renouncerOf(h).drain();
    assert.deepEqual(await h.keys.agentRevocation(key.id), { status: "done", txHash: null });
  });
});

test("a key revoked with no stored renouncement (before this existed) reports none; a live or unknown key null", async () => {
  await withHarness({}, async (h) => {
    const k = await createKey(h, newWallet(), { permissions: ["read"] }, false);
    assert.equal(await h.keys.agentRevocation(k.id), null, "live");
    assert.equal(await h.keys.agentRevocation("00000000-0000-0000-0000-000000000000"), null);
    assert.equal(await h.keys.revoke(k.id), true);
    assert.deepEqual(await h.keys.agentRevocation(k.id), { status: "none", txHash: null });
    assert.deepEqual((await del(h, k)).body.agent_revocation, { status: "none", tx_hash: null });
  });
});

test("an attempt slower than the DELETE's wait is answered pending and still finishes (holding its lease meanwhile)", async () => {
  await withHarness({}, async (h) => {
    const k = await createKey(h, newWallet());
    h.service.renouncementMode = "unavailable";
    await del(h, k); // stored, pending
    h.service.renouncementMode = "ok";
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const slow = createAgentRenouncer({
      keys: h.keys,
      logger: silent,
      service: { submitAgentRenouncement: async (m, s) => (await gate, h.service.submitAgentRenouncement(m, s)) },
    });
    assert.deepEqual(await slow.attempt(k.id, 20), { status: "pending", txHash: null });
    await renouncerOf(h).drain(); // the slow attempt holds the row: nothing sent twice
    assert.equal(h.service.renouncementSubmissions.length, 0);
    open();
    for (let i = 0; i < 500 && (await row(h, k.id)).status === "pending"; i++)
      await new Promise((r) => setTimeout(r, 10));
    assert.equal((await row(h, k.id)).status, "done");
    assert.equal(h.service.renouncementSubmissions.length, 1);
  });
});
