// Unit tests for hidden and iceberg orders, self-trade prevention (each mode), amend, cancel and reads.
import { test } from "node:test";
import assert from "node:assert/strict";
import { DEFAULT_STP_MODE } from "./types";
import { SYM, newEngine, of, order, run, trades } from "../testing/helpers";

const buy = (over = {}) =>
  order({ account: "taker", side: "buy", type: "market", timeInForce: "IOC", priceTicks: undefined, ...over });

test("hidden: rests, never shows in depth or level events, and yields to visible orders at its price", () => {
  const e = newEngine();
  const placed = e.apply(order({ orderId: "h", account: "m1", hidden: true, sizeLots: 5 }));
  assert.deepEqual(
    placed.map((x) => x.type),
    ["accepted"],
  );
  e.apply(order({ orderId: "v", account: "m2", sizeLots: 5 }));
  assert.deepEqual(e.getDepth(SYM, 5)!.asks, [[100, 5]]);
  const ev = e.apply(buy({ sizeLots: 7 }));
  assert.deepEqual(trades(ev), [
    ["v", 100, 5],
    ["h", 100, 2],
  ]);
  assert.deepEqual(
    of(ev, "level").map((l) => l.newTotalLots),
    [0],
  );
  assert.equal(e.getOrder("h")!.remainingLots, 3);
});

test("hidden orders still rank by price: a better hidden price fills before a worse visible one", () => {
  const e = newEngine();
  run(
    e,
    order({ orderId: "v101", account: "m1", priceTicks: 101 }),
    order({ orderId: "h100", account: "m2", hidden: true, priceTicks: 100, sizeLots: 2 }),
  );
  assert.deepEqual(trades(e.apply(buy({ sizeLots: 3 }))), [
    ["h100", 100, 2],
    ["v101", 101, 1],
  ]);
});

test("iceberg: shows its slice; when the slice fills the next one shows at the back of the queue", () => {
  const e = newEngine();
  const placed = e.apply(order({ orderId: "ice", account: "m1", sizeLots: 10, icebergVisibleLots: 3 }));
  assert.deepEqual(
    of(placed, "level").map((l) => l.newTotalLots),
    [3],
  );
  e.apply(order({ orderId: "plain", account: "m2", sizeLots: 2 }));
  assert.deepEqual(e.getDepth(SYM, 5)!.asks, [[100, 5]]);
  const ev = e.apply(buy({ sizeLots: 6 }));
  // slice of 3, then "plain" (ahead of the refilled slice), then the new slice
  assert.deepEqual(trades(ev), [
    ["ice", 100, 3],
    ["plain", 100, 2],
    ["ice", 100, 1],
  ]);
  assert.deepEqual(e.getDepth(SYM, 5)!.asks, [[100, 2]]);
  assert.equal(e.getOrder("ice")!.remainingLots, 6);
});

test("iceberg: the last slice is the remainder", () => {
  const e = newEngine();
  e.apply(order({ orderId: "ice", account: "m1", sizeLots: 7, icebergVisibleLots: 3 }));
  e.apply(buy({ sizeLots: 6 }));
  assert.deepEqual(e.getDepth(SYM, 5)!.asks, [[100, 1]]);
});

test(`STP default is ${DEFAULT_STP_MODE}: the incoming order is cancelled, the resting one keeps its place`, () => {
  const e = newEngine();
  e.apply(order({ orderId: "mine", account: "me", sizeLots: 5 }));
  const ev = e.apply(order({ orderId: "in", account: "me", side: "buy", sizeLots: 3 }));
  assert.equal(of(ev, "trade").length, 0);
  assert.deepEqual(
    of(ev, "cancelled").map((c) => [c.orderId, c.reason, c.cancelledLots]),
    [["in", "stp", 3]],
  );
  assert.equal(e.getOrder("mine")!.remainingLots, 5);
  assert.equal(DEFAULT_STP_MODE, "cancel_newest");
});

