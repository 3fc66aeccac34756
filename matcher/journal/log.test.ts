// The write-ahead log under every journal: records survive a reopen, group commit acknowledges in order,
// close keeps what is pending, snapshots of any state with only the tail replayed, and the one-time import
// of a previous version's JSON-lines file (pipeline/match/durable-log.ts's cases moved here).
import { test } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openRecordLog, type RecordLogOptions } from "./log";
import { encodeRecord } from "./frames";
import { segmentName } from "./files";
import { withTempDir } from "../../test/support/temp-dir";

const withDir = (fn: (dir: string) => Promise<void>) => withTempDir("journal-log-", fn);

type N = { n: number };

/** Opens the log and collects what recovery hands back. */
async function openN(dir: string, extra: Partial<RecordLogOptions<N, string, number[]>> = {}) {
  const seen: { c: N; m?: string }[] = [];
  let restored: { index: number; state: number[] } | undefined;
  const log = await openRecordLog<N, string, number[]>({
    dir,
    replay: (r) => seen.push(r.m === undefined ? { c: r.c } : { c: r.c, m: r.m }),
    restore: (s) => (restored = s),
    ...extra,
  });
  return { log, seen, restored: () => restored };
}

/** The records' numbers as a reopen of `dir` reads them (the log closed again). */
async function numbersAfterReopen(dir: string): Promise<number[]> {
  const r = await openN(dir);
  await r.log.close();
  return r.seen.map((x) => x.c.n);
}

test("records survive a reopen with their meta; a torn last record is cut off and appends continue cleanly", () =>
  withDir(async (dir) => {
    const a = await openN(dir);
    await Promise.all([a.log.append({ n: 1 }), a.log.append({ n: 2 }, "two")]);
    await a.log.close();
    appendFileSync(join(dir, segmentName(0)), encodeRecord({ i: 2, c: { n: 3 } }).subarray(0, 11));
    const b = await openN(dir);
    assert.deepEqual(b.seen, [{ c: { n: 1 } }, { c: { n: 2 }, m: "two" }]);
    assert.equal(b.log.count, 2);
    assert.equal(b.log.recovery.truncatedBytes, 11);
    await b.log.append({ n: 4 });
    await b.log.close();
    assert.deepEqual(await numbersAfterReopen(dir), [1, 2, 4]);
  }));

test("appends made while a write is on its way to disk resolve in order; close keeps what is pending, later appends are refused", () =>
  withDir(async (dir) => {
    const { log } = await openN(dir);
    const order: number[] = [];
    const first = log.append({ n: 1 }).then(() => order.push(1));
    // next turn: the first write has started, these wait for the next one
    await new Promise((r) => setImmediate(r));
    const later = [2, 3, 4].map((n) => log.append({ n }).then(() => order.push(n)));
    await Promise.all([first, ...later]);
    assert.deepEqual(order, [1, 2, 3, 4]);
    const pending = log.append({ n: 5 });
    const closing = log.close(); // before the queued write ran
    await pending;
    await closing;
    assert.match(log.refusal()?.message ?? "", /closed/);
    await assert.rejects(log.append({ n: 6 }), /closed/);
    const again = await openN(dir);
    assert.deepEqual(
      again.seen.map((r) => r.c.n),
      [1, 2, 3, 4, 5],
    );
    await again.log.close();
  }));

test("a record JSON cannot carry is refused and nothing is counted", () =>
  withDir(async (dir) => {
    const { log } = await openN(dir);
    await assert.rejects(log.append({ n: 1n as unknown as number }), /cannot be journaled/);
    assert.equal(log.count, 0);
    await log.close();
  }));

test("a snapshot holds the owner's state at its index: a restart restores it and replays only the tail", () =>
  withDir(async (dir) => {
    let state: number[] = [];
    const a = await openN(dir, { state: () => [...state], snapshotEvery: 3 });
    for (let n = 1; n <= 7; n++) {
      state.push(n);
      await a.log.append({ n });
    }
    await a.log.close();
    // the snapshot is taken when its turn in the write queue comes: at index 3 or a little later
    const files = readdirSync(dir).sort();
    const k = Number(/^snapshot-(\d+)\.json$/.exec(files[1])?.[1]);
    assert.ok(k >= 3 && k <= 7, files.join());
    assert.deepEqual(files, [segmentName(k), files[1]], "older segments and snapshots are gone");
    state = [];
    const b = await openN(dir, { state: () => [...state] });
    assert.deepEqual(b.restored(), { index: k, state: Array.from({ length: k }, (_, j) => j + 1) });
    assert.deepEqual(
      b.seen.map((r) => r.c.n),
      Array.from({ length: 7 - k }, (_, j) => k + 1 + j),
    );
    assert.deepEqual([b.log.count, b.log.recovery.snapshotIndex, b.log.recovery.replayed], [7, k, 7 - k]);
    await b.log.close();
    const c = await openN(dir);
    await assert.rejects(c.log.snapshot(), /takes no snapshots/);
    await c.log.close().catch(() => undefined);
  }));

test("a previous version's JSON-lines file is carried in once (torn last line skipped) and renamed away", () =>
  withDir(async (dir) => {
    const legacy = { file: "old.jsonl", convert: (line: unknown) => line as { c: N; m?: string } };
    writeFileSync(
      join(dir, "old.jsonl"),
      `${[{ c: { n: 1 } }, { c: { n: 2 }, m: "two" }].map((l) => `${JSON.stringify(l)}\n`).join("")}{"c":{"n":`,
    );
    const a = await openN(dir, { legacy });
    assert.deepEqual(a.seen, [{ c: { n: 1 } }, { c: { n: 2 }, m: "two" }]);
    assert.equal(a.log.recovery.imported, 2);
    assert.equal(existsSync(join(dir, "old.jsonl")), false);
    assert.equal(existsSync(join(dir, "old.jsonl.imported")), true);
    await a.log.append({ n: 3 });
    await a.log.close();
    const b = await openN(dir, { legacy });
    assert.equal(b.log.recovery.imported, 0);
    assert.deepEqual(
      b.seen.map((r) => r.c.n),
      [1, 2, 3],
    );
    await b.log.close();
  }));

test("a crash after the imported segment was renamed into place but before the old file was renamed: not imported twice", () =>
  withDir(async (dir) => {
    const legacy = { file: "old.jsonl", convert: (line: unknown) => ({ c: line as N }) };
    writeFileSync(join(dir, "old.jsonl"), `${JSON.stringify({ n: 1 })}\n`);
    const a = await openN(dir, { legacy });
    await a.log.close();
    writeFileSync(join(dir, "old.jsonl"), `${JSON.stringify({ n: 1 })}\n`); // as if the rename had not happened
    const b = await openN(dir, { legacy });
    assert.equal(b.log.recovery.imported, 0);
    assert.deepEqual(
      b.seen.map((r) => r.c.n),
      [1],
    );
    assert.equal(existsSync(join(dir, "old.jsonl")), false);
    await b.log.close();
  }));
