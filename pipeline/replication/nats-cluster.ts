// A JetStream cluster of local nats-server processes on loopback ports, each with its own store directory:
// what the replication tests and bench:failover run the replicated order log on. Needs `nats-server`
// (Debian's package; .ci/run installs it).
import { spawn, type ChildProcess } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { connect } from "node:net";
import { join } from "node:path";
import { freePort } from "../../runtime/ports";

export interface NatsNode {
  readonly name: string;
  readonly url: string;
  readonly process: ChildProcess;
  /** the server's own log (elections, lost quorums), kept in its store directory's parent */
  readonly logFile: string;
}

export interface NatsCluster {
  readonly nodes: NatsNode[];
  /** every node's client URL, comma-separated (ORDER_LOG_URL) */
  readonly urls: string;
  /** kill -9 of one node (its store stays) */
  kill(index: number): void;
  /** starts a killed node again on its ports and store */
  restart(index: number): Promise<void>;
  stop(): Promise<void>;
}

async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect(port, "127.0.0.1");
      s.once("connect", () => (s.destroy(), resolve(true)));
      s.once("error", () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > until) throw new Error(`nats-server did not listen on ${port}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Starts `size` (default 3) JetStream nodes clustered on loopback; resolves once each accepts clients
 *  (the JetStream meta leader is elected shortly after: clients retry their first requests). */
export async function startNatsCluster(opts: { dataDir: string; size?: number; bin?: string }): Promise<NatsCluster> {
  const size = opts.size ?? 3;
  const ports: { client: number; cluster: number }[] = [];
  for (let k = 0; k < size; k++) ports.push({ client: await freePort(), cluster: await freePort() });
  const routes = ports.map((p) => `nats-route://127.0.0.1:${p.cluster}`).join(", ");
  const confs: string[] = [];
  for (let k = 0; k < size; k++) {
    const dir = join(opts.dataDir, `n${k}`);
    await mkdir(dir, { recursive: true });
    const conf = join(dir, "nats.conf");
    await writeFile(
      conf,
      [
        `server_name: n${k}`,
        `listen: 127.0.0.1:${ports[k].client}`,
        `jetstream { store_dir: "${join(dir, "store")}" }`,
        `log_file: "${join(dir, "server.log")}"`,
        // one node runs standalone: a cluster of one never elects a JetStream meta leader
        ...(size > 1 ? [`cluster { name: orderlog, listen: 127.0.0.1:${ports[k].cluster}, routes: [${routes}] }`] : []),
      ].join("\n"),
    );
    confs.push(conf);
  }
  const nodes: NatsNode[] = [];
  const launch = (k: number): NatsNode => {
    const child = spawn(opts.bin ?? "nats-server", ["-c", confs[k]], { stdio: ["ignore", "ignore", "ignore"] });
    const logFile = join(opts.dataDir, `n${k}`, "server.log");
    return { name: `n${k}`, url: `nats://127.0.0.1:${ports[k].client}`, process: child, logFile };
  };
  for (let k = 0; k < size; k++) nodes.push(launch(k));
  await Promise.all(ports.map((p) => waitForPort(p.client, 15_000)));
  return {
    nodes,
    urls: nodes.map((n) => n.url).join(","),
    kill(k) {
      nodes[k].process.kill("SIGKILL");
    },
    async restart(k) {
      nodes[k] = launch(k);
      await waitForPort(ports[k].client, 15_000);
    },
    async stop() {
      await Promise.all(
        nodes.map(
          (n) =>
            new Promise<void>((resolve) => {
              if (n.process.exitCode !== null || n.process.signalCode !== null) return resolve();
              n.process.once("exit", () => resolve());
              n.process.kill("SIGTERM");
            }),
        ),
      );
    },
  };
}
