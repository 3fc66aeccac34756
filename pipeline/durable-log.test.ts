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
