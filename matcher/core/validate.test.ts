// validatePlace on its own, each limit at its boundary (one below, at, one above). The naive reference engine
// reuses validatePlace, so the property tests cannot notice a change to it: these tests hold it directly.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  ORDER_TYPE_RULES,
  isLimitType,
  isNonEmptyString,
  isPositiveSafeInt,
  isStopType,
  orderTypeRule,
  validatePlace,
} from "./validate";
import { SPEC_ORDER_TYPES, SPEC_TIMES_IN_FORCE, SPEC_TIME_IN_FORCE } from "../testing/spec-table";
import type { MarketConfig, OrderType, PlaceCommand, TimeInForce } from "./types";

const NOW = 1_000_000;
const MARKET: MarketConfig = { symbol: "ETH-USDC", minSizeLots: 5, maxSizeLots: 100, maxPriceTicks: 10_000 };
const TYPES = SPEC_ORDER_TYPES;
const TIFS = SPEC_TIMES_IN_FORCE;

const place = (over: Partial<PlaceCommand> = {}): PlaceCommand => ({
  kind: "place",
  ts: NOW,
  account: "acct",
  orderId: "o1",
  symbol: "ETH-USDC",
  side: "buy",
  type: "limit",
  timeInForce: "GTC",
  priceTicks: 100,
  sizeLots: 10,
  ...over,
});
const check = (over: Partial<PlaceCommand>, market: MarketConfig | undefined = MARKET) =>
  validatePlace(place(over), market, NOW);
const ok = (over: Partial<PlaceCommand>, market?: MarketConfig) =>
  assert.equal(check(over, market), null, JSON.stringify(over));
const bad = (over: Partial<PlaceCommand>, code: string, reason: string | RegExp, market?: MarketConfig) => {
  const r = check(over, market);
  assert.ok(r, `expected ${code} for ${JSON.stringify(over)}`);
  assert.equal(r.code, code, JSON.stringify(over));
  if (typeof reason === "string") assert.equal(r.reason, reason);
  else assert.match(r.reason, reason);
};
/** Fields a well-formed order of `type` needs. */
const shape = (type: OrderType, timeInForce: TimeInForce): Partial<PlaceCommand> => ({
  type,
  timeInForce,
  priceTicks: isLimitType(type) ? 100 : undefined,
  triggerPriceTicks: isStopType(type) ? 90 : undefined,
  expiresAt: timeInForce === "GTD" ? NOW + 1 : undefined,
});

test("helpers: positive safe integers, non-empty strings, limit and stop types", () => {
  for (const x of [1, 2, Number.MAX_SAFE_INTEGER]) assert.equal(isPositiveSafeInt(x), true, String(x));
  for (const x of [0, -1, 1.5, Number.MAX_SAFE_INTEGER + 1, NaN, Infinity, "1", 1n, null, undefined])
    assert.equal(isPositiveSafeInt(x), false, String(x));
  assert.equal(isNonEmptyString("a"), true);
  for (const x of ["", 1, null, undefined, ["a"]]) assert.equal(isNonEmptyString(x), false, String(x));
  assert.deepEqual(TYPES.filter(isLimitType), ["limit", "stop_loss_limit", "take_profit_limit", "limit_maker"]);
  assert.deepEqual(TYPES.filter(isStopType), ["stop_loss", "stop_loss_limit", "take_profit", "take_profit_limit"]);
});

test("time in force per order type: exactly the spec's table", () => {
  const expected = SPEC_TIME_IN_FORCE;
  assert.deepEqual(Object.fromEntries(TYPES.map((t) => [t, ORDER_TYPE_RULES[t].timeInForce])), expected);
  assert.deepEqual(Object.keys(ORDER_TYPE_RULES).sort(), [...TYPES].sort());
  for (const type of TYPES) {
    for (const tif of TIFS) {
      if (expected[type].includes(tif)) ok(shape(type, tif));
      else
        bad(
          shape(type, tif),
          "INVALID_ORDER_TYPE",
          `${type} allows time in force ${expected[type].join(", ")}, not ${tif}`,
        );
    }
  }
  bad({ type: "trailing" as OrderType }, "INVALID_ORDER_TYPE", "order type not recognized: trailing");
  bad({ type: "toString" as OrderType }, "INVALID_ORDER_TYPE", "order type not recognized: toString");
  bad({ timeInForce: "DAY" as TimeInForce }, "INVALID_ORDER_TYPE", "time in force not recognized: DAY");
  bad(
    { type: "market", timeInForce: "DAY" as TimeInForce, priceTicks: undefined },
    "INVALID_ORDER_TYPE",
    "time in force not recognized: DAY",
  );
});

