// The matcher's limits at their exact boundaries, written from the mutation run's survivors: market
// configuration, command validation, amend limits, fill-or-kill one lot short or exact, GTD expiry at its
// instant, the read views' optional fields, snapshots of what the property tests do not vary.
import { test } from "node:test";
import assert from "node:assert/strict";
import { MatchingEngine } from "./engine";
import { restoreSnapshot, takeSnapshot } from "./snapshot";
import type { Command, MarketConfig } from "./types";
import { SYM, newEngine, of, order, run, trades } from "../testing/helpers";

const market = (over: Partial<MarketConfig> = {}): MarketConfig => ({
  symbol: "ETH-USDC",
  minSizeLots: 2,
  maxSizeLots: 100,
  maxPriceTicks: 1_000,
  ...over,
});
const code = (events: ReturnType<MatchingEngine["apply"]>) => of(events, "rejected").map((r) => r.code);

test("market configuration: symbol shape, duplicates, size and price limits", () => {
  assert.doesNotThrow(
    () => new MatchingEngine({ markets: [market(), market({ symbol: "BTC-USDC", minSizeLots: 7, maxSizeLots: 7 })] }),
  );
  for (const symbol of ["ETHUSDC", "ETH-USDC-X", "-USDC", "ETH-", "ETH/USDC", " ETH-USDC", "ETH-USDC "]) {
    assert.throws(() => new MatchingEngine({ markets: [market({ symbol })] }), /BASE-QUOTE/, symbol);
  }
  assert.throws(() => new MatchingEngine({ markets: [market(), market()] }), /duplicate market/);
  for (const bad of [
    { minSizeLots: 0 },
    { maxSizeLots: 0 },
    { minSizeLots: 1.5 },
    { maxSizeLots: 2.5 },
    { minSizeLots: 101 },
  ]) {
    assert.throws(() => new MatchingEngine({ markets: [market(bad)] }), /min\/max size/, JSON.stringify(bad));
  }
  for (const maxPriceTicks of [0, -1, 1.5, Number.MAX_SAFE_INTEGER + 1]) {
    assert.throws(
      () => new MatchingEngine({ markets: [market({ maxPriceTicks })] }),
      /maxPriceTicks/,
      String(maxPriceTicks),
    );
  }
  const e = new MatchingEngine({ markets: [market({ maxPriceTicks: undefined })] });
  assert.deepEqual(e.getMarkets(), [market({ maxPriceTicks: undefined })]);
  const copy = e.getMarkets()[0];
  copy.minSizeLots = 50;
  assert.equal(e.getMarkets()[0].minSizeLots, 2, "getMarkets returns copies");
  assert.throws(() => new MatchingEngine({ markets: [], reserveOrders: -1 }), /reserveOrders/);
  assert.throws(() => new MatchingEngine({ markets: [], reserveOrders: 1.5 }), /reserveOrders/);
  assert.doesNotThrow(() => new MatchingEngine({ markets: [], reserveOrders: 0 }));
});

test("commands: ts must be a non-negative integer; time never runs backwards", () => {
  const e = newEngine();
  for (const bad of [
    null,
    7,
    { kind: "tick", ts: -1 },
    { kind: "tick", ts: 1.5 },
    { kind: "tick" },
  ] as unknown as Command[]) {
    assert.deepEqual(code(e.apply(bad)), ["INVALID_ORDER"], JSON.stringify(bad));
  }
  assert.deepEqual(e.apply({ kind: "tick", ts: 0 }), []);
  assert.deepEqual(code(e.apply({ kind: "launch", ts: 1 } as unknown as Command)), ["INVALID_ORDER"]);
  // a GTD order expires once a command's ts reaches expiresAt; a later command with an older ts does not
  // move the clock back
  run(e, order({ orderId: "gtd", ts: 100, timeInForce: "GTD", expiresAt: 200 }));
  assert.deepEqual(of(e.apply({ kind: "tick", ts: 199 }), "expired"), []);
  assert.deepEqual(of(e.apply({ kind: "tick", ts: 150 }), "expired"), []);
  const ev = e.apply({ kind: "tick", ts: 200 });
  assert.deepEqual(
    of(ev, "expired").map((x) => x.orderId),
    ["gtd"],
  );
  assert.equal(ev[0].ts, 200);
  const later = e.apply(order({ ts: 10 }));
  assert.equal(later[0].ts, 200, "an older ts is clamped to the engine's clock");
});

