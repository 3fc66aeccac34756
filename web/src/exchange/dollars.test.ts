import { test } from "node:test";
import assert from "node:assert/strict";
import { dollarBuy } from "./dollars";

const ASK_200 = [{ price: 200, size: 10 }];

test("dollarBuy: the amount over the best ask, floored to the lot; cost, hold and the fee in the asset", () => {
  const r = dollarBuy("300", ASK_200, "0.001", 10_000, 5);
  assert.deepEqual(r, {
    ok: true,
    quantity: "1.5",
    cost: "300",
    hold: "300",
    fee: "0.00075",
    receive: "1.49925",
    bookExhausted: false,
  });
  // 300.19 buys no more than 300.00 (the next lot costs 0.20)
  assert.equal((dollarBuy("300.19", ASK_200, "0.001", null, 5) as { quantity: string }).quantity, "1.5");
  assert.equal((dollarBuy("300.2", ASK_200, "0.001", null, 5) as { quantity: string }).quantity, "1.501");
});

test("dollarBuy: one lot's cost is the boundary (0.19 is refused, 0.20 buys one lot)", () => {
  assert.deepEqual(dollarBuy("0.19", ASK_200, "0.001", 10_000, 5), {
    ok: false,
    reason: "below_one_lot",
    oneLotCost: "0.2",
  });
  assert.equal((dollarBuy("0.2", ASK_200, "0.001", 10_000, 5) as { quantity: string }).quantity, "0.001");
});

test("dollarBuy: buying power is the boundary (equal passes, a cent more is refused)", () => {
  assert.equal(dollarBuy("1000", ASK_200, "0.001", 1000, 0).ok, true);
  assert.equal((dollarBuy("1000.01", ASK_200, "0.001", 1000, 0) as { reason: string }).reason, "above_buying_power");
  // the hold is quantity x the worst price taken: within the amount, but over buying power, refused
  const asks = [
    { price: 100, size: 1 },
    { price: 300, size: 10 },
  ];
  const r = dollarBuy("400", asks, "1", 600, 0);
  assert.equal(r.ok, true);
  assert.deepEqual(r.ok && [r.quantity, r.cost, r.hold], ["2", "400", "600"]);
  assert.equal((dollarBuy("400", asks, "1", 599.99, 0) as { reason: string }).reason, "above_buying_power");
});

test("dollarBuy: walks the asks and stops at the first level it cannot take whole; a thin book is all taken", () => {
  const asks = [
    { price: 200, size: 1 },
    { price: 201, size: 1 },
    { price: 500, size: 1 },
  ];
  const r = dollarBuy("450", asks, "0.5", null, 0);
  assert.deepEqual(r.ok && [r.quantity, r.cost, r.hold, r.bookExhausted], ["2", "401", "402", false]);
  const all = dollarBuy("10000", asks, "0.5", null, 0);
  assert.deepEqual(all.ok && [all.quantity, all.cost, all.bookExhausted], ["3", "901", true]);
  assert.deepEqual(dollarBuy("10", [], "0.5", null, 0), { ok: false, reason: "no_asks" });
});
