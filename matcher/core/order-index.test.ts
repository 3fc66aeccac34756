import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { Order } from "./order";
import { OrderIndex, hashOrderId } from "./order-index";
import { MatchingEngine } from "./engine";

function node(index: OrderIndex, id: string): Order {
  const o = new Order().init(id, undefined, "a", "X-Y", "buy", "limit", "GTC", 1, 0, 1, false, 0, 0, "cancel_newest");
  o.idHash = index.hash(id);
  return o;
}

test("OrderIndex behaves like a Map under random add/remove/get, across doublings (fast-check)", () => {
  // Keys from a small alphabet so that the same id comes back after its removal; up to 3,000 live ids push
  // the 1,024-bucket table through two doublings, with removals while buckets are still migrating.
  const op = fc.oneof(
    { weight: 3, arbitrary: fc.record({ kind: fc.constant("add" as const), key: fc.integer({ min: 0, max: 4_000 }) }) },
    {
      weight: 1,
      arbitrary: fc.record({ kind: fc.constant("remove" as const), key: fc.integer({ min: 0, max: 4_000 }) }),
    },
  );
  fc.assert(
    fc.property(fc.array(op, { minLength: 3_000, maxLength: 6_000 }), fc.integer(), (ops, seed) => {
      const model = new Map<string, Order>();
      const index = new OrderIndex(0, seed);
      let sawMigration = false;
      for (const o of ops) {
        const key = `k${o.key}`;
        if (o.kind === "add") {
          if (model.has(key)) continue;
          const n = node(index, key);
          // A doubling is due: its table was built ahead, whatever removals came between.
          if (index.size === index.capacity)
            assert.equal(index.prepared, 2 * index.capacity, `next table at the doubling of ${index.capacity}`);
          index.add(n);
          model.set(key, n);
        } else {
          const n = model.get(key);
          if (n === undefined) continue;
          index.remove(n);
          model.delete(key);
        }
        sawMigration ||= index.migrating;
        assert.ok(index.prepared <= 2 * index.capacity);
        assert.equal(index.size, model.size);
        assert.equal(index.get(key), model.get(key));
      }
      for (const [k, v] of model) assert.equal(index.get(k), v);
      for (let k = 0; k <= 4_000; k++) if (!model.has(`k${k}`)) assert.equal(index.get(`k${k}`), undefined);
      assert.deepEqual(new Set(index.values()), new Set(model.values()));
      if (model.size > 1_024) assert.ok(index.capacity >= 2_048 && (sawMigration || index.capacity > 2_048));
    }),
    { numRuns: 40, endOnFailure: true },
  );
});

test("OrderIndex: the doubling moves buckets a few at a time and ends before the next one is due", () => {
  const index = new OrderIndex(0, 7);
  const nodes: Order[] = [];
  for (let i = 0; i < 1_024; i++) index.add((nodes[i] = node(index, `o${i}`)));
  assert.equal(index.capacity, 1_024);
  assert.equal(index.migrating, false);
  index.add((nodes[1_024] = node(index, "o1024"))); // count reached the bucket count: doubling starts
  assert.equal(index.capacity, 2_048);
  assert.equal(index.migrating, true);
  for (let i = 1_025; i < 1_279; i++) {
    index.add((nodes[i] = node(index, `o${i}`)));
    assert.equal(index.migrating, true, `still migrating after ${i}`);
  }
  index.add((nodes[1_279] = node(index, "o1279"))); // 256 inserts x 4 buckets = the 1,024 old buckets
  assert.equal(index.migrating, false);
  for (const n of nodes) assert.equal(index.get(n.orderId), n);
  assert.equal(index.get("o1280"), undefined);
});

