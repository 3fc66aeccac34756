// The simulator component's history deadline: SIMULATOR_HISTORY_BUDGET_S after the stack's start began, and at
// least HISTORY_MIN_MS from the replay's own start (a few instants of history on a slow start).
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Config } from "../../../config";
import { HISTORY_MIN_MS, historyDeadline } from "./simulator";

const ctx = (startedAtMs: number, historyBudgetS: number) => ({
  startedAtMs,
  config: { simulator: { historyBudgetS } } as unknown as Config,
});

test("historyDeadline: the budget counts from the stack's start; at least HISTORY_MIN_MS from now", () => {
  assert.equal(historyDeadline(ctx(1_000_000, 40), 1_010_000), 1_040_000, "30 s left of 40");
  assert.equal(historyDeadline(ctx(1_000_000, 40), 1_035_000), 1_040_000, "exactly 5 s left");
  assert.equal(historyDeadline(ctx(1_000_000, 40), 1_035_001), 1_035_001 + HISTORY_MIN_MS, "less than 5 s left");
  assert.equal(historyDeadline(ctx(1_000_000, 40), 1_090_000), 1_090_000 + HISTORY_MIN_MS, "past the budget");
});
