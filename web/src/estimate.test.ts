// The order form's estimates: the default worst price on the tick at the slippage, cost and fee in their
// tokens, exact (no float), and the display helpers (thousands, short hashes).
import { test } from "node:test";
import assert from "node:assert/strict";
import { amountText, DEFAULT_SLIPPAGE_BPS, estimate, groupDigits, shortHash, worstPrice } from "./estimate";
import type { MarketInfo } from "./order";

const m = {
  symbol: "WETH-USD",
  base: { symbol: "WETH", decimals: 18 },
  quote: { symbol: "USD", decimals: 6 },
  tick_size: "0.01",
  lot_size: "0.001",
  fees: { maker_bps: 10, taker_bps: 20 },
} as unknown as MarketInfo;

test("the default worst price: 1 % beyond the best opposite price, away from it on the tick", () => {
  assert.equal(DEFAULT_SLIPPAGE_BPS, 100);
  assert.equal(worstPrice("buy", "2000", "0.01"), "2020");
  assert.equal(worstPrice("sell", "2000", "0.01"), "1980");
  // 2000.01 x 1.01 = 2020.0101: a buy rounds up to 2020.02, a sell 1980.0099 down to 1980
  assert.equal(worstPrice("buy", "2000.01", "0.01"), "2020.02");
  assert.equal(worstPrice("sell", "2000.01", "0.01"), "1980");
  assert.equal(worstPrice("sell", "0.01", "0.01"), null, "no price above zero is left");
  assert.equal(worstPrice("buy", "abc", "0.01"), null);
});

test("estimated cost in the quote token; the taker fee in the token received", () => {
  assert.deepEqual(estimate(m, "buy", "2000.5", "0.5"), { cost: "1000.25", fee: "0.001", feeToken: "WETH" });
  assert.deepEqual(estimate(m, "sell", "2000.5", "0.5"), { cost: "1000.25", fee: "2.0005", feeToken: "USD" });
  // cut to the token's decimals, never rounded up
  assert.deepEqual(estimate(m, "sell", "0.01", "0.001"), { cost: "0.00001", fee: "0", feeToken: "USD" });
});

test("amounts grouped by thousands with their unit; hashes shortened", () => {
  assert.equal(groupDigits("1234567.891"), "1,234,567.891");
  assert.equal(groupDigits("999"), "999");
  assert.equal(groupDigits("-1000"), "-1,000");
  assert.equal(groupDigits("—"), "—");
  assert.equal(amountText("2500.5", "USD"), "2,500.5 USD");
  assert.equal(shortHash(`0x${"ab".repeat(32)}`), "0xabab…abab");
});
