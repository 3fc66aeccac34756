// The API key store's limits against a real (in-memory PGlite) database: one agent approval per key,
// revocation once, the sealed agent key wiped on revoke, ciphertexts bound to their row, the cache off.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Db } from "../../db";
import { createApiKeyStore, type ApiKeyStore, type NewApiKey } from "./api-keys";
import { createSecretBox } from "./secret-box";
import { suiteKeyStore } from "../testing/key-store";

const OWNER = "0x90F79bf6EB2c4f870365E785982E1f101E93b906" as const;
const input = (over: Partial<NewApiKey> = {}): NewApiKey => ({
  owner: OWNER,
  label: "bot",
  permissions: ["read", "trade"],
  ipAllowlist: ["10.0.0.0/8"],
  positionLimitE18: 5n * 10n ** 18n,
  dailyLossLimitE18: null,
  ...over,
});

// One suite, so that its database is opened only when one of its tests runs.
describe("API key store", () => {
  let db: Db;
  let store: ApiKeyStore;
  suiteKeyStore((s) => ({ db, store } = s));

  test("create returns the secret once; the record round-trips every field", async () => {
    const { record, secret } = await store.create(input());
    assert.match(secret, /^[0-9a-f]{64}$/);
    assert.match(record.apiKey, /^[0-9a-f]{32}$/);
    assert.equal(record.owner, OWNER);
    assert.deepEqual(record.permissions, ["read", "trade"]);
    assert.deepEqual(record.ipAllowlist, ["10.0.0.0/8"]);
    assert.equal(record.positionLimitE18, 5n * 10n ** 18n);
    assert.equal(record.dailyLossLimitE18, null);
    assert.equal(record.agentStatus, "pending_approval");
    assert.equal(record.revokedAtMs, null);
    const found = await store.findByApiKey(record.apiKey);
    assert.equal(found?.secret, secret);
    assert.deepEqual(found?.record, record);
    assert.deepEqual(await store.getById(record.id), record);
    assert.equal((await store.agentOf(record.id))?.address, record.agentAddress);
    assert.equal(await store.findByApiKey("f".repeat(32)), null);
    assert.equal(await store.agentOf("00000000-0000-0000-0000-000000000000"), null);
  });

  test("one agent approval per key: claimed once, given back, approved, never after revocation", async () => {
    const { record } = await store.create(input());
    assert.equal(await store.claimAgentApproval(record.id), true);
    assert.equal(await store.claimAgentApproval(record.id), false); // being submitted
    await store.releaseAgentApproval(record.id);
    assert.equal((await store.getById(record.id))?.agentStatus, "pending_approval");
    assert.equal(await store.claimAgentApproval(record.id), true);
    await store.markAgentApproved(record.id);
    assert.equal((await store.getById(record.id))?.agentStatus, "approved");
    assert.equal(await store.claimAgentApproval(record.id), false); // already approved
    await store.releaseAgentApproval(record.id); // only a claim in flight is given back
    assert.equal((await store.getById(record.id))?.agentStatus, "approved");
    const other = (await store.create(input())).record;
    assert.equal(await store.revoke(other.id), true);
    assert.equal(await store.claimAgentApproval(other.id), false); // revoked while pending
    assert.equal(await store.claimAgentApproval("00000000-0000-0000-0000-000000000000"), false);
  });

  test("revoke: once; the key stops authenticating, its agent key is wiped, listeners hear it once", async () => {
    const heard: string[] = [];
    const stop = store.onRevoked((id) => heard.push(id));
    store.onRevoked(() => {
      throw new Error("a failing listener");
    });
    const { record } = await store.create(input());
    assert.equal(await store.revoke(record.id), true);
    assert.equal(await store.revoke(record.id), false);
    assert.equal(await store.revoke("00000000-0000-0000-0000-000000000000"), false);
    assert.deepEqual(heard, [record.id]);
    assert.equal(await store.findByApiKey(record.apiKey), null);
    assert.equal(await store.agentOf(record.id), null);
    const row = (
      await db.query<{ agent_key_ciphertext: string }>("SELECT agent_key_ciphertext FROM dex_api_keys WHERE id = $1", [
        record.id,
      ])
    ).rows[0];
    assert.equal(row.agent_key_ciphertext, "");
    const after = await store.getById(record.id);
    assert.ok(after && after.revokedAtMs !== null && after.revokedAtMs > 0);
    stop();
    const next = (await store.create(input())).record;
    await store.revoke(next.id);
    assert.deepEqual(heard, [record.id]); // unsubscribed
  });

  test("a sealed secret copied into another row does not open there", async () => {
    const a = (await store.create(input())).record;
    const b = (await store.create(input())).record;
    await db.query(
      "UPDATE dex_api_keys SET secret_ciphertext = (SELECT secret_ciphertext FROM dex_api_keys WHERE id = $1) WHERE id = $2",
      [a.id, b.id],
    );
    await assert.rejects(store.findByApiKey(b.apiKey));
    assert.ok(await store.findByApiKey(a.apiKey));
  });

  test("listByOwner: newest first, any address case", async () => {
    const owner = "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65" as const;
    const first = (await store.create(input({ owner }))).record;
    const second = (await store.create(input({ owner }))).record;
    const listed = await store.listByOwner(owner.toLowerCase() as typeof owner);
    assert.deepEqual(listed.map((r) => r.id).sort(), [first.id, second.id].sort());
    assert.ok(listed[0].createdAtMs >= listed[1].createdAtMs);
  });

  test("with the cache on: a looked-up key is reused, revocation and approval here take effect at once", async () => {
    const cachedStore = createApiKeyStore({ db, box: createSecretBox("0f".repeat(32)), cacheTtlMs: 60_000 });
    const { record, secret } = await cachedStore.create(input({ positionLimitE18: null, dailyLossLimitE18: 7n }));
    assert.equal(record.positionLimitE18, null);
    assert.equal(record.dailyLossLimitE18, 7n);
    assert.equal((await cachedStore.findByApiKey(record.apiKey))?.secret, secret);
    const agent = await cachedStore.agentOf(record.id);
    // another process revokes it in the database: this one keeps its cached copy within the TTL
    await db.query("UPDATE dex_api_keys SET label = 'changed elsewhere' WHERE id = $1", [record.id]);
    assert.equal((await cachedStore.findByApiKey(record.apiKey))?.record.label, "bot");
    assert.equal((await cachedStore.agentOf(record.id))?.address, agent?.address);
    // an approval made here is seen at once
    await cachedStore.markAgentApproved(record.id);
    assert.equal((await cachedStore.findByApiKey(record.apiKey))?.record.agentStatus, "approved");
    // a revocation made here is seen at once, cache or not
    assert.equal(await cachedStore.revoke(record.id), true);
    assert.equal(await cachedStore.findByApiKey(record.apiKey), null);
    assert.equal(await cachedStore.agentOf(record.id), null);
    // an entry past its TTL is read again
    let t = 1_000_000;
    const shortStore = createApiKeyStore({
      db,
      box: createSecretBox("0f".repeat(32)),
      cacheTtlMs: 10,
      clock: { now: () => t },
    });
    const k = (await shortStore.create(input())).record;
    assert.equal((await shortStore.findByApiKey(k.apiKey))?.record.label, "bot");
    await db.query("UPDATE dex_api_keys SET label = 'renamed' WHERE id = $1", [k.id]);
    t += 9; // one millisecond before the TTL ends: still the cached copy
    assert.equal((await shortStore.findByApiKey(k.apiKey))?.record.label, "bot");
    t += 1; // at the TTL: read again
    assert.equal((await shortStore.findByApiKey(k.apiKey))?.record.label, "renamed");
  });
  test("with the cache on: lookups of one key in flight at once share one query; a revocation meanwhile is not cached", async () => {
    let selects = 0;
    const counting: Db = Object.assign(Object.create(db) as Db, {
      query: ((sql: string, params?: Parameters<Db["query"]>[1]) => {
        if (sql.startsWith("SELECT")) selects++;
        return db.query(sql, params);
      }) as Db["query"],
    });
    let t = 5_000_000;
    const s = createApiKeyStore({
      db: counting,
      box: createSecretBox("0f".repeat(32)),
      cacheTtlMs: 100,
      clock: { now: () => t },
    });
    const { record } = await s.create(input());
    // 16 orders of one key at once, the cache empty: one query each for the key and its agent
    const keys = await Promise.all(Array.from({ length: 16 }, () => s.findByApiKey(record.apiKey)));
    const agents = await Promise.all(Array.from({ length: 16 }, () => s.agentOf(record.id)));
    assert.equal(selects, 2);
    assert.ok(keys.every((k) => k?.record.id === record.id));
    assert.ok(agents.every((a) => a === agents[0] && a?.address === record.agentAddress));
    // past the TTL: read again (one query), the agent account the same object (its sealed key unchanged)
    t += 100;
    const again = await Promise.all(Array.from({ length: 8 }, () => s.agentOf(record.id)));
    assert.equal(selects, 3);
    assert.ok(again.every((a) => a === agents[0]));
    // a lookup under way when the key is revoked answers its callers, but what it read is not remembered
    t += 100;
    const inFlight = s.agentOf(record.id);
    assert.equal(await s.revoke(record.id), true);
    await inFlight;
    assert.equal(await s.agentOf(record.id), null);
    assert.equal(await s.findByApiKey(record.apiKey), null);
    // unknown keys: shared while in flight, never cached
    const before = selects;
    await Promise.all([s.findByApiKey("e".repeat(32)), s.findByApiKey("e".repeat(32))]);
    assert.equal(await s.findByApiKey("e".repeat(32)), null);
    assert.equal(selects, before + 2);
  });
});
