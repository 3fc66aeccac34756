// bench:failover: a partition's leader and standby (pipeline child processes) on a 3-node JetStream cluster
// and one chain. Prints the failover time (kill -9 of the leader until the standby acknowledged its first
// order) over 5 kills, median and max.
// Env: FAILOVER_KILLS (5), FAILOVER_LEASE_MS (3000: the 2 s default lapsed during a standby's start on a machine at load 25).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFixture } from "../testing/fixture";
import { acked, childConfig, startChild, waitFor, type Child } from "../testing/children";
import { startNatsCluster } from "./nats-cluster";

const KILLS = Number(process.env.FAILOVER_KILLS ?? 5);
const LEASE_MS = Number(process.env.FAILOVER_LEASE_MS ?? 3_000);

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
