// The replication metrics on /metrics (runtime/metrics.ts): dex_replication_lag_entries of a standby moves
// with the entries its leader appended and it has not applied, and dex_leader_changes_total counts each time
// a process takes the partition's lease. Two partition processes' replications in one process, on a 3-node
// JetStream cluster, scraped over HTTP as Prometheus does.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { metricsResponse } from "../../runtime/metrics";
import { startNatsCluster, type NatsCluster } from "./nats-cluster";
import { startReplication, type Replication } from "./replication";

let cluster: NatsCluster;
let dir: string;
let server: Server;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "replication-metrics-"));
  cluster = await startNatsCluster({ dataDir: dir });
  server = createServer((req, res) => {
    if (!metricsResponse(req, res)) res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
});
after(async () => {
  server?.close();
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** One sample's value from a scrape of /metrics (undefined when absent). */
async function sample(name: string, labels: Record<string, string>): Promise<number | undefined> {
  const text = await (await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`)).text();
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  const line = text
    .split("\n")
    .find((l) => l.startsWith(`${name}{`) && want.every((w) => l.slice(0, l.indexOf("}")).includes(w)));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(" ") + 1));
}

test("/metrics: a standby's replication lag and the partition's leader changes", { timeout: 120_000 }, async () => {
  const partition = 7;
  const opts = { servers: cluster.urls.split(","), partition, leaseMs: 1_000 };
  const changes = async () => (await sample("dex_leader_changes_total", { partition: "7" })) ?? 0;
  const before = await changes();
  const leader: Replication = await startReplication(opts);
  await leader.leadership.acquired;
  assert.equal(await changes(), before + 1, "the first leader's election");
  const log = await leader.openLog<{ n: number }>({ dir: "" });
  for (let n = 0; n < 5; n++) await log.append({ n });

  // a standby that has not read the log yet: the whole log behind
  const standby = await startReplication(opts);
  const lagOf = (r: Replication) => sample("dex_replication_lag_entries", { partition: "7", node: r.leadership.term });
  assert.ok(((await lagOf(standby)) ?? 0) >= 5, `the standby's lag before it follows: ${await lagOf(standby)}`);
  assert.equal(await lagOf(leader), 0, "the leader wrote what it holds");

  // it follows the log (its open replays, then keeps reading until it leads): its lag comes down to 0
  const followed: number[] = [];
  const opening = standby.openLog<{ n: number }>({ dir: "", replay: (r) => followed.push(r.c.n) });
  const until = Date.now() + 30_000;
  while (((await lagOf(standby)) ?? 1) > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  assert.equal(await lagOf(standby), 0, "caught up");
  assert.deepEqual(followed, [0, 1, 2, 3, 4]);

  // the leader goes: the standby takes the lease, a second leader change
  await log.close();
  await leader.close();
  await standby.leadership.acquired;
  assert.equal(await changes(), before + 2, "the standby took over");
  await (await opening).close();
  await standby.close();
});
