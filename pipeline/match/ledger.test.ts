// The available-balance ledger at its exact boundaries: an order needing exactly the available balance is
// accepted, one unit more is refused; locks, pending withdrawals and a dropped trade's undo count to the unit.
import { test } from "node:test";
import assert from "node:assert/strict";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { BalanceLedger, buyLockFor, type TradeDelta } from "./ledger";
import { PRICE_SCALE } from "../../sdk/eip712";
import { PipelineError } from "../errors";
import { TEST_MARKET as market, testMatcher, testInput } from "../testing/matcher";
import { withTempDir } from "../../test/support/temp-dir";

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
  const t = {
    buyer: "b",
    seller: "s",
    baseToken: "x",
    quoteToken: "y",
    baseAmount: 1000n,
    quoteAmount: 777n,
    buyerFee: 3n,
    sellerFee: 2n,
  };
  l.deposited("b", "y", 1000n);
  l.deposited("s", "x", 5000n);
  l.applyTrade(t);
  assert.equal(l.projected("b", "x"), 997n);
  assert.equal(l.projected("s", "y"), 775n);
  l.revertTrade(t);
  assert.deepEqual(
    [l.projected("b", "y"), l.projected("b", "x"), l.projected("s", "x"), l.projected("s", "y")],
    [1000n, 0n, 5000n, 0n],
  );
});

test("buy lock rounds up: one unit of quote more whenever the product is not exact", () => {
  assert.equal(buyLockFor(10n ** 18n, 2500n), 2500n);
  assert.equal(buyLockFor(10n ** 18n + 1n, 2500n), 2501n);
  assert.equal(buyLockFor(1n, 1n), 1n);
  assert.equal(buyLockFor(0n, 1n), 0n);
});

test("an order needing exactly the available balance is accepted; one unit short is INSUFFICIENT_BALANCE", async () => {
  await withTempDir("ledger-", async (dir) => {
    const svc = testMatcher({ journalDir: dir, fees: { makerFeeBps: 0n, takerFeeBps: 0n } });
    await svc.open();
    const [a, b] = [0, 1].map(() => privateKeyToAccount(generatePrivateKey()));
    const need = 10n * market.lotSize; // a 10-lot sell locks 10 lots of base
    svc.deposited(a.address, market.baseToken, need - 1n);
    const sell = () => testInput(a, { side: "sell", priceTicks: 250_000n, sizeLots: 10n });
    await assert.rejects(
      svc.placeSigned(await sell()),
      (e: unknown) =>
        e instanceof PipelineError &&
        e.code === "INSUFFICIENT_BALANCE" &&
        e.details.requiredUnits === need.toString() &&
        e.details.availableUnits === (need - 1n).toString(),
    );
    svc.deposited(a.address, market.baseToken, 1n);
    assert.equal((await svc.placeSigned(await sell())).status, "accepted");
    assert.equal(svc.ledger.available(a.address, market.baseToken), 0n);
    // a buy: the quote lock at its limit price, exactly
    const quote = buyLockFor(10n * market.lotSize, 250_000n * market.tickSize);
    svc.deposited(b.address, market.quoteToken, quote - 1n);
    const buy = () => testInput(b, { side: "buy", priceTicks: 240_000n, sizeLots: 10n });
    const lockAt240 = buyLockFor(10n * market.lotSize, 240_000n * market.tickSize);
    assert.ok(lockAt240 < quote);
    assert.equal((await svc.placeSigned(await buy())).status, "accepted");
    assert.equal(svc.ledger.available(b.address, market.quoteToken), quote - 1n - lockAt240);
    await svc.close();
  });
});

// ---- the ledger alone: each operation one unit below, at and above its limit ----

const A = "0xAaAaAaAaAaAaAaAaAaAaAaAaAaAaAaAaAaAaAaAa";
const B = "0xBbBbBbBbBbBbBbBbBbBbBbBbBbBbBbBbBbBbBbBb";
const BASE = "0x1111111111111111111111111111111111111111";
const QUOTE = "0x2222222222222222222222222222222222222222";

/** What the matcher service does with an order's lock: refuse when available < lock. */
const funds = (l: BalanceLedger, account: string, token: string, amount: bigint) =>
  l.available(account, token) >= amount;

