// Unit tests for every row of the order-type table and every matching rule of spec 3.2.
import { test } from "node:test";
import assert from "node:assert/strict";
import { takeSnapshot } from "./snapshot";
import type { OrderType, TimeInForce } from "./types";
import { SPEC_ORDER_TYPES, SPEC_TIMES_IN_FORCE, SPEC_TIME_IN_FORCE } from "../testing/spec-table";
import { SYM, newEngine, of, order, run, trades } from "../testing/helpers";

const TYPES = SPEC_ORDER_TYPES;
const TIFS = SPEC_TIMES_IN_FORCE;
const TABLE = SPEC_TIME_IN_FORCE;

for (const type of TYPES)
  for (const tif of TIFS) {
    const allowed = TABLE[type].includes(tif);
    test(`table 3.2: ${type} with ${tif} is ${allowed ? "accepted" : "rejected with INVALID_ORDER_TYPE"}`, () => {
      const e = newEngine();
      // Liquidity for a FOK to fill (the FOK check comes after the table check).
      if (tif === "FOK") e.apply(order({ account: "other", priceTicks: 100, sizeLots: 1 }));
      const stop = type.startsWith("stop") || type.startsWith("take");
      const ev = e.apply(
        order({
          type,
          timeInForce: tif,
          side: "buy",
          priceTicks: type === "market" ? undefined : 100,
          triggerPriceTicks: stop ? 105 : undefined,
          expiresAt: tif === "GTD" ? 5_000 : undefined,
          sizeLots: 1,
        }),
      );
      if (allowed) assert.equal(ev[0].type, "accepted", JSON.stringify(ev));
      else
        assert.deepEqual(
          [ev.length, ev[0].type, ev[0].type === "rejected" && ev[0].code],
          [1, "rejected", "INVALID_ORDER_TYPE"],
        );
    });
  }

test("an unknown order type or time in force is INVALID_ORDER_TYPE; an unknown pair INVALID_SYMBOL", () => {
  const e = newEngine();
  const codes = [
    order({ type: "iceberg" as OrderType }),
    order({ timeInForce: "DAY" as TimeInForce }),
    order({ symbol: "BTC-USD" }),
  ].map((c) => {
    const ev = e.apply(c)[0];
    return ev.type === "rejected" ? ev.code : ev.type;
  });
  assert.deepEqual(codes, ["INVALID_ORDER_TYPE", "INVALID_ORDER_TYPE", "INVALID_SYMBOL"]);
});

test("market: executes at the best price; a market buy sweeps asks upward, the rest is cancelled (rules 3)", () => {
  const e = newEngine();
  run(
    e,
    order({ orderId: "a102", priceTicks: 102, sizeLots: 5 }),
    order({ orderId: "a100", priceTicks: 100, sizeLots: 5 }),
    order({ orderId: "a101", priceTicks: 101, sizeLots: 5 }),
  );
  const ev = e.apply(
    order({ account: "taker", side: "buy", type: "market", timeInForce: "IOC", priceTicks: undefined, sizeLots: 20 }),
  );
  assert.deepEqual(trades(ev), [
    ["a100", 100, 5],
    ["a101", 101, 5],
    ["a102", 102, 5],
  ]);
  const cancelled = of(ev, "cancelled");
  assert.deepEqual(
    cancelled.map((c) => [c.reason, c.cancelledLots]),
    [["market_remainder", 5]],
  );
  assert.deepEqual(e.getDepth(SYM, 10), { symbol: SYM, bids: [], asks: [] });
});

test("market with a protection price stops at that price", () => {
  const e = newEngine();
  run(e, order({ priceTicks: 100, sizeLots: 5 }), order({ priceTicks: 103, sizeLots: 5 }));
  const ev = e.apply(
    order({ account: "taker", side: "buy", type: "market", timeInForce: "IOC", priceTicks: 101, sizeLots: 8 }),
  );
  assert.deepEqual(
    trades(ev).map((t) => t[1]),
    [100],
  );
  assert.deepEqual(e.getDepth(SYM, 10)!.asks, [[103, 5]]);
});

test("limit buy at P matches asks at P or lower, at the maker's price; the remainder rests (rules 2, 4)", () => {
  const e = newEngine();
  run(
    e,
    order({ orderId: "a99", priceTicks: 99, sizeLots: 3 }),
    order({ orderId: "a101", priceTicks: 101, sizeLots: 3 }),
  );
  const ev = e.apply(order({ orderId: "b", account: "taker", side: "buy", priceTicks: 100, sizeLots: 5 }));
  assert.deepEqual(trades(ev), [["a99", 99, 3]]);
  assert.deepEqual(e.getDepth(SYM, 10), { symbol: SYM, bids: [[100, 2]], asks: [[101, 3]] });
  assert.equal(e.getOrder("b")!.filledLots, 3);
  assert.equal(e.getOrder("b")!.remainingLots, 2);
});