test("OrderIndex: the doubled table is built ahead, 8 buckets an insert from half full, complete before the doubling", () => {
  const index = new OrderIndex(0, 11);
  const add = (i: number) => index.add(node(index, `o${i}`));
  for (let i = 0; i < 512; i++) add(i);
  assert.equal(index.prepared, 0, "nothing built below half the bucket count");
  add(512);
  assert.equal(index.prepared, 8, "the first insert at half full builds 8");
  for (let i = 513; i < 767; i++) add(i);
  assert.equal(index.prepared, 2_040);
  add(767);
  assert.equal(index.prepared, 2_048, "complete at 768 of 1,024");
  for (let i = 768; i < 1_024; i++) add(i);
  assert.equal(index.prepared, 2_048, "no more than the doubled size");
  assert.equal(index.capacity, 1_024);
  add(1_024); // the doubling takes the prepared table and starts the next one empty
  assert.equal(index.capacity, 2_048);
  assert.equal(index.prepared, 0);
  for (let i = 1_025; i < 1_280; i++) add(i);
  assert.equal(index.migrating, false);
  assert.equal(index.prepared, 0, "nothing built while the doubling migrates");
  add(1_280);
  assert.equal(index.prepared, 8);
  for (let i = 1_281; i < 2_048; i++) add(i);
  assert.equal(index.prepared, 4_096, "complete before the count reaches 2,048");
  for (let i = 0; i < 2_048; i++) assert.equal(index.get(`o${i}`)?.orderId, `o${i}`);
  assert.equal(index.get("o2048"), undefined);
});

test("OrderIndex: ids that share their last characters, counters and UUID-like ids all spread over the buckets", () => {
  for (const make of [
    (i: number) => `order-${i}`,
    (i: number) => `${i}-same-suffix`,
    (i: number) => `0x${i.toString(16).padStart(64, "0")}`,
  ]) {
    const index = new OrderIndex(65_536, 12345);
    const chains = new Map<number, number>();
    for (let i = 0; i < 65_536; i++) {
      const b = hashOrderId(make(i), index.seed) & (index.capacity - 1);
      chains.set(b, (chains.get(b) ?? 0) + 1);
    }
    // Uniform hashing of 65,536 keys into 65,536 buckets: the longest chain is ~8; 16 would mean clustering.
    assert.ok(Math.max(...chains.values()) <= 16, `longest chain ${Math.max(...chains.values())} for ${make(1)}`);
  }
});

test("OrderIndex: ids chosen to collide under one seed spread under another (the seed is per engine and secret)", () => {
  // An attacker who knew seed 1 could pick 200 ids for one bucket of a 1,024-bucket table...
  const mask = 1_023;
  const chosen: string[] = [];
  for (let i = 0; chosen.length < 200; i++) if ((hashOrderId(`x${i}`, 1) & mask) === 0) chosen.push(`x${i}`);
  // ...but under any other seed they land ~uniformly: no bucket holds more than a handful.
  for (const seed of [2, 0x5eed, -123456789]) {
    const chains = new Map<number, number>();
    for (const id of chosen)
      chains.set(hashOrderId(id, seed) & mask, (chains.get(hashOrderId(id, seed) & mask) ?? 0) + 1);
    assert.ok(Math.max(...chains.values()) <= 6, `seed ${seed}: longest chain ${Math.max(...chains.values())}`);
  }
  // Two engines draw different seeds.
  assert.notEqual(new OrderIndex().seed, new OrderIndex().seed);
});

test("the engine finds, cancels and rejects duplicates of 5,000 open orders while its index doubles (no reserve)", () => {
  const e = new MatchingEngine({ markets: [{ symbol: "ETH-USDC", minSizeLots: 1, maxSizeLots: 1_000 }] });
  const place = (i: number) =>
    e.apply({
      kind: "place",
      ts: 1,
      account: `a${i % 7}`,
      orderId: `id-${i}`,
      symbol: "ETH-USDC",
      side: "buy",
      type: "limit",
      timeInForce: "GTC",
      priceTicks: 100 + (i % 50),
      sizeLots: 1,
    });
  for (let i = 0; i < 5_000; i++) assert.equal(place(i)[0].type, "accepted");
  assert.equal(e.orders.size, 5_000);
  assert.equal(e.orders.capacity, 8_192);
  const dup = place(4_321);
  assert.deepEqual(
    dup.map((x) => [x.type, x.type === "rejected" ? x.code : ""]),
    [["rejected", "DUPLICATE_ORDER_ID"]],
  );
  for (let i = 0; i < 5_000; i += 2)
    assert.equal(e.apply({ kind: "cancel", ts: 2, account: `a${i % 7}`, orderId: `id-${i}` })[0].type, "cancelled");
  for (let i = 0; i < 5_000; i++) assert.equal(e.getOrder(`id-${i}`)?.orderId, i % 2 === 0 ? undefined : `id-${i}`);
  assert.equal(e.orders.size, 2_500);
  assert.equal(e.getOrder(undefined as unknown as string), undefined);
  // A cancelled id may be used again.
  assert.equal(place(0)[0].type, "accepted");
});