test("identity fields, symbol and side", () => {
  bad({ orderId: "" }, "INVALID_ORDER", "orderId must be a non-empty string");
  bad({ account: "" }, "INVALID_ORDER", "account must be a non-empty string");
  bad({ clientOrderId: 7 as unknown as string }, "INVALID_ORDER", "clientOrderId must be a string");
  ok({ clientOrderId: "" });
  ok({ clientOrderId: "c-1" });
  assert.deepEqual(validatePlace(place({ symbol: "BTC-USDC" }), undefined, NOW), {
    code: "INVALID_SYMBOL",
    reason: "trading pair not supported: BTC-USDC",
  });
  assert.deepEqual(validatePlace(place(), undefined, NOW), {
    code: "INVALID_SYMBOL",
    reason: "trading pair not supported: ETH-USDC",
  });
  bad({ side: "long" as "buy" }, "INVALID_ORDER", "side must be buy or sell");
  ok({ side: "sell" });
  ok({ side: "buy" });
});

test("size: one below the minimum, the minimum, the maximum, one above; integers only", () => {
  bad({ sizeLots: 4 }, "INVALID_SIZE", "sizeLots below the minimum 5");
  ok({ sizeLots: 5 });
  ok({ sizeLots: 100 });
  bad({ sizeLots: 101 }, "INVALID_SIZE", "sizeLots above the maximum 100");
  for (const sizeLots of [0, -5, 5.5, NaN, Number.MAX_SAFE_INTEGER + 1])
    bad({ sizeLots }, "INVALID_SIZE", "sizeLots must be a positive safe integer");
  ok({ sizeLots: 1 }, { ...MARKET, minSizeLots: 1 });
});

test("price: the maximum and one above; the default maximum; needed by limit types only", () => {
  ok({ priceTicks: 10_000 });
  bad({ priceTicks: 10_001 }, "INVALID_PRICE", "priceTicks above the maximum 10000");
  ok({ priceTicks: 1 });
  for (const priceTicks of [0, -1, 1.5, NaN])
    bad({ priceTicks }, "INVALID_PRICE", "priceTicks must be a positive safe integer");
  const noMax: MarketConfig = { symbol: "ETH-USDC", minSizeLots: 1, maxSizeLots: 100 };
  ok({ priceTicks: Number.MAX_SAFE_INTEGER }, noMax);
  bad(
    { priceTicks: Number.MAX_SAFE_INTEGER + 1 },
    "INVALID_PRICE",
    "priceTicks must be a positive safe integer",
    noMax,
  );
  for (const type of ["limit", "limit_maker", "stop_loss_limit", "take_profit_limit"] as const) {
    bad({ ...shape(type, "GTC"), priceTicks: undefined }, "INVALID_PRICE", `${type} needs priceTicks`);
  }
  ok({ type: "market", timeInForce: "IOC", priceTicks: undefined });
  ok({ type: "market", timeInForce: "IOC", priceTicks: 10_000 }); // protection price, same limits
  bad(
    { type: "market", timeInForce: "IOC", priceTicks: 10_001 },
    "INVALID_PRICE",
    "priceTicks above the maximum 10000",
  );
  ok({ ...shape("stop_loss", "GTC"), priceTicks: undefined });
});

test("trigger price: stop types need one within the maximum; others take none", () => {
  for (const type of ["stop_loss", "stop_loss_limit", "take_profit", "take_profit_limit"] as const) {
    ok({ ...shape(type, "GTC"), triggerPriceTicks: 10_000 });
    ok({ ...shape(type, "GTC"), triggerPriceTicks: 1 });
    bad(
      { ...shape(type, "GTC"), triggerPriceTicks: 10_001 },
      "INVALID_TRIGGER_PRICE",
      "triggerPriceTicks above the maximum 10000",
    );
    for (const triggerPriceTicks of [undefined, 0, -1, 2.5]) {
      bad(
        { ...shape(type, "GTC"), triggerPriceTicks },
        "INVALID_TRIGGER_PRICE",
        "triggerPriceTicks must be a positive safe integer",
      );
    }
  }
  bad({ triggerPriceTicks: 50 }, "INVALID_TRIGGER_PRICE", "limit takes no triggerPriceTicks");
  bad(
    { type: "market", timeInForce: "IOC", priceTicks: undefined, triggerPriceTicks: 50 },
    "INVALID_TRIGGER_PRICE",
    "market takes no triggerPriceTicks",
  );
});