test("orders rank by price first, then by arrival (rule 1)", () => {
  const e = newEngine();
  run(
    e,
    order({ orderId: "late-good", priceTicks: 99, sizeLots: 1, ts: 5 }),
    order({ orderId: "early", priceTicks: 100, sizeLots: 1, ts: 1 }),
    order({ orderId: "later", priceTicks: 100, sizeLots: 1, ts: 2 }),
  );
  const ev = e.apply(
    order({ account: "taker", side: "buy", type: "market", timeInForce: "IOC", priceTicks: undefined, sizeLots: 3 }),
  );
  assert.deepEqual(
    trades(ev).map((t) => t[0]),
    ["late-good", "early", "later"],
  );
});

test("GTC rests until filled or cancelled", () => {
  const e = newEngine();
  e.apply(order({ orderId: "g", ts: 1 }));
  e.apply({ kind: "tick", ts: 10_000_000 });
  assert.equal(e.getOrder("g")!.status, "open");
});

test("IOC fills what is available and cancels the rest", () => {
  const e = newEngine();
  e.apply(order({ sizeLots: 4 }));
  const ev = e.apply(order({ account: "t", side: "buy", timeInForce: "IOC", sizeLots: 10 }));
  assert.deepEqual(
    trades(ev).map((t) => t[2]),
    [4],
  );
  assert.deepEqual(
    of(ev, "cancelled").map((c) => [c.reason, c.cancelledLots]),
    [["ioc_remainder", 6]],
  );
  assert.deepEqual(e.getDepth(SYM, 5)!.bids, []);
});

test("FOK fills entirely, or is rejected and leaves no trace", () => {
  const e = newEngine();
  run(e, order({ priceTicks: 100, sizeLots: 4 }), order({ priceTicks: 101, sizeLots: 4 }));
  const before = takeSnapshot(e);
  const ev = e.apply(order({ account: "t", side: "buy", timeInForce: "FOK", priceTicks: 101, sizeLots: 9 }));
  assert.deepEqual(
    ev.map((x) => (x.type === "rejected" ? x.code : x.type)),
    ["FOK_NOT_FILLABLE"],
  );
  assert.deepEqual({ ...takeSnapshot(e), seq: 0 }, { ...before, seq: 0 });
  const ok = e.apply(order({ account: "t", side: "buy", timeInForce: "FOK", priceTicks: 101, sizeLots: 8 }));
  assert.deepEqual(
    trades(ok).map((t) => t[2]),
    [4, 4],
  );
  assert.equal(of(ok, "cancelled").length, 0);
});

test("GTD expires once any command's time reaches expiresAt, or on a tick", () => {
  const e = newEngine();
  run(
    e,
    order({ orderId: "d1", timeInForce: "GTD", expiresAt: 2_000 }),
    order({ orderId: "d2", timeInForce: "GTD", expiresAt: 3_000, priceTicks: 101 }),
  );
  assert.equal(
    e.apply(order({ ts: 1_999, priceTicks: 150 })).some((x) => x.type === "expired"),
    false,
  );
  const ev = e.apply(order({ ts: 2_000, account: "other", orderId: "z", priceTicks: 160 }));
  assert.deepEqual(
    ev.slice(0, 2).map((x) => x.type),
    ["expired", "level"],
  );
  assert.equal(e.getOrder("d1"), undefined);
  const tick = e.apply({ kind: "tick", ts: 3_000 });
  assert.deepEqual(
    of(tick, "expired").map((x) => [x.orderId, x.expiredLots]),
    [["d2", 10]],
  );
  assert.deepEqual(
    of(tick, "level").map((x) => [x.priceTicks, x.newTotalLots]),
    [[101, 0]],
  );
});

test("GTD needs an expiry in the future", () => {
  const e = newEngine();
  const codes = [
    order({ timeInForce: "GTD" }),
    order({ timeInForce: "GTD", expiresAt: 1_000 }),
    order({ expiresAt: 5_000 }),
  ].map((c) => {
    const x = e.apply(c)[0];
    return x.type === "rejected" && x.code;
  });
  assert.deepEqual(codes, ["INVALID_EXPIRY", "INVALID_EXPIRY", "INVALID_EXPIRY"]);
});

