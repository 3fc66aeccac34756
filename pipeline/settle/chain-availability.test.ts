import { test } from "node:test";
import assert from "node:assert/strict";
import { createChainAvailability, type SupervisedChainStatus } from "./chain-availability";
import type { SettleSender } from "./settle-sender";

test("chain availability: the supervisor's down refuses at once with the restart's Retry-After; up clears it", () => {
  let now = 1_000_000;
  let status: SupervisedChainStatus = { state: "up", sinceMs: now, expectedRestartMs: 4_200 };
  const fns: ((s: SupervisedChainStatus) => void)[] = [];
  const a = createChainAvailability({
    chainId: 31337,
    clock: { now: () => now },
    supervisor: { status: () => status, onStatus: (fn) => (fns.push(fn), () => undefined) },
  });
  let ups = 0;
  a.onUp(() => ups++);
  assert.equal(a.refusal(), undefined);
  assert.deepEqual(a.health(), { state: "ok", chainId: 31337 });
  status = { state: "down", sinceMs: now, expectedRestartMs: 4_200, reason: "node exited (SIGKILL)" };
  now += 1_000;
  const r = a.refusal()!;
  assert.equal(r.code, "CHAIN_UNAVAILABLE");
  assert.equal(r.message, "home chain 31337 is unavailable");
  assert.deepEqual(r.details, { chainId: 31337, retry_after: 4 });
  assert.equal(r.retryable, true);
  assert.equal(a.health().state, "unavailable");
  now += 10_000; // longer than expected: still at least 1 s
  assert.equal(a.refusal()!.details.retry_after, 1);
  status = { state: "up", sinceMs: now, expectedRestartMs: 4_000 };
  for (const fn of fns) fn(status);
  assert.equal(a.refusal(), undefined);
  assert.equal(ups, 1);
});

test("chain availability: the sender's unreachable failures refuse orders until a send or read succeeds; a revert does not", async () => {
  const a = createChainAvailability({ chainId: 7, clock: { now: () => 0 } });
  let fail: Error | undefined;
  const sender: SettleSender = {
    nextBatchId: async () => {
      if (fail) throw fail;
      return 3n;
    },
    send: async () => {
      if (fail) throw fail;
      return { txHash: "0x01", gasUsed: 1n, blockNumber: 1n };
    },
  };
  const watched = a.watch(sender);
  fail = new Error("settle reverted: NonceUsed");
  await assert.rejects(watched.send(0n, { orders: [], fills: [] } as never));
  assert.equal(a.refusal(), undefined, "a revert is no outage");
  fail = new Error("connect ECONNREFUSED 127.0.0.1:8545");
  await assert.rejects(watched.nextBatchId());
  assert.deepEqual(a.refusal()?.details, { chainId: 7, retry_after: 2 });
  fail = undefined;
  assert.equal(await watched.nextBatchId(), 3n);
  assert.equal(a.refusal(), undefined);
});
