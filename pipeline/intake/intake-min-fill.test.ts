// The intake's half of the on-chain minimum fill (issue 11): an order that can rest (become a maker) must be
// priced so that one lot is worth Settlement.MIN_FILL_UNITS quote units; orders that never rest (market, stop
// market, IOC, FOK) are not concerned, since every fill trades at the resting order's price.
import { test } from "node:test";
import assert from "node:assert/strict";
import { privateKeyToAccount } from "viem/accounts";
import type { Address } from "viem";
import { getOrderHash, getSettlementDomain, signOrder, type Order } from "../../sdk/eip712";
import { PipelineError } from "../errors";
import { validateSignedOrder, type IntakeContext } from "./intake";
import { DEFAULT_MARKET_GRIDS, minRestingPriceTicks, type MarketSpec } from "../markets";
import type { OrderType, TimeInForce } from "../../matcher/core/types";
import { typedOrder } from "../testing/orders";

const account = privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");
const domain = getSettlementDomain(31337n, "0x5FbDB2315678afecb367f032d93F642f64180aa3");
const market: MarketSpec = {
  symbol: "WETH-USD",
  baseToken: "0x00000000000000000000000000000000000000e1" as Address,
  quoteToken: "0x00000000000000000000000000000000000000d1" as Address,
  ...DEFAULT_MARKET_GRIDS["WETH-USD"]!,
};
const ctx: IntakeContext = {
  marketOf: (s) => (s === market.symbol ? market : undefined),
  digest: (o) => getOrderHash(domain, o),
  nowMs: () => Date.now(),
  expiryMarginMs: 5_000,
  agentExpiry: () => 0n,
  nonceProblem: () => null,
};
let nonce = 1n;

async function place(
  priceTicks: bigint,
  type: OrderType = "limit",
  timeInForce: TimeInForce = "GTC",
  extra: { triggerPriceTicks?: bigint } = {},
) {
  const order: Order = {
    trader: account.address,
    baseToken: market.baseToken,
    quoteToken: market.quoteToken,
    side: 0,
    price: priceTicks * market.tickSize,
    amount: market.lotSize,
    expiry: BigInt(Math.floor(Date.now() / 1000) + 3600),
    nonce: nonce++,
    flags: 0,
  };
  return validateSignedOrder(ctx, {
    ...typedOrder(market, { priceTicks, sizeLots: 1n, type, timeInForce, ...extra }),
    order,
    signature: await signOrder(account, domain, order),
  });
}

async function refused(p: Promise<unknown>, minTicks: bigint) {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof PipelineError);
    assert.equal(e.code, "INVALID_ORDER");
    assert.deepEqual(e.details, {
      minPrice: (minTicks * market.tickSize).toString(),
      minPriceTicks: minTicks.toString(),
    });
    return true;
  });
}

test("a resting limit order one tick below the minimum resting price is refused; at the minimum it is taken", async () => {
  const min = minRestingPriceTicks(market);
  assert.equal(min, 10_000n); // 100.00 USD per WETH: one lot (0.0001 WETH) is 10,000 quote units
  await refused(place(min - 1n), min);
  await refused(place(min - 1n, "limit", "GTD"), min);
  await refused(place(min - 1n, "limit", "POST_ONLY"), min);
  await refused(place(min - 1n, "limit_maker"), min);
  await refused(place(1n, "stop_loss_limit", "GTC", { triggerPriceTicks: 50n }), min);
  await refused(place(1n, "take_profit_limit", "GTC", { triggerPriceTicks: 50n }), min);
  assert.equal((await place(min)).priceTicks, Number(min));
  assert.equal((await place(min, "limit_maker")).priceTicks, Number(min));
});

test("orders that never rest (market, stop market, IOC, FOK) may carry a price below it", async () => {
  assert.equal((await place(1n, "market", "IOC")).priceTicks, 1);
  assert.equal((await place(1n, "limit", "IOC")).priceTicks, 1);
  assert.equal((await place(1n, "limit", "FOK")).priceTicks, 1);
  assert.equal((await place(1n, "stop_loss", "GTC", { triggerPriceTicks: 50n })).priceTicks, 1);
  assert.equal((await place(1n, "take_profit", "GTC", { triggerPriceTicks: 50n })).priceTicks, 1);
});