test("POST_ONLY and limit_maker are rejected if they would match, rest otherwise (rule 6)", () => {
  const e = newEngine();
  e.apply(order({ priceTicks: 100 }));
  for (const c of [
    order({ side: "buy", account: "t", timeInForce: "POST_ONLY", priceTicks: 100 }),
    order({ side: "buy", account: "t", type: "limit_maker", priceTicks: 101 }),
  ]) {
    const ev = e.apply(c);
    assert.deepEqual(
      ev.map((x) => (x.type === "rejected" ? x.code : x.type)),
      ["POST_ONLY_WOULD_CROSS"],
    );
  }
  assert.equal(
    e.apply(order({ side: "buy", account: "t", timeInForce: "POST_ONLY", priceTicks: 99 }))[0].type,
    "accepted",
  );
  assert.equal(e.apply(order({ side: "buy", account: "t", type: "limit_maker", priceTicks: 98 }))[0].type, "accepted");
  assert.deepEqual(e.getDepth(SYM, 5)!.bids, [
    [99, 10],
    [98, 10],
  ]);
});

test("stop_loss is held off the book, then a market order once the last trade price falls to the trigger (rule 5)", () => {
  const e = newEngine();
  run(
    e,
    order({ account: "b1", side: "buy", priceTicks: 98, sizeLots: 5 }),
    order({ account: "b2", side: "buy", priceTicks: 95, sizeLots: 5 }),
  );
  const placed = e.apply(
    order({
      orderId: "stop",
      account: "s",
      type: "stop_loss",
      priceTicks: undefined,
      triggerPriceTicks: 98,
      sizeLots: 7,
    }),
  );
  assert.deepEqual(
    placed.map((x) => x.type),
    ["accepted"],
  );
  assert.equal(e.getOrder("stop")!.status, "held");
  assert.deepEqual(e.getDepth(SYM, 5)!.asks, []);
  const ev = e.apply(order({ account: "x", type: "market", timeInForce: "IOC", priceTicks: undefined, sizeLots: 1 }));
  const kinds = ev.map((x) => x.type);
  assert.deepEqual(kinds.slice(0, 3), ["accepted", "trade", "level"]);
  const triggered = of(ev, "triggered");
  assert.deepEqual(
    triggered.map((t) => [t.orderId, t.lastPriceTicks]),
    [["stop", 98]],
  );
  assert.deepEqual(
    of(ev, "trade")
      .filter((t) => t.takerOrderId === "stop")
      .map((t) => [t.priceTicks, t.sizeLots]),
    [
      [98, 4],
      [95, 3],
    ],
  );
});

test("stop_loss_limit becomes a limit order; a buy stop fires on a rise", () => {
  const e = newEngine();
  run(
    e,
    order({ account: "m1", priceTicks: 105, sizeLots: 2 }),
    order({ account: "m2", priceTicks: 108, sizeLots: 5 }),
  );
  e.apply(
    order({
      orderId: "bs",
      account: "s",
      side: "buy",
      type: "stop_loss_limit",
      priceTicks: 106,
      triggerPriceTicks: 105,
      sizeLots: 4,
    }),
  );
  const ev = e.apply(order({ account: "x", side: "buy", priceTicks: 105, sizeLots: 1 }));
  assert.deepEqual(
    of(ev, "triggered").map((t) => t.orderId),
    ["bs"],
  );
  assert.equal(e.getOrder("bs")!.status, "open");
  assert.deepEqual(e.getDepth(SYM, 5)!.bids, [[106, 3]]);
});

test("take_profit fires at the profit target: a sell on a rise, a buy (take_profit_limit) on a fall", () => {
  const e = newEngine();
  run(e, order({ account: "b", side: "buy", priceTicks: 110, sizeLots: 10 }));
  e.apply(
    order({
      orderId: "tp",
      account: "s",
      type: "take_profit",
      priceTicks: undefined,
      triggerPriceTicks: 110,
      sizeLots: 2,
    }),
  );
  e.apply(
    order({
      orderId: "tpl",
      account: "s2",
      side: "buy",
      type: "take_profit_limit",
      priceTicks: 90,
      triggerPriceTicks: 90,
      sizeLots: 2,
    }),
  );
  const ev = e.apply(order({ account: "x", priceTicks: 110, sizeLots: 1 }));
  assert.deepEqual(
    of(ev, "triggered").map((t) => t.orderId),
    ["tp"],
  );
  assert.equal(e.getOrder("tpl")!.status, "held");
});

