import { test } from "node:test";
import assert from "node:assert/strict";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { ecdsaSignatureProblem, parseStrictEcdsaSignature, SECP256K1_HALF_N, SECP256K1_N } from "./signature";
import { signatureEdgeCases } from "./signature-cases";

const word = (x: bigint) => x.toString(16).padStart(64, "0");
const sig = (r: bigint, s: bigint, v: number, tail = "") =>
  `0x${word(r)}${word(s)}${v.toString(16).padStart(2, "0")}${tail}`;

test("v: exactly 27 and 28 pass; 0, 1, 26, 29 are refused", () => {
  for (const v of [27, 28]) assert.equal(ecdsaSignatureProblem(sig(5n, 7n, v)), null, `v=${v}`);
  for (const v of [0, 1, 26, 29, 255]) assert.equal(ecdsaSignatureProblem(sig(5n, 7n, v)), "v", `v=${v}`);
});

test("s: 1 and n/2 pass; 0 and n/2 + 1 are refused", () => {
  assert.equal(ecdsaSignatureProblem(sig(5n, 1n, 27)), null);
  assert.equal(ecdsaSignatureProblem(sig(5n, SECP256K1_HALF_N, 27)), null);
  assert.equal(ecdsaSignatureProblem(sig(5n, SECP256K1_HALF_N - 1n, 27)), null);
  assert.equal(ecdsaSignatureProblem(sig(5n, SECP256K1_HALF_N + 1n, 27)), "s_high");
  assert.equal(ecdsaSignatureProblem(sig(5n, 0n, 27)), "s_zero");
  assert.equal(ecdsaSignatureProblem(sig(5n, SECP256K1_N - 1n, 27)), "s_high");
});

test("r: 1 and n - 1 pass; 0 and n are refused", () => {
  assert.equal(ecdsaSignatureProblem(sig(1n, 7n, 27)), null);
  assert.equal(ecdsaSignatureProblem(sig(SECP256K1_N - 1n, 7n, 27)), null);
  assert.equal(ecdsaSignatureProblem(sig(0n, 7n, 27)), "r");
  assert.equal(ecdsaSignatureProblem(sig(SECP256K1_N, 7n, 27)), "r");
  assert.equal(ecdsaSignatureProblem(sig((1n << 256n) - 1n, 7n, 27)), "r");
});

test("length: 65 bytes exactly; 64, 66 bytes, odd hex, non-hex are refused", () => {
  const good = sig(5n, 7n, 27);
  assert.equal(ecdsaSignatureProblem(good), null);
  assert.equal(ecdsaSignatureProblem(good.slice(0, 130)), "length");
  assert.equal(ecdsaSignatureProblem(`${good}00`), "length");
  assert.equal(ecdsaSignatureProblem(`${good}0`), "length");
  assert.equal(ecdsaSignatureProblem(`${good.slice(0, 131)}g`), "length");
  assert.equal(ecdsaSignatureProblem(good.slice(2)), "length");
  assert.equal(ecdsaSignatureProblem(""), "length");
});

test("parse returns the parts and the recovery id", () => {
  const p = parseStrictEcdsaSignature(sig(5n, 7n, 28));
  assert.ok(p.ok);
  if (p.ok) assert.deepEqual(p.sig, { r: 5n, s: 7n, v: 28, recoveryId: 1 });
  const q = parseStrictEcdsaSignature(sig(5n, 7n, 27));
  assert.ok(q.ok && q.sig.recoveryId === 0);
});

test("a real signature: only its own form and the flipped-v form pass among the edge cases' v variants", async () => {
  const acc = privateKeyToAccount(generatePrivateKey());
  const s = await acc.signMessage({ message: "x" });
  const expected: Record<string, boolean> = {
    "valid (v as signed)": true,
    "v flipped (27 <-> 28)": true,
    "v = 0 (v - 27)": false,
    "v = 1 (other parity)": false,
    "v = 26": false,
    "v = 29": false,
    "v = 27": true,
    "v = 28": true,
    "s = n/2 (largest low s)": true,
    "s = n/2 + 1 (smallest high s)": false,
    "s = n - s (mirror image)": false,
    "s = 0": false,
    "s = 1": true,
    "r = 0": false,
    "r = n": false,
    "r = n - 1": true,
    "length 64": false,
    "length 66": false,
  };
  for (const c of signatureEdgeCases(s))
    assert.equal(ecdsaSignatureProblem(c.signature) === null, expected[c.name], c.name);
});
