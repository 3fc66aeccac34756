// The matcher's half of batch poisoning: a journaled rejection cancels the order with a reason, drops
// every unsettled trade of it, undoes their balance moves (no money moved on chain), and a restart
// replays exactly the same decision (the dropped trades never reach the batcher again).
import { test } from "node:test";
import assert from "node:assert/strict";
import { privateKeyToAccount, generatePrivateKey } from "viem/accounts";
import type { ServiceEvent } from "../match/matcher-service";
import { TEST_MARKET as market, poisonCast, testMatcher, testInput } from "../testing/matcher";
import { withTempDir } from "../../test/support/temp-dir";

async function open(dir: string, events?: ServiceEvent[]) {
  const svc = testMatcher({ journalDir: dir });
  if (events) svc.subscribe((e) => events.push(e));
  const r = await svc.open();
  return { svc, r };
}

test("a rejected order: cancelled with settlement_rejected:<error>, its trades dropped and undone in the ledger, replayed the same after a restart", async () => {
  await withTempDir("reject-", async (dir) => {
    const { seller, poisoner, buyer, fund } = poisonCast();
    const { svc } = await open(dir);
    fund(svc);
    const snapshot = () =>
      [seller, poisoner, buyer].flatMap((t) =>
        [market.baseToken, market.quoteToken].map((k) => svc.ledger.available(t.address, k)),
      );
    // the poisoner's sell rests (10 lots), an honest sell rests behind it; the buyer takes 5 of the poisoner's lots
    const bad = await svc.placeSigned(await testInput(poisoner, { side: "sell", priceTicks: 250_000n, sizeLots: 10n }));
    await svc.placeSigned(await testInput(seller, { side: "sell", priceTicks: 260_000n, sizeLots: 10n }));
    const before = snapshot();
    const bid = await svc.placeSigned(
      await testInput(buyer, { side: "buy", priceTicks: 250_000n, sizeLots: 5n, timeInForce: "IOC" }),
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
    fund(again);
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
  });
});

test("a crash between the journaled decision and the cancel: the next start cancels the order", async () => {
  await withTempDir("reject-", async (dir) => {
    const [poisoner] = [privateKeyToAccount(generatePrivateKey())];
    const { svc } = await open(dir);
    svc.deposited(poisoner.address, market.baseToken, 10n ** 20n);
    const bad = await svc.placeSigned(await testInput(poisoner, { side: "sell", priceTicks: 250_000n, sizeLots: 10n }));
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
  });
});
