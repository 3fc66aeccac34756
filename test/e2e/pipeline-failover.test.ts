// Failover on the replicated order log: a leader and a hot standby of one partition (child processes of
// pipeline/testing/crash-child.ts) on a 3-node JetStream cluster and one chain.
// - kill -9 of the leader mid-stream: the standby leads within 5 s; every acknowledged order is in its
//   books; the chain settled exactly the log's trades, once each, in batch-id order; balances reconcile.
// - the chain refuses a batch id the old leader would send (SettlementBatchOutOfOrder: the batch-id
//   sequence fences it). The paused leader (SIGSTOP past its lease) is covered in
//   pipeline/replication/stream-log.test.ts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { settlementAbi } from "../../sdk/abi";
import { settledBatchIds } from "../support/settled-batches";
import { encodePackedBatch } from "../../sdk/settle-batch";
import { settledTradesOf } from "../../sdk/settled-trades";
import { startFixture, type Fixture } from "../../pipeline/testing/fixture";
import { startNatsCluster } from "../../pipeline/replication/nats-cluster";
import { acked, childConfig, startChild, waitFor, type Child } from "../../pipeline/testing/children";

const LEASE_MS = 2_000;

/** Lets the standby lead: sends it the acknowledged hashes, reads its state after it drained the settle lane. */
async function standbyState(standby: Child, hashes: string[]) {
  standby.proc.stdin!.write(`${hashes.join(",")}\n`);
  const json = await standby.line("{", 120_000).catch((e) => {
    throw new Error(
      `${(e as Error).message}\nlast lines: ${standby.lines.slice(-5).join(" | ")}\nstderr: ${standby.stderr.slice(-3000)}`,
    );
  });
  await standby.exited;
  return JSON.parse(json);
}

/** The chain settled exactly the log's trades, once each, in order, in consecutive batches of lane 0. */
async function assertChainEqualsLog(
  f: Fixture,
  state: { trades: { maker: string; taker: string; base: string; price: string }[] },
) {
  const logs = await f.client.getLogs({ address: f.settlement, fromBlock: f.deployBlock, toBlock: "latest" });
  const settled = await settledTradesOf(f.client, logs, f.settlement);
  assert.deepEqual(
    settled.map((t) => [t.makerOrderHash, t.takerOrderHash, t.baseAmount.toString(), t.price.toString()]),
    state.trades.map((t) => [t.maker.toLowerCase(), t.taker.toLowerCase(), t.base, t.price]),
  );
  const ids = settledBatchIds(logs);
  assert.deepEqual(
    ids,
    ids.map((_, i) => i),
  );
  return ids.length;
}

test("replicated order log: kill -9 of the leader, the standby leads within 5 s with every acknowledged order, the chain equals the log and refuses the old leader's batch id", {
  timeout: 240_000,
}, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "failover-kill-"));
  const [f, cluster] = await Promise.all([
    startFixture({ traders: 4 }),
    startNatsCluster({ dataDir: join(dir, "nats") }),
  ]);
  const children: Child[] = [];
  try {
    const leader = startChild(childConfig(f, join(dir, "a"), cluster.urls, "stream", 400, LEASE_MS), "");
    children.push(leader);
    await leader.line("LEADING");
    const standby = startChild(childConfig(f, join(dir, "b"), cluster.urls, "recover", 0, LEASE_MS), "-");
    children.push(standby);
    await standby.line("FOLLOWING");
    await waitFor(() => acked(leader).length >= 120, 120_000, "120 orders acknowledged");
    leader.proc.kill("SIGKILL");
    const killedAt = Date.now();
    await leader.exited;
    const leading = (await standby.line("LEADING", 30_000)).split(" ");
    const leadingAt = Number(leading[1]);
    const acquiredAt = Number((await standby.line("ACQUIRED")).split(" ")[1]);
    const hashes = acked(leader);
    t.diagnostic(
      `${hashes.length} orders acknowledged; the standby took the lease ${acquiredAt - killedAt} ms and led ${leadingAt - killedAt} ms after the kill (lease ${LEASE_MS} ms; start ${leading[2]})`,
    );
    assert.ok(leadingAt - killedAt < 5_000, `standby led after ${leadingAt - killedAt} ms`);
    const state = await standbyState(standby, hashes);
    for (const h of hashes) assert.equal(state.isKnown[h], true, `acknowledged order ${h} lost`);
    assert.equal(state.health.replication.role, "leader");
    assert.equal(state.health.batcher.queuedTrades, 0);
    assert.equal(state.reconciliation.state, "ok", JSON.stringify(state.reconciliation));
    assert.ok(state.trades.length > 20, `only ${state.trades.length} trades`);
    const batches = await assertChainEqualsLog(f, state);
    // the chain's fence: a batch id the dead leader may have signed (its lane's last) was taken: refused
    const operator = privateKeyToAccount(f.operatorKey as Hex);
    const args = [BigInt(batches - 1), encodePackedBatch({ orders: [], signatures: [], fills: [] })] as const;
    await assert.rejects(
      f.client.simulateContract({
        account: operator,
        address: f.settlement,
        abi: settlementAbi,
        functionName: "settlePacked",
        args,
      }),
      /SettlementBatchOutOfOrder/,
    );
  } finally {
    for (const c of children) c.proc.kill("SIGKILL");
    await Promise.all([f.stop(), cluster.stop()]);
    rmSync(dir, { recursive: true, force: true });
  }
});
