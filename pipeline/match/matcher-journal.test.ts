// The matcher service's journal (matcher/journal): a `commands.jsonl` written by the previous version
// (JSON lines {cmd, meta?}) is carried in once at open, and the service comes back exactly as from the
// journal itself: the same book, orders, trades still to settle, drops and projected balances.
import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { MatcherService, JournalMeta, ServiceEvent, SnapshotPart } from "./matcher-service";
import { TEST_MARKET as market, poisonCast, testMatcher, testInput } from "../testing/matcher";
import type { Command } from "../../matcher/core/types";
import { takeSnapshot } from "../../matcher/core/snapshot";
import { readJournalRecords } from "../../matcher/testing/journal-files";

/** snapshotEvery 0: no snapshot, not even at close (the records stay in the segments) */
async function open(dir: string, snapshotEvery = 0, counter?: ReturnType<typeof eventCounter>) {
  const svc = testMatcher({
    journalDir: dir,
    snapshotEvery,
    snapshotParts: counter && { counter },
  });
  if (counter) svc.subscribe(counter.listener);
  const r = await svc.open();
  return { svc, r };
}

test("a commands.jsonl of the previous version is carried into the journal once: the service comes back the same", async () => {
  const dirs = [mkdtempSync(join(tmpdir(), "mj-new-")), mkdtempSync(join(tmpdir(), "mj-old-"))];
  try {
    const { traders, seller, poisoner, buyer, fund } = poisonCast();
    const { svc } = await open(dirs[0]);
    fund(svc);
    const bad = await svc.placeSigned(await testInput(poisoner, { side: "sell", priceTicks: 250_000n, sizeLots: 10n }));
    await svc.placeSigned(await testInput(seller, { side: "sell", priceTicks: 260_000n, sizeLots: 10n }), {
      clientOrderId: "c-1",
    });
    await svc.placeSigned(
      await testInput(buyer, { side: "buy", priceTicks: 250_000n, sizeLots: 5n, timeInForce: "IOC" }),
    );
    await svc.placeSigned(await testInput(buyer, { side: "buy", priceTicks: 270_000n, sizeLots: 7n }));
    await svc.rejectForSettlement([{ hash: bad.hash, error: "SettlementOrderNonceUsed" }]);
    await svc.close();

    // the same history as the previous version wrote it
    const records = readJournalRecords<Command, JournalMeta>(dirs[0]);
    assert.ok(records.length >= 5);
    writeFileSync(
      join(dirs[1], "commands.jsonl"),
      records.map((r) => `${JSON.stringify(r.m === undefined ? { cmd: r.c } : { cmd: r.c, meta: r.m })}\n`).join(""),
    );

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
        balances: traders.flatMap((t) =>
          [market.baseToken, market.quoteToken].map((k) => s.ledger.available(t.address, k)),
        ),
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

/** A part kept in the snapshots: counts the events it saw (restored, then the tail's added). */
function eventCounter(): SnapshotPart & { seen: number; listener(e: ServiceEvent): void } {
  const c = {
    seen: 0,
    listener: () => void (c.seen += 1),
    snapshotState: () => ({ seen: c.seen }),
    restoreSnapshot: (st: unknown) => void (c.seen = (st as { seen: number }).seen),
  };
  return c;
}

test("a snapshot (every K records and at a clean stop) brings the service back as a full replay does, replaying only the tail", async () => {
  const dirs = [mkdtempSync(join(tmpdir(), "mj-full-")), mkdtempSync(join(tmpdir(), "mj-snap-"))];
  try {
    const { traders, seller, poisoner, buyer, fund } = poisonCast();
    const place = async (svc: MatcherService, k: number) => {
      await svc.placeSigned(
        await testInput(seller, { side: "sell", priceTicks: 250_000n + BigInt(k % 3), sizeLots: 3n }),
        { clientOrderId: `s-${k}` },
      );
      await svc.placeSigned(await testInput(buyer, { side: "buy", priceTicks: 250_001n, sizeLots: 2n }));
    };
    // the history, without snapshots: a poisoned order dropped, partial fills, resting orders
    const { svc } = await open(dirs[0]);
    fund(svc);
    const bad = await svc.placeSigned(await testInput(poisoner, { side: "sell", priceTicks: 249_000n, sizeLots: 4n }));
    for (let k = 0; k < 6; k++) await place(svc, k);
    await svc.rejectForSettlement([{ hash: bad.hash, error: "SettlementOrderNonceUsed" }]);
    await svc.close();
    cpSync(dirs[0], dirs[1], { recursive: true });

    const state = async (s: MatcherService) => ({
      book: takeSnapshot(s.engine),
      orders: [...s.orders.values()].map((o) => [
        o.hash,
        o.side,
        o.type,
        o.timeInForce,
        o.sizeLots,
        o.limitPrice,
        o.remainingBase,
        o.lock,
        o.deadlineMs,
        o.gtdExpiresAtMs,
        o.signer,
        o.acceptedSeq,
        o.info,
        o.signed,
      ]),
      trades: s.replayedTrades,
      dropped: [...s.droppedSeqs],
      rejected: [...s.rejectedOrders],
      balances: traders.flatMap((t) =>
        [market.baseToken, market.quoteToken].flatMap((k) => [
          s.ledger.available(t.address, k),
          s.ledger.projected(t.address, k),
          s.ledger.lockedOf(t.address, k),
        ]),
      ),
      signed: s.replayedTrades.flatMap((t) => [s.signedOrder(t.makerHash), s.signedOrder(t.takerHash)]),
      nonce: [s.isNonceUsed(seller.address, 1n), s.isNonceUsed(buyer.address, 1n)],
    });
    // a full replay
    const full = await open(dirs[0], 0);
    fund(full.svc);
    const expected = await state(full.svc);
    assert.ok(expected.trades.length > 3 && expected.dropped.length > 0 && expected.orders.length > 0);
    await full.svc.close();

    // the same journal opened with snapshots: every 4 records while more commands come, and at the stop
    const first = eventCounter();
    const a = await open(dirs[1], 4, first);
    assert.ok(first.seen > 0, "the replay's events");
    await a.svc.close();
    assert.ok(
      readdirSync(dirs[1]).some((f) => /^snapshot-\d+\.json$/.test(f)),
      "a snapshot at the clean stop",
    );
    const second = eventCounter();
    const b = await open(dirs[1], 4, second);
    fund(b.svc);
    assert.equal(b.r.records, 0, "nothing to replay after a clean stop");
    assert.equal(second.seen, first.seen, "the part came back from the snapshot");
    assert.deepEqual(await state(b.svc), expected);

    // more records: snapshots every 4 while trading; a crash (no close) keeps the newest snapshot + the tail
    for (let k = 6; k < 11; k++) await place(b.svc, k);
    const live = {
      book: takeSnapshot(b.svc.engine),
      seen: second.seen,
      balances: traders.map((t) => b.svc.ledger.available(t.address, market.quoteToken)),
    };
    // no close: as after kill -9 (fsync off in this test, but the files are written before each append resolves)
    const third = eventCounter();
    const c = await open(dirs[1], 4, third);
    fund(c.svc);
    assert.equal(third.seen, live.seen, "the part: the snapshot's count + the tail's events");
    assert.ok(
      c.svc.recovery.snapshotIndex > 0 && c.r.records < 4,
      `snapshot at ${c.svc.recovery.snapshotIndex}, ${c.r.records} replayed`,
    );
    assert.deepEqual(takeSnapshot(c.svc.engine), live.book);
    assert.deepEqual(
      traders.map((t) => c.svc.ledger.available(t.address, market.quoteToken)),
      live.balances,
    );
    await c.svc.close();
  } finally {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
});
