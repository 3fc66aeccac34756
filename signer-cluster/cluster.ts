// Starts and stops the 5 signer nodes and the HSM stand-in as child processes (each its own process, port
// and directory: <dataDir>/node-<i>/, <dataDir>/hsm/), runs the DKG on first start, and reuses the persisted
// shares on a restart. Each process gets only its own sealing key, derived from the cluster's master key
// (`sealKeyHex`; sandbox default: a random key in <dataDir>.secrets/, beside the data). Used by the tests,
// by `npm start` and by the bench. As a program:
//   MPC_DATA_DIR=.data/mpc MPC_BASE_PORT=4101 <MPC_* chain variables> tsx signer-cluster/cluster.ts
// prints the node URLs, the HSM address and the group key, and runs until SIGINT/SIGTERM.
import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, mkdirSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { chainsToEnv, loadChainsConfig } from "./config";
import { createSigningCoordinator, type KeyInfo, type SigningCoordinatorOptions } from "./coordinator";
import { runDkg, type DkgResult, type NodeRef } from "./dkg";
import { callJson } from "./http";
import { freePort } from "../runtime/ports";
import { deriveKeyHex, resolveKeyHex } from "../runtime/secret-box";
import type { BridgeChainsConfig } from "./source-events";

const ROOT = resolve(__dirname, "..");

export interface ClusterOptions {
  /** node-<i>/ (each node's sealed share), hsm/ (the HSM's sealed key), logs/ and bin/ go here */
  dataDir: string;
  /** the master key (32 bytes hex) each process's sealing key is derived from; default: resolveKeyHex's
   *  sandbox key file <dataDir>.secrets/seal-master.key (production mode refuses to start without one) */
  sealKeyHex?: string;
  /** EXCHANGE_MODE of the processes (default sandbox) */
  mode?: "sandbox" | "production";
  nodeCount?: number;
  threshold?: number;
  /** node i listens on basePort + i - 1 (default: free ports chosen once, kept across restarts) */
  basePort?: number;
  /** false: no HSM process */
  hsm?: false | { port?: number; minAmountWei?: bigint };
  chains?: BridgeChainsConfig;
  /** extra environment per node index (e.g. { 4: { MPC_FAULT: "bad-share" } } in tests) */
  nodeEnv?: Record<number, Record<string, string>>;
  startTimeoutMs?: number;
}

export interface Cluster {
  nodes: NodeRef[];
  hsm?: { url: string; address: `0x${string}` };
  threshold: number;
  key: KeyInfo;
  coordinator(opts?: Partial<SigningCoordinatorOptions>): ReturnType<typeof createSigningCoordinator>;
  stopNode(index: number): Promise<void>;
  startNode(index: number, extraEnv?: Record<string, string>): Promise<void>;
  /** a fresh DKG at the next epoch; every node overwrites its share */
  rotateKey(): Promise<DkgResult>;
  /** restarts every process with new chain settings (e.g. once the bridge contracts are deployed) */
  reconfigure(chains: BridgeChainsConfig): Promise<void>;
  /** OS process ids of the running nodes (and the HSM), for monitoring and benches */
  processIds(): { nodes: Record<number, number>; hsm?: number };
  stop(): Promise<void>;
}

interface Proc {
  child: ChildProcess;
  exited: Promise<void>;
}

/** Bundles node.ts and hsm.ts once per cluster with esbuild (already installed as tsx's compiler): a
 *  bundled process starts on a fifth of the CPU that on-the-fly TypeScript needs, which matters when six
 *  processes start at once on a small machine. Falls back to tsx if bundling fails. */
async function bundleServices(outDir: string): Promise<Record<string, string[]>> {
  const viaTsx = (s: string) => ["--import", "tsx", join(ROOT, "signer-cluster", s)];
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const esbuild = require("esbuild") as typeof import("esbuild");
    await esbuild.build({
      entryPoints: { node: join(ROOT, "signer-cluster/node.ts"), hsm: join(ROOT, "signer-cluster/hsm.ts") },
      bundle: true,
      platform: "node",
      format: "cjs",
      target: "node20",
      outdir: outDir,
      outExtension: { ".js": ".cjs" },
      logLevel: "silent",
    });
    return { "node.ts": [join(outDir, "node.cjs")], "hsm.ts": [join(outDir, "hsm.cjs")] };
  } catch {
    return { "node.ts": viaTsx("node.ts"), "hsm.ts": viaTsx("hsm.ts") };
  }
}

