// The key store's side of "deleting a key revokes its agent on chain": the signed renouncement stored by the
// revoke, its status (none / pending / done / failed) and transaction, the retry lease at its edge, release
// and finish only while pending, and the list of pending ones in revocation order. Real (in-memory PGlite)
// database, cache off.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Hex } from "viem";
import type { Db } from "../../db";
import type { ApiKeyStore, NewApiKey } from "./api-keys";
import { suiteKeyStore } from "../testing/key-store";

const OWNER = "0x90F79bf6EB2c4f870365E785982E1f101E93b906" as const;
const input = (): NewApiKey => ({
  owner: OWNER,
  label: "bot",
  permissions: ["read", "trade"],
  ipAllowlist: [],
  positionLimitE18: null,
  dailyLossLimitE18: null,
});
const TX1 = `0x${"a1".repeat(32)}` as Hex;
const TX2 = `0x${"b2".repeat(32)}` as Hex;
const SIG = `0x${"11".repeat(65)}` as Hex;

describe("API key store: agent renouncements", () => {
  let db: Db;
  let store: ApiKeyStore;
  suiteKeyStore((s) => ({ db, store } = s));

  async function revokedWithRenouncement() {
    const { record } = await store.create(input());
    const message = { trader: OWNER, agent: record.agentAddress, nonce: 7n, deadline: 2n ** 40n + 3n };
    assert.equal(await store.revoke(record.id, { message, signature: SIG }), true);
    return { record, message };
  }

  test("a live key has no revocation; a key revoked without a renouncement reports none; with one, pending", async () => {
    const { record: live } = await store.create(input());
    assert.equal(await store.agentRevocation(live.id), null);
    assert.equal(await store.agentRevocation("00000000-0000-4000-8000-000000000000"), null);
    assert.equal(await store.claimRenouncement(live.id, 0), null, "nothing to claim on a live key");
    assert.equal(await store.revoke(live.id), true);
    assert.deepEqual(await store.agentRevocation(live.id), { status: "none", txHash: null });
    assert.equal(await store.claimRenouncement(live.id, 0), null, "nothing to claim without a renouncement");
    const { record } = await revokedWithRenouncement();
    assert.deepEqual(await store.agentRevocation(record.id), { status: "pending", txHash: null });
  });

  test("claim returns the stored renouncement exactly (addresses checksummed, bigints back) and holds a lease", async () => {
    const { record, message } = await revokedWithRenouncement();
    const c = await store.claimRenouncement(record.id, 60_000);
    assert.ok(c);
    assert.equal(c.id, record.id);
    assert.deepEqual(c.message, message);
    assert.equal(typeof c.message.nonce, "bigint");
    assert.equal(c.signature, SIG);
    assert.equal(c.agentStatus, "pending_approval");
    assert.equal(
      await store.claimRenouncement(record.id, 60_000),
      null,
      "leased: a second claim within the lease gets nothing",
    );
    await store.releaseRenouncement(record.id, null);
    assert.ok(await store.claimRenouncement(record.id, 60_000), "released: claimable at once");
  });

  test("the lease at its edge: a claim with lease 0 is always free; a long lease blocks; an expired one frees", async () => {
    const { record } = await revokedWithRenouncement();
    assert.ok(await store.claimRenouncement(record.id, 0));
    assert.ok(await store.claimRenouncement(record.id, 0), "a lease of 0 ms is over at once");
    assert.equal(await store.claimRenouncement(record.id, 3_600_000), null, "within an hour's lease");
    await new Promise((r) => setTimeout(r, 30));
    assert.ok(await store.claimRenouncement(record.id, 10), "10 ms lease, 30 ms later: free again");
  });

  test("agent status travels with the claim: approved and submitting as they are, anything else pending_approval", async () => {
    const a = await store.create(input());
    await store.markAgentApproved(a.record.id);
    await store.revoke(a.record.id, {
      message: { trader: OWNER, agent: a.record.agentAddress, nonce: 0n, deadline: 1n },
      signature: SIG,
    });
    assert.equal((await store.claimRenouncement(a.record.id, 0))?.agentStatus, "approved");
    const s = await store.create(input());
    assert.equal(await store.claimAgentApproval(s.record.id), true);
    await store.revoke(s.record.id, {
      message: { trader: OWNER, agent: s.record.agentAddress, nonce: 0n, deadline: 1n },
      signature: SIG,
    });
    assert.equal((await store.claimRenouncement(s.record.id, 0))?.agentStatus, "submitting");
  });

  test("release keeps an earlier transaction unless given a new one; finish ends it once and keeps the sent transaction", async () => {
    const { record } = await revokedWithRenouncement();
    await store.claimRenouncement(record.id, 60_000);
    await store.releaseRenouncement(record.id, TX1);
    assert.deepEqual(await store.agentRevocation(record.id), { status: "pending", txHash: TX1 });
    await store.releaseRenouncement(record.id, null);
    assert.deepEqual(
      await store.agentRevocation(record.id),
      { status: "pending", txHash: TX1 },
      "null keeps the earlier transaction",
    );
    await store.finishRenouncement(record.id, "done", null);
    assert.deepEqual(
      await store.agentRevocation(record.id),
      { status: "done", txHash: TX1 },
      "an attempt that needed none keeps the earlier answer",
    );
    await store.finishRenouncement(record.id, "failed", TX2);
    await store.releaseRenouncement(record.id, TX2);
    assert.deepEqual(
      await store.agentRevocation(record.id),
      { status: "done", txHash: TX1 },
      "finished: neither finish nor release changes it",
    );
    assert.equal(await store.claimRenouncement(record.id, 0), null, "finished: nothing to claim");
  });

  test("finish with a transaction records it; failed is a final status too", async () => {
    const { record } = await revokedWithRenouncement();
    await store.finishRenouncement(record.id, "failed", TX2);
    assert.deepEqual(await store.agentRevocation(record.id), { status: "failed", txHash: TX2 });
    assert.equal(await store.claimRenouncement(record.id, 0), null);
  });

  test("pending renouncements: only pending ones, oldest revocation first, at most the limit", async () => {
    const before = new Set(await store.pendingRenouncements(1000));
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await revokedWithRenouncement()).record.id);
      await new Promise((r) => setTimeout(r, 5));
    }
    const fresh = (await store.pendingRenouncements(1000)).filter((id) => !before.has(id));
    assert.deepEqual(fresh, ids);
    await store.finishRenouncement(ids[1], "done", TX1);
    const after = (await store.pendingRenouncements(1000)).filter((id) => !before.has(id));
    assert.deepEqual(after, [ids[0], ids[2]]);
    assert.equal((await store.pendingRenouncements(1)).length, 1);
    assert.equal((await store.pendingRenouncements(0)).length, 0);
  });
});
