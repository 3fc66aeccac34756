// decodePackedBatch is the exact inverse of encodePackedBatch: for random batches (both signature forms, both
// fill forms), decode(encode(args)) is args; bytes the contract refuses (cut short, trailing bytes, an order or
// token index out of range, not hex) throw.
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import type { Hex } from "viem";
import type { Order } from "./eip712";
import { decodePackedBatch, encodePackedBatch, type SettleArgs } from "./settle-batch";

const hexBytes = (min: number, max: number) =>
  fc.uint8Array({ minLength: min, maxLength: max }).map((b) => `0x${Buffer.from(b).toString("hex")}` as Hex);
const u = (bits: bigint) => fc.bigInt({ min: 0n, max: (1n << bits) - 1n });
const S_MAX = (1n << 255n) - 1n;

/** A 65-byte r ‖ s ‖ v signature the compact form stands for (v 27 or 28, s below 2^255). */
const compactable = fc
  .tuple(u(256n), fc.bigInt({ min: 0n, max: S_MAX }), fc.constantFrom(27, 28))
  .map(
    ([r, s, v]) => `0x${r.toString(16).padStart(64, "0")}${s.toString(16).padStart(64, "0")}${v.toString(16)}` as Hex,
  );
/** Signatures that travel with their length: any bytes (ERC-1271), and 65-byte ones the compact form cannot hold. */
const withLength = fc.oneof(
  hexBytes(0, 200),
  fc
    .tuple(hexBytes(64, 64), fc.constantFrom(0, 1, 29))
    .map(([rs, v]) => `${rs}${v.toString(16).padStart(2, "0")}` as Hex),
  fc
    .tuple(hexBytes(32, 32), fc.bigInt({ min: 1n << 255n, max: (1n << 256n) - 1n }))
    .map(([r, s]) => `${r}${s.toString(16)}1b` as Hex),
);

const address = hexBytes(20, 20);
const orderArb = (tokens: Hex[]): fc.Arbitrary<Order> =>
  fc.record({
    trader: address,
    baseToken: fc.constantFrom(...tokens),
    quoteToken: fc.constantFrom(...tokens),
    side: fc.constantFrom(0 as const, 1 as const),
    price: u(128n),
    amount: u(128n),
    expiry: u(64n),
    nonce: u(64n),
    flags: fc.integer({ min: 0, max: 63 }),
  });

const batchArb: fc.Arbitrary<SettleArgs> = fc
  .uniqueArray(address, { minLength: 1, maxLength: 4 })
  .chain((tokens) => fc.array(orderArb(tokens), { minLength: 1, maxLength: 6 }))
  .chain((orders) =>
    fc.record({
      orders: fc.constant(orders),
      signatures: fc.tuple(...orders.map(() => fc.oneof(compactable, withLength))),
      fills: fc.array(
        fc
          .record({
            makerIndex: fc.nat(orders.length - 1),
            takerIndex: fc.nat(orders.length - 1),
            baseAmount: u(128n),
            price: u(128n),
            atMakerPrice: fc.boolean(),
          })
          .map(({ atMakerPrice, ...f }) => (atMakerPrice ? { ...f, price: orders[f.makerIndex]!.price } : f)),
        { maxLength: 6 },
      ),
    }),
  )
  // plain objects, as the decoder makes them (fast-check's records have no prototype)
  .map((a) => ({
    orders: a.orders.map((o) => ({ ...o })),
    signatures: [...a.signatures],
    fills: a.fills.map((f) => ({ ...f })),
  }));
const optionsArb = fc.record({ explicitPrices: fc.boolean(), explicitSignatures: fc.boolean() });

test("decodePackedBatch(encodePackedBatch(args)) is args, for random batches in both forms", () => {
  fc.assert(
    fc.property(batchArb, optionsArb, (args, options) => {
      assert.deepEqual(decodePackedBatch(encodePackedBatch(args, options)), args);
    }),
    { numRuns: 500 },
  );
});

test("both short forms are taken: a fill at its maker's price is 20 bytes, a 65-byte signature 64", () => {
  fc.assert(
    fc.property(batchArb, (args) => {
      const short = encodePackedBatch(args);
      const long = encodePackedBatch(args, { explicitPrices: true, explicitSignatures: true });
      const atMaker = args.fills.filter((f) => f.price === args.orders[f.makerIndex]!.price).length;
      const compact = args.signatures.filter((s) => {
        const v = Number.parseInt(s.slice(130), 16);
        return s.length === 132 && (v === 27 || v === 28) && BigInt(`0x${s.slice(66, 130)}`) <= S_MAX;
      }).length;
      assert.equal((long.length - short.length) / 2, atMaker * 16 + compact * 3);
    }),
    { numRuns: 200 },
  );
});

test("decodePackedBatch refuses every cut, trailing bytes and bytes that are not hex", () => {
  fc.assert(
    fc.property(batchArb, optionsArb, fc.nat(), hexBytes(1, 8), (args, options, cut, extra) => {
      const bytes = encodePackedBatch(args, options);
      const at = 2 + 2 * (cut % ((bytes.length - 2) / 2));
      assert.throws(() => decodePackedBatch(bytes.slice(0, at) as Hex), /cut short/);
      assert.throws(() => decodePackedBatch(`${bytes}${extra.slice(2)}` as Hex), /trailing bytes/);
    }),
    { numRuns: 300 },
  );
  assert.throws(() => decodePackedBatch("0x0g"), /not hex/);
  assert.throws(() => decodePackedBatch("0x000" as Hex), /not hex/);
});

test("decodePackedBatch refuses a fill or an order naming an index past its table", () => {
  const token = `0x${"11".repeat(20)}` as Hex;
  const order: Order = {
    trader: `0x${"22".repeat(20)}`,
    baseToken: token,
    quoteToken: token,
    side: 0,
    price: 5n,
    amount: 7n,
    expiry: 9n,
    nonce: 3n,
    flags: 0,
  };
  const args = (makerIndex: number, takerIndex: number): SettleArgs => ({
    orders: [order, { ...order, side: 1 }],
    signatures: ["0x", "0x"],
    fills: [{ makerIndex, takerIndex, baseAmount: 1n, price: 6n }],
  });
  assert.equal(decodePackedBatch(encodePackedBatch(args(1, 0))).fills.length, 1);
  assert.throws(() => decodePackedBatch(encodePackedBatch(args(2, 0))), /fill 0 names an order past 2/);
  assert.throws(() => decodePackedBatch(encodePackedBatch(args(0, 2))), /fill 0 names an order past 2/);
  // at its maker's price, the maker index is read before the price it stands for
  const atMaker = encodePackedBatch({
    ...args(1, 0),
    fills: [{ makerIndex: 1, takerIndex: 0, baseAmount: 1n, price: 5n }],
  });
  const fillAt = atMaker.length - 2 * 20;
  assert.throws(
    () => decodePackedBatch(`${atMaker.slice(0, fillAt)}8002${atMaker.slice(fillAt + 4)}` as Hex),
    /past 2/,
  );
  // the first order's base token index (after the 21-byte token table, the order count and its trader)
  const baseAt = 2 + 2 * (21 + 2 + 20);
  const good = encodePackedBatch(args(1, 0));
  assert.throws(
    () => decodePackedBatch(`${good.slice(0, baseAt)}01${good.slice(baseAt + 2)}` as Hex),
    /order 0 names a base token past 1/,
  );
});
