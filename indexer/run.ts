// Starts the indexer (`ponder start --root indexer`) as a child process and resolves once it serves
// /ready, for `npm start` and the tests. The child reads everything from its environment (indexer/env.ts).
// In front of it, in a second small process at normal priority, the hot front (hot/main.ts): the
// indexer's public URL, serving trades and candles from Ponder's rows plus the chain's newest trades that
// Ponder has not indexed yet, and passing everything else to Ponder.
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { cpuAffinityPrefix } from "../runtime/cpu-affinity";
import { freePort } from "../runtime/ports";
import { findRepoRoot, loadDeployments } from "./deployments";

export interface StartIndexerOptions {
  /** absolute path of the deployments JSON (see indexer/README.md) */
  deploymentsFile: string;
  /** HTTP port of the indexer's URL (the hot front, or Ponder without it); 0 picks a free one. If taken,
   *  the next free one is used (reported in `port`). */
  port: number;
  /** PGlite directory (ignored with databaseUrl) */
  dataDir: string;
  /** Postgres connection string; when absent PGlite is used, whatever the parent's environment says */
  databaseUrl?: string;
  /** Postgres schema of the tables (<= 45 chars). A schema holds one build: a changed deployments file,
   *  schema or handler needs a new schema name, else Ponder refuses to start (see README.md). */
  schema: string;
  /** Ponder's per-chain polling interval; default 100 ms (Ponder's minimum) */
  pollingIntervalMs?: number;
  /** default 120 s */
  readyTimeoutMs?: number;
  /** Ponder's log level (default "warn"); each log line (JSON) is passed to onLog */
  logLevel?: "error" | "warn" | "info" | "debug" | "trace";
  onLog?: (line: string) => void;
  /** OS scheduling niceness of the Ponder process (default 19: below the trading path, see docs/decisions.md) */
  nice?: number;
  /** run Ponder under SCHED_IDLE when `chrt` is installed (default true) */
  idle?: boolean;
  /** pin Ponder to these CPUs (taskset list, "last" = the highest CPU); none when absent */
  cpus?: string;
  /** run the hot front (hot/main.ts) before Ponder (default true); false: `url` is Ponder's own */
  hotFront?: boolean;
  /** the hot front's chain poll interval, ms (default 100) */
  hotPollMs?: number;
}

export interface RunningIndexer {
  /** e.g. http://127.0.0.1:42069: the hot front (or Ponder itself with hotFront false) */
  url: string;
  port: number;
  /** Ponder's own URL (behind the front; the same as `url` without it) */
  ponderUrl: string;
  /** Ponder's process */
  pid: number;
  /** the hot front's process, when it runs (the current one: a front that dies is started again on the same port) */
  frontPid?: number;
  /** SIGTERM (Ponder unlocks its schema and exits), SIGKILL after 10 s. Idempotent. */
  stop(): Promise<void>;
  /** Settles, with why, when Ponder exits without stop() (a crash, a kill): its supervisor starts it again. */
  readonly exited: Promise<string>;
}

/** pino's numeric levels */
const LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50 } as const;

const indexerDir = typeof __dirname !== "undefined" ? __dirname : path.join(findRepoRoot(), "indexer");
const ponderBin = path.join(findRepoRoot(indexerDir), "node_modules", "ponder", "dist", "esm", "bin", "ponder.js");

/** Calls `onLine` with each whole line the child writes to stdout or stderr. */
function eachLine(child: ChildProcess, onLine: (line: string) => void): void {
  for (const stream of [child.stdout!, child.stderr!]) {
    let buffered = "";
    stream.setEncoding("utf8");
    stream.on("data", (chunk: string) => {
      buffered += chunk;
      const lines = buffered.split("\n");
      buffered = lines.pop()!;
      lines.forEach(onLine);
    });
  }
}

function waitForExit(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** Whether `pid` is a live Ponder process of this data directory (Linux's /proc; elsewhere: any live pid). */
function isOurPonder(pid: number, dataDir: string): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8");
    const environ = fs.readFileSync(`/proc/${pid}/environ`, "utf8");
    return cmdline.includes("ponder") && environ.split("\0").includes(`INDEXER_DATA_DIR=${dataDir}`);
  } catch {
    return process.platform !== "linux";
  }
}

