// GET /v1/markets tells a wallet everything it needs to sign (#13): a wallet that knows nothing but that
// answer signs an EIP-712 order the API accepts. GET /v1/time is the clock the signed schemes are checked
// against.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { parseUnits, type Address, type Hex } from "viem";
import { ORDER_TYPE_RULES } from "../../pipeline/service";
import { call, fundedWallet, startHarness, type Harness } from "../testing/harness";
import { SETTLEMENT_DOMAIN, TEST_MARKETS } from "../testing/memory-dex-service";

const NOW = 1_750_000_000_123;
let h: Harness;
before(async () => {
  h = await startHarness({ now: () => NOW });
});
after(() => h.close());

test("GET /v1/markets: tokens, grid, limits, fees, spec 3.2's order types, chain, Settlement and its EIP-712 domain", async () => {
  const r = await call(h, "GET", "/v1/markets");
  assert.equal(r.status, 200, r.text);
  assert.ok(r.headers.get("x-ratelimit-remaining") !== null);
  assert.equal(r.body.chain_id, SETTLEMENT_DOMAIN.chainId);
  assert.equal(r.body.settlement, SETTLEMENT_DOMAIN.verifyingContract);
  assert.deepEqual(r.body.eip712.domain, SETTLEMENT_DOMAIN);
  assert.equal(r.body.eip712.primary_type, "Order");
  assert.deepEqual(
    r.body.eip712.types.Order.map((f: { name: string }) => f.name),
    ["trader", "baseToken", "quoteToken", "side", "price", "amount", "expiry", "nonce", "flags"],
  );
  assert.deepEqual(r.body.eip712.flags, { post_only: 1 });
  assert.deepEqual(
    r.body.markets.map((m: { symbol: string }) => m.symbol),
    TEST_MARKETS.map((m) => m.symbol),
  );
  const weth = r.body.markets[0];
  assert.deepEqual(
    {
      base: weth.base,
      quote: weth.quote,
      tick: weth.tick_size,
      lot: weth.lot_size,
      min: weth.min_size,
      max: weth.max_size,
      fees: weth.fees,
    },
    {
      base: { symbol: "WETH", address: TEST_MARKETS[0].baseToken, decimals: 18 },
      quote: { symbol: "USD", address: TEST_MARKETS[0].quoteToken, decimals: 6 },
      tick: "0.01",
      lot: "0.0001",
      min: "0.0001",
      max: "10000",
      fees: { maker_bps: 0, taker_bps: 0 },
    },
  );
  assert.deepEqual(weth.signed_order, {
    price_exponent: 6,
    amount_exponent: 18,
    base_token: TEST_MARKETS[0].baseToken,
    quote_token: TEST_MARKETS[0].quoteToken,
  });
  const wbtc = r.body.markets[1];
  assert.deepEqual(
    { tick: wbtc.tick_size, lot: wbtc.lot_size, price_exponent: wbtc.signed_order.price_exponent },
    { tick: "0.01", lot: "0.0001", price_exponent: 16 },
  );
  // the one spec 3.2 table, lower-case, the default first
  const expected = Object.entries(ORDER_TYPE_RULES).map(([type, rule]) => ({
    type,
    time_in_force: rule.timeInForce.map((t) => t.toLowerCase()),
    price: rule.needsPrice,
    trigger_price: rule.needsTrigger,
  }));
  for (const m of r.body.markets) assert.deepEqual(m.order_types, expected);
  assert.deepEqual(
    weth.order_types.find((t: { type: string }) => t.type === "market"),
    { type: "market", time_in_force: ["ioc"], price: false, trigger_price: false },
  );
});

test("a wallet that reads only GET /v1/markets signs an order the API places", async () => {
  const { body } = await call(h, "GET", "/v1/markets");
  const m = body.markets.find((x: { symbol: string }) => x.symbol === "WETH-USD");
  const w = fundedWallet(h);
  const price = "2500.5";
  const size = "0.25";
  const order = {
    trader: w.address,
    baseToken: m.signed_order.base_token as Address,
    quoteToken: m.signed_order.quote_token as Address,
    side: 0,
    price: parseUnits(price, m.signed_order.price_exponent),
    amount: parseUnits(size, m.signed_order.amount_exponent),
    expiry: BigInt(Math.floor(NOW / 1000) + 3600),
    nonce: 7n,
    flags: 0,
  };
  const signature: Hex = await w.signTypedData({
    domain: body.eip712.domain,
    types: body.eip712.types,
    primaryType: body.eip712.primary_type,
    message: order,
  });
  const wire = Object.fromEntries(
    Object.entries(order).map(([k, v]) => [
      k === "baseToken" ? "base_token" : k === "quoteToken" ? "quote_token" : k,
      typeof v === "bigint" ? v.toString() : v,
    ]),
  );
  const placed = await call(h, "POST", "/v1/orders", {
    body: { symbol: "WETH-USD", side: "buy", type: "limit", price, size, time_in_force: "gtc", order: wire, signature },
  });
  assert.equal(placed.status, 201, placed.text);
  assert.equal(placed.body.status, "open");
  const book = await call(h, "GET", "/v1/orderbook/WETH-USD");
  assert.deepEqual(book.body.bids, [{ price: 2500.5, size: 0.25 }]);
});

test("GET /v1/time: the server's clock, Unix ms and ISO 8601", async () => {
  const r = await call(h, "GET", "/v1/time");
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.body, { timestamp: NOW, iso: new Date(NOW).toISOString() });
});
