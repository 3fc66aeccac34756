// The replicated order log on a 3-node JetStream cluster (R3): appends acknowledged once a quorum holds
// them, many records in one append, a standby that follows the leader's appends and takes over when the
// lease lapses, and both fences of a deposed leader: its own lease clock and the log's expected last
// sequence (an append refused by the server even when the old leader believes it still leads).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/nats-core";
import { startNatsCluster, type NatsCluster } from "./nats-cluster";
import { startLeadership, type Leadership } from "./lease";
import { DeposedError, openStreamLog } from "./stream-log";

type N = { n: number; pad?: string };
let cluster: NatsCluster;
let dir: string;
const conns: NatsConnection[] = [];
const conn = async () => {
  const nc = await connect({ servers: cluster.urls.split(","), maxReconnectAttempts: -1, reconnectTimeWait: 100 });
  conns.push(nc);
  return nc;
};
/** a leadership that never lapses by its own clock: only the log can refuse its appends */
const blindLeader = (term: string): Leadership => ({
  term,
  acquired: Promise.resolve(),
  valid: () => true,
  deposedReason: undefined,
  onDeposed() {},
  release: async () => undefined,
  depose() {},
});

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "orderlog-"));
  cluster = await startNatsCluster({ dataDir: dir });
});
after(async () => {
  for (const nc of conns) await nc.close().catch(() => undefined);
  await cluster.stop();
  rmSync(dir, { recursive: true, force: true });
});

test("appends are acknowledged by the R3 stream, many records per message, and replay in order", async () => {
  const nc = await conn();
  const leader = await startLeadership({ nc, bucket: "leases_a", key: "p0", leaseMs: 2_000, replicas: 3 });
  await leader.acquired;
  const log = await openStreamLog<N>({ nc, stream: "A_P0", replicas: 3, leadership: leader });
  await Promise.all(Array.from({ length: 500 }, (_, n) => log.append({ n })));
  assert.equal(log.count, 500);
  const info = await (await jetstreamManager(nc)).streams.info("A_P0");
  assert.equal(info.config.num_replicas, 3);
  assert.equal(info.cluster?.replicas?.length, 2, "two followers beside the stream's leader");
  // the term marker + far fewer messages than records: group commit
  assert.ok(info.state.messages < 100, `500 records in ${info.state.messages} messages`);
  await log.close();
  await leader.release();

  const next = await startLeadership({ nc, bucket: "leases_a", key: "p0", leaseMs: 2_000, replicas: 3 });
  await next.acquired;
  const seen: number[] = [];
  const reopened = await openStreamLog<N>({
    nc,
    stream: "A_P0",
    replicas: 3,
    leadership: next,
    replay: (r) => seen.push(r.c.n),
  });
  assert.deepEqual(
    seen,
    Array.from({ length: 500 }, (_, n) => n),
  );
  await reopened.append({ n: 500 });
  assert.equal(reopened.count, 501);
  await reopened.close();
  await next.release();
});

test("an append with a stale expected last sequence is refused by the log (a deposed leader)", async () => {
  const nc = await conn();
  const old = await openStreamLog<N>({ nc, stream: "B_P0", replicas: 3, leadership: blindLeader("old") });
  await old.append({ n: 0 });
  // a new leader reads the log to its end and fences it with its term marker
  const seen: number[] = [];
  const fresh = await openStreamLog<N>({
    nc,
    stream: "B_P0",
    replicas: 3,
    leadership: blindLeader("new"),
    replay: (r) => seen.push(r.c.n),
  });
  assert.deepEqual(seen, [0]);
  await assert.rejects(
    old.append({ n: 1 }),
    (e: Error) => e instanceof DeposedError && /refused the append/.test(e.message),
  );
  assert.ok(old.refusal() instanceof DeposedError, "the old writer refuses every later append");
  await fresh.append({ n: 1 });
  const info = await (await jetstreamManager(nc)).streams.info("B_P0");
  assert.equal(
    info.state.messages,
    4,
    "old marker, record 0, new marker, the new leader's record 1: nothing of the old leader's second append",
  );
});

/** A leader (its lease taken, its log open on `stream`) and a standby opening the same log behind it. */
async function leaderAndStandby(stream: string, bucket: string, leaseMs: number) {
  const ncA = await conn();
  const ncB = await conn();
  const a = await startLeadership({ nc: ncA, bucket, key: "p0", leaseMs, replicas: 3 });
  await a.acquired;
  const logA = await openStreamLog<N>({ nc: ncA, stream, replicas: 3, leadership: a });
  const b = await startLeadership({ nc: ncB, bucket, key: "p0", leaseMs, replicas: 3 });
  const followed: number[] = [];
  const opening = openStreamLog<N>({
    nc: ncB,
    stream,
    replicas: 3,
    leadership: b,
    replay: (r) => followed.push(r.c.n),
  });
  return { a, logA, b, opening, followed, ncB };
}