/**
 * One Ponder at a time on a data directory. A Ponder whose launcher died (a SIGKILL, a crash) stops itself
 * (exit-with-parent.cjs), which takes a while, and writes until then: a new Ponder started meanwhile on
 * the same PGlite directory would run a second database over the same files, which corrupts them (the
 * "duplicate key value violates unique constraint batch_pkey" that only --reset cured; docs/decisions/
 * indexer.md). So the previous one's pid is kept beside the directory (`<dir>.ponder.pid`), and a start first stops it (SIGTERM,
 * then SIGKILL after PREVIOUS_STOP_MS) and waits until it is gone.
 */
async function takeOverDataDir(
  dataDir: string,
  onLog?: (line: string) => void,
): Promise<{ pidFile: string; abandoned: boolean }> {
  // beside the directory, not in it: PGlite takes a directory with any file in it for a database
  fs.mkdirSync(path.dirname(dataDir), { recursive: true });
  const pidFile = `${dataDir}.ponder.pid`;
  // a Ponder that exited cleanly removed it (startIndexer): one left behind was killed or crashed
  const abandoned = fs.existsSync(pidFile);
  const pid = Number(fs.existsSync(pidFile) ? fs.readFileSync(pidFile, "utf8").trim() : NaN);
  if (Number.isInteger(pid) && pid > 0 && isOurPonder(pid, dataDir)) {
    onLog?.(
      JSON.stringify({
        level: 40,
        msg: "a previous indexer still runs on this data directory: stopping it first",
        pid,
      }),
    );
    process.kill(pid, "SIGTERM");
    const killAt = Date.now() + PREVIOUS_STOP_MS;
    while (isOurPonder(pid, dataDir)) {
      if (Date.now() > killAt) process.kill(pid, "SIGKILL");
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return { pidFile, abandoned };
}
const PREVIOUS_STOP_MS = 10_000;

/**
 * A Ponder killed (SIGKILL, a crash) leaves its schema marked locked, and the next Ponder on it waits until
 * 25 s after the killed one's last heartbeat (Ponder's fixed databaseHeartbeatTimeout), then recovers. On
 * PGlite no other process can hold the directory once takeOverDataDir ran, so the mark is cleared here and
 * the next start recovers at once (docs/decisions/indexer.md). A fresh directory, or one without Ponder's
 * tables yet, is left alone.
 */
async function unlockAbandonedSchema(dataDir: string, schema: string): Promise<void> {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(schema) || !fs.existsSync(path.join(dataDir, "PG_VERSION"))) return;
  const { PGlite } = await import("@electric-sql/pglite");
  const db = new PGlite(dataDir);
  try {
    const meta = await db.query<{ t: string | null }>("select to_regclass($1)::text as t", [
      `"${schema}"._ponder_meta`,
    ]);
    if (meta.rows[0]?.t)
      await db.query(
        `update "${schema}"."_ponder_meta" set value = jsonb_set(value, '{is_locked}', '0') where key = 'app'`,
      );
  } finally {
    await db.close();
  }
}

export async function startIndexer(opts: StartIndexerOptions): Promise<RunningIndexer> {
  const withFront = opts.hotFront ?? true;
  const { pidFile, abandoned } = await takeOverDataDir(path.resolve(opts.dataDir), opts.onLog);
  if (abandoned && !opts.databaseUrl) await unlockAbandonedSchema(path.resolve(opts.dataDir), opts.schema);
  const requestedPort = opts.port === 0 || withFront ? await freePort() : opts.port;
  const ponder = watchPonder(spawnPonder(opts, requestedPort, pidFile), opts, requestedPort, pidFile);
  const deadline = Date.now() + (opts.readyTimeoutMs ?? 120_000);
  try {
    await untilReady(ponder, opts.deploymentsFile, deadline);
  } catch (error) {
    await ponder.stop();
    throw error;
  }
  const ponderUrl = `http://127.0.0.1:${ponder.port}`;
  const { child, stop, exited } = ponder;
  if (!withFront) return { url: ponderUrl, port: ponder.port, ponderUrl, pid: child.pid!, stop, exited };
  return withHotFront(opts, ponder, ponderUrl, deadline);
}

/** The Ponder process: its environment, its command (SCHED_IDLE, pinned), its pid file, its niceness. */
function spawnPonder(opts: StartIndexerOptions, requestedPort: number, pidFile: string): ChildProcess {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PONDER_TELEMETRY_DISABLED: "true",
    // at least "info": the "Indexed block" lines tell when the chains' heads are indexed (see untilReady)
    PONDER_LOG_LEVEL: LEVELS[opts.logLevel ?? "warn"] < LEVELS.info ? opts.logLevel : "info",
    DEPLOYMENTS_FILE: path.resolve(opts.deploymentsFile),
    INDEXER_DATA_DIR: path.resolve(opts.dataDir),
    INDEXER_POLLING_INTERVAL_MS: String(opts.pollingIntervalMs ?? 100),
  };
  delete env.PORT;
  delete env.DATABASE_URL;
  delete env.DATABASE_PRIVATE_URL;
  if (opts.databaseUrl) env.DATABASE_URL = opts.databaseUrl;

  // INDEXER_NODE_ARGS: extra node flags for the Ponder process (diagnostics, e.g. --cpu-prof)
  const nodeArgs = (process.env.INDEXER_NODE_ARGS ?? "").split(" ").filter(Boolean);
  const args = [
    ...nodeArgs,
    "--require",
    path.join(indexerDir, "exit-with-parent.cjs"),
    ponderBin,
    "start",
    "--root",
    indexerDir,
    "--schema",
    opts.schema,
    "--port",
    String(requestedPort),
    "--log-format",
    "json",
  ];
  // The read model yields the cores to the matcher, the batcher and the chain under load and catches up
  // when they idle: an exchange settles first and indexes second. SCHED_IDLE (util-linux `chrt`, which
  // execs node in place) runs Ponder only on a core nothing else wants; nice 19 is the fallback.
  const chrt = opts.idle === false ? undefined : ["/usr/bin/chrt", "/bin/chrt"].find((f) => fs.existsSync(f));
  const pin = cpuAffinityPrefix(opts.cpus);
  const command = [...(chrt ? [chrt, "--idle", "0"] : []), ...pin, process.execPath, ...args];
  const child = spawn(command[0], command.slice(1), {
    cwd: findRepoRoot(indexerDir),
    env,
    // stdin is a pipe only so that the child notices when this process dies (exit-with-parent.cjs)
    stdio: ["pipe", "pipe", "pipe"],
    // its own process group: a signal to the launcher's group (Ctrl-C, `kill -TERM -<pgid>`) reaches the
    // launcher alone, which stops Ponder in its turn (stop() below) and drains first
    detached: true,
  });
  if (child.pid !== undefined) fs.writeFileSync(pidFile, String(child.pid));
  const nice = opts.nice ?? 19;
  if (child.pid !== undefined && nice !== 0) {
    try {
      os.setPriority(child.pid, nice);
    } catch {
      // not permitted here: run at the parent's priority
    }
  }
  return child;
}

