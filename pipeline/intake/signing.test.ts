import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { addressArb as addr, orderArb } from "../testing/order-arbitraries";
import { hashTypedData, type Address } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { ORDER_TYPES, getSettlementDomain as settlementDomain, type Order } from "../order";
import { createOrderDigester, getDomainSeparator } from "../../runtime/order-digest";
import { recoverSigner } from "./recover";
import { keccak256Bytes, keccakBackend, nobleKeccak256 } from "../../runtime/keccak";
import { fixtureOrder } from "../testing/batcher-fixture";

const domain = settlementDomain(31337, "0x5FbDB2315678afecb367f032d93F642f64180aa3");
const digest = createOrderDigester(getDomainSeparator(domain));

test("the hand-encoded digest equals viem's hashTypedData for any order", () => {
  fc.assert(
    fc.property(orderArb, (o: Order) => {
      assert.equal(digest(o), hashTypedData({ domain, types: ORDER_TYPES, primaryType: "Order", message: o }));
    }),
    { numRuns: 300 },
  );
});

test("an order object changed after it was hashed is hashed anew (the digest remembered per object is checked field by field)", () => {
  const other = createOrderDigester(
    getDomainSeparator(settlementDomain(31338, "0x5FbDB2315678afecb367f032d93F642f64180aa3")),
  );
  const viemDigest = (o: Order) => hashTypedData({ domain, types: ORDER_TYPES, primaryType: "Order", message: o });
  fc.assert(
    fc.property(orderArb, orderArb, fc.integer({ min: 0, max: 8 }), (o: Order, p: Order, k: number) => {
      const order = { ...o };
      assert.equal(digest(order), viemDigest(order));
      assert.equal(digest(order), viemDigest(order)); // remembered
      // one field changed in place: the digest follows it
      const key = (
        ["trader", "baseToken", "quoteToken", "side", "price", "amount", "expiry", "nonce", "flags"] as const
      )[k];
      (order as Record<string, unknown>)[key] = p[key];
      assert.equal(digest(order), viemDigest(order));
      // another domain's digester never answers with this domain's digest
      assert.notEqual(other(order), digest(order));
      assert.equal(digest(order), viemDigest(order));
    }),
    { numRuns: 300 },
  );
});

test("the digest refuses an address that is not 40 hex digits", () => {
  const o = fixtureOrder(1n, {
    trader: "0x00000000000000000000000000000000000000a1",
    baseToken: "0x00000000000000000000000000000000000000b2",
    quoteToken: "0x00000000000000000000000000000000000000c3",
  });
  assert.equal(digest(o), hashTypedData({ domain, types: ORDER_TYPES, primaryType: "Order", message: o }));
  for (const bad of [
    "0x00000000000000000000000000000000000000g1",
    "0x00000000000000000000000000000000000000a",
    "0x00000000000000000000000000000000000000a1ff",
  ]) {
    assert.throws(() => digest({ ...o, trader: bad as Address }), /not an address/);
  }
});

test("recoverSigner returns the signer, null for a tampered or high-s signature", async () => {
  const acc = privateKeyToAccount(generatePrivateKey());
  const o: Order = {
    trader: acc.address,
    baseToken: acc.address,
    quoteToken: acc.address,
    side: 0,
    price: 10n,
    amount: 5n,
    expiry: 99n,
    nonce: 7n,
    flags: 0,
  };
  const sig = await acc.signTypedData({ domain, types: ORDER_TYPES, primaryType: "Order", message: o });
  assert.equal(recoverSigner(digest(o), sig)?.toLowerCase(), acc.address.toLowerCase());
  const other = digest({ ...o, amount: 6n });
  assert.notEqual(recoverSigner(other, sig)?.toLowerCase(), acc.address.toLowerCase());
  // s' = n - s with flipped v recovers the same key on plain ECDSA; the high-s form must be refused
  const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
  const s = BigInt(`0x${sig.slice(66, 130)}`);
  const v = parseInt(sig.slice(130), 16);
  const high = (sig.slice(0, 66) + (n - s).toString(16).padStart(64, "0") + (v === 27 ? "1c" : "1b")) as `0x${string}`;
  assert.equal(recoverSigner(digest(o), high), null);
  assert.equal(recoverSigner(digest(o), "0x1234"), null);
  assert.equal(recoverSigner(digest(o), `${sig.slice(0, 130)}05` as `0x${string}`), null);
});

