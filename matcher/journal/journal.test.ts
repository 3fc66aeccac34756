// Journal behaviour: acknowledgement after the write, restart from snapshot + tail, the torn tail
// of an interrupted write cut off, and identical events after a restart.
import { test } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { MatchingEngine } from "../core/engine";
import { takeSnapshot } from "../core/snapshot";
import { createJournaledEngine } from "./journaled-engine";
import { encodeRecord, scanRecords } from "./frames";
import { CRASH_MARKETS, commandAt } from "../testing/crash-commands";
import { withTempDir } from "../../test/support/temp-dir";

const withDir = (fn: (dir: string) => Promise<void>) => withTempDir("matcher-journal-", fn);

test("a restarted engine has the same book and then emits the same events as one never stopped", () =>
  withDir(async (dir) => {
    const reference = new MatchingEngine({ markets: CRASH_MARKETS });
    const j1 = await createJournaledEngine({ dir, markets: CRASH_MARKETS, snapshotEvery: 120 });
    const all = await Promise.all(Array.from({ length: 500 }, (_, i) => j1.submit(commandAt(3, i))));
    for (let i = 0; i < 500; i++) assert.deepEqual(all[i], reference.apply(commandAt(3, i)));
    await j1.close();
    const files = readdirSync(dir);
    assert.ok(
      files.some((f) => f.startsWith("snapshot-")),
      "a snapshot was written",
    );
    const j2 = await createJournaledEngine({ dir, markets: CRASH_MARKETS });
    assert.equal(j2.commandCount, 500);
    assert.ok(j2.recovery.snapshotIndex > 0 && j2.recovery.replayed === 500 - j2.recovery.snapshotIndex);
    assert.deepEqual(takeSnapshot(j2.engine), takeSnapshot(reference));
    for (let i = 500; i < 700; i++)
      assert.deepEqual(await j2.submit(commandAt(3, i)), reference.apply(commandAt(3, i)));
    await j2.close();
  }));

test("the engine's reserve of order nodes is allocated also when it is restored from a snapshot", () =>
  withDir(async (dir) => {
    const open = () => createJournaledEngine({ dir, markets: CRASH_MARKETS, snapshotEvery: 10, reserveOrders: 1_000 });
    const pooled = (j: Awaited<ReturnType<typeof open>>) => (j.engine as unknown as { pool: unknown[] }).pool.length;
    const j1 = await open();
    assert.equal(pooled(j1), 1_000);
    for (let i = 0; i < 25; i++) await j1.submit(commandAt(3, i));
    await j1.close();
    const j2 = await open();
    assert.ok(j2.recovery.snapshotIndex > 0, "restored from a snapshot");
    assert.equal(j2.engine.reserveOrders, 1_000);
    // the reserve, less at most one node per replayed command
    assert.ok(pooled(j2) >= 1_000 - j2.recovery.replayed, `pool ${pooled(j2)}`);
    await j2.close();
  }));

test("a torn record at the journal's tail is cut off and the commands before it survive", () =>
  withDir(async (dir) => {
    const j1 = await createJournaledEngine({ dir, markets: CRASH_MARKETS });
    for (let i = 0; i < 50; i++) await j1.submit(commandAt(5, i));
    await j1.close();
    const segment = join(dir, readdirSync(dir).find((f) => f.startsWith("journal-"))!);
    const size = statSync(segment).size;
    appendFileSync(segment, encodeRecord({ i: 50, c: commandAt(5, 50) }).subarray(0, 17));
    const j2 = await createJournaledEngine({ dir, markets: CRASH_MARKETS });
    assert.equal(j2.commandCount, 50);
    assert.equal(j2.recovery.truncatedBytes, 17);
    assert.equal(statSync(segment).size, size);
    await j2.submit(commandAt(5, 50));
    await j2.close();
    const j3 = await createJournaledEngine({ dir, markets: CRASH_MARKETS });
    assert.equal(j3.commandCount, 51);
    await j3.close();
  }));

test("a record whose checksum fails ends the scan", () => {
  const a = encodeRecord({ i: 0, c: { kind: "tick", ts: 1 } });
  const b = encodeRecord({ i: 1, c: { kind: "tick", ts: 2 } });
  b[b.length - 2] ^= 0xff;
  const { records, validBytes } = scanRecords(Buffer.concat([a, b]));
  assert.equal(records.length, 1);
  assert.equal(validBytes, a.length);
});

test("what is applied is what replay reads back: a command that JSON would change is applied as JSON reads it", () =>
  withDir(async (dir) => {
    const j1 = await createJournaledEngine({ dir, markets: CRASH_MARKETS });
    const events = await j1.submit({
      kind: "place",
      ts: 1,
      account: "a",
      orderId: "x",
      symbol: "ETH-USDC",
      side: "buy",
      type: "limit",
      timeInForce: "GTC",
      priceTicks: NaN,
      sizeLots: 1,
    });
    assert.equal(events[0].type, "rejected");
    await assert.rejects(j1.submit({ kind: "tick", ts: 10n as unknown as number }), /cannot be journaled/);
    await j1.close();
    const j2 = await createJournaledEngine({ dir, markets: CRASH_MARKETS });
    assert.equal(j2.commandCount, 1);
    assert.equal(j2.engine.seq, 1);
    await j2.close();
  }));