test("GTD expiry: orders leave in expiry order, ties in arrival order, each at its exact instant", () => {
  const e = newEngine();
  run(
    e,
    order({ orderId: "c", ts: 1, timeInForce: "GTD", expiresAt: 300, priceTicks: 101 }),
    order({ orderId: "a", ts: 2, timeInForce: "GTD", expiresAt: 100, priceTicks: 102 }),
    order({ orderId: "b2", ts: 3, timeInForce: "GTD", expiresAt: 200, priceTicks: 103 }),
    order({ orderId: "b1", ts: 4, timeInForce: "GTD", expiresAt: 200, priceTicks: 104 }),
    order({ orderId: "d", ts: 5, timeInForce: "GTD", expiresAt: 250, priceTicks: 105 }),
    order({ orderId: "gone", ts: 6, timeInForce: "GTD", expiresAt: 150, priceTicks: 106 }),
  );
  run(e, { kind: "cancel", ts: 7, account: "maker", orderId: "gone" });
  const at = (ts: number) => of(e.apply({ kind: "tick", ts }), "expired").map((x) => x.orderId);
  assert.deepEqual(at(99), []);
  assert.deepEqual(at(100), ["a"]);
  assert.deepEqual(at(199), []);
  assert.deepEqual(at(200), ["b2", "b1"]);
  assert.deepEqual(at(1000), ["d", "c"]);
  assert.deepEqual(e.getOpenOrders("maker"), []);
});

test("GTD expiry: many orders with distinct and equal expiries leave in (expiresAt, arrival) order", () => {
  const e = newEngine();
  const expiries = [50, 20, 90, 20, 70, 10, 90, 30, 60, 40, 80, 10, 55, 25, 95, 15];
  expiries.forEach((expiresAt, i) =>
    run(e, order({ orderId: `g${i}`, ts: 1, timeInForce: "GTD", expiresAt, priceTicks: 100 + i })),
  );
  const expected = expiries
    .map((x, i) => ({ x, i }))
    .sort((p, q) => p.x - q.x || p.i - q.i)
    .map((p) => `g${p.i}`);
  const got: string[] = [];
  for (let ts = 2; ts <= 100; ts++) got.push(...of(e.apply({ kind: "tick", ts }), "expired").map((x) => x.orderId));
  assert.deepEqual(got, expected);
});

test("cancel and cancelAll: required fields and unknown symbols", () => {
  const e = newEngine();
  run(e, order({ orderId: "o1" }));
  assert.deepEqual(code(e.apply({ kind: "cancel", ts: 2, account: "", orderId: "o1" })), ["INVALID_ORDER"]);
  assert.deepEqual(code(e.apply({ kind: "cancel", ts: 2, account: "maker", orderId: "" })), ["INVALID_ORDER"]);
  assert.deepEqual(code(e.apply({ kind: "cancelAll", ts: 2, account: "" })), ["INVALID_ORDER"]);
  assert.deepEqual(code(e.apply({ kind: "cancelAll", ts: 2, account: "maker", symbol: "BTC-USDC" })), [
    "INVALID_SYMBOL",
  ]);
  assert.deepEqual(e.apply({ kind: "cancelAll", ts: 2, account: "nobody" }), []);
  assert.equal(e.getOpenOrders("maker").length, 1);
  assert.deepEqual(
    of(e.apply({ kind: "cancelAll", ts: 3, account: "maker", symbol: SYM }), "cancelled").map((c) => c.orderId),
    ["o1"],
  );
});