test("stops fired by one trade are released in arrival order, before stops a later trade fires", () => {
  const e = newEngine();
  run(
    e,
    order({ account: "b1", side: "buy", priceTicks: 100, sizeLots: 1 }),
    order({ account: "b2", side: "buy", priceTicks: 99, sizeLots: 1 }),
    order({ account: "b3", side: "buy", priceTicks: 90, sizeLots: 100 }),
  );
  run(
    e,
    order({
      orderId: "s99",
      account: "s1",
      type: "stop_loss",
      priceTicks: undefined,
      triggerPriceTicks: 99,
      sizeLots: 1,
    }),
    order({
      orderId: "s100b",
      account: "s2",
      type: "stop_loss",
      priceTicks: undefined,
      triggerPriceTicks: 100,
      sizeLots: 1,
    }),
    order({
      orderId: "s100a",
      account: "s3",
      type: "stop_loss",
      priceTicks: undefined,
      triggerPriceTicks: 101,
      sizeLots: 1,
    }),
  );
  const ev = e.apply(order({ account: "x", priceTicks: 99, sizeLots: 2 }));
  assert.deepEqual(
    of(ev, "triggered").map((t) => t.orderId),
    ["s100b", "s100a", "s99"],
  );
});

test("a stop whose trigger the last trade price already crossed is rejected", () => {
  const e = newEngine();
  run(e, order({ priceTicks: 100, sizeLots: 1 }), order({ account: "t", side: "buy", priceTicks: 100, sizeLots: 1 }));
  const ev = e.apply(
    order({ account: "s", type: "stop_loss", priceTicks: undefined, triggerPriceTicks: 101, sizeLots: 1 }),
  );
  assert.deepEqual(
    ev.map((x) => x.type === "rejected" && x.code),
    ["INVALID_TRIGGER_PRICE"],
  );
});

test("validation codes: sizes, prices and trigger prices out of range, duplicates, malformed fields", () => {
  const e = newEngine();
  e.apply(order({ orderId: "dup" }));
  const cases = [
    order({ sizeLots: 0 }),
    order({ sizeLots: 1.5 }),
    order({ sizeLots: 1_001 }),
    order({ sizeLots: 2 ** 53 }),
    order({ priceTicks: undefined }),
    order({ priceTicks: 10_001 }),
    order({ priceTicks: -1 }),
    order({ type: "stop_loss_limit", triggerPriceTicks: undefined }),
    order({ triggerPriceTicks: 5 }),
    order({ orderId: "dup" }),
    order({ side: "up" as "buy" }),
    order({ account: "" }),
    order({ icebergVisibleLots: 11 }),
    order({ hidden: true, icebergVisibleLots: 2 }),
    order({ timeInForce: "IOC", hidden: true }),
    order({ stp: "none" as "decrement" }),
  ];
  const codes = cases.map((c) => {
    const x = e.apply(c);
    assert.equal(x.length, 1);
    return x[0].type === "rejected" && x[0].code;
  });
  assert.deepEqual(codes, [
    "INVALID_SIZE",
    "INVALID_SIZE",
    "INVALID_SIZE",
    "INVALID_SIZE",
    "INVALID_PRICE",
    "INVALID_PRICE",
    "INVALID_PRICE",
    "INVALID_TRIGGER_PRICE",
    "INVALID_TRIGGER_PRICE",
    "DUPLICATE_ORDER_ID",
    "INVALID_ORDER",
    "INVALID_ORDER",
    "INVALID_SIZE",
    "INVALID_ORDER",
    "INVALID_ORDER",
    "INVALID_ORDER",
  ]);
});

test("a rejected order changes nothing; every event has the next sequence number", () => {
  const e = newEngine();
  e.apply(order({ priceTicks: 100 }));
  const before = takeSnapshot(e);
  e.apply(order({ side: "buy", account: "t", timeInForce: "POST_ONLY", priceTicks: 100 }));
  assert.deepEqual({ ...takeSnapshot(e), seq: before.seq }, before);
  const ev = e.apply(order({ side: "buy", account: "t", priceTicks: 100, sizeLots: 3 }));
  ev.forEach((x, i) => assert.equal(x.seq, before.seq + 2 + i));
});

test("a level event carries the new visible total, 0 when the level is gone", () => {
  const e = newEngine();
  run(e, order({ orderId: "l1", sizeLots: 3 }), order({ orderId: "l2", sizeLots: 4 }));
  assert.deepEqual(
    of(e.apply({ kind: "cancel", ts: 1_000, account: "maker", orderId: "l1" }), "level").map((l) => l.newTotalLots),
    [4],
  );
  assert.deepEqual(
    of(e.apply({ kind: "cancel", ts: 1_000, account: "maker", orderId: "l2" }), "level").map((l) => l.newTotalLots),
    [0],
  );
});