test("STP cancel_newest stops the taker after trading with orders ahead of its own", () => {
  const e = newEngine();
  run(
    e,
    order({ orderId: "other", account: "x", sizeLots: 2 }),
    order({ orderId: "mine", account: "me", sizeLots: 5 }),
  );
  const ev = e.apply(order({ orderId: "in", account: "me", side: "buy", sizeLots: 6, stp: "cancel_newest" }));
  assert.deepEqual(trades(ev), [["other", 100, 2]]);
  assert.deepEqual(
    of(ev, "cancelled").map((c) => [c.orderId, c.cancelledLots]),
    [["in", 4]],
  );
  assert.equal(e.getOrder("in"), undefined);
});

test("STP cancel_oldest cancels the resting order and keeps matching", () => {
  const e = newEngine();
  run(
    e,
    order({ orderId: "mine", account: "me", sizeLots: 5 }),
    order({ orderId: "other", account: "x", sizeLots: 2 }),
  );
  const ev = e.apply(order({ orderId: "in", account: "me", side: "buy", sizeLots: 4, stp: "cancel_oldest" }));
  assert.deepEqual(
    of(ev, "cancelled").map((c) => [c.orderId, c.cancelledLots]),
    [["mine", 5]],
  );
  assert.deepEqual(trades(ev), [["other", 100, 2]]);
  assert.equal(e.getOrder("in")!.remainingLots, 2);
});

test("STP cancel_both cancels both orders", () => {
  const e = newEngine();
  e.apply(order({ orderId: "mine", account: "me", sizeLots: 5 }));
  const ev = e.apply(order({ orderId: "in", account: "me", side: "buy", sizeLots: 4, stp: "cancel_both" }));
  assert.deepEqual(
    of(ev, "cancelled").map((c) => [c.orderId, c.cancelledLots]),
    [
      ["mine", 5],
      ["in", 4],
    ],
  );
  assert.deepEqual(e.getDepth(SYM, 5), { symbol: SYM, bids: [], asks: [] });
});

test("STP decrement shrinks both by the smaller size, without a trade", () => {
  const e = newEngine();
  e.apply(order({ orderId: "mine", account: "me", sizeLots: 5 }));
  const ev = e.apply(order({ orderId: "in", account: "me", side: "buy", sizeLots: 3, stp: "decrement" }));
  assert.equal(of(ev, "trade").length, 0);
  assert.deepEqual(
    of(ev, "cancelled").map((c) => [c.orderId, c.cancelledLots, c.remainingLots]),
    [
      ["mine", 3, 2],
      ["in", 3, 0],
    ],
  );
  assert.deepEqual(e.getDepth(SYM, 5)!.asks, [[100, 2]]);
});

test("amend: a smaller size keeps the queue place", () => {
  const e = newEngine();
  run(e, order({ orderId: "first", account: "a" }), order({ orderId: "second", account: "b" }));
  const ev = e.apply({ kind: "amend", ts: 1_000, account: "a", orderId: "first", newSizeLots: 4 });
  assert.deepEqual(
    of(ev, "amended").map((a) => [a.sizeLots, a.remainingLots, a.priorityKept]),
    [[4, 4, true]],
  );
  assert.deepEqual(
    of(ev, "level").map((l) => l.newTotalLots),
    [14],
  );
  assert.deepEqual(trades(e.apply(buy({ sizeLots: 1 }))), [["first", 100, 1]]);
});

test("amend: a larger size or a new price loses the queue place", () => {
  const e = newEngine();
  run(e, order({ orderId: "first", account: "a" }), order({ orderId: "second", account: "b" }));
  const ev = e.apply({ kind: "amend", ts: 1_000, account: "a", orderId: "first", newSizeLots: 12 });
  assert.equal(of(ev, "amended")[0].priorityKept, false);
  assert.deepEqual(trades(e.apply(buy({ sizeLots: 1 }))), [["second", 100, 1]]);
  e.apply({ kind: "amend", ts: 1_000, account: "b", orderId: "second", newPriceTicks: 101 });
  assert.deepEqual(e.getDepth(SYM, 5)!.asks, [
    [100, 12],
    [101, 9],
  ]);
});