test("amend: size within [min, max] and above what is filled; price within the maximum", () => {
  const e = new MatchingEngine({ markets: [market()] });
  const sym = "ETH-USDC";
  run(e, { ...order({ orderId: "m", symbol: sym, sizeLots: 10, priceTicks: 500 }) });
  run(e, { ...order({ orderId: "t", symbol: sym, account: "taker", side: "buy", sizeLots: 3, priceTicks: 500 }) });
  const amend = (over: object) => e.apply({ kind: "amend", ts: 5, account: "maker", orderId: "m", ...over } as Command);
  assert.deepEqual(code(amend({ account: "" })), ["INVALID_ORDER"]);
  assert.deepEqual(code(amend({ orderId: "" })), ["INVALID_ORDER"]);
  assert.deepEqual(code(amend({ newSizeLots: 101 })), ["INVALID_SIZE"]);
  assert.deepEqual(code(amend({ newSizeLots: 1 })), ["INVALID_SIZE"]); // below the minimum 2
  assert.deepEqual(code(amend({ newSizeLots: 3 })), ["INVALID_SIZE"]); // 3 already filled
  assert.deepEqual(code(amend({ newPriceTicks: 1_001 })), ["INVALID_PRICE"]);
  assert.deepEqual(code(amend({ newPriceTicks: 0 })), ["INVALID_PRICE"]);
  assert.deepEqual(code(amend({ newSizeLots: 4 })), []); // one above what is filled
  assert.equal(e.getOrder("m")?.remainingLots, 1);
  assert.deepEqual(code(amend({ newSizeLots: 100, newPriceTicks: 1_000 })), []); // both at their maximum
  const o = e.getOrder("m")!;
  assert.deepEqual([o.sizeLots, o.remainingLots, o.priceTicks], [100, 97, 1_000]);
});

test("amend after a partial cancel by self-trade decrement counts the cancelled lots", () => {
  const e = newEngine();
  run(e, order({ orderId: "m", sizeLots: 10, priceTicks: 100 }));
  run(e, order({ orderId: "self", side: "buy", sizeLots: 4, priceTicks: 100, stp: "decrement" })); // same account
  const m = e.getOrder("m")!;
  assert.deepEqual([m.remainingLots, m.cancelledLots], [6, 4]);
  assert.deepEqual(code(e.apply({ kind: "amend", ts: 2, account: "maker", orderId: "m", newSizeLots: 4 })), [
    "INVALID_SIZE",
  ]);
  assert.deepEqual(
    code(e.apply({ kind: "amend", ts: 2, account: "maker", orderId: "m", newSizeLots: 12, newPriceTicks: 101 })),
    [],
  );
  const after = e.getOrder("m")!;
  assert.deepEqual([after.sizeLots, after.remainingLots, after.priceTicks], [12, 8, 101]);
});

test("amend of an iceberg to a smaller size keeps the slice unless the remainder is smaller", () => {
  const e = newEngine();
  run(e, order({ orderId: "ice", sizeLots: 20, icebergVisibleLots: 5 }));
  const depth = () => e.getDepth(SYM, 1)!.asks[0][1];
  assert.equal(depth(), 5);
  const ev = e.apply({ kind: "amend", ts: 2, account: "maker", orderId: "ice", newSizeLots: 6 });
  assert.deepEqual(of(ev, "level"), []);
  assert.equal(depth(), 5);
  const ev2 = e.apply({ kind: "amend", ts: 3, account: "maker", orderId: "ice", newSizeLots: 4 });
  assert.deepEqual(
    of(ev2, "level").map((l) => l.newTotalLots),
    [4],
  );
  assert.equal(depth(), 4);
});