test("buyLockFor: exact products are not rounded, any remainder rounds up by one unit", () => {
  assert.equal(buyLockFor(0n, 5n * PRICE_SCALE), 0n);
  assert.equal(buyLockFor(3n, PRICE_SCALE), 3n); // divides exactly
  assert.equal(buyLockFor(3n, 2n * PRICE_SCALE), 6n);
  assert.equal(buyLockFor(1n, PRICE_SCALE - 1n), 1n); // 0.999... rounds up to 1
  assert.equal(buyLockFor(1n, 1n), 1n); // the smallest nonzero product still locks one unit
  assert.equal(buyLockFor(1n, PRICE_SCALE + 1n), 2n); // 1.000...1 rounds up to 2
  assert.equal(buyLockFor(2n, PRICE_SCALE / 2n), 1n); // exactly 1: no extra unit
  assert.equal(buyLockFor(2n, PRICE_SCALE / 2n + 1n), 2n);
  assert.equal(buyLockFor(10n ** 18n, 10n ** 18n), 10n ** 18n);
});

test("available = projected - locked - pending; a lock one unit short, exact, one over", () => {
  const l = new BalanceLedger();
  assert.equal(l.available(A, QUOTE), 0n);
  l.deposited(A, QUOTE, 100n);
  assert.equal(l.projected(A, QUOTE), 100n);
  assert.equal(l.available(A, QUOTE), 100n);
  assert.equal(funds(l, A, QUOTE, 99n), true);
  assert.equal(funds(l, A, QUOTE, 100n), true); // exactly enough
  assert.equal(funds(l, A, QUOTE, 101n), false); // one unit short
  l.lock(A, { token: QUOTE, amount: 60n });
  assert.equal(l.lockedOf(A, QUOTE), 60n);
  assert.equal(l.available(A, QUOTE), 40n);
  assert.equal(funds(l, A, QUOTE, 40n), true);
  assert.equal(funds(l, A, QUOTE, 41n), false);
  l.withdrawalRequested(A, QUOTE, 39n);
  assert.equal(l.pendingWithdrawal(A, QUOTE), 39n);
  assert.equal(l.available(A, QUOTE), 1n);
  assert.equal(funds(l, A, QUOTE, 1n), true);
  assert.equal(funds(l, A, QUOTE, 2n), false);
  // the other token and the other account are untouched
  assert.equal(l.available(A, BASE), 0n);
  assert.equal(l.available(B, QUOTE), 0n);
});

test("balances are per account and token, whatever the address case", () => {
  const l = new BalanceLedger();
  l.deposited(A, QUOTE, 7n);
  l.deposited(A.toLowerCase(), QUOTE.toUpperCase().replace("0X", "0x"), 3n);
  assert.equal(l.projected(A.toUpperCase().replace("0X", "0x"), QUOTE.toLowerCase()), 10n);
  l.lock(A.toLowerCase(), { token: QUOTE, amount: 4n });
  assert.equal(l.lockedOf(A, QUOTE.toLowerCase()), 4n);
  l.withdrawalRequested(A.toLowerCase(), QUOTE.toLowerCase(), 2n);
  assert.equal(l.pendingWithdrawal(A, QUOTE), 2n);
  assert.equal(l.available(A, QUOTE), 4n);
  assert.deepEqual(l.entries(), [{ account: A.toLowerCase(), token: QUOTE.toLowerCase(), projected: 10n }]);
});

/** A's BASE: what is locked and what is available. */
function assertBase(l: BalanceLedger, want: { locked: bigint; available: bigint }): void {
  assert.deepEqual({ locked: l.lockedOf(A, BASE), available: l.available(A, BASE) }, want);
}

test("unlock releases exactly what was locked; unlocking everything leaves nothing locked", () => {
  const l = new BalanceLedger();
  l.deposited(A, BASE, 10n);
  l.lock(A, { token: BASE, amount: 10n });
  assert.equal(l.available(A, BASE), 0n);
  assert.equal(funds(l, A, BASE, 1n), false);
  l.unlock(A, { token: BASE, amount: 1n });
  assertBase(l, { locked: 9n, available: 1n });
  l.unlock(A, { token: BASE, amount: 9n });
  assertBase(l, { locked: 0n, available: 10n });
});

test("unlocking more than is locked is not hidden: locked goes negative and available exceeds the balance", () => {
  // The ledger does not clamp: an over-unlock is a caller's bug, and clamping would hide it by silently
  // releasing funds another order still counts on. What it must never do is lose the excess.
  const l = new BalanceLedger();
  l.deposited(A, BASE, 10n);
  l.lock(A, { token: BASE, amount: 5n });
  l.unlock(A, { token: BASE, amount: 6n });
  assertBase(l, { locked: -1n, available: 11n });
  l.lock(A, { token: BASE, amount: 1n });
  assertBase(l, { locked: 0n, available: 10n });
});