/** A running Ponder as its log tells it: the port it bound, its newest lines, the blocks it indexed. */
interface WatchedPonder {
  readonly child: ChildProcess;
  port: number;
  listening: boolean;
  readonly recent: string[];
  /** highest block number Ponder logged as indexed, per chain name */
  readonly indexedBlock: Map<string, number>;
  /** SIGTERM (Ponder unlocks its schema and exits), SIGKILL after 10 s. Idempotent. */
  stop(): Promise<void>;
  readonly exited: Promise<string>;
}

function watchPonder(
  child: ChildProcess,
  opts: StartIndexerOptions,
  requestedPort: number,
  pidFile: string,
): WatchedPonder {
  let stopped: Promise<void> | undefined;
  const w: WatchedPonder = {
    child,
    port: requestedPort,
    listening: false,
    recent: [],
    indexedBlock: new Map(),
    stop() {
      stopped ??= (async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.kill("SIGTERM");
        if (!(await waitForExit(child, 10_000))) {
          child.kill("SIGKILL");
          await waitForExit(child, 5_000);
        }
      })();
      return stopped;
    },
    exited: new Promise<string>((resolve) => {
      child.once("exit", (code, signal) => {
        // a clean exit unlocked its schema: the next start has nothing to clear (unlockAbandonedSchema)
        if (code === 0) fs.rmSync(pidFile, { force: true });
        if (stopped === undefined) resolve(`Ponder exited (${code ?? signal}):\n${w.recent.slice(-10).join("\n")}`);
      });
    }),
  };
  const minLevel = LEVELS[opts.logLevel ?? "warn"];
  eachLine(child, (line) => {
    if (!line.trim()) return;
    w.recent.push(line);
    if (w.recent.length > 40) w.recent.shift();
    let entry: { level?: number; msg?: string; port?: number; chain?: string; number?: number } = {};
    try {
      entry = JSON.parse(line);
    } catch {
      // not JSON (a crash trace): always passed on
    }
    // Ponder moves to the next port when the requested one is taken; it logs the one it bound.
    if (entry.msg === "Created HTTP server" && typeof entry.port === "number") {
      w.port = entry.port;
      w.listening = true;
    }
    if (entry.msg === "Indexed block" && entry.chain && typeof entry.number === "number") {
      w.indexedBlock.set(entry.chain, Math.max(entry.number, w.indexedBlock.get(entry.chain) ?? -1));
    }
    if (entry.level === undefined || entry.level >= minLevel) opts.onLog?.(line);
  });
  return w;
}

