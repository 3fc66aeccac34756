// stop() while the oldest flight fails with a full in-flight window: the batcher must not set itself back to
// "retrying" over "stopped" and re-send for ever (found by the pipeline-settle mutation run): stop() resolves.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createBatcher } from "./batcher";
import { RetryableChainError } from "../errors";
import type { SettleSender } from "./settle-sender";
import { fixtureSignedOrder, fixtureTrade } from "../testing/batcher-fixture";

test("stop() during a failing send with the window full resolves, and nothing is re-sent after it", async () => {
  const dir = mkdtempSync(join(tmpdir(), "batcher-stop-"));
  let sends = 0;
  let fail: (() => void) | undefined;
  let onSend: () => void = () => undefined;
  const sent = new Promise<void>((r) => (onSend = r));
  const sender: SettleSender = {
    async nextBatchId() {
      return 0n;
    },
    send() {
      sends += 1;
      onSend();
      return new Promise((_, reject) => {
        fail = () => reject(new RetryableChainError("ECONNREFUSED"));
      });
    },
  };
  const b = createBatcher({
    sender,
    storeDir: join(dir, "b"),
    signedOrder: fixtureSignedOrder,
    maxTrades: 1,
    maxDelayMs: 1,
    maxInFlight: 1,
    fsync: false,
  });
  try {
    await b.start();
    b.push(fixtureTrade(1));
    await sent;
    const stopped = b.stop();
    fail!();
    const outcome = await Promise.race([
      stopped.then(() => "stopped"),
      new Promise((r) => setTimeout(() => r("hung"), 3_000)),
    ]);
    assert.equal(outcome, "stopped");
    assert.equal(b.health().state, "stopped");
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(sends, 1, "no re-send after stop()");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