test("fill-or-kill: exactly fillable fills, one lot short is refused; hidden and iceberg reserve count", () => {
  const e = newEngine();
  run(e, order({ orderId: "a", account: "m1", sizeLots: 3, priceTicks: 100 }));
  run(e, order({ orderId: "b", account: "m2", sizeLots: 4, priceTicks: 101, hidden: true }));
  run(e, order({ orderId: "c", account: "m3", sizeLots: 10, priceTicks: 102, icebergVisibleLots: 2 }));
  const fok = (sizeLots: number, priceTicks: number) =>
    e.apply(order({ account: "t", side: "buy", timeInForce: "FOK", sizeLots, priceTicks }));
  assert.deepEqual(code(fok(4, 100)), ["FOK_NOT_FILLABLE"]); // 3 at 100
  assert.deepEqual(code(fok(8, 101)), ["FOK_NOT_FILLABLE"]); // 3 + 4 at <= 101
  assert.deepEqual(code(fok(18, 102)), ["FOK_NOT_FILLABLE"]); // 3 + 4 + 10
  const ev = fok(17, 102);
  assert.deepEqual(code(ev), []);
  assert.deepEqual(trades(ev), [
    ["a", 100, 3],
    ["b", 101, 4],
    ["c", 102, 2],
    ["c", 102, 2],
    ["c", 102, 2],
    ["c", 102, 2],
    ["c", 102, 2],
  ]);
  assert.deepEqual(e.getDepth(SYM, 5)!.asks, []);
  // sell side: bids walk downwards
  run(e, order({ orderId: "bid", account: "m1", side: "buy", sizeLots: 5, priceTicks: 90 }));
  assert.deepEqual(
    code(e.apply(order({ account: "t", side: "sell", timeInForce: "FOK", sizeLots: 5, priceTicks: 91 }))),
    ["FOK_NOT_FILLABLE"],
  );
  assert.deepEqual(
    code(e.apply(order({ account: "t", side: "sell", timeInForce: "FOK", sizeLots: 6, priceTicks: 90 }))),
    ["FOK_NOT_FILLABLE"],
  );
  assert.deepEqual(
    trades(e.apply(order({ account: "t", side: "sell", timeInForce: "FOK", sizeLots: 5, priceTicks: 90 }))),
    [["bid", 90, 5]],
  );
});

test("fill-or-kill with the taker's own orders in the way: counts up to them, skips them under cancel_oldest", () => {
  const build = () => {
    const e = newEngine();
    run(e, order({ orderId: "x1", account: "m1", sizeLots: 3, priceTicks: 100 }));
    run(e, order({ orderId: "own", account: "t", sizeLots: 2, priceTicks: 100 }));
    run(e, order({ orderId: "x2", account: "m2", sizeLots: 4, priceTicks: 100 }));
    return e;
  };
  const fok = (e: MatchingEngine, sizeLots: number, stp?: "cancel_oldest") =>
    e.apply(order({ account: "t", side: "buy", timeInForce: "FOK", sizeLots, priceTicks: 100, stp }));
  // default STP (cancel_newest) stops at the own order: 3 lots reachable
  assert.deepEqual(code(fok(build(), 4)), ["FOK_NOT_FILLABLE"]);
  const three = fok(build(), 3);
  assert.deepEqual(code(three), []);
  assert.deepEqual(trades(three), [["x1", 100, 3]]);
  // cancel_oldest skips the own order: 7 lots reachable
  assert.deepEqual(code(fok(build(), 8, "cancel_oldest")), ["FOK_NOT_FILLABLE"]);
  const seven = fok(build(), 7, "cancel_oldest");
  assert.deepEqual(code(seven), []);
  assert.deepEqual(trades(seven), [
    ["x1", 100, 3],
    ["x2", 100, 4],
  ]);
});

test("fill-or-kill: an own hidden order ends the count unless cancel_oldest; an iceberg ahead counts its slice", () => {
  const e = newEngine();
  run(e, order({ orderId: "v", account: "m1", sizeLots: 2, priceTicks: 100 }));
  run(e, order({ orderId: "h-own", account: "t", sizeLots: 5, priceTicks: 100, hidden: true }));
  run(e, order({ orderId: "h2", account: "m2", sizeLots: 5, priceTicks: 100, hidden: true }));
  const fok = (sizeLots: number, stp?: "cancel_oldest") =>
    code(e.apply(order({ account: "t", side: "buy", timeInForce: "FOK", sizeLots, priceTicks: 100, stp })));
  assert.deepEqual(fok(3), ["FOK_NOT_FILLABLE"]);
  assert.deepEqual(fok(8, "cancel_oldest"), ["FOK_NOT_FILLABLE"]);
  assert.deepEqual(fok(7, "cancel_oldest"), []);
  const i = newEngine();
  run(i, order({ orderId: "ice", account: "m1", sizeLots: 10, priceTicks: 100, icebergVisibleLots: 3 }));
  run(i, order({ orderId: "own", account: "t", sizeLots: 1, priceTicks: 100 }));
  const ifok = (sizeLots: number) =>
    code(i.apply(order({ account: "t", side: "buy", timeInForce: "FOK", sizeLots, priceTicks: 100 })));
  assert.deepEqual(ifok(4), ["FOK_NOT_FILLABLE"]); // only the shown 3 are ahead of the own order
  assert.deepEqual(ifok(3), []);
});

