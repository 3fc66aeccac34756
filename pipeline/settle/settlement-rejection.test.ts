// The matcher's half of batch poisoning: a journaled rejection cancels the order with a reason, drops
// every unsettled trade of it, undoes their balance moves (no money moved on chain), and a restart
// replays exactly the same decision (the dropped trades never reach the batcher again).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Address } from "viem";
import { privateKeyToAccount, generatePrivateKey } from "viem/accounts";
import { MatcherService, type ServiceEvent } from "../match/matcher-service";
import { createOrderDigester, getDomainSeparator } from "../intake/order-digest";
import { getSettlementDomain } from "../order";
import { signedInput } from "../testing/orders";
import type { MarketSpec } from "../markets";

const SETTLEMENT = "0x5FbDB2315678afecb367f032d93F642f64180aa3" as Address;
const market: MarketSpec = {
  symbol: "WETH-USD",
  baseToken: "0x00000000000000000000000000000000000000e1",
  quoteToken: "0x00000000000000000000000000000000000000d1",
  baseDecimals: 18,
  quoteDecimals: 6,
  tickSize: 10_000n,
  lotSize: 10n ** 14n,
  minLots: 1n,
  maxLots: 10n ** 9n,
};
const digest = createOrderDigester(getDomainSeparator(getSettlementDomain(31337, SETTLEMENT)));

async function open(dir: string, events?: ServiceEvent[]) {
  const svc = new MatcherService({
    journalDir: dir,
    markets: [market],
    digest,
    fees: { makerFeeBps: 10n, takerFeeBps: 20n },
    expiryMarginMs: 10_000,
    fsync: false,
  });
  if (events) svc.subscribe((e) => events.push(e));
  const r = await svc.open();
  return { svc, r };
}

test("a rejected order: cancelled with settlement_rejected:<error>, its trades dropped and undone in the ledger, replayed the same after a restart", async () => {
  const dir = mkdtempSync(join(tmpdir(), "reject-"));
  try {
    const [seller, poisoner, buyer] = [0, 1, 2].map(() => privateKeyToAccount(generatePrivateKey()));
    const { svc } = await open(dir);
    for (const t of [seller, poisoner]) svc.deposited(t.address, market.baseToken, 10n ** 20n);
    svc.deposited(buyer.address, market.quoteToken, 10n ** 12n);
    const snapshot = () =>
      [seller, poisoner, buyer].flatMap((t) =>
        [market.baseToken, market.quoteToken].map((k) => svc.ledger.available(t.address, k)),
      );
    // the poisoner's sell rests (10 lots), an honest sell rests behind it; the buyer takes 5 of the poisoner's lots
    const bad = await svc.placeSigned(
      await signedInput(poisoner, poisoner.address, 31337, SETTLEMENT, market, {
        side: "sell",
        priceTicks: 250_000n,
        sizeLots: 10n,
      }),
    );
    await svc.placeSigned(
      await signedInput(seller, seller.address, 31337, SETTLEMENT, market, {
        side: "sell",
        priceTicks: 260_000n,
        sizeLots: 10n,
      }),
    );
    const before = snapshot();
    const bid = await svc.placeSigned(
      await signedInput(buyer, buyer.address, 31337, SETTLEMENT, market, {
        side: "buy",
        priceTicks: 250_000n,
        sizeLots: 5n,
        timeInForce: "IOC",
      }),
    );
    const tradeSeq = bid.events.find((e) => e.type === "trade")!.seq;
    assert.notDeepEqual(snapshot(), before, "the trade moved projected balances");
    const events: ServiceEvent[] = [];
    svc.subscribe((e) => events.push(e));

    const dropped = await svc.rejectForSettlement([{ hash: bad.hash, error: "SettlementOrderNonceUsed" }]);
    assert.deepEqual(dropped, [tradeSeq]);
    assert.ok(svc.droppedSeqs.has(tradeSeq));
    assert.equal(svc.orders.has(bad.hash.toLowerCase()), false, "the rejected order left the book");
    const cancel = events.find((e) => e.kind === "engine" && e.event.type === "cancelled");
    assert.ok(cancel && cancel.kind === "engine");
    assert.equal(cancel.reason, "settlement_rejected:SettlementOrderNonceUsed");
    assert.equal(events.filter((e) => e.kind === "dropped").length, 1);
    // balances: exactly as before the dropped trade, minus the rejected order's lock (released by its cancel)
    const after = snapshot();
    const lockOfBad = 10n ** 15n; // 10 lots of 1e14 base: the poisoner's whole sell, no longer locked
    assert.deepEqual(after, [before[0], before[1], before[2] + lockOfBad, before[3], before[4], before[5]]);
    await svc.close();

    // restart: the decision replays; the dropped trade is not handed to the batcher again
    const { svc: again } = await open(dir);
    // deposits come from the chain follower, not the journal: the same history again
    for (const t of [seller, poisoner]) again.deposited(t.address, market.baseToken, 10n ** 20n);
    again.deposited(buyer.address, market.quoteToken, 10n ** 12n);
    assert.deepEqual(
      again.replayedTrades.map((t) => t.seq),
      [],
      "no trade left to settle",
    );
    assert.ok(again.droppedSeqs.has(tradeSeq));
    assert.equal(again.rejectedOrders.get(bad.hash.toLowerCase()), "SettlementOrderNonceUsed");
    assert.deepEqual(
      [seller, poisoner, buyer].flatMap((t) =>
        [market.baseToken, market.quoteToken].map((k) => again.ledger.available(t.address, k)),
      ),
      after,
    );
    await again.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a crash between the journaled decision and the cancel: the next start cancels the order", async () => {
  const dir = mkdtempSync(join(tmpdir(), "reject-"));
  try {
    const [poisoner] = [privateKeyToAccount(generatePrivateKey())];
    const { svc } = await open(dir);
    svc.deposited(poisoner.address, market.baseToken, 10n ** 20n);
    const bad = await svc.placeSigned(
      await signedInput(poisoner, poisoner.address, 31337, SETTLEMENT, market, {
        side: "sell",
        priceTicks: 250_000n,
        sizeLots: 10n,
      }),
    );
    // only the decision record (what rejectForSettlement writes first), then the process dies
    await (svc as unknown as { submit(c: object, m: object): Promise<unknown> }).submit(
      { kind: "tick", ts: Date.now() },
      {
        reason: "settlement_rejected",
        info: {
          settlementDrop: {
            orders: [{ hash: bad.hash.toLowerCase(), error: "SettlementContractSignatureInvalid" }],
            trades: [],
          },
        },
      },
    );
    assert.ok(svc.orders.has(bad.hash.toLowerCase()));
    await svc.close();
    const events: ServiceEvent[] = [];
    const { svc: again } = await open(dir, events);
    assert.ok(again.orders.has(bad.hash.toLowerCase()), "still open right after the replay");
    await again.cancelRejectedOpen();
    assert.equal(again.orders.has(bad.hash.toLowerCase()), false);
    const cancel = events.find((e) => e.kind === "engine" && e.event.type === "cancelled");
    assert.ok(
      cancel && cancel.kind === "engine" && cancel.reason === "settlement_rejected:SettlementContractSignatureInvalid",
    );
    await again.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
