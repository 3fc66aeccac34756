// When the supervisor takes an Anvil state snapshot (snapshotDue): due by entries or by time as before, then
// only on a quiet chain (idleMs without a journalled call), or on a chain that never goes quiet once the time
// since the last snapshot reaches that one's stall / maxStallShare. Every limit at its exact boundary.
import assert from "node:assert/strict";
import test from "node:test";
import {
  DEFAULT_SNAPSHOT_POLICY,
  FIRST_STALL_ESTIMATE_MS,
  snapshotDue,
  type SnapshotClock,
  type SnapshotPolicy,
} from "./supervisor";

const policy: SnapshotPolicy = { everyEntries: 250, everyMs: 60_000, idleMs: 500, maxStallShare: 0.01 };
const T = 1_000_000;
/** Due by entries, the last call just now, the last snapshot 1 s ago with a 450 ms stall. */
const busy: SnapshotClock = { added: 250, nowMs: T, lastSnapshotAtMs: T - 1_000, lastCallAtMs: T, lastStallMs: 450 };

test("not due: nothing is taken however quiet the chain or old the last snapshot", () => {
  assert.equal(snapshotDue(policy, { ...busy, added: 249, lastCallAtMs: 0 }), false);
  assert.equal(snapshotDue(policy, { ...busy, added: 0, lastCallAtMs: 0, lastSnapshotAtMs: 0 }), false);
  // by time: due at everyMs with at least one entry, not a millisecond before
  assert.equal(snapshotDue(policy, { ...busy, added: 1, lastCallAtMs: 0, lastSnapshotAtMs: T - 59_999 }), false);
  assert.equal(snapshotDue(policy, { ...busy, added: 1, lastCallAtMs: 0, lastSnapshotAtMs: T - 60_000 }), true);
});

test("due on a quiet chain: taken once no call was journalled for idleMs, not before", () => {
  assert.equal(snapshotDue(policy, { ...busy, lastCallAtMs: T - 499 }), false);
  assert.equal(snapshotDue(policy, { ...busy, lastCallAtMs: T - 500 }), true);
  assert.equal(snapshotDue(policy, { ...busy, lastCallAtMs: 0 }), true, "no call since the start");
});

test("due on a chain that never goes quiet: forced once the time since the last reaches its stall / maxStallShare", () => {
  // 450 ms / 0.01 = 45 s
  assert.equal(snapshotDue(policy, { ...busy, lastSnapshotAtMs: T - 44_999 }), false);
  assert.equal(snapshotDue(policy, { ...busy, lastSnapshotAtMs: T - 45_000 }), true);
  // a longer stall (a longer history to dump) spaces them further
  assert.equal(snapshotDue(policy, { ...busy, lastStallMs: 2_000, lastSnapshotAtMs: T - 199_999 }), false);
  assert.equal(snapshotDue(policy, { ...busy, lastStallMs: 2_000, lastSnapshotAtMs: T - 200_000 }), true);
  // without maxStallShare: only on a quiet chain
  const quietOnly: SnapshotPolicy = { everyEntries: 250, everyMs: 60_000, idleMs: 500 };
  assert.equal(snapshotDue(quietOnly, { ...busy, lastSnapshotAtMs: 0 }), false);
  assert.equal(snapshotDue(quietOnly, { ...busy, lastCallAtMs: T - 500 }), true);
});

test("without idleMs a due snapshot is taken at once (the policy the tests of restarts use)", () => {
  assert.equal(snapshotDue({ everyEntries: 3, everyMs: 60_000 }, { ...busy, added: 3, lastStallMs: 1e9 }), true);
  assert.equal(snapshotDue({ everyEntries: 3, everyMs: 60_000 }, { ...busy, added: 2, lastStallMs: 0 }), false);
});

test("the default: quiet 500 ms, at most 1 % of the time held, the first forced after 100 s on a chain busy from its start", () => {
  assert.deepEqual(DEFAULT_SNAPSHOT_POLICY, { everyEntries: 250, everyMs: 60_000, idleMs: 500, maxStallShare: 0.01 });
  const first = { ...busy, lastStallMs: FIRST_STALL_ESTIMATE_MS };
  assert.equal(snapshotDue(DEFAULT_SNAPSHOT_POLICY, { ...first, lastSnapshotAtMs: T - 99_999 }), false);
  assert.equal(snapshotDue(DEFAULT_SNAPSHOT_POLICY, { ...first, lastSnapshotAtMs: T - 100_000 }), true);
});