test("reads: open orders by symbol, held stops in arrival order, last trade price, unknown markets", () => {
  const e = new MatchingEngine({ markets: [market(), market({ symbol: "BTC-USDC" })] });
  run(e, order({ orderId: "e1", symbol: "ETH-USDC", sizeLots: 5 }));
  run(e, order({ orderId: "b1", symbol: "BTC-USDC", sizeLots: 5 }));
  assert.deepEqual(
    e.getOpenOrders("maker").map((o) => o.orderId),
    ["e1", "b1"],
  );
  assert.deepEqual(
    e.getOpenOrders("maker", "BTC-USDC").map((o) => o.orderId),
    ["b1"],
  );
  assert.deepEqual(e.getOpenOrders("nobody"), []);
  assert.deepEqual(e.getBookOrders("DOGE-USDC", "buy"), []);
  assert.deepEqual(e.getHeldOrders("DOGE-USDC"), []);
  assert.equal(e.getLastTradePrice("DOGE-USDC"), undefined);
  assert.equal(e.getLastTradePrice("ETH-USDC"), undefined);
  run(
    e,
    order({
      orderId: "up",
      symbol: "ETH-USDC",
      side: "buy",
      type: "stop_loss",
      priceTicks: undefined,
      triggerPriceTicks: 900,
    }),
  );
  run(
    e,
    order({
      orderId: "down",
      symbol: "ETH-USDC",
      side: "sell",
      type: "stop_loss",
      priceTicks: undefined,
      triggerPriceTicks: 50,
    }),
  );
  run(
    e,
    order({
      orderId: "up2",
      symbol: "ETH-USDC",
      side: "buy",
      type: "take_profit",
      priceTicks: undefined,
      triggerPriceTicks: 60,
    }),
  );
  assert.deepEqual(
    e.getHeldOrders("ETH-USDC").map((o) => [o.orderId, o.status]),
    [
      ["up", "held"],
      ["down", "held"],
      ["up2", "held"],
    ],
  );
  run(e, order({ account: "t", symbol: "ETH-USDC", side: "buy", sizeLots: 5, priceTicks: 100 }));
  assert.equal(e.getLastTradePrice("ETH-USDC"), 100);
});

test("getOrder carries each optional field exactly when it is set", () => {
  const e = newEngine();
  run(e, order({ orderId: "plain" }));
  run(
    e,
    order({
      orderId: "full",
      clientOrderId: "c-9",
      sizeLots: 20,
      icebergVisibleLots: 4,
      timeInForce: "GTD",
      expiresAt: 9_999,
    }),
  );
  run(e, order({ orderId: "stop", side: "buy", type: "stop_loss_limit", priceTicks: 500, triggerPriceTicks: 400 }));
  const plain = e.getOrder("plain")!;
  for (const k of ["clientOrderId", "triggerPriceTicks", "icebergVisibleLots", "expiresAt"])
    assert.equal(k in plain, false, k);
  assert.equal(plain.priceTicks, 100);
  const full = e.getOrder("full")!;
  assert.deepEqual(
    [full.clientOrderId, full.icebergVisibleLots, full.expiresAt, full.status],
    ["c-9", 4, 9_999, "open"],
  );
  const stop = e.getOrder("stop")!;
  assert.deepEqual([stop.triggerPriceTicks, stop.priceTicks, stop.status], [400, 500, "held"]);
  const mkt = e.apply(
    order({
      orderId: "mkt",
      side: "buy",
      type: "market",
      timeInForce: "IOC",
      priceTicks: undefined,
      account: "t",
      sizeLots: 1,
    }),
  );
  assert.equal(of(mkt, "trade").length, 1);
});

