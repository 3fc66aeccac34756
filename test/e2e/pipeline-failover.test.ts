// Failover on the replicated order log: a leader and a hot standby of one partition (child processes of
// pipeline/testing/crash-child.ts) on a 3-node JetStream cluster and one chain.
// - kill -9 of the leader mid-stream: the standby leads within 5 s; every acknowledged order is in its
//   books; the chain settled exactly the log's trades, once each, in batch-id order; balances reconcile.
// - SIGSTOP of the leader past its lease, then SIGCONT: the standby leads; the old leader finds itself
//   deposed and writes nothing (the log's head does not move); the chain refuses a batch id the old leader
//   would send (SettlementBatchOutOfOrder: the batch-id sequence fences it).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseEventLogs, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { HARDHAT_DEV_PRIVATE_KEYS } from "../../config/dev-accounts";
import { settlementAbi } from "../../sdk/abi";
import { encodePackedBatch } from "../../sdk/settle-batch";
import { settledTradesOf } from "../../sdk/settled-trades";
import { startFixture, type Fixture } from "../../pipeline/testing/fixture";
import { startNatsCluster } from "../../pipeline/replication/nats-cluster";

const ROOT = join(__dirname, "..", "..");
const LEASE_MS = 2_000;

interface Child {
  proc: ChildProcess;
  lines: string[];
  stderr: string;
  /** resolves with the first line starting with `prefix` */
  line(prefix: string, timeoutMs?: number): Promise<string>;
  exited: Promise<void>;
}

function startChild(config: object, hashes: string): Child {
  const proc = spawn(process.execPath, ["--import", "tsx", join(ROOT, "pipeline/testing/crash-child.ts"), JSON.stringify(config), hashes], { cwd: ROOT, stdio: ["pipe", "pipe", "pipe"] });
  const lines: string[] = [];
  const waiters: { prefix: string; resolve: (l: string) => void }[] = [];
  let buf = "";
  const c: Child = {
    proc,
    lines,
    stderr: "",
    line(prefix, timeoutMs = 60_000) {
      const found = lines.find((l) => l.startsWith(prefix));
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`no "${prefix}" line within ${timeoutMs} ms: ${c.stderr.slice(-2000)}`)), timeoutMs);
        waiters.push({ prefix, resolve: (l) => (clearTimeout(t), resolve(l)) });
      });
    },
    exited: new Promise((resolve) => proc.on("exit", () => resolve())),
  };
  proc.stdout!.on("data", (d) => {
    buf += d;
    let i;
    while ((i = buf.indexOf("\n")) >= 0) {
      const l = buf.slice(0, i);
      buf = buf.slice(i + 1);
      lines.push(l);
      for (const w of waiters.filter((x) => l.startsWith(x.prefix))) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(l);
      }
    }
  });
  proc.stderr!.on("data", (d) => (c.stderr += d));
  return c;
}

function childConfig(f: Fixture, dataDir: string, servers: string, mode: "stream" | "recover", orders: number) {
  const m = f.market;
  return {
    mode, rpcUrl: f.chain.rpcUrl, chainId: f.chainId, settlement: f.settlement, fromBlock: f.deployBlock.toString(),
    market: { symbol: m.symbol, baseToken: m.baseToken, quoteToken: m.quoteToken, baseDecimals: m.baseDecimals, quoteDecimals: m.quoteDecimals, tickSize: m.tickSize.toString(), lotSize: m.lotSize.toString(), minLots: m.minLots.toString(), maxLots: m.maxLots.toString() },
    operatorKey: f.operatorKey, traderKeys: [4, 5, 6, 7].map((i) => HARDHAT_DEV_PRIVATE_KEYS[i]), dataDir, orders,
    orderLog: { servers, leaseMs: LEASE_MS },
  };
}

const acked = (c: Child) => c.lines.filter((l) => l.startsWith("ACK ")).map((l) => l.slice(4));

async function waitFor(cond: () => boolean, timeoutMs: number, what: string) {
  const until = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > until) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Lets the standby lead: sends it the acknowledged hashes, reads its state after it drained the settle lane. */
async function standbyState(standby: Child, hashes: string[]) {
  standby.proc.stdin!.write(hashes.join(",") + "\n");
  const json = await standby.line("{", 120_000).catch((e) => {
    throw new Error(`${(e as Error).message}\nlast lines: ${standby.lines.slice(-5).join(" | ")}\nstderr: ${standby.stderr.slice(-3000)}`);
  });
  await standby.exited;
  return JSON.parse(json);
}