test("pending withdrawal: one request per account and token, replaced, cancelled, executed", () => {
  const l = new BalanceLedger();
  l.deposited(A, BASE, 50n);
  l.withdrawalRequested(A, BASE, 20n);
  l.withdrawalRequested(A, BASE, 30n); // replaces, does not add
  assert.equal(l.pendingWithdrawal(A, BASE), 30n);
  assert.equal(l.available(A, BASE), 20n);
  l.withdrawalCancelled(A, BASE);
  assert.equal(l.pendingWithdrawal(A, BASE), 0n);
  assert.equal(l.available(A, BASE), 50n);
  l.withdrawalRequested(A, BASE, 50n);
  assert.equal(l.available(A, BASE), 0n);
  l.withdrawalExecuted(A, BASE, 50n);
  assert.equal(l.pendingWithdrawal(A, BASE), 0n);
  assert.equal(l.projected(A, BASE), 0n);
  assert.equal(l.available(A, BASE), 0n);
  assert.deepEqual(l.entries(), []); // a zero balance leaves no entry
  // a withdrawal of part of the balance
  l.deposited(A, BASE, 9n);
  l.withdrawalRequested(A, BASE, 4n);
  l.withdrawalExecuted(A, BASE, 4n);
  assert.equal(l.projected(A, BASE), 5n);
  assert.equal(l.available(A, BASE), 5n);
  // another token's request is separate
  l.deposited(A, QUOTE, 3n);
  l.withdrawalRequested(A, QUOTE, 3n);
  l.withdrawalCancelled(A, BASE);
  assert.equal(l.pendingWithdrawal(A, QUOTE), 3n);
});

const trade: TradeDelta = {
  buyer: A,
  seller: B,
  baseToken: BASE,
  quoteToken: QUOTE,
  baseAmount: 10n,
  quoteAmount: 250n,
  buyerFee: 1n,
  sellerFee: 3n,
};

test("applyTrade moves the four legs with the fees kept from what each side receives", () => {
  const l = new BalanceLedger();
  l.deposited(A, QUOTE, 250n); // exactly enough quote
  l.deposited(B, BASE, 10n); // exactly enough base
  l.applyTrade(trade);
  assert.equal(l.projected(A, QUOTE), 0n);
  assert.equal(l.projected(A, BASE), 9n);
  assert.equal(l.projected(B, BASE), 0n);
  assert.equal(l.projected(B, QUOTE), 247n);
  const sorted = l.entries().sort((x, y) => (x.account + x.token < y.account + y.token ? -1 : 1));
  assert.deepEqual(sorted, [
    { account: A.toLowerCase(), token: BASE, projected: 9n },
    { account: B.toLowerCase(), token: QUOTE, projected: 247n },
  ]);
});

test("a trade one unit over the buyer's quote leaves it one unit negative (the service's lock prevents it)", () => {
  const l = new BalanceLedger();
  l.deposited(A, QUOTE, 249n);
  l.deposited(B, BASE, 10n);
  l.applyTrade(trade);
  assert.equal(l.projected(A, QUOTE), -1n);
  assert.equal(l.available(A, QUOTE), -1n);
  assert.equal(funds(l, A, QUOTE, 0n), false);
});

test("revertTrade undoes applyTrade exactly", () => {
  const l = new BalanceLedger();
  l.deposited(A, QUOTE, 300n);
  l.deposited(B, BASE, 12n);
  const before = l.entries();
  l.applyTrade(trade);
  l.revertTrade(trade);
  assert.deepEqual(l.entries(), before);
  assert.equal(l.projected(A, BASE), 0n);
  assert.equal(l.projected(B, QUOTE), 0n);
  assert.equal(l.projected(A, QUOTE), 300n);
  assert.equal(l.projected(B, BASE), 12n);
  // revert alone is the exact opposite of apply
  const r = new BalanceLedger();
  r.revertTrade(trade);
  assert.equal(r.projected(A, QUOTE), 250n);
  assert.equal(r.projected(A, BASE), -9n);
  assert.equal(r.projected(B, BASE), 10n);
  assert.equal(r.projected(B, QUOTE), -247n);
});
