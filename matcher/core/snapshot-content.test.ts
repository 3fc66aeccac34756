import { test } from "node:test";
import assert from "node:assert/strict";
import { SYM, newEngine, order, run } from "../testing/helpers";
import { restoreSnapshot, takeSnapshot } from "./snapshot";

// What a snapshot holds, read from the snapshot itself (a round trip through restore hides a difference that
// taking and restoring share): held stops in arrival order across both trigger directions, only non-empty
// levels, no clientOrderId key on an order that has none; and restored resting orders are open.

test("a snapshot lists held stops by arrival across both directions, skips emptied levels, and omits absent client ids", () => {
  const e = newEngine();
  run(e, order({ orderId: "a", account: "m", clientOrderId: "mine", sizeLots: 5 }));
  run(e, order({ orderId: "b", account: "m", sizeLots: 5, priceTicks: 101 }));
  run(e, order({ orderId: "s1", side: "sell", type: "stop_loss", priceTicks: undefined, triggerPriceTicks: 50 }));
  run(e, order({ orderId: "s2", side: "buy", type: "stop_loss", priceTicks: undefined, triggerPriceTicks: 900 }));
  run(e, order({ orderId: "s3", side: "sell", type: "stop_loss", priceTicks: undefined, triggerPriceTicks: 40 }));
  run(e, order({ orderId: "s4", side: "buy", type: "stop_loss", priceTicks: undefined, triggerPriceTicks: 950 }));
  run(e, order({ orderId: "s5", side: "sell", type: "stop_loss", priceTicks: undefined, triggerPriceTicks: 30 }));
  run(e, order({ orderId: "c", account: "m", sizeLots: 5, priceTicks: 99 }));
  run(e, order({ account: "t", side: "buy", sizeLots: 5, priceTicks: 99 })); // the best ask level (99) empties
  run(e, order({ orderId: "d", account: "m", side: "buy", sizeLots: 5, priceTicks: 90 }));
  run(e, order({ orderId: "d2", account: "m", side: "buy", sizeLots: 5, priceTicks: 80 }));
  run(e, { kind: "cancel", ts: 1_000, account: "m", orderId: "d2" }); // a bid level below the best empties
  const snap = takeSnapshot(e);
  const [m] = snap.markets;
  assert.deepEqual(
    m.held.map((o) => o.orderId),
    ["s1", "s2", "s3", "s4", "s5"],
  );
  assert.deepEqual(
    m.asks.map((l) => [l.priceTicks, l.orders.map((o) => o.orderId)]),
    [
      [100, ["a"]],
      [101, ["b"]],
    ],
  );
  assert.deepEqual(
    m.bids.map((l) => [l.priceTicks, l.orders.map((o) => o.orderId)]),
    [[90, ["d"]]],
  );
  assert.equal(m.asks[0].orders[0].clientOrderId, "mine");
  assert.equal("clientOrderId" in m.asks[1].orders[0], false);

  const r = restoreSnapshot(JSON.parse(JSON.stringify(snap)));
  assert.deepEqual(
    r.getOpenOrders("m").map((o) => [o.orderId, o.status]),
    e.getOpenOrders("m").map((o) => [o.orderId, o.status]),
  );
  assert.ok(r.getOpenOrders("m").every((o) => o.status === "open"));
  assert.equal(r.getOrder("a")?.status, "open");
  assert.deepEqual(r.getDepth(SYM, 5), e.getDepth(SYM, 5));
});