/** Resolves once Ponder serves /ready and has indexed every chain's head; throws if it exits or the deadline passes. */
async function untilReady(w: WatchedPonder, deploymentsFile: string, deadline: number): Promise<void> {
  const { child } = w;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(
        `indexer exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${w.recent.join("\n")}`,
      );
    }
    if (Date.now() > deadline) throw new Error(`indexer not ready in time:\n${w.recent.join("\n")}`);
    // only once Ponder said which port it bound: the requested one may belong to someone else
    if (w.listening) {
      try {
        const res = await fetch(`http://127.0.0.1:${w.port}/ready`);
        if (res.status === 200) break;
      } catch {
        // not accepting yet
      }
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  // /ready means the backfill is done; the blocks Ponder treats as unfinalized (the last 30 on a local
  // chain) are indexed right after it, one "Indexed block" log line each; after a restart they are
  // re-indexed (while /status still shows the old head). Wait until every chain's head is indexed.
  await waitForHeads(w.indexedBlock, deploymentsFile, deadline, () => child.exitCode !== null);
}

/**
 * The hot front before a ready Ponder. The front holds nothing that is not on the chain or in Ponder: when it
 * dies it is started again on the same port (so the indexer's URL stays), every 500 ms until it listens,
 * until the indexer is stopped.
 */
