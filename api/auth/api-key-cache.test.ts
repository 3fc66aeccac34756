// The API key store's memory at its edges: what forget() drops and keeps, one lookup per key at a time, a
// lookup that raced a forget() not remembered, expiry, a TTL of 0, and the two size caps at their boundary.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ApiKeyCache } from "./api-key-cache";

interface Key {
  id: string;
}
const account = (n: number) => ({ address: `0x${String(n).padStart(40, "0")}` }) as never;

function cacheAt(ttlMs = 1_000) {
  const clock = { t: 1_000, now: () => clock.t };
  return { cache: new ApiKeyCache<Key>(ttlMs, clock, (k) => k.id), clock };
}

test("forget(id) moves the epoch on and drops that key's entries only", () => {
  const { cache } = cacheAt();
  cache.remember(cache.byApiKey, "api-a", { id: "a" });
  cache.remember(cache.byApiKey, "api-b", { id: "b" });
  cache.remember(cache.agents, "a", null);
  cache.keepAgentAccount("a", "sealed", account(1), cache.epoch);
  cache.pendingKeys.set("api-x", Promise.resolve(null));
  cache.forget("a");
  assert.equal(cache.epoch, 1);
  assert.deepEqual([...cache.byApiKey.keys()], ["api-b"]);
  assert.equal(cache.agents.has("a"), false);
  assert.equal(cache.agentAccounts.has("a"), false);
  assert.equal(cache.pendingKeys.size, 0);
});

test("one lookup per key at a time; its answer kept, and the next call looks up again", async () => {
  const { cache } = cacheAt();
  let lookups = 0;
  const kept: (Key | null)[] = [];
  const lookup = async () => {
    lookups++;
    return { id: "a" };
  };
  const keep = (v: Key | null) => kept.push(v);
  const [x, y] = await Promise.all([
    cache.singleFlight(cache.pendingKeys, "api-a", lookup, keep),
    cache.singleFlight(cache.pendingKeys, "api-a", lookup, keep),
  ]);
  assert.equal(lookups, 1);
  assert.equal(x, y);
  assert.equal(kept.length, 1);
  assert.equal(cache.pendingKeys.size, 0, "a finished lookup is not pending");
  await cache.singleFlight(cache.pendingKeys, "api-a", lookup, keep);
  assert.equal(lookups, 2);
});

test("a lookup that raced forget() answers its callers but is not kept", async () => {
  const { cache } = cacheAt();
  let release!: (k: Key) => void;
  const kept: (Key | null)[] = [];
  const p = cache.singleFlight(
    cache.pendingKeys,
    "api-a",
    () => new Promise<Key | null>((r) => (release = r)),
    (v) => kept.push(v),
  );
  cache.forget("a");
  release({ id: "a" });
  assert.deepEqual(await p, { id: "a" });
  assert.equal(kept.length, 0);
});

test("a newer lookup of the same key stays pending when an older one settles", async () => {
  const { cache } = cacheAt();
  let releaseOld!: (k: Key) => void;
  let failOld!: (e: Error) => void;
  const old = cache.singleFlight(
    cache.pendingKeys,
    "api-a",
    () => new Promise<Key>((r) => (releaseOld = r)),
    () => {},
  );
  cache.pendingKeys.delete("api-a");
  const newer = new Promise<Key | null>(() => {});
  cache.pendingKeys.set("api-a", newer);
  releaseOld({ id: "a" });
  await old;
  assert.equal(cache.pendingKeys.get("api-a"), newer);
  const failing = cache.singleFlight(
    cache.pendingAgents,
    "b",
    () => new Promise((_, j) => (failOld = j)),
    () => {},
  );
  const other = new Promise<null>(() => {});
  cache.pendingAgents.set("b", other);
  failOld(new Error("db down"));
  await assert.rejects(failing, /db down/);
  assert.equal(cache.pendingAgents.get("b"), other);
});

test("a failed lookup is not pending any more and is not kept", async () => {
  const { cache } = cacheAt();
  const kept: unknown[] = [];
  await assert.rejects(
    cache.singleFlight(
      cache.pendingKeys,
      "api-a",
      async () => Promise.reject(new Error("db down")),
      (v) => kept.push(v),
    ),
  );
  assert.equal(cache.pendingKeys.size, 0);
  assert.equal(kept.length, 0);
});

test("an entry lives until its TTL ends, exclusive, and is then dropped", () => {
  const { cache, clock } = cacheAt(1_000);
  cache.remember(cache.byApiKey, "api-a", { id: "a" });
  clock.t += 999;
  assert.deepEqual(cache.cached(cache.byApiKey, "api-a")?.value, { id: "a" });
  clock.t += 1;
  assert.equal(cache.cached(cache.byApiKey, "api-a"), undefined);
  assert.equal(cache.byApiKey.has("api-a"), false, "the expired entry is dropped");
  assert.equal(cache.cached(cache.byApiKey, "api-none"), undefined);
});

test("a TTL of 0 remembers nothing", () => {
  const { cache } = cacheAt(0);
  assert.deepEqual(cache.remember(cache.byApiKey, "api-a", { id: "a" }), { id: "a" });
  assert.equal(cache.byApiKey.size, 0);
});

test("the key map is cleared when it holds more than 10,000 entries, not at 10,000", () => {
  const { cache } = cacheAt();
  for (let i = 0; i < 10_000; i++) cache.remember(cache.byApiKey, `api-${i}`, { id: String(i) });
  cache.remember(cache.byApiKey, "api-10000", { id: "10000" });
  assert.equal(cache.byApiKey.size, 10_001);
  cache.remember(cache.byApiKey, "api-10001", { id: "10001" });
  assert.equal(cache.byApiKey.size, 1);
});

test("agent accounts: cleared at 10,000, not before; not kept after a forget()", () => {
  const { cache } = cacheAt();
  for (let i = 0; i < 9_999; i++) cache.keepAgentAccount(`k${i}`, "s", account(i), cache.epoch);
  cache.keepAgentAccount("k9999", "s", account(9_999), cache.epoch);
  assert.equal(cache.agentAccounts.size, 10_000);
  cache.keepAgentAccount("k10000", "s", account(10_000), cache.epoch);
  assert.equal(cache.agentAccounts.size, 1);
  const started = cache.epoch;
  cache.forget("zz");
  cache.keepAgentAccount("late", "s", account(1), started);
  assert.equal(cache.agentAccounts.has("late"), false);
});
