// bench:failover: a partition's leader and standby (pipeline child processes) on a 3-node JetStream cluster
// and one chain. Prints the failover time (kill -9 of the leader until the standby acknowledged its first
// order) over 5 kills, median and max. Then, in the same run, orders per second acknowledged by one partition
// with the replicated log (JetStream, R3) and with the local journal: FAILOVER_IN_FLIGHT orders on their way
// at once, counted over FAILOVER_RATE_SECONDS after the first acknowledgement.
// Env: FAILOVER_KILLS (5), FAILOVER_LEASE_MS (3000: the 2 s default lapsed during a standby's start on a machine at
// load 25), FAILOVER_IN_FLIGHT (64), FAILOVER_RATE_SECONDS (10).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFixture } from "../testing/fixture";
import { acked, childConfig, startChild, waitFor, type Child } from "../testing/children";
import type { Fixture } from "../testing/fixture";
import { startNatsCluster } from "./nats-cluster";

const KILLS = Number(process.env.FAILOVER_KILLS ?? 5);
const LEASE_MS = Number(process.env.FAILOVER_LEASE_MS ?? 3_000);
const IN_FLIGHT = Number(process.env.FAILOVER_IN_FLIGHT ?? 64);
const RATE_SECONDS = Number(process.env.FAILOVER_RATE_SECONDS ?? 10);

/** Orders per second one partition acknowledges: `servers` null is the local journal, else the replicated log. */
async function ordersPerSecond(f: Fixture, dataDir: string, servers: string | null, nonceBase: number) {
  const c = startChild(
    { ...childConfig(f, dataDir, servers, "stream", 10_000_000, LEASE_MS, nonceBase), inFlight: IN_FLIGHT },
    "",
  );
  try {
    await waitFor(() => acked(c).length > 0, 120_000, "the first acknowledged order").catch((e) => {
      throw new Error(`${(e as Error).message}; stderr: ${c.stderr.slice(-2000)}`);
    });
    const from = acked(c).length;
    const t = performance.now();
    await new Promise((r) => setTimeout(r, RATE_SECONDS * 1000));
    return ((acked(c).length - from) * 1000) / (performance.now() - t);
  } finally {
    c.proc.kill("SIGKILL");
    await c.exited;
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "bench-failover-"));
  const [f, cluster] = await Promise.all([
    startFixture({ traders: 4 }),
    startNatsCluster({ dataDir: join(dir, "nats") }),
  ]);
  const children: Child[] = [];
  try {
    const spawnStreamer = (k: number) => {
      const c = startChild(
        childConfig(f, join(dir, `p${k}`), cluster.urls, "stream", 100_000, LEASE_MS, k * 1_000_000),
        "",
      );
      children.push(c);
      return c;
    };
    let leader = spawnStreamer(0);
    await leader.line("LEADING", 120_000);
    const times: number[] = [];
    for (let k = 1; k <= KILLS; k++) {
      const standby = spawnStreamer(k);
      await standby.line("FOLLOWING", 60_000);
      const before = acked(leader).length;
      await waitFor(() => acked(leader).length >= before + 30, 120_000, "30 orders on the leader");
      leader.proc.kill("SIGKILL");
      const killedAt = Date.now();
      await waitFor(() => acked(standby).length > 0, 60_000, "the standby's first order").catch((e) => {
        throw new Error(
          `${(e as Error).message}; its last lines: ${standby.lines.slice(-5).join(" | ")}; stderr: ${standby.stderr.slice(-2000)}`,
        );
      });
      times.push(Date.now() - killedAt);
      console.log(`kill ${k}: first order accepted again after ${times[times.length - 1]} ms`);
      leader = standby;
    }
    leader.proc.kill("SIGKILL");
    const sorted = [...times].sort((a, b) => a - b);
    console.log(
      `failover (kill -9 -> first order accepted), ${times.length} kills, lease ${LEASE_MS} ms: median ${sorted[Math.floor(sorted.length / 2)]} ms, max ${sorted[sorted.length - 1]} ms`,
    );
    const replicated = await ordersPerSecond(f, join(dir, "rate-replicated"), cluster.urls, 90_000_000);
    // the local journal on a chain of its own: a fresh batch store cannot follow batches another store settled
    const fLocal = await startFixture({ traders: 4 });
    const local = await ordersPerSecond(fLocal, join(dir, "rate-local"), null, 0).finally(() => fLocal.stop());
    console.log(
      `orders/s acknowledged, ${IN_FLIGHT} in flight over ${RATE_SECONDS} s: replicated log (JetStream R3) ${replicated.toFixed(0)}, local journal ${local.toFixed(0)}`,
    );
  } finally {
    for (const c of children) c.proc.kill("SIGKILL");
    await Promise.all([f.stop(), cluster.stop()]);
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
