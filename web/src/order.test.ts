// The order form's rules: rounding to tick and lot at the exact boundaries, refusals in words, and the
// signed Order / body pair the DEX API accepts (api/dex/order-intent.ts checkSignedOrder's rules).
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  buildOrder,
  freshNonce,
  toSteps,
  withSignature,
  type MarketInfo,
  type MarketsInfo,
  type OrderForm,
} from "./order";

const market: MarketInfo = {
  symbol: "WETH-USD",
  base: { symbol: "WETH", address: "0x00000000000000000000000000000000000000b1", decimals: 18 },
  quote: { symbol: "USD", address: "0x00000000000000000000000000000000000000a1", decimals: 6 },
  tick_size: "0.01",
  lot_size: "0.001",
  min_size: "0.001",
  max_size: "1000",
  fees: { maker_bps: 10, taker_bps: 20 },
  order_types: [
    { type: "market", time_in_force: ["ioc", "fok"], price: false, trigger_price: false },
    { type: "limit", time_in_force: ["gtc", "ioc", "fok", "gtd", "post_only"], price: true, trigger_price: false },
    { type: "stop_loss", time_in_force: ["ioc"], price: false, trigger_price: true },
    { type: "stop_loss_limit", time_in_force: ["gtc", "gtd"], price: true, trigger_price: true },
    { type: "limit_maker", time_in_force: ["post_only"], price: true, trigger_price: false },
  ],
  signed_order: {
    price_exponent: 6,
    amount_exponent: 18,
    base_token: "0x00000000000000000000000000000000000000b1",
    quote_token: "0x00000000000000000000000000000000000000a1",
  },
};
const info: MarketsInfo = {
  chain_id: 31337,
  settlement: "0x00000000000000000000000000000000000000cc",
  eip712: {
    domain: {
      name: "Settlement",
      version: "1",
      chainId: 31337,
      verifyingContract: "0x00000000000000000000000000000000000000cc",
    },
    types: {},
    primary_type: "Order",
    flags: { post_only: 1 },
  },
  markets: [market],
};
const base: OrderForm = {
  side: "buy",
  type: "limit",
  timeInForce: "gtc",
  price: "2000",
  triggerPrice: "",
  protectionPrice: "",
  size: "1",
  hidden: false,
  icebergVisibleSize: "",
  expiresAtMs: null,
};
const ctx = { trader: "0x00000000000000000000000000000000000000ee" as const, nowMs: 1_700_000_000_000, nonce: 7n };
const build = (f: Partial<OrderForm>) => buildOrder(info, market, { ...base, ...f }, ctx);

test("price rounds to the nearest tick (half up), size down to the lot", () => {
  const r = build({ price: "2000.004", size: "1.2349" });
  assert.ok(r.ok);
  assert.equal(r.order.rounded.price, "2000");
  assert.equal(r.order.rounded.size, "1.234");
  const up = build({ price: "2000.005" });
  assert.ok(up.ok);
  assert.equal(up.order.rounded.price, "2000.01");
  assert.equal(up.order.message.price, 2_000_010_000n);
  assert.equal(up.order.message.amount, 10n ** 18n);
});

