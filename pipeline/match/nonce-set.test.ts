import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { NonceSet } from "./nonce-set";

// what the old snapshot format wrote from a Set<bigint>: the reference for runs()
function runsOf(set: ReadonlySet<bigint>): string {
  const sorted = [...set].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const out: string[] = [];
  for (let k = 0; k < sorted.length; ) {
    let j = k;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1n) j++;
    out.push(j === k ? sorted[k].toString() : `${sorted[k]}+${j - k + 1}`);
    k = j + 1;
  }
  return out.join(",");
}

test("NonceSet answers as a Set<bigint> under any sequence of add / delete, and its runs round-trip", () => {
  const nonce = fc.oneof(fc.bigInt({ min: 0n, max: 40n }), fc.bigInt({ min: 2n ** 63n - 5n, max: 2n ** 63n + 5n }));
  const op = fc.tuple(fc.constantFrom("add", "delete"), nonce);
  fc.assert(
    fc.property(fc.array(op, { maxLength: 200 }), fc.array(nonce, { maxLength: 30 }), (ops, probes) => {
      const ref = new Set<bigint>();
      const s = new NonceSet();
      for (const [kind, n] of ops) {
        if (kind === "add") {
          ref.add(n);
          s.add(n);
        } else assert.equal(s.delete(n), ref.delete(n));
      }
      for (const n of [...probes, ...ops.map(([, n]) => n)]) assert.equal(s.has(n), ref.has(n), `has(${n})`);
      assert.equal(s.runs(), runsOf(ref));
      const back = NonceSet.fromRuns(s.runs());
      assert.equal(back.runs(), s.runs());
      for (const n of probes) assert.equal(back.has(n), ref.has(n));
    }),
    { numRuns: 500 },
  );
});

test("NonceSet: a run's edges, one past them, a split and a merge", () => {
  const s = NonceSet.fromRuns("10+5"); // 10..14
  assert.equal(s.has(9n), false);
  assert.equal(s.has(10n), true);
  assert.equal(s.has(14n), true);
  assert.equal(s.has(15n), false);
  assert.equal(s.delete(12n), true); // split
  assert.equal(s.runs(), "10+2,13+2");
  assert.equal(s.has(12n), false);
  s.add(12n); // merge back
  assert.equal(s.runs(), "10+5");
  assert.equal(s.runCount, 1);
  s.add(15n);
  s.add(9n);
  assert.equal(s.runs(), "9+7");
  assert.equal(s.delete(100n), false);
});

test("NonceSet.fromRuns: unsorted, overlapping or adjacent runs merge; 100,000 dense nonces are one run", () => {
  assert.equal(NonceSet.fromRuns("20+2,1+3,3+4,7").runs(), "1+7,20+2");
  assert.equal(NonceSet.fromRuns("").runs(), "");
  assert.throws(() => NonceSet.fromRuns("5+0"));
  const dense = new NonceSet();
  for (let i = 1n; i <= 100_000n; i++) dense.add(i);
  assert.equal(dense.runCount, 1);
  assert.equal(dense.runs(), "1+100000");
  assert.equal(NonceSet.fromRuns("1+100000").has(100_000n), true);
  assert.equal(NonceSet.fromRuns("1+100000").has(100_001n), false);
});
