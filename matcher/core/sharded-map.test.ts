import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { ShardedMap } from "./sharded-map";

test("ShardedMap behaves like a Map under random set/delete/get (fast-check)", () => {
  const op = fc.oneof(
    fc.record({ kind: fc.constant("set" as const), key: fc.string({ maxLength: 6 }), value: fc.integer() }),
    fc.record({ kind: fc.constant("delete" as const), key: fc.string({ maxLength: 6 }) }),
  );
  fc.assert(
    fc.property(fc.array(op, { maxLength: 200 }), (ops) => {
      const model = new Map<string, number>();
      const sharded = new ShardedMap<number>(3);
      for (const o of ops) {
        if (o.kind === "set") {
          model.set(o.key, o.value);
          sharded.set(o.key, o.value);
        } else {
          assert.equal(sharded.delete(o.key), model.delete(o.key));
        }
        assert.equal(sharded.size, model.size);
      }
      for (const [k, v] of model) {
        assert.equal(sharded.get(k), v);
        assert.equal(sharded.has(k), true);
      }
      assert.deepEqual([...sharded.values()].sort(), [...model.values()].sort());
    }),
  );
});

test("ShardedMap spreads UUID-like and counter ids over its shards", () => {
  const m = new ShardedMap<number>(6);
  for (let i = 0; i < 64_000; i++) m.set(`order-${i}`, i);
  const sizes = (m as unknown as { shards: Map<string, number>[] }).shards.map((s) => s.size);
  assert.equal(sizes.reduce((a, b) => a + b, 0), 64_000);
  // no shard holds more than 4x its fair share, so a shard's rehash stays a small fraction of the table
  assert.ok(Math.max(...sizes) <= 4 * (64_000 / 64), `largest shard ${Math.max(...sizes)}`);
});