function spawnService(args: string[], env: Record<string, string>, logFile: string, timeoutMs: number): Promise<Proc> {
  const script = args[args.length - 1];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const log = createWriteStream(logFile, { flags: "a" });
  child.stderr!.pipe(log);
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  return new Promise((resolveReady, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${script} did not start within ${timeoutMs} ms (see ${logFile})`));
    }, timeoutMs);
    createInterface({ input: child.stdout! }).on("line", (line) => {
      log.write(`${line}\n`);
      if (line.includes('"msg":"listening"')) {
        clearTimeout(timer);
        resolveReady({ child, exited });
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited with ${code} before listening (see ${logFile})`));
    });
  });
}

async function stopProc(p: Proc | undefined) {
  if (!p || p.child.exitCode !== null || p.child.signalCode !== null) return;
  p.child.kill("SIGTERM");
  const timer = setTimeout(() => p.child.kill("SIGKILL"), 3_000);
  await p.exited;
  clearTimeout(timer);
}

export async function startCluster(opts: ClusterOptions): Promise<Cluster> {
  const procs = await ClusterProcesses.prepare(opts);
  const { nodes, threshold } = procs;
  try {
    await procs.startAll();
    await ensureKey(nodes, threshold);
  } catch (err) {
    await procs.stop();
    throw err;
  }
  const cluster: Cluster = {
    nodes,
    threshold,
    key: await createSigningCoordinator({ nodes, threshold }).getGroupKey(),
    hsm: undefined,
    coordinator: (o = {}) => createSigningCoordinator({ nodes, threshold, ...o }),
    stopNode: (i) => procs.stopNode(i),
    startNode: (i, extra) => procs.startNode(i, extra),
    rotateKey: async () => {
      const result = await runDkg({ nodes, threshold });
      cluster.key = await createSigningCoordinator({ nodes, threshold }).getGroupKey();
      return result;
    },
    reconfigure: (next) => procs.reconfigure(next),
    stop: () => procs.stop(),
    processIds: () => procs.processIds(),
  };
  if (opts.hsm !== false) {
    const h = await callJson<{ address: `0x${string}` }>(`${procs.hsmUrl}/health`, undefined, 5_000);
    cluster.hsm = { url: procs.hsmUrl, address: h.address };
  }
  return cluster;
}

/** First start (or a node lost its share): a fresh DKG. Otherwise keep the persisted key. */
async function ensureKey(nodes: NodeRef[], threshold: number): Promise<void> {
  const healths = await Promise.all(
    nodes.map((n) =>
      callJson<{ epoch: number; groupPublicKey: { compressed: string } | null }>(`${n.url}/health`, undefined, 5_000),
    ),
  );
  const keysAgree = healths.every(
    (h) =>
      h.epoch > 0 &&
      h.epoch === healths[0].epoch &&
      h.groupPublicKey?.compressed === healths[0].groupPublicKey?.compressed,
  );
  if (!keysAgree) await runDkg({ nodes, threshold });
}

/** The cluster's processes: each node and the HSM with its own port, directory, log and sealing key. */
class ClusterProcesses {
  readonly indices: number[];
  readonly nodes: NodeRef[];
  private readonly procs = new Map<number, Proc>();
  private hsmProc: Proc | undefined;
  private readonly mode: "sandbox" | "production";
  private readonly timeoutMs: number;

  private constructor(
    private readonly opts: ClusterOptions,
    private readonly dataDir: string,
    private readonly master: string,
    private readonly programs: Record<string, string[]>,
    private readonly ports: Map<number, number>,
    private readonly hsmPort: number,
    private chains: BridgeChainsConfig | undefined,
  ) {
    this.indices = [...ports.keys()];
    this.nodes = this.indices.map((i) => ({ index: i, url: `http://127.0.0.1:${ports.get(i)}` }));
    this.mode = opts.mode ?? "sandbox";
    this.timeoutMs = opts.startTimeoutMs ?? 30_000;
    // never leave orphans behind if the parent exits without calling stop()
    process.once("exit", this.killAll);
  }

  /** Resolves the master key, bundles the programs and picks the ports (kept across restarts). */
  static async prepare(opts: ClusterOptions): Promise<ClusterProcesses> {
    const dataDir = resolve(opts.dataDir);
    const nodeCount = opts.nodeCount ?? 5;
    const master = resolveKeyHex({
      name: "BRIDGE_SEAL_KEY",
      mode: opts.mode ?? "sandbox",
      keyHex: opts.sealKeyHex,
      sandboxFile: join(dirname(dataDir), `${basename(dataDir)}.secrets`, "seal-master.key"),
    });
    mkdirSync(join(dataDir, "logs"), { recursive: true, mode: 0o700 });
    const programs = await bundleServices(join(dataDir, "bin"));
    const ports = new Map<number, number>();
    for (let i = 1; i <= nodeCount; i++) ports.set(i, opts.basePort ? opts.basePort + i - 1 : await freePort());
    const hsmPort = opts.hsm === false ? 0 : (opts.hsm?.port ?? (await freePort()));
    return new ClusterProcesses(opts, dataDir, master, programs, ports, hsmPort, opts.chains);
  }

