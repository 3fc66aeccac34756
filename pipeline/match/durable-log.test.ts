import { test } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDurableLog } from "./durable-log";

test("records survive a reopen; a torn last line is dropped and appends continue cleanly", async () => {
  const dir = mkdtempSync(join(tmpdir(), "dlog-"));
  try {
    const file = join(dir, "x.jsonl");
    const a = openDurableLog<{ n: number }>(file);
    await Promise.all([a.append({ n: 1 }), a.append({ n: 2 })]);
    a.close();
    appendFileSync(file, '{"n":3');
    const b = openDurableLog<{ n: number }>(file);
    assert.deepEqual(b.records, [{ n: 1 }, { n: 2 }]);
    await b.append({ n: 4 });
    b.close();
    assert.deepEqual(openDurableLog<{ n: number }>(file).records, [{ n: 1 }, { n: 2 }, { n: 4 }]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("appends made while a flush is on its way to disk resolve in order, and close keeps what is pending", async () => {
  const dir = mkdtempSync(join(tmpdir(), "dlog-"));
  try {
    const file = join(dir, "x.jsonl");
    const a = openDurableLog<{ n: number }>(file);
    const order: number[] = [];
    const first = a.append({ n: 1 }).then(() => order.push(1));
    // next turn: the first flush has started its fsync, these wait for the next one
    await new Promise((r) => setImmediate(r));
    const later = [2, 3, 4].map((n) => a.append({ n }).then(() => order.push(n)));
    await Promise.all([first, ...later]);
    assert.deepEqual(order, [1, 2, 3, 4]);
    const pending = a.append({ n: 5 });
    a.close(); // before the scheduled flush ran
    await pending;
    await assert.rejects(a.append({ n: 6 }), /closed/);
    assert.deepEqual(openDurableLog<{ n: number }>(file).records.map((r) => r.n), [1, 2, 3, 4, 5]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
