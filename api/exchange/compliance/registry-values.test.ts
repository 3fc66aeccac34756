// recordLots' arguments refused here where the registry would refuse them: the sequence in 1..2^64-1, at most
// MAX_LOTS lots, each amount in 1..2^192-1; hold ends in whole seconds.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ComplianceError, MAX_LOTS, registryLotArgs } from "./registry-values";

const lot = (amountBaseUnits: bigint, holdEndMs = 1_500) => ({ amountBaseUnits, holdEndMs });

test("registryLotArgs: the sequence at 1 and 2^64-1 taken, 0 and 2^64 refused", () => {
  assert.deepEqual(registryLotArgs(1n, [lot(3n)]), [{ amount: 3n, holdEnd: 2n }]);
  assert.deepEqual(registryLotArgs((1n << 64n) - 1n, []), []);
  for (const bad of [0n, -1n, 1n << 64n])
    assert.throws(() => registryLotArgs(bad, []), {
      name: "ComplianceError",
      message: `lots sequence ${bad} is outside 1..2^64-1`,
    });
  assert.ok(new ComplianceError("x") instanceof Error);
});

test("registryLotArgs: MAX_LOTS lots taken, one more refused", () => {
  assert.equal(registryLotArgs(1n, Array(MAX_LOTS).fill(lot(1n))).length, MAX_LOTS);
  assert.throws(() => registryLotArgs(1n, Array(MAX_LOTS + 1).fill(lot(1n))), {
    message: `${MAX_LOTS + 1} lots: the registry keeps at most ${MAX_LOTS} per holder and token`,
  });
});

test("registryLotArgs: amounts 1 and 2^192-1 taken, 0 and 2^192 refused, naming the lot", () => {
  const top = (1n << 192n) - 1n;
  assert.deepEqual(registryLotArgs(1n, [lot(1n, 1_000), lot(top, 1_001)]), [
    { amount: 1n, holdEnd: 1n },
    { amount: top, holdEnd: 2n },
  ]);
  assert.throws(() => registryLotArgs(1n, [lot(1n), lot(0n)]), { message: "lot 1: amount 0 is outside 1..2^192-1" });
  assert.throws(() => registryLotArgs(1n, [lot(1n << 192n)]), {
    message: `lot 0: amount ${1n << 192n} is outside 1..2^192-1`,
  });
});