  get threshold(): number {
    return this.opts.threshold ?? 3;
  }

  get hsmUrl(): string {
    return `http://127.0.0.1:${this.hsmPort}`;
  }

  async startAll(): Promise<void> {
    await Promise.all([...this.indices.map((i) => this.startNode(i)), this.startHsm()]);
  }

  async startNode(i: number, extra?: Record<string, string>): Promise<void> {
    await stopProc(this.procs.get(i));
    const log = join(this.dataDir, "logs", `node-${i}.log`);
    this.procs.set(i, await spawnService(this.programs["node.ts"], this.nodeEnv(i, extra), log, this.timeoutMs));
  }

  async stopNode(i: number): Promise<void> {
    await stopProc(this.procs.get(i));
    this.procs.delete(i);
  }

  /** Restarts every process with new chain settings. */
  async reconfigure(next: BridgeChainsConfig): Promise<void> {
    this.chains = next;
    await Promise.all([
      ...this.indices.map((i) => this.startNode(i)),
      stopProc(this.hsmProc).then(() => this.startHsm()),
    ]);
  }

  async stop(): Promise<void> {
    await Promise.all([...this.procs.values()].map(stopProc));
    await stopProc(this.hsmProc);
    process.removeListener("exit", this.killAll);
  }

  processIds() {
    return {
      nodes: Object.fromEntries([...this.procs.entries()].map(([i, p]) => [i, p.child.pid!])),
      hsm: this.hsmProc?.child.pid,
    };
  }

  private async startHsm(): Promise<void> {
    if (this.opts.hsm === false) return;
    const env = {
      ...chainsToEnv(this.chains),
      MPC_HSM_PORT: String(this.hsmPort),
      MPC_DATA_DIR: join(this.dataDir, "hsm"),
      MPC_SEAL_KEY: deriveKeyHex(this.master, "hsm"),
      EXCHANGE_MODE: this.mode,
      MPC_HSM_MIN_AMOUNT_WEI: String(this.opts.hsm?.minAmountWei ?? 0n),
    };
    const log = join(this.dataDir, "logs", "hsm.log");
    this.hsmProc = await spawnService(this.programs["hsm.ts"], env, log, this.timeoutMs);
  }

  private nodeEnv(i: number, extra: Record<string, string> = {}) {
    return {
      ...chainsToEnv(this.chains),
      MPC_NODE_INDEX: String(i),
      MPC_NODE_PORT: String(this.ports.get(i)),
      MPC_DATA_DIR: join(this.dataDir, `node-${i}`),
      MPC_SEAL_KEY: deriveKeyHex(this.master, `node-${i}`),
      EXCHANGE_MODE: this.mode,
      MPC_THRESHOLD: String(this.threshold),
      MPC_PARTICIPANTS: String(this.indices.length),
      ...(this.opts.nodeEnv?.[i] ?? {}),
      ...extra,
    };
  }

  private readonly killAll = () => {
    for (const p of this.procs.values()) p.child.kill("SIGKILL");
    this.hsmProc?.child.kill("SIGKILL");
  };
}

if (require.main === module) {
  const env = process.env;
  startCluster({
    dataDir: env.MPC_DATA_DIR ?? ".data/mpc",
    sealKeyHex: env.BRIDGE_SEAL_KEY,
    mode: env.EXCHANGE_MODE === "production" ? "production" : "sandbox",
    basePort: Number(env.MPC_BASE_PORT ?? 4101),
    hsm: { port: Number(env.MPC_HSM_PORT ?? 4110), minAmountWei: BigInt(env.MPC_HSM_MIN_AMOUNT_WEI ?? "0") },
    chains: loadChainsConfig(env),
  }).then(
    (c) => {
      console.log(JSON.stringify({ nodes: c.nodes, hsm: c.hsm, key: c.key }, null, 2));
      const shutdown = () => c.stop().then(() => process.exit(0));
      process.on("SIGINT", shutdown);
      process.on("SIGTERM", shutdown);
    },
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