test("the native keccak and @noble/hashes agree on every length around the 136-byte rate", () => {
  assert.equal(keccakBackend, "native");
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 0, maxLength: 420 }), (data) => {
      assert.deepEqual(Buffer.from(keccak256Bytes(data)), Buffer.from(nobleKeccak256(data)));
    }),
    { numRuns: 300 },
  );
});

test("signSettleTx gives viem's signed bytes and hash for any settle-like transaction", async () => {
  const { signSettleTx } = await import("../settle/tx-sign");
  const { keccak256 } = await import("viem");
  await fc.assert(
    fc.asyncProperty(
      fc.uint8Array({ minLength: 0, maxLength: 3000 }),
      fc.nat({ max: 1_000_000 }),
      fc.bigInt({ min: 21_000n, max: 16_000_000n }),
      fc.bigInt({ min: 1n, max: 10n ** 12n }),
      addr,
      fc.constantFrom(31337, 31338, 1),
      fc.array(fc.uint8Array({ minLength: 32, maxLength: 32 }), { maxLength: 8 }),
      async (bytes, nonce, gas, gasPrice, to, chainId, keys) => {
        const key = generatePrivateKey();
        const data = `0x${Buffer.from(bytes).toString("hex")}` as `0x${string}`;
        const storageKeys = keys.map((k) => `0x${Buffer.from(k).toString("hex")}` as `0x${string}`);
        const accessList = storageKeys.length === 0 ? [] : [{ address: to, storageKeys }];
        const tx = { chainId, to, data, nonce, gas, gasPrice, accessList };
        const ours = signSettleTx(tx, key);
        const viems = await privateKeyToAccount(key).signTransaction({ ...tx, type: "eip2930" });
        assert.equal(ours.raw, viems);
        assert.equal(ours.hash, keccak256(viems));
      },
    ),
    { numRuns: 40 },
  );
});

test("the recover pool answers like inline recovery, in request order, and falls back inline after close", async () => {
  const { createRecoverPool } = await import("./recover-pool");
  const pool = createRecoverPool(1);
  try {
    const cases = await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const acc = privateKeyToAccount(generatePrivateKey());
        const o: Order = {
          trader: acc.address,
          baseToken: acc.address,
          quoteToken: acc.address,
          side: i % 2 === 0 ? 0 : 1,
          price: BigInt(i + 1),
          amount: 1n,
          expiry: 1n,
          nonce: BigInt(i),
          flags: 0,
        };
        const d = digest(o);
        const sig = await acc.sign({ hash: d });
        // every 5th one tampered: recovers to someone else (or nothing)
        const used =
          i % 5 === 0 ? ((sig.slice(0, 10) + (sig[10] === "0" ? "1" : "0") + sig.slice(11)) as `0x${string}`) : sig;
        return { d, used };
      }),
    );
    const pooled = await Promise.all(cases.map((c) => pool.recover(c.d, c.used)));
    assert.deepEqual(
      pooled,
      cases.map((c) => recoverSigner(c.d, c.used)),
    );
    assert.ok(pooled.filter((a) => a !== null).length >= 32);
  } finally {
    await pool.close();
  }
  const c = digest(fixtureOrder(1n));
  const acc = privateKeyToAccount(generatePrivateKey());
  const sig = await acc.sign({ hash: c });
  assert.equal((await pool.recover(c, sig))?.toLowerCase(), acc.address.toLowerCase(), "after close: inline");
});
