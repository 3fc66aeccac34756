import { test } from "node:test";
import assert from "node:assert/strict";
import { Order } from "./order";
import { OrderIndex } from "./order-index";

// Lookups must compare the id, not only its hash or its bucket: two ids whose 32-bit hashes are equal under
// one seed (found by a birthday search over a few hundred thousand ids), and ids that share a bucket.

const SEED = 12_345;
const A = "o-ixf6bu";
const B = "o-q1tzdd"; // same hash as A under SEED

function node(index: OrderIndex, id: string): Order {
  const o = new Order().init(id, undefined, "a", "X-Y", "buy", "limit", "GTC", 1, 0, 1, false, 0, 0, "cancel_newest");
  o.idHash = index.hash(id);
  return o;
}

/** An id whose hash lands in the same 1,024-bucket slot as `id` but differs from it. */
function bucketMate(index: OrderIndex, id: string): string {
  const h = index.hash(id);
  for (let i = 0; ; i++) {
    const k = `q${i}`;
    const hk = index.hash(k);
    if ((hk & 1023) === (h & 1023) && hk !== h) return k;
  }
}

test("OrderIndex: an id with the same hash or the same bucket as a stored one is not found", () => {
  const index = new OrderIndex(0, SEED);
  assert.equal(index.hash(A), index.hash(B), "the pair collides under this seed");
  const a = node(index, A);
  index.add(a);
  assert.equal(index.get(A), a);
  assert.equal(index.get(B), undefined);
  assert.equal(index.get(bucketMate(index, A)), undefined);
  const b = node(index, B);
  index.add(b);
  assert.equal(index.get(A), a);
  assert.equal(index.get(B), b);
  index.remove(a);
  assert.equal(index.get(A), undefined);
  assert.equal(index.get(B), b);
});

test("OrderIndex: while a doubling moves buckets, an id colliding with one still in the old table is not found", () => {
  const index = new OrderIndex(0, SEED);
  const a = node(index, A);
  index.add(a);
  for (let i = 0; !index.migrating; i++) index.add(node(index, `f${i}`));
  // A's bucket (1,014 of 1,024) is moved last: it is still in the old table.
  assert.equal(index.get(A), a);
  assert.equal(index.get(B), undefined);
  assert.equal(index.get(bucketMate(index, A)), undefined);
});
