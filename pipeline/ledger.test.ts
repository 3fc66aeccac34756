// The available-balance ledger at its exact boundaries: an order needing exactly the available balance is
// accepted, one unit more is refused; locks, pending withdrawals and a dropped trade's undo count to the unit.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Address } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { BalanceLedger, buyLockFor } from "./ledger";
import { MatcherService } from "./matcher-service";
import { createOrderDigester, getDomainSeparator } from "./order-digest";
import { getSettlementDomain } from "./order";
import { PipelineError } from "./errors";
import type { MarketSpec } from "./markets";
import { signedInput } from "./testing/orders";

const S = "0x5FbDB2315678afecb367f032d93F642f64180aa3" as Address;
const market: MarketSpec = {
  symbol: "WETH-USD", baseToken: "0x00000000000000000000000000000000000000e1", quoteToken: "0x00000000000000000000000000000000000000d1",
  baseDecimals: 18, quoteDecimals: 6, tickSize: 10_000n, lotSize: 10n ** 14n, minLots: 1n, maxLots: 10n ** 9n,
};

test("available = projected - locked - pending, to the unit", () => {
  const l = new BalanceLedger();
  l.deposited("a", "t", 100n);
  l.lock("a", { token: "t", amount: 30n });
  l.withdrawalRequested("a", "t", 20n);
  assert.equal(l.available("a", "t"), 50n);
  l.withdrawalRequested("a", "t", 25n); // one pending request per token: replaced, not added
  assert.equal(l.available("a", "t"), 45n);
  l.withdrawalExecuted("a", "t", 25n);
  assert.equal(l.available("a", "t"), 45n);
  assert.equal(l.projected("a", "t"), 75n);
  l.unlock("a", { token: "t", amount: 30n });
  assert.equal(l.available("A", "T"), 75n, "keys are case-insensitive");
});

test("revertTrade undoes applyTrade exactly (fees included)", () => {
  const l = new BalanceLedger();
  const t = { buyer: "b", seller: "s", baseToken: "x", quoteToken: "y", baseAmount: 1000n, quoteAmount: 777n, buyerFee: 3n, sellerFee: 2n };
  l.deposited("b", "y", 1000n);
  l.deposited("s", "x", 5000n);
  l.applyTrade(t);
  assert.equal(l.projected("b", "x"), 997n);
  assert.equal(l.projected("s", "y"), 775n);
  l.revertTrade(t);
  assert.deepEqual([l.projected("b", "y"), l.projected("b", "x"), l.projected("s", "x"), l.projected("s", "y")], [1000n, 0n, 5000n, 0n]);
});

test("buy lock rounds up: one unit of quote more whenever the product is not exact", () => {
  assert.equal(buyLockFor(10n ** 18n, 2500n), 2500n);
  assert.equal(buyLockFor(10n ** 18n + 1n, 2500n), 2501n);
  assert.equal(buyLockFor(1n, 1n), 1n);
  assert.equal(buyLockFor(0n, 1n), 0n);
});

test("an order needing exactly the available balance is accepted; one unit short is INSUFFICIENT_BALANCE", async () => {
  const dir = mkdtempSync(join(tmpdir(), "ledger-"));
  try {
    const svc = new MatcherService({ journalDir: dir, markets: [market], digest: createOrderDigester(getDomainSeparator(getSettlementDomain(31337, S))), fees: { makerFeeBps: 0n, takerFeeBps: 0n }, expiryMarginMs: 10_000, fsync: false });
    svc.open();
    const [a, b] = [0, 1].map(() => privateKeyToAccount(generatePrivateKey()));
    const need = 10n * market.lotSize; // a 10-lot sell locks 10 lots of base
    svc.deposited(a.address, market.baseToken, need - 1n);
    const sell = () => signedInput(a, a.address, 31337, S, market, { side: "sell", priceTicks: 250_000n, sizeLots: 10n });
    await assert.rejects(svc.placeSigned(await sell()), (e: unknown) => e instanceof PipelineError && e.code === "INSUFFICIENT_BALANCE" && e.details.requiredUnits === need.toString() && e.details.availableUnits === (need - 1n).toString());
    svc.deposited(a.address, market.baseToken, 1n);
    assert.equal((await svc.placeSigned(await sell())).status, "accepted");
    assert.equal(svc.ledger.available(a.address, market.baseToken), 0n);
    // a buy: the quote lock at its limit price, exactly
    const quote = buyLockFor(10n * market.lotSize, 250_000n * market.tickSize);
    svc.deposited(b.address, market.quoteToken, quote - 1n);
    const buy = () => signedInput(b, b.address, 31337, S, market, { side: "buy", priceTicks: 240_000n, sizeLots: 10n });
    const lockAt240 = buyLockFor(10n * market.lotSize, 240_000n * market.tickSize);
    assert.ok(lockAt240 < quote);
    assert.equal((await svc.placeSigned(await buy())).status, "accepted");
    assert.equal(svc.ledger.available(b.address, market.quoteToken), quote - 1n - lockAt240);
    svc.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
