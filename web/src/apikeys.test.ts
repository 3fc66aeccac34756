import { test } from "node:test";
import assert from "node:assert/strict";
import { readKeyForm } from "./apikey-rules";

const base = { label: "bot", permissions: ["read", "trade"], positionLimit: "", dailyLossLimit: "" };

test("a key form becomes the API's body: trimmed label, permissions in the API's order, limits as given", () => {
  assert.deepEqual(
    readKeyForm({
      ...base,
      label: "  bot ",
      permissions: ["trade", "read"],
      positionLimit: "1000.5",
      dailyLossLimit: " 250 ",
    }),
    {
      ok: true,
      body: { label: "bot", permissions: ["read", "trade"], position_limit: "1000.5", daily_loss_limit: "250" },
    },
  );
  // no label, no limits: the fields are left out
  assert.deepEqual(readKeyForm({ ...base, label: "", permissions: ["read"] }), {
    ok: true,
    body: { permissions: ["read"] },
  });
});

test("a key form's refusals in words: label at 64 and 65 characters, no permission, bad and zero limits, 18 and 19 decimals", () => {
  assert.equal(readKeyForm({ ...base, label: "x".repeat(64) }).ok, true);
  const long = readKeyForm({ ...base, label: "x".repeat(65) });
  assert.ok(!long.ok && /65 characters long; 64 at most/.test(long.errors.label!));
  const none = readKeyForm({ ...base, permissions: [] });
  assert.ok(!none.ok && /at least one permission/.test(none.errors.permissions!));
  const unknown = readKeyForm({ ...base, permissions: ["admin"] });
  assert.ok(!unknown.ok && unknown.errors.permissions);
  for (const bad of ["abc", "-5", "1e3", "1,5", "0x10"]) {
    const r = readKeyForm({ ...base, positionLimit: bad });
    assert.ok(!r.ok && /must be a number such as/.test(r.errors.positionLimit!), bad);
  }
  const zero = readKeyForm({ ...base, dailyLossLimit: "0.000" });
  assert.ok(!zero.ok && /more than zero/.test(zero.errors.dailyLossLimit!));
  assert.equal(readKeyForm({ ...base, dailyLossLimit: `0.${"0".repeat(17)}1` }).ok, true);
  const tooFine = readKeyForm({ ...base, dailyLossLimit: `0.${"0".repeat(18)}1` });
  assert.ok(!tooFine.ok && tooFine.errors.dailyLossLimit);
});