test("minimum size at its boundary and one lot below; maximum and one lot above", () => {
  assert.ok(build({ size: "0.001" }).ok);
  const below = build({ size: "0.0009" });
  assert.ok(!below.ok);
  assert.match(below.errors.size!, /below the smallest step, 0\.001/);
  assert.ok(build({ size: "1000" }).ok);
  const above = build({ size: "1000.001" });
  assert.ok(!above.ok);
  assert.match(above.errors.size!, /above this market's maximum, 1000 WETH/);
});

test("bad amounts are refused in words", () => {
  for (const [size, re] of [
    ["abc", /must be a number/],
    ["", /Enter the size/],
    ["0", /more than zero/],
    ["-1", /more than zero/],
    ["1e3", /must be a number/],
    ["1".repeat(41), /must be a number/],
  ] as const) {
    const r = build({ size });
    assert.ok(!r.ok, size);
    assert.match(r.errors.size!, re, size);
  }
  const p = build({ price: "0.004" });
  assert.ok(!p.ok);
  assert.match(p.errors.price!, /below the smallest step, 0\.01/);
});

test("post_only and limit_maker set the post-only flag; other orders do not", () => {
  const po = build({ timeInForce: "post_only" });
  assert.ok(po.ok && po.order.message.flags === 1);
  const lm = build({ type: "limit_maker", timeInForce: "post_only" });
  assert.ok(lm.ok && lm.order.message.flags === 1);
  const gtc = build({});
  assert.ok(gtc.ok && gtc.order.message.flags === 0);
});

test("types without a limit price sign the worst price; stops carry their trigger", () => {
  const m = build({ type: "market", timeInForce: "ioc", protectionPrice: "2100" });
  assert.ok(m.ok);
  assert.equal(m.order.body.price, undefined);
  assert.equal(m.order.message.price, 2_100_000_000n);
  assert.ok(!build({ type: "market", timeInForce: "ioc" }).ok);
  const s = build({ type: "stop_loss_limit", side: "sell", triggerPrice: "1900", price: "1890" });
  assert.ok(s.ok);
  assert.equal(s.order.body.trigger_price, "1900");
  assert.equal(s.order.body.price, "1890");
  assert.equal(s.order.message.side, 1);
});

test("hidden and iceberg: resting orders only, not both, visible size within the size", () => {
  const ice = build({ icebergVisibleSize: "0.2" });
  assert.ok(ice.ok);
  assert.equal(ice.order.body.iceberg_visible_size, "0.2");
  assert.ok(!build({ icebergVisibleSize: "0.2", hidden: true }).ok);
  assert.ok(!build({ icebergVisibleSize: "1.001" }).ok);
  assert.ok(build({ icebergVisibleSize: "1" }).ok);
  assert.ok(!build({ hidden: true, timeInForce: "ioc" }).ok);
  const hid = build({ hidden: true });
  assert.ok(hid.ok && hid.order.body.hidden === true);
});

test("GTD: the expiry must be in the future; the signature outlives it", () => {
  assert.ok(!build({ timeInForce: "gtd", expiresAtMs: null }).ok);
  assert.ok(!build({ timeInForce: "gtd", expiresAtMs: ctx.nowMs }).ok);
  const r = build({ timeInForce: "gtd", expiresAtMs: ctx.nowMs + 60_500 });
  assert.ok(r.ok);
  assert.equal(r.order.body.expires_at, ctx.nowMs + 60_500);
  assert.ok(r.order.message.expiry * 1000n >= BigInt(ctx.nowMs + 60_500));
});

test("the POST body carries the signed integers as decimal strings", () => {
  const r = build({});
  assert.ok(r.ok);
  const body = withSignature(r.order, "0xabcd") as { order: Record<string, unknown>; signature: string };
  assert.deepEqual(body.order, {
    trader: ctx.trader,
    base_token: market.signed_order.base_token,
    quote_token: market.signed_order.quote_token,
    side: 0,
    price: "2000000000",
    amount: "1000000000000000000",
    expiry: String(ctx.nowMs / 1000 + 30 * 24 * 3600),
    nonce: "7",
    flags: 0,
  });
  assert.equal(body.signature, "0xabcd");
});

test("nonces stay below the API-key range (2^63) and below 2^64", () => {
  const n = freshNonce(Date.UTC(2100, 0, 1), 0.999999);
  assert.ok(n < 2n ** 63n);
  assert.notEqual(freshNonce(1, 0), freshNonce(1, 0.5));
});

test("toSteps: exact at the half step", () => {
  assert.deepEqual(toSteps("0.015", "0.01", "nearest", "x"), { steps: 2n });
  assert.deepEqual(toSteps("0.0149999", "0.01", "nearest", "x"), { steps: 1n });
  assert.deepEqual(toSteps("0.0199", "0.01", "down", "x"), { steps: 1n });
});
