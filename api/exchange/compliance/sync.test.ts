// registryLots: the lots the registry is given from the ledger's (pure): expired ones dropped, at most MAX_LOTS,
// the oldest merged with the later hold end (the chain never frees a unit before the exchange does).
import assert from "node:assert/strict";
import { test } from "node:test";
import { MAX_LOTS } from "./registry-values";
import { registryLots } from "./sync";

const NOW = 1_800_000_000_000;

test("registryLots: a lot whose hold ends at now is dropped, one ms later kept; empty lots dropped", () => {
  assert.deepEqual(
    registryLots(
      [
        { units: 5n, holdEndMs: NOW },
        { units: 0n, holdEndMs: NOW + 5 },
        { units: 7n, holdEndMs: NOW + 1 },
      ],
      NOW,
    ),
    [{ amountBaseUnits: 7n, holdEndMs: NOW + 1 }],
  );
});

test("registryLots: MAX_LOTS kept as they are, one more merges the two oldest into the later hold end", () => {
  const lots = (n: number) =>
    Array.from({ length: n }, (_, i) => ({ units: BigInt(i + 1), holdEndMs: NOW + 1000 * (i + 1) }));
  const at = registryLots(lots(MAX_LOTS), NOW);
  assert.equal(at.length, MAX_LOTS);
  assert.deepEqual(at[0], { amountBaseUnits: 1n, holdEndMs: NOW + 1000 });
  const past = registryLots(lots(MAX_LOTS + 1), NOW);
  assert.equal(past.length, MAX_LOTS);
  assert.deepEqual(past[0], { amountBaseUnits: 3n, holdEndMs: NOW + 2000 });
  const total = (l: { amountBaseUnits: bigint }[]) => l.reduce((s, x) => s + x.amountBaseUnits, 0n);
  assert.equal(total(past), total(lots(MAX_LOTS + 1).map((l) => ({ amountBaseUnits: l.units }))), "no unit lost");
  assert.equal(registryLots(lots(MAX_LOTS * 3), NOW).length, MAX_LOTS);
});