test("expiry: GTD needs an integer strictly after now (now + 1 ok, now refused); others take none", () => {
  ok({ timeInForce: "GTD", expiresAt: NOW + 1 });
  bad({ timeInForce: "GTD", expiresAt: NOW }, "INVALID_EXPIRY", "expiresAt is not in the future");
  bad({ timeInForce: "GTD", expiresAt: NOW - 1 }, "INVALID_EXPIRY", "expiresAt is not in the future");
  for (const expiresAt of [undefined, NOW + 1.5, NaN, Number.MAX_SAFE_INTEGER + 1]) {
    bad({ timeInForce: "GTD", expiresAt }, "INVALID_EXPIRY", "GTD needs expiresAt (integer ms)");
  }
  bad({ timeInForce: "GTC", expiresAt: NOW + 1 }, "INVALID_EXPIRY", "expiresAt is only for GTD");
});

test("hidden: a boolean, only on orders that can rest", () => {
  bad({ hidden: "yes" as unknown as boolean }, "INVALID_ORDER", "hidden must be a boolean");
  ok({ hidden: true });
  ok({ hidden: false, timeInForce: "IOC" });
  ok({ hidden: true, timeInForce: "GTD", expiresAt: NOW + 1 });
  ok({ hidden: true, timeInForce: "POST_ONLY" });
  ok({ ...shape("limit_maker", "GTC"), hidden: true });
  ok({ ...shape("stop_loss_limit", "GTC"), hidden: true });
  for (const tif of ["IOC", "FOK"] as const)
    bad({ hidden: true, timeInForce: tif }, "INVALID_ORDER", "only orders that can rest may be hidden");
  bad({ ...shape("market", "IOC"), hidden: true }, "INVALID_ORDER", "only orders that can rest may be hidden");
  bad({ ...shape("stop_loss", "GTC"), hidden: true }, "INVALID_ORDER", "only orders that can rest may be hidden");
});

test("iceberg: 1..sizeLots visible (sizeLots + 1 refused), resting orders only, not hidden", () => {
  ok({ sizeLots: 10, icebergVisibleLots: 1 });
  ok({ sizeLots: 10, icebergVisibleLots: 10 });
  const sizeReason = "icebergVisibleLots must be a positive safe integer not above sizeLots";
  for (const icebergVisibleLots of [11, 0, -1, 2.5])
    bad({ sizeLots: 10, icebergVisibleLots }, "INVALID_SIZE", sizeReason);
  for (const tif of ["IOC", "FOK"] as const)
    bad({ icebergVisibleLots: 5, timeInForce: tif }, "INVALID_ORDER", "only orders that can rest may be icebergs");
  bad(
    { ...shape("market", "IOC"), icebergVisibleLots: 5 },
    "INVALID_ORDER",
    "only orders that can rest may be icebergs",
  );
  bad({ icebergVisibleLots: 5, hidden: true }, "INVALID_ORDER", "an order is hidden or an iceberg, not both");
  ok({ icebergVisibleLots: 5, hidden: false });
});

test("self-trade prevention modes: the four, nothing else", () => {
  for (const stp of ["cancel_newest", "cancel_oldest", "cancel_both", "decrement"] as const) ok({ stp });
  bad({ stp: "cancel_all" as "cancel_both" }, "INVALID_ORDER", "stp mode not recognized: cancel_all");
  bad({ stp: "" as "cancel_both" }, "INVALID_ORDER", "stp mode not recognized: ");
});

test("orderTypeRule returns every row of ORDER_TYPE_RULES and nothing for other names (inherited keys included)", () => {
  for (const [type, rule] of Object.entries(ORDER_TYPE_RULES)) assert.equal(orderTypeRule(type), rule, type);
  for (const other of ["toString", "__proto__", "constructor", "hasOwnProperty", "LIMIT", "", "limit "])
    assert.equal(orderTypeRule(other), undefined, other);
  assert.equal(orderTypeRule(5 as unknown as string), undefined);
});
