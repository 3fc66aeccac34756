import { test } from "node:test";
import assert from "node:assert/strict";
import type { Command } from "./types";
import { newEngine, order, run } from "../testing/helpers";

// Every refusal tells its owner why: the code and the reason text of each rejection the engine gives for
// malformed commands and impossible cancels and amends.

const refusal = (e: ReturnType<typeof newEngine>, cmd: unknown) => {
  const [ev] = e.apply(cmd as Command);
  assert.equal(ev.type, "rejected");
  return ev.type === "rejected" ? [ev.code, ev.reason] : [];
};

test("the engine's rejections carry their code and a reason saying what was wrong", () => {
  const e = newEngine();
  run(e, order({ orderId: "o", account: "a", sizeLots: 5 }));
  const amend = { kind: "amend" as const, ts: 1_000, account: "a", orderId: "o" };
  const cases: [unknown, string, string][] = [
    [{ kind: "place", ts: -1 }, "INVALID_ORDER", "ts must be a non-negative integer (ms)"],
    [{ kind: "launch", ts: 1_000 }, "INVALID_ORDER", "unknown command kind: launch"],
    [
      { kind: "cancel", ts: 1_000, account: "", orderId: "o" },
      "INVALID_ORDER",
      "orderId and account must be non-empty strings",
    ],
    [{ kind: "cancelAll", ts: 1_000, account: "" }, "INVALID_ORDER", "account must be a non-empty string"],
    [
      { kind: "cancelAll", ts: 1_000, account: "a", symbol: "NOPE-X" },
      "INVALID_SYMBOL",
      "trading pair not supported: NOPE-X",
    ],
    [amend, "INVALID_ORDER", "amend needs newSizeLots or newPriceTicks"],
    [
      { ...amend, newSizeLots: 0 },
      "INVALID_SIZE",
      "newSizeLots must be a positive safe integer within the market's limits",
    ],
    [
      { ...amend, newSizeLots: 1_001 },
      "INVALID_SIZE",
      "newSizeLots must be a positive safe integer within the market's limits",
    ],
    [
      { ...amend, newPriceTicks: 10_001 },
      "INVALID_PRICE",
      "newPriceTicks must be a positive safe integer within the market's limit",
    ],
  ];
  for (const [cmd, code, reason] of cases) assert.deepEqual(refusal(e, cmd), [code, reason], JSON.stringify(cmd));
  // Below the lots already filled: 3 of 5 traded.
  run(e, order({ account: "t", side: "buy", sizeLots: 3 }));
  assert.deepEqual(refusal(e, { ...amend, newSizeLots: 3 }), [
    "INVALID_SIZE",
    "newSizeLots must exceed the lots already filled or cancelled",
  ]);
  assert.equal(e.getOrder("o")?.remainingLots, 2);
});