test("snapshot: client order ids, held stops' arrival order and the version survive; other versions are refused", () => {
  const e = newEngine();
  run(e, order({ orderId: "a", clientOrderId: "mine", sizeLots: 5 }));
  run(e, order({ orderId: "b", sizeLots: 5, priceTicks: 101 }));
  run(e, order({ orderId: "s1", side: "sell", type: "stop_loss", priceTicks: undefined, triggerPriceTicks: 50 }));
  run(e, order({ orderId: "s2", side: "buy", type: "stop_loss", priceTicks: undefined, triggerPriceTicks: 900 }));
  run(e, order({ orderId: "s3", side: "sell", type: "take_profit", priceTicks: undefined, triggerPriceTicks: 800 }));
  run(e, order({ account: "t", side: "buy", sizeLots: 5, priceTicks: 100 })); // level 100 empties
  const snap = takeSnapshot(e);
  const r = restoreSnapshot(JSON.parse(JSON.stringify(snap)));
  assert.deepEqual(
    r.getHeldOrders(SYM).map((o) => o.orderId),
    ["s1", "s2", "s3"],
  );
  assert.equal(r.getOrder("b")?.clientOrderId, undefined);
  assert.equal("clientOrderId" in r.getOrder("b")!, false);
  assert.deepEqual(r.getDepth(SYM, 5), e.getDepth(SYM, 5));
  assert.deepEqual(takeSnapshot(r), snap);
  run(r, order({ orderId: "a2", clientOrderId: "mine2", sizeLots: 5, priceTicks: 102 }));
  assert.equal(restoreSnapshot(takeSnapshot(r)).getOrder("a2")?.clientOrderId, "mine2");
  assert.throws(
    () => restoreSnapshot({ ...snap, version: 2 } as unknown as typeof snap),
    /unsupported snapshot version 2/,
  );
});

test("a book swept of hundreds of empty levels keeps its live levels, their order and their queues", () => {
  const e = new MatchingEngine({
    markets: [{ symbol: SYM, minSizeLots: 1, maxSizeLots: 1_000, maxPriceTicks: 100_000 }],
  });
  for (let p = 1_000; p < 1_600; p++) run(e, order({ orderId: `a${p}`, priceTicks: p, sizeLots: 1 }));
  for (let p = 1_000; p < 1_600; p++)
    if (p % 100 !== 50) run(e, { kind: "cancel", ts: 2, account: "maker", orderId: `a${p}` });
  run(e, order({ orderId: "late", priceTicks: 1_250, sizeLots: 2 }));
  assert.deepEqual(e.getDepth(SYM, 10)!.asks, [
    [1_050, 1],
    [1_150, 1],
    [1_250, 3],
    [1_350, 1],
    [1_450, 1],
    [1_550, 1],
  ]);
  assert.deepEqual(
    e.getBookOrders(SYM, "sell").map((o) => o.orderId),
    ["a1050", "a1150", "a1250", "late", "a1350", "a1450", "a1550"],
  );
  const ev = e.apply(order({ account: "t", side: "buy", priceTicks: 1_250, sizeLots: 4 }));
  assert.deepEqual(trades(ev), [
    ["a1050", 1_050, 1],
    ["a1150", 1_150, 1],
    ["a1250", 1_250, 1],
    ["late", 1_250, 1],
  ]);
  // a level emptied by the sweep can be used again
  run(e, order({ orderId: "again", priceTicks: 1_001, sizeLots: 1 }));
  assert.deepEqual(e.getDepth(SYM, 2)!.asks, [
    [1_001, 1],
    [1_250, 1],
  ]);
});

test("an expiry queue swept of thousands of closed orders still expires every live one at its instant", () => {
  const e = newEngine();
  for (let i = 0; i < 8_200; i++) {
    run(
      e,
      order({
        orderId: `g${i}`,
        ts: 1,
        timeInForce: "GTD",
        expiresAt: 1_000 + (i % 97),
        priceTicks: 100 + (i % 50),
        sizeLots: 1,
      }),
    );
    if (i % 10 !== 0) run(e, { kind: "cancel", ts: 1, account: "maker", orderId: `g${i}` });
  }
  const live = Array.from({ length: 8_200 }, (_, i) => i).filter((i) => i % 10 === 0);
  assert.equal(e.getOpenOrders("maker").length, live.length);
  const expected = live.sort((a, b) => (a % 97) - (b % 97) || a - b).map((i) => `g${i}`);
  const got: string[] = [];
  for (let ts = 999; ts <= 1_100; ts++) got.push(...of(e.apply({ kind: "tick", ts }), "expired").map((x) => x.orderId));
  assert.deepEqual(got, expected);
});
