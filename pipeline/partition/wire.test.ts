// The partition transport's codec (wire.ts): decodeWire (JSON.parse, then one walk for {"$n"}) answers
// exactly what the reviver-based decoder it replaced answered, for any JSON text, and is encodeWire's inverse.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { decodeWire, encodeWire } from "./wire";

/** The decoder before the walk: JSON.parse with a reviver (the reference). */
function reviverDecode(text: string): unknown {
  return JSON.parse(text, (_k, v: unknown) => {
    if (v !== null && typeof v === "object" && !Array.isArray(v)) {
      const n = (v as { $n?: unknown }).$n;
      if (Object.keys(v).length === 1 && typeof n === "string" && /^-?\d{1,80}$/.test(n)) return BigInt(n);
    }
    return v;
  });
}

/** JSON text with {"$n"} objects good and bad (decimals, 80 and 81 digits, nested, beside other keys, "__proto__"). */
const nValue = fc.oneof(
  fc.bigInt({ min: -(10n ** 80n) + 1n, max: 10n ** 80n - 1n }).map((b) => b.toString()),
  fc.constantFrom("1.5", "", "-", "1e3", " 1", "9".repeat(81), `-${"9".repeat(80)}`, "0x10", "٣"),
  fc.string(),
);
const { json } = fc.letrec((tie) => ({
  json: fc.oneof(
    { depthSize: "small" },
    fc.oneof(
      fc.string(),
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.boolean(),
      fc.constant(null),
    ),
    nValue.map((n) => ({ $n: n })),
    fc.tuple(nValue, tie("json")).map(([n, x]) => ({ $n: n, other: x })),
    tie("json").map((x) => ({ $n: x })),
    fc.array(tie("json"), { maxLength: 4 }),
    fc.dictionary(fc.oneof(fc.string(), fc.constantFrom("$n", "__proto__", "constructor")), tie("json"), {
      maxKeys: 4,
    }),
  ),
}));

const show = (v: unknown) => JSON.stringify(v, (_k, x: unknown) => (typeof x === "bigint" ? `bigint:${x}` : x));

test("codec: decodeWire equals the reviver decoder on any JSON text (good and bad {$n}, nesting, __proto__ keys)", () => {
  fc.assert(
    fc.property(json, (v) => {
      const text = JSON.stringify(v);
      const a = decodeWire(text);
      const b = reviverDecode(text);
      assert.equal(show(a), show(b));
      assert.deepEqual(a, b);
    }),
    { numRuns: 2000 },
  );
  // a frame naming "__proto__" keeps it an own property; nothing reaches a prototype
  const p = decodeWire('{"__proto__":{"$n":"7"},"a":{"__proto__":{"polluted":true}}}') as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(p), Object.prototype);
  assert.equal(Object.getOwnPropertyDescriptor(p, "__proto__")?.value, 7n);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

test("codec: encodeWire then decodeWire gives back every bigint (past 2^64, negative, nested) and every other value", () => {
  fc.assert(
    fc.property(
      fc.dictionary(
        fc.string(),
        fc.oneof(fc.bigInt(), fc.array(fc.bigInt(), { maxLength: 3 }), fc.string(), fc.integer(), fc.constant(null)),
      ),
      // (compared as text: fast-check's dictionaries may have a null prototype, a decoded frame never has)
      (v) => assert.equal(show(decodeWire(encodeWire(v))), show(v)),
    ),
    { numRuns: 500 },
  );
  assert.throws(() => decodeWire("{not json"));
});