test("amend: a new price that crosses matches like a new arrival; post-only refuses it", () => {
  const e = newEngine();
  run(
    e,
    order({ orderId: "ask", account: "a", priceTicks: 100, sizeLots: 3 }),
    order({ orderId: "bid", account: "b", side: "buy", priceTicks: 98, sizeLots: 5 }),
    order({ orderId: "po", account: "c", side: "buy", priceTicks: 97, timeInForce: "POST_ONLY" }),
  );
  const refused = e.apply({ kind: "amend", ts: 1_000, account: "c", orderId: "po", newPriceTicks: 100 });
  assert.deepEqual(
    refused.map((x) => x.type === "rejected" && x.code),
    ["POST_ONLY_WOULD_CROSS"],
  );
  const ev = e.apply({ kind: "amend", ts: 1_000, account: "b", orderId: "bid", newPriceTicks: 100 });
  assert.deepEqual(trades(ev), [["ask", 100, 3]]);
  assert.deepEqual(e.getDepth(SYM, 5)!.bids, [
    [100, 2],
    [97, 10],
  ]);
});

test("amend: below the filled size, someone else's order or a held stop is refused", () => {
  const e = newEngine();
  run(e, order({ orderId: "o", account: "a", sizeLots: 5 }), buy({ sizeLots: 3 }));
  e.apply(
    order({
      orderId: "stop",
      account: "a",
      type: "stop_loss",
      priceTicks: undefined,
      triggerPriceTicks: 90,
      sizeLots: 1,
    }),
  );
  const codes = [
    { kind: "amend" as const, ts: 1_000, account: "a", orderId: "o", newSizeLots: 3 },
    { kind: "amend" as const, ts: 1_000, account: "z", orderId: "o", newSizeLots: 4 },
    { kind: "amend" as const, ts: 1_000, account: "a", orderId: "stop", newSizeLots: 2 },
    { kind: "amend" as const, ts: 1_000, account: "a", orderId: "o" },
  ].map((c) => {
    const x = e.apply(c)[0];
    return x.type === "rejected" && x.code;
  });
  assert.deepEqual(codes, ["INVALID_SIZE", "ORDER_NOT_FOUND", "ORDER_NOT_AMENDABLE", "INVALID_ORDER"]);
});

test("cancel: only the owner's open orders; cancelAll takes every open order of the account, held stops too", () => {
  const e = newEngine();
  run(
    e,
    order({ orderId: "a1", account: "a" }),
    order({ orderId: "a2", account: "a", priceTicks: 101 }),
    order({ orderId: "b1", account: "b", priceTicks: 102 }),
  );
  e.apply(
    order({
      orderId: "a3",
      account: "a",
      side: "buy",
      type: "stop_loss",
      priceTicks: undefined,
      triggerPriceTicks: 120,
      sizeLots: 1,
    }),
  );
  assert.deepEqual(
    e.apply({ kind: "cancel", ts: 1_000, account: "b", orderId: "a1" }).map((x) => x.type === "rejected" && x.code),
    ["ORDER_NOT_FOUND"],
  );
  const ev = e.apply({ kind: "cancel", ts: 1_000, account: "a", orderId: "a1" });
  assert.deepEqual(
    ev.map((x) => x.type),
    ["cancelled", "level"],
  );
  assert.deepEqual(
    e.getOpenOrders("a").map((o) => [o.orderId, o.status]),
    [
      ["a2", "open"],
      ["a3", "held"],
    ],
  );
  const all = e.apply({ kind: "cancelAll", ts: 1_000, account: "a" });
  assert.deepEqual(
    of(all, "cancelled").map((c) => [c.orderId, c.reason]),
    [
      ["a2", "user"],
      ["a3", "user"],
    ],
  );
  assert.deepEqual(e.getOpenOrders("a"), []);
  assert.deepEqual(e.getDepth(SYM, 5)!.asks, [[102, 10]]);
});

test("reads: depth is limited to the levels asked for; open orders carry what a balance lock needs", () => {
  const e = newEngine();
  for (let p = 100; p < 110; p++) e.apply(order({ account: "a", priceTicks: p, sizeLots: p - 99 }));
  assert.deepEqual(e.getDepth(SYM, 3)!.asks, [
    [100, 1],
    [101, 2],
    [102, 3],
  ]);
  assert.equal(e.getDepth("NOPE-X", 3), undefined);
  const o = e.getOpenOrders("a")[0];
  assert.deepEqual([o.side, o.priceTicks, o.remainingLots, o.status], ["sell", 100, 1, "open"]);
});
