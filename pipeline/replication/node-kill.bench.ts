// bench:node-kill: how long the order log accepts no append after kill -9 of the NATS node leading its stream
// (what ORDER_LOG_STALL_MS must stay above). A 3-node JetStream cluster, one writer appending steadily (ten
// records at a time, group commit); per kill, the stream's leader is moved to node n2 (stepdowns), n2 is
// killed, and the longest append of the next 15 s is the outage; n2 is started again before the next kill.
// Prints each kill's outage, then min, median, p90 and max.
// Env: NODE_KILLS (10). Load it with other work to see a loaded host's elections.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { ORDER_LOG_STALL_MS } from "../match/matcher-service";
import { startLeadership } from "./lease";
import { startNatsCluster } from "./nats-cluster";
import { openStreamLog } from "./stream-log";

const KILLS = Number(process.env.NODE_KILLS ?? 10);
const STREAM = "KILL_P0";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main() {
  const dir = mkdtempSync(join(tmpdir(), "node-kill-"));
  const cluster = await startNatsCluster({ dataDir: dir });
  const nc = await connect({ servers: cluster.nodes[0].url, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
  const admin = await connect({ servers: cluster.nodes[1].url, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
  const leadership = await startLeadership({ nc, bucket: "leases_kill", key: "p0", leaseMs: 60_000, replicas: 3 });
  await leadership.acquired;
  const log = await openStreamLog<{ n: number }>({ nc, stream: STREAM, replicas: 3, leadership });
  const jsm = await jetstreamManager(admin);
  let n = 0;
  let longest = 0;
  let stop = false;
  const writer = (async () => {
    while (!stop) {
      const t0 = performance.now();
      await Promise.all(Array.from({ length: 10 }, () => log.append({ n: n++ })));
      longest = Math.max(longest, performance.now() - t0);
      await sleep(20);
    }
  })();
  const outages: number[] = [];
  try {
    for (let k = 0; k < KILLS; k++) {
      for (let i = 0; i < 30 && (await jsm.streams.info(STREAM)).cluster?.leader !== "n2"; i++) {
        await admin.request(`$JS.API.STREAM.LEADER.STEPDOWN.${STREAM}`, "", { timeout: 5_000 }).catch(() => undefined);
        await sleep(1_000);
      }
      await sleep(1_000);
      longest = 0;
      cluster.kill(2);
      await sleep(15_000);
      outages.push(Math.round(longest));
      console.log(`kill ${k + 1}: no append acknowledged for ${outages.at(-1)} ms`);
      await cluster.restart(2);
      await sleep(8_000);
    }
  } finally {
    stop = true;
    await writer;
    await log.close();
    await nc.close();
    await admin.close();
    await cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const s = [...outages].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  console.log(
    `outage over ${s.length} kills: min ${s[0]} ms, median ${at(0.5)} ms, p90 ${at(0.9)} ms, max ${s.at(-1)} ms ` +
      `(ORDER_LOG_STALL_MS ${ORDER_LOG_STALL_MS} ms)`,
  );
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
