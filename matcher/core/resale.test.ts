// The resale rule at the match (issue #26): on a market with a resale gate, a sell order that gives
// restricted units fills only a buyer the gate accepts, decided at each match with the command's time. A
// refused buyer's order ends with `resale_restricted`, resting or incoming; a free seller sells to anyone;
// a market without a gate is untouched. FOK counts only what the rule lets it fill.
import { test } from "node:test";
import assert from "node:assert/strict";
import { SYM, newEngine, of, order, trades } from "../testing/helpers";
import type { ResaleGate } from "./types";

/** sell orders whose id starts with "r-" give restricted units until 5,000 ms; buyers eligible or not
 *  (mutable: the owner journals changes between commands) */
function gateOf(eligible: Set<string>): ResaleGate {
  return (sellOrderId, buyer, ts) => !sellOrderId.startsWith("r-") || ts >= 5_000 || eligible.has(buyer);
}

function setup() {
  const e = newEngine();
  const eligible = new Set(["accredited"]);
  e.setResaleGate(SYM, gateOf(eligible));
  return { e, eligible };
}

const cancels = (ev: ReturnType<ReturnType<typeof newEngine>["apply"]>) =>
  of(ev, "cancelled").map((c) => [c.orderId, c.reason, c.cancelledLots]);

test("an incoming restricted sell cancels the resting bid of a buyer no exemption covers, then fills the eligible one behind it", () => {
  const { e } = setup();
  e.apply(order({ orderId: "bid-inel", account: "retail", side: "buy", priceTicks: 101, sizeLots: 3 }));
  e.apply(order({ orderId: "bid-ok", account: "accredited", side: "buy", priceTicks: 100, sizeLots: 3 }));
  const ev = e.apply(order({ orderId: "r-ask", account: "restricted", side: "sell", priceTicks: 100, sizeLots: 2 }));
  assert.deepEqual(cancels(ev), [["bid-inel", "resale_restricted", 3]]);
  assert.deepEqual(trades(ev), [["bid-ok", 100, 2]]);
  assert.equal(e.getOrder("bid-inel"), undefined);
  assert.deepEqual(e.getDepth(SYM, 5)!.bids, [[100, 1]]);
});

test("an incoming buy of an ineligible buyer ends at a resting restricted sell; what it took from a free seller before stands", () => {
  const { e } = setup();
  e.apply(order({ orderId: "free-ask", account: "free-seller", side: "sell", priceTicks: 100, sizeLots: 2 }));
  e.apply(order({ orderId: "r-restricted-ask", account: "restricted", side: "sell", priceTicks: 101, sizeLots: 2 }));
  const ev = e.apply(order({ orderId: "bid", account: "retail", side: "buy", priceTicks: 101, sizeLots: 4 }));
  assert.deepEqual(trades(ev), [["free-ask", 100, 2]]);
  assert.deepEqual(cancels(ev), [["bid", "resale_restricted", 2]]);
  // the restricted sell keeps its place; the book never crosses
  assert.equal(e.getOrder("r-restricted-ask")!.remainingLots, 2);
  assert.deepEqual(e.getDepth(SYM, 5), { symbol: SYM, bids: [], asks: [[101, 2]] });
});

test("eligibility at the moment of the match: a bid placed while eligible is cancelled once the buyer lost it", () => {
  const { e, eligible } = setup();
  e.apply(order({ orderId: "bid", account: "accredited", side: "buy", priceTicks: 100, sizeLots: 2 }));
  eligible.delete("accredited"); // the owner journals the change before the next command
  const ev = e.apply(order({ orderId: "r-ask", account: "restricted", side: "sell", priceTicks: 100, sizeLots: 2 }));
  assert.deepEqual(trades(ev), []);
  assert.deepEqual(cancels(ev), [["bid", "resale_restricted", 2]]);
  assert.deepEqual(e.getDepth(SYM, 5)!.asks, [[100, 2]]);
});

test("a sell whose hold ended (or a sell of free units) fills anyone: exactly at the hold end, not a millisecond before", () => {
  const { e } = setup();
  e.apply(order({ orderId: "bid", account: "retail", side: "buy", priceTicks: 100, sizeLots: 4, ts: 4_000 }));
  const before = e.apply(
    order({ orderId: "r-a1", account: "restricted", side: "sell", priceTicks: 100, sizeLots: 1, ts: 4_999 }),
  );
  assert.deepEqual(cancels(before), [["bid", "resale_restricted", 4]]);
  e.apply(order({ orderId: "bid2", account: "retail", side: "buy", priceTicks: 100, sizeLots: 4, ts: 5_000 }));
  const at = e.apply(
    order({ orderId: "r-a2", account: "restricted", side: "sell", priceTicks: 100, sizeLots: 1, ts: 5_000 }),
  );
  assert.deepEqual(trades(at), [["bid2", 100, 1]]);
  assert.deepEqual(
    trades(
      e.apply(order({ orderId: "a3", account: "free-seller", side: "sell", priceTicks: 100, sizeLots: 1, ts: 5_000 })),
    ),
    [["bid2", 100, 1]],
  );
});

