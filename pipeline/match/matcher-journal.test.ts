// The matcher service's journal (matcher/journal): a `commands.jsonl` written by the previous version
// (JSON lines {cmd, meta?}) is carried in once at open, and the service comes back exactly as from the
// journal itself: the same book, orders, trades still to settle, drops and projected balances.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Address } from "viem";
import { privateKeyToAccount, generatePrivateKey } from "viem/accounts";
import { MatcherService, type JournalMeta } from "./matcher-service";
import { createOrderDigester, getDomainSeparator } from "../intake/order-digest";
import { getSettlementDomain } from "../order";
import { signedInput } from "../testing/orders";
import type { MarketSpec } from "../markets";
import type { Command } from "../../matcher/core/types";
import { takeSnapshot } from "../../matcher/core/snapshot";
import { readJournalRecords } from "../../matcher/testing/journal-files";

const SETTLEMENT = "0x5FbDB2315678afecb367f032d93F642f64180aa3" as Address;
const market: MarketSpec = {
  symbol: "WETH-USD", baseToken: "0x00000000000000000000000000000000000000e1", quoteToken: "0x00000000000000000000000000000000000000d1",
  baseDecimals: 18, quoteDecimals: 6, tickSize: 10_000n, lotSize: 10n ** 14n, minLots: 1n, maxLots: 10n ** 9n,
};
const digest = createOrderDigester(getDomainSeparator(getSettlementDomain(31337, SETTLEMENT)));

async function open(dir: string) {
  const svc = new MatcherService({ journalDir: dir, markets: [market], digest, fees: { makerFeeBps: 10n, takerFeeBps: 20n }, expiryMarginMs: 10_000, fsync: false });
  const r = await svc.open();
  return { svc, r };
}

test("a commands.jsonl of the previous version is carried into the journal once: the service comes back the same", async () => {
  const dirs = [mkdtempSync(join(tmpdir(), "mj-new-")), mkdtempSync(join(tmpdir(), "mj-old-"))];
  try {
    const traders = [0, 1, 2].map(() => privateKeyToAccount(generatePrivateKey()));
    const [seller, poisoner, buyer] = traders;
    const fund = (s: MatcherService) => {
      for (const t of [seller, poisoner]) s.deposited(t.address, market.baseToken, 10n ** 20n);
      s.deposited(buyer.address, market.quoteToken, 10n ** 12n);
    };
    const { svc } = await open(dirs[0]);
    fund(svc);
    const bad = await svc.placeSigned(await signedInput(poisoner, poisoner.address, 31337, SETTLEMENT, market, { side: "sell", priceTicks: 250_000n, sizeLots: 10n }));
    await svc.placeSigned(await signedInput(seller, seller.address, 31337, SETTLEMENT, market, { side: "sell", priceTicks: 260_000n, sizeLots: 10n }), { clientOrderId: "c-1" });
    await svc.placeSigned(await signedInput(buyer, buyer.address, 31337, SETTLEMENT, market, { side: "buy", priceTicks: 250_000n, sizeLots: 5n, timeInForce: "IOC" }));
    await svc.placeSigned(await signedInput(buyer, buyer.address, 31337, SETTLEMENT, market, { side: "buy", priceTicks: 270_000n, sizeLots: 7n }));
    await svc.rejectForSettlement([{ hash: bad.hash, error: "SettlementOrderNonceUsed" }]);
    await svc.close();

    // the same history as the previous version wrote it
    const records = readJournalRecords<Command, JournalMeta>(dirs[0]);
    assert.ok(records.length >= 5);
    writeFileSync(join(dirs[1], "commands.jsonl"), records.map((r) => JSON.stringify(r.m === undefined ? { cmd: r.c } : { cmd: r.c, meta: r.m }) + "\n").join(""));

    const state = async (dir: string) => {
      const { svc: s, r } = await open(dir);
      fund(s);
      const out = {
        r,
        book: takeSnapshot(s.engine),
        orders: [...s.orders.values()].map((o) => [o.hash, o.remainingBase, o.lock, o.deadlineMs, o.signer, o.info]),
        trades: s.replayedTrades,
        dropped: [...s.droppedSeqs],
        rejected: [...s.rejectedOrders],
        balances: traders.flatMap((t) => [market.baseToken, market.quoteToken].map((k) => s.ledger.available(t.address, k))),
      };
      await s.close();
      return out;
    };
    const fromJournal = await state(dirs[0]);
    const imported = await state(dirs[1]);
    assert.deepEqual(imported, fromJournal);
    assert.equal(existsSync(join(dirs[1], "commands.jsonl")), false);
    assert.equal(existsSync(join(dirs[1], "commands.jsonl.imported")), true);
    assert.deepEqual(readJournalRecords(dirs[1]), records, "the import wrote the same records");
    assert.deepEqual(await state(dirs[1]), fromJournal, "a second start reads the journal, imports nothing again");
  } finally {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
});