test("an append the log fails for good deposes its writer, and the standby leads from what the log holds", async () => {
  const { a, logA, b, opening, followed } = await leaderAndStandby("E_P0", "leases_e", 1_000);
  await logA.append({ n: 0 });
  // a record over the server's 1 MiB payload limit: no retry can land it
  await assert.rejects(logA.append({ n: 1, pad: "x".repeat(1_100_000) }), /max_payload/);
  assert.equal(a.valid(), false, "the writer no longer leads");
  assert.match(a.deposedReason ?? "", /the order log failed an append/);
  assert.ok(logA.refusal() instanceof DeposedError, "and refuses every later append");
  const logB = await opening;
  assert.ok(b.valid(), "the standby leads once the lease lapses");
  assert.deepEqual(followed, [0], "from the records the log holds");
  await logB.append({ n: 1 });
  await b.release();
  await a.release();
});

test("a standby follows the log, takes the lapsed lease, and the paused leader writes nothing", async () => {
  const leaseMs = 1_000;
  const { a, logA, b, opening, followed, ncB } = await leaderAndStandby("C_P0", "leases_c", leaseMs);
  for (let n = 0; n < 20; n++) await logA.append({ n });
  // the standby holds the same records while the leader leads
  for (let k = 0; k < 100 && followed.length < 20; k++) await new Promise((r) => setTimeout(r, 20));
  assert.equal(followed.length, 20);
  assert.equal(b.valid(), false);
  // the leader stops (as SIGSTOP would) for longer than its lease
  const t0 = performance.now();
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, leaseMs * 2.5);
  const logB = await opening;
  assert.ok(b.valid(), "the standby leads");
  assert.ok(performance.now() - t0 < leaseMs * 2.5 + 3_000, "taken over within the lease and a few polls");
  // on waking, the old leader finds its lease lapsed and refuses to write before it sends anything
  assert.equal(a.valid(), false);
  await assert.rejects(logA.append({ n: 999 }), DeposedError);
  await logB.append({ n: 20 });
  const info = await (await jetstreamManager(ncB)).streams.info("C_P0");
  const last = await (await jetstreamManager(ncB)).streams.getMessage("C_P0", { seq: info.state.last_seq });
  assert.match(new TextDecoder().decode(last!.data), /"n":20/);
  await b.release();
  await a.release();
});

test("kill -9 of one NATS node: appends still succeed", async () => {
  const nc = await conn();
  const leader = await startLeadership({ nc, bucket: "leases_d", key: "p0", leaseMs: 10_000, replicas: 3 });
  await leader.acquired;
  const log = await openStreamLog<N>({ nc, stream: "D_P0", replicas: 3, leadership: leader });
  await log.append({ n: 0 });
  const jsm = await jetstreamManager(nc);
  const leaderName = (await jsm.streams.info("D_P0")).cluster?.leader;
  const k = cluster.nodes.findIndex((n) => n.name === leaderName);
  cluster.kill(k);
  const t0 = performance.now();
  for (let n = 1; n <= 20; n++) await log.append({ n });
  const ms = performance.now() - t0;
  assert.equal(log.count, 21);
  await cluster.restart(k);
  console.log(`appends across the stream leader's kill: ${Math.round(ms)} ms for 20`);
  await log.close();
  await leader.release();
});

test("kill -9 of two NATS nodes: the append waits, stalled, while the lease holds, and lands once they are back", async () => {
  const nc = await connect({ servers: cluster.nodes[0].url, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
  conns.push(nc);
  const log = await openStreamLog<N>({ nc, stream: "F_P0", replicas: 3, leadership: blindLeader("f") });
  await log.append({ n: 0 });
  assert.equal(log.stalledMs?.(), 0);
  cluster.kill(1);
  cluster.kill(2);
  let landed = false;
  const append = log.append({ n: 1 }).then(() => (landed = true));
  await new Promise((r) => setTimeout(r, 3_000));
  assert.equal(landed, false, "no quorum: not acknowledged");
  assert.ok((log.stalledMs?.() ?? 0) >= 2_500, `stalled ${log.stalledMs?.()} ms`);
  assert.equal(log.refusal(), undefined, "still the log's writer");
  await Promise.all([cluster.restart(1), cluster.restart(2)]);
  await append;
  assert.equal(log.stalledMs?.(), 0);
  assert.equal(log.count, 2);
  await log.close();
});

test("a stop while the log has no quorum abandons the unacknowledged append instead of waiting out the outage", async () => {
  const nc = await connect({ servers: cluster.nodes[0].url, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
  conns.push(nc);
  const leader = await startLeadership({ nc, bucket: "leases_g", key: "p0", leaseMs: 60_000, replicas: 3 });
  await leader.acquired;
  const log = await openStreamLog<N>({ nc, stream: "G_P0", replicas: 3, leadership: leader });
  await log.append({ n: 0 });
  cluster.kill(1);
  cluster.kill(2);
  const append = log.append({ n: 1 });
  await new Promise((r) => setTimeout(r, 500));
  const t0 = performance.now();
  await log.close();
  const ms = performance.now() - t0;
  assert.ok(ms < 5_000, `closed in ${Math.round(ms)} ms, the lease still valid for a minute`);
  await assert.rejects(append, /did not answer/);
  assert.match(leader.deposedReason ?? "", /the journal closed while the order log G_P0 did not answer/);
  await Promise.all([cluster.restart(1), cluster.restart(2)]);
  await leader.release();
});