/** The chain settled exactly the log's trades, once each, in order, in consecutive batches of lane 0. */
async function assertChainEqualsLog(f: Fixture, state: { trades: { maker: string; taker: string; base: string; price: string }[] }) {
  const logs = await f.client.getLogs({ address: f.settlement, fromBlock: f.deployBlock, toBlock: "latest" });
  const settled = settledTradesOf(logs);
  assert.deepEqual(
    settled.map((t) => [t.makerOrderHash, t.takerOrderHash, t.baseAmount.toString(), t.price.toString()]),
    state.trades.map((t) => [t.maker.toLowerCase(), t.taker.toLowerCase(), t.base, t.price]),
  );
  const batches = parseEventLogs({ abi: settlementAbi, logs, eventName: "BatchSettled" }) as unknown as { args: { batchId: bigint } }[];
  assert.deepEqual(batches.map((b) => Number(b.args.batchId)), batches.map((_, i) => i));
  return batches.length;
}

test("replicated order log: kill -9 of the leader, the standby leads within 5 s with every acknowledged order, the chain equals the log", { timeout: 240_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "failover-kill-"));
  const [f, cluster] = await Promise.all([startFixture({ traders: 4 }), startNatsCluster({ dataDir: join(dir, "nats") })]);
  const children: Child[] = [];
  try {
    const leader = startChild(childConfig(f, join(dir, "a"), cluster.urls, "stream", 400), "");
    children.push(leader);
    await leader.line("LEADING");
    const standby = startChild(childConfig(f, join(dir, "b"), cluster.urls, "recover", 0), "-");
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
    t.diagnostic(`${hashes.length} orders acknowledged; the standby took the lease ${acquiredAt - killedAt} ms and led ${leadingAt - killedAt} ms after the kill (lease ${LEASE_MS} ms; start ${leading[2]})`);
    assert.ok(leadingAt - killedAt < 5_000, `standby led after ${leadingAt - killedAt} ms`);
    const state = await standbyState(standby, hashes);
    for (const h of hashes) assert.equal(state.isKnown[h], true, `acknowledged order ${h} lost`);
    assert.equal(state.health.replication.role, "leader");
    assert.equal(state.health.batcher.queuedTrades, 0);
    assert.equal(state.reconciliation.state, "ok", JSON.stringify(state.reconciliation));
    assert.ok(state.trades.length > 20, `only ${state.trades.length} trades`);
    await assertChainEqualsLog(f, state);
  } finally {
    for (const c of children) c.proc.kill("SIGKILL");
    await Promise.all([f.stop(), cluster.stop()]);
    rmSync(dir, { recursive: true, force: true });
  }
});

test("replicated order log: SIGSTOP of the leader past its lease, SIGCONT: deposed, it writes nothing; the chain refuses its batch id", { timeout: 240_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "failover-stop-"));
  const [f, cluster] = await Promise.all([startFixture({ traders: 4 }), startNatsCluster({ dataDir: join(dir, "nats") })]);
  const children: Child[] = [];
  const nc = await connect({ servers: cluster.urls.split(",") });
  try {
    const leader = startChild(childConfig(f, join(dir, "a"), cluster.urls, "stream", 400), "");
    children.push(leader);
    await leader.line("LEADING");
    const standby = startChild(childConfig(f, join(dir, "b"), cluster.urls, "recover", 0), "-");
    children.push(standby);
    await standby.line("FOLLOWING");
    await waitFor(() => acked(leader).length >= 60, 120_000, "60 orders acknowledged");
    leader.proc.kill("SIGSTOP");
    await standby.line("LEADING", 30_000);
    const hashes = acked(leader);
    const state = await standbyState(standby, hashes);
    for (const h of hashes) assert.equal(state.isKnown[h], true, `acknowledged order ${h} lost`);
    const batches = await assertChainEqualsLog(f, state);
    const jsm = await jetstreamManager(nc);
    const head = async () => [(await jsm.streams.info("ORDERS_P0")).state.last_seq, (await jsm.streams.info("BATCHES_P0")).state.last_seq];
    const before = await head();
    const linesBefore = leader.lines.length;
    leader.proc.kill("SIGCONT");
    const deposed = await leader.line("DEPOSED", 10_000);
    await new Promise((r) => setTimeout(r, 1_000));
    t.diagnostic(`old leader: ${deposed}; after SIGCONT it printed ${leader.lines.slice(linesBefore).filter((l) => l.startsWith("ACK")).length} ACK lines`);
    assert.deepEqual(await head(), before, "the deposed leader appended nothing to the order log or the batch store");
    assert.equal(leader.lines.slice(linesBefore).filter((l) => l.startsWith("ACK")).length, 0, "no order acknowledged after waking");
    // the chain's fence: the old leader's next batch id in lane 0 was taken by the new leader's batches
    const operator = privateKeyToAccount(f.operatorKey as Hex);
    const args = [BigInt(batches - 1), encodePackedBatch({ orders: [], signatures: [], fills: [] })] as const;
    await assert.rejects(f.client.simulateContract({ account: operator, address: f.settlement, abi: settlementAbi, functionName: "settlePacked", args }), /SettlementBatchOutOfOrder/);
  } finally {
    for (const c of children) c.proc.kill("SIGKILL");
    await nc.close();
    await Promise.all([f.stop(), cluster.stop()]);
    rmSync(dir, { recursive: true, force: true });
  }
});