async function withHotFront(
  opts: StartIndexerOptions,
  ponder: WatchedPonder,
  ponderUrl: string,
  deadline: number,
): Promise<RunningIndexer> {
  let front: Awaited<ReturnType<typeof startFront>>;
  try {
    front = await startFront(opts, ponderUrl, deadline);
  } catch (error) {
    await ponder.stop();
    throw error;
  }
  const frontPort = front.port;
  let stopping = false;
  const supervise = (f: typeof front): void => {
    void f.exited.then(async () => {
      while (!stopping) {
        opts.onLog?.(
          JSON.stringify({ level: 40, msg: "the indexer's hot front exited; starting it again", port: frontPort }),
        );
        await new Promise((r) => setTimeout(r, 500));
        if (stopping) return;
        try {
          front = await startFront({ ...opts, port: frontPort }, ponderUrl, Date.now() + 60_000);
          if (stopping) await front.stop();
          else supervise(front);
          return;
        } catch {
          // the port not yet free, or the front failing to start: the next try
        }
      }
    });
  };
  supervise(front);
  let stoppedAll: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${frontPort}`,
    port: frontPort,
    ponderUrl,
    pid: ponder.child.pid!,
    exited: ponder.exited,
    get frontPid() {
      return front.pid;
    },
    stop() {
      stopping = true;
      return (stoppedAll ??= Promise.all([front.stop(), ponder.stop()]).then(() => undefined));
    },
  };
}

/** Starts the hot front (hot/main.ts) at normal priority; resolves once it listens. */
async function startFront(opts: StartIndexerOptions, ponderUrl: string, deadline: number) {
  const requested = opts.port === 0 ? await freePort() : opts.port;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    INDEXER_PONDER_URL: ponderUrl,
    DEPLOYMENTS_FILE: path.resolve(opts.deploymentsFile),
    PORT: String(requested),
    ...(opts.hotPollMs ? { INDEXER_HOT_POLL_MS: String(opts.hotPollMs) } : {}),
  };
  // an IPC channel only so that the front notices when this process dies (it exits on "disconnect"; tsx
  // ends a piped stdin, so exit-with-parent.cjs cannot serve here)
  // INDEXER_FRONT_NODE_ARGS: extra node flags for the front's process (diagnostics, e.g. --cpu-prof)
  const nodeArgs = (process.env.INDEXER_FRONT_NODE_ARGS ?? "").split(" ").filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, "--import", "tsx", path.join(indexerDir, "hot", "main.ts")], {
    cwd: findRepoRoot(indexerDir),
    env,
    stdio: ["ignore", "pipe", "pipe", "ipc"],
    // its own process group, as Ponder's: only the launcher restarts or stops it
    detached: true,
  });
  child.channel?.unref();
  const recent: string[] = [];
  let port: number | undefined;
  eachLine(child, (line) => {
    if (!line.trim()) return;
    recent.push(line);
    if (recent.length > 40) recent.shift();
    try {
      const entry = JSON.parse(line) as { msg?: string; port?: number };
      if (entry.msg === "Hot front listening" && typeof entry.port === "number") port = entry.port;
      else if (entry.msg !== undefined) opts.onLog?.(line);
    } catch {
      opts.onLog?.(line);
    }
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    if (!(await waitForExit(child, 5_000))) {
      child.kill("SIGKILL");
      await waitForExit(child, 5_000);
    }
  };
  while (port === undefined) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`the indexer's hot front exited (${child.exitCode ?? child.signalCode}):\n${recent.join("\n")}`);
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the indexer's hot front did not start in time:\n${recent.join("\n")}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  const exited = new Promise<void>((resolve) =>
    child.exitCode !== null || child.signalCode !== null ? resolve() : child.once("exit", () => resolve()),
  );
  return { port, pid: child.pid!, stop, exited };
}

async function rpcBlockNumber(rpcUrl: string): Promise<number> {
  const res = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: [] }),
  });
  const body = (await res.json()) as { result: string };
  return Number(body.result);
}

/** Resolves once Ponder logged, for every indexed chain, the block that was its head on entry as indexed. */
async function waitForHeads(
  indexedBlock: Map<string, number>,
  deploymentsFile: string,
  deadline: number,
  exited: () => boolean,
) {
  const d = loadDeployments(deploymentsFile);
  const targets: { name: string; block: number }[] = [];
  if (d.home.contracts.Settlement || d.home.contracts.BridgeVault)
    targets.push({ name: "home", block: await rpcBlockNumber(d.home.rpcUrl) });
  if (d.remote?.contracts.BridgeMinter) targets.push({ name: "remote", block: await rpcBlockNumber(d.remote.rpcUrl) });
  while (!targets.every((t) => (indexedBlock.get(t.name) ?? -1) >= t.block)) {
    if (exited()) throw new Error("indexer exited while catching up with the chains");
    if (Date.now() > deadline) throw new Error("indexer did not catch up with the chains in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}