test("FOK: an ineligible buyer's FOK that would reach a restricted sell is not fillable (no partial fill); a sell FOK skips refused bids", () => {
  const { e } = setup();
  e.apply(order({ orderId: "free-ask", account: "free-seller", side: "sell", priceTicks: 100, sizeLots: 2 }));
  e.apply(order({ orderId: "r-restricted-ask", account: "restricted", side: "sell", priceTicks: 100, sizeLots: 2 }));
  const fok = e.apply(
    order({ orderId: "fok", account: "retail", side: "buy", priceTicks: 100, sizeLots: 3, timeInForce: "FOK" }),
  );
  assert.deepEqual([of(fok, "rejected").map((r) => r.code), trades(fok)], [["FOK_NOT_FILLABLE"], []]);
  const e2 = setup().e;
  e2.apply(order({ orderId: "bid-inel", account: "retail", side: "buy", priceTicks: 100, sizeLots: 5 }));
  e2.apply(order({ orderId: "bid-ok", account: "accredited", side: "buy", priceTicks: 100, sizeLots: 2 }));
  const notEnough = e2.apply(
    order({
      orderId: "r-fok-sell",
      account: "restricted",
      side: "sell",
      priceTicks: 100,
      sizeLots: 3,
      timeInForce: "FOK",
    }),
  );
  assert.deepEqual(
    of(notEnough, "rejected").map((r) => r.code),
    ["FOK_NOT_FILLABLE"],
  );
  const enough = e2.apply(
    order({
      orderId: "r-fok-sell2",
      account: "restricted",
      side: "sell",
      priceTicks: 100,
      sizeLots: 2,
      timeInForce: "FOK",
    }),
  );
  assert.deepEqual(trades(enough), [["bid-ok", 100, 2]]);
});

test("FOK among hidden orders: a buy FOK stops at a refused hidden restricted sell; a sell FOK skips a refused hidden bid", () => {
  const { e } = setup();
  e.apply(
    order({ orderId: "r-hidden-ask", account: "restricted", side: "sell", priceTicks: 100, sizeLots: 2, hidden: true }),
  );
  e.apply(
    order({
      orderId: "free-hidden-ask",
      account: "free-seller",
      side: "sell",
      priceTicks: 100,
      sizeLots: 2,
      hidden: true,
    }),
  );
  const buy = e.apply(
    order({ orderId: "fok-buy", account: "retail", side: "buy", priceTicks: 100, sizeLots: 2, timeInForce: "FOK" }),
  );
  assert.deepEqual([of(buy, "rejected").map((r) => r.code), trades(buy)], [["FOK_NOT_FILLABLE"], []]);
  const e2 = setup().e;
  e2.apply(order({ orderId: "bid-inel", account: "retail", side: "buy", priceTicks: 100, sizeLots: 5, hidden: true }));
  e2.apply(
    order({ orderId: "bid-ok", account: "accredited", side: "buy", priceTicks: 100, sizeLots: 2, hidden: true }),
  );
  const sell = e2.apply(
    order({ orderId: "r-fok", account: "restricted", side: "sell", priceTicks: 100, sizeLots: 2, timeInForce: "FOK" }),
  );
  assert.deepEqual(trades(sell), [["bid-ok", 100, 2]]);
});

test("a market without a gate trades as before, and removing the gate restores that", () => {
  const e = newEngine();
  e.apply(order({ orderId: "bid", account: "retail", side: "buy", priceTicks: 100, sizeLots: 1 }));
  assert.deepEqual(
    trades(e.apply(order({ orderId: "r-ask", account: "restricted", side: "sell", priceTicks: 100, sizeLots: 1 }))),
    [["bid", 100, 1]],
  );
  const { e: g } = setup();
  g.setResaleGate(SYM, null);
  g.apply(order({ orderId: "bid", account: "retail", side: "buy", priceTicks: 100, sizeLots: 1 }));
  assert.deepEqual(
    trades(g.apply(order({ orderId: "r-ask", account: "restricted", side: "sell", priceTicks: 100, sizeLots: 1 }))),
    [["bid", 100, 1]],
  );
  assert.throws(() => g.setResaleGate("NOPE-USD", null), /unknown market/);
});
