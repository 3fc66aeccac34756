// npm run bench:restart — how long a restart takes as history grows. For each size (10,000 orders, then
// BENCH_RESTART_ORDERS, default 100,000): a stack (chains, the pipeline, the DEX API; no indexer, no
// bridge) on a fresh data dir takes that many signed orders (about one trade per two orders) until every
// trade is settled, stops cleanly, starts again on the same data dir and reports: time until an order is
// accepted again and until /health is 200 (ms since the process started, and startStack alone), the
// process RSS after the start, the chains' replay (calls, ms) and the matcher journal's recovery (snapshot
// index, records replayed, ms). Then the ratio of the two sizes. Each life runs in its own process
// (stack-child.ts). Goal (issue #13): under 5 s to accepting orders, the two sizes within 20 %.
// Env: BENCH_RESTART_ORDERS (100000), BENCH_RESTART_SMALL (10000), BENCH_RESTART_SIZES=small|large to run one size only,
// BENCH_CHAIN_NODE=anvil|hardhat the chains' node (default: CHAIN_NODE, else config's default).
// BENCH_RESTART_PROFILE=<dir> writes a CPU profile of each restart's process there.
// BENCH_RESTART_RUNS=k restarts per size (default 1; each on a fresh copy of the filled data dir; the median
// is the figure), BENCH_RESTART_TEMPLATES=<dir> keeps each filled data dir in <dir>/<node>-<n> and re-uses it
// on the next run (to measure restarts again without filling again; delete the folder after a change to what
// a fill writes).
import { fork } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createTestConfig } from "../../scripts/stack";
import type { ChainRestored } from "../../scripts/chain";
import { chainNodeOf } from "../../config";

const LARGE = Number(process.env.BENCH_RESTART_ORDERS ?? 100_000);
const SMALL = Number(process.env.BENCH_RESTART_SMALL ?? 10_000);
const SIZES =
  process.env.BENCH_RESTART_SIZES === "small"
    ? [SMALL]
    : process.env.BENCH_RESTART_SIZES === "large"
      ? [LARGE]
      : [SMALL, LARGE];
const RUNS = Math.max(1, Number(process.env.BENCH_RESTART_RUNS ?? 1));
const TEMPLATES = process.env.BENCH_RESTART_TEMPLATES;
const TARGET_ACCEPT_MS = 5_000;
const TARGET_RATIO = 1.2;

interface RestartResult {
  processStartToAcceptedMs: number;
  processStartToHealthMs: number;
  startStackMs: number;
  timingsMs: Record<string, number>;
  rssMb: number;
  chains: { home: ChainRestored; remote: ChainRestored };
  journal: { snapshotIndex: number; replayed: number; ms: number };
  marksMs: Record<string, number>;
  pipelineStartMs: Record<string, number>;
  recoveredTrades: number;
  lastSettledSeq: number;
}

function life<T>(env: Record<string, string>, mode: "fill" | "restart", n: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = fork(path.join(__dirname, "stack-child.ts"), [], {
      env: { ...process.env, ...env, BENCH_RESTART_MODE: mode, BENCH_RESTART_N: String(n) },
      // BENCH_RESTART_PROFILE=<dir>: a CPU profile of each restart's process there
      execArgv: [
        "--import",
        "tsx",
        ...(mode === "restart" && process.env.BENCH_RESTART_PROFILE
          ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_RESTART_PROFILE}`]
          : []),
      ],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    let result: T | undefined;
    child.on("message", (msg) => {
      if ((msg as { type?: string }).type === "result") result = msg as T;
    });
    child.on("exit", (code) =>
      result !== undefined && code === 0
        ? resolve(result)
        : reject(new Error(`${mode} child exited ${code} without a result`)),
    );
  });
}

async function restartOnce(env: Record<string, string>, n: number): Promise<RestartResult> {
  const r = await life<RestartResult>(env, "restart", n);
  console.log(
    `  accepting orders          ${r.processStartToAcceptedMs} ms after the process started (startStack ${r.startStackMs} ms: ${Object.entries(
      r.timingsMs,
    )
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")}); load ${os.loadavg()[0].toFixed(1)}`,
  );
  console.log(
    `  timeline                  ${Object.entries(r.marksMs)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")} ms; pipeline start: ${Object.entries(r.pipelineStartMs ?? {})
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")} ms`,
  );
  console.log(`  /health 200               ${r.processStartToHealthMs} ms after the process started`);
  console.log(`  RSS after start           ${r.rssMb} MB (this process; the chain nodes are their own)`);
  const restore = (c: ChainRestored) =>
    `${c.snapshot ? `snapshot of ${c.snapshot.journalEntries} calls (${(c.snapshot.bytes / 2 ** 20).toFixed(1)} MB) loaded in ${c.snapshot.loadMs} ms + ` : ""}${c.entries} calls replayed, ${c.ms} ms`;
  console.log(`  chain restore             home ${restore(r.chains.home)}; remote ${restore(r.chains.remote)}`);
  for (const skipped of [...(r.chains.home.skippedSnapshots ?? []), ...(r.chains.remote.skippedSnapshots ?? [])])
    console.log(`  snapshot skipped          ${skipped.slice(0, 300)}`);
  console.log(
    `  matcher journal           snapshot at record ${r.journal.snapshotIndex}, ${r.journal.replayed} records replayed, recovery ${Math.round(r.journal.ms)} ms; ${r.recoveredTrades} trades held, last settled seq ${r.lastSettledSeq}`,
  );
  return r;
}

/** A filled data dir (and its `.secrets` sibling) with the env that made it (its ports), fresh or kept. */
async function filled(
  n: number,
  node: string,
): Promise<{ dir: string; env: Record<string, string>; temporary: boolean }> {
  const kept = TEMPLATES ? path.resolve(TEMPLATES, `${node}-${n}`) : undefined;
  if (kept && fs.existsSync(path.join(kept, "bench-env.json"))) {
    console.log(`${n} orders: re-using the filled data dir ${kept}`);
    return { dir: kept, env: JSON.parse(fs.readFileSync(path.join(kept, "bench-env.json"), "utf8")), temporary: false };
  }
  if (kept) fs.rmSync(kept, { recursive: true, force: true });
  const dir = kept ?? fs.mkdtempSync(path.join(os.tmpdir(), "bench-restart-"));
  fs.mkdirSync(dir, { recursive: true });
  const { env } = await createTestConfig(dir, {
    LOG_LEVEL: "error",
    STACK_COMPONENTS: "pipeline,dex-api",
    ...(process.env.BENCH_CHAIN_NODE ? { CHAIN_NODE: process.env.BENCH_CHAIN_NODE } : {}),
  });
  const fill = await life<{ accepted: number; trades: number; fillMs: number }>(env, "fill", n);
  console.log(
    `${n} orders: ${fill.accepted} accepted, ${fill.trades} trades settled in ${(fill.fillMs / 1000).toFixed(1)} s; data dir ${Math.round(dirBytes(dir) / 2 ** 20)} MB; restarting`,
  );
  if (kept) fs.writeFileSync(path.join(kept, "bench-env.json"), JSON.stringify(env));
  return { dir, env, temporary: !kept };
}

function removeDataDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
  // the DEX API's generated encryption key lives beside the data dir (api/dex/config.ts)
  fs.rmSync(`${dir}.secrets`, { recursive: true, force: true });
}

async function measure(n: number, node: string): Promise<RestartResult> {
  const base = await filled(n, node);
  const runs: RestartResult[] = [];
  try {
    for (let k = 0; k < RUNS; k++) {
      // the first restart of a fresh fill runs on it; every other on a copy (a restart writes: new snapshots)
      if (base.temporary && k === 0 && RUNS === 1) {
        runs.push(await restartOnce(base.env, n));
        continue;
      }
      const copy = fs.mkdtempSync(path.join(os.tmpdir(), "bench-restart-copy-"));
      try {
        fs.cpSync(base.dir, copy, { recursive: true });
        if (fs.existsSync(`${base.dir}.secrets`))
          fs.cpSync(`${base.dir}.secrets`, `${copy}.secrets`, { recursive: true });
        runs.push(await restartOnce({ ...base.env, DATA_DIR: copy }, n));
      } finally {
        removeDataDir(copy);
      }
    }
  } finally {
    if (base.temporary) removeDataDir(base.dir);
  }
  const sorted = [...runs].sort((a, b) => a.processStartToAcceptedMs - b.processStartToAcceptedMs);
  if (runs.length > 1)
    console.log(
      `  ${n} orders, ${runs.length} restarts: accepting ${sorted.map((r) => r.processStartToAcceptedMs).join(", ")} ms (median ${sorted[(sorted.length - 1) >> 1].processStartToAcceptedMs})`,
    );
  return sorted[(sorted.length - 1) >> 1];
}

function dirBytes(dir: string): number {
  let total = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    total += e.isDirectory() ? dirBytes(p) : fs.statSync(p).size;
  }
  return total;
}

async function main(): Promise<void> {
  const node = process.env.BENCH_CHAIN_NODE || chainNodeOf();
  console.log(
    `bench:restart  sizes ${SIZES.join(", ")} orders; chain node ${node}; ${os.cpus().length} cores, load average ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(" ")}`,
  );
  const results: RestartResult[] = [];
  for (const n of SIZES) results.push(await measure(n, node));
  let ok = results.every((r) => r.processStartToAcceptedMs < TARGET_ACCEPT_MS);
  console.log(
    `${ok ? "PASS" : "FAIL"}  restart to accepting orders < ${TARGET_ACCEPT_MS} ms (${results.map((r) => r.processStartToAcceptedMs).join(" ms, ")} ms)`,
  );
  if (results.length === 2) {
    const [a, b] = results;
    const ratio = b.processStartToAcceptedMs / a.processStartToAcceptedMs;
    const within = ratio <= TARGET_RATIO;
    ok &&= within;
    console.log(
      `ratio ${SIZES[1]} / ${SIZES[0]} orders: accepting ${ratio.toFixed(2)}x, /health ${(b.processStartToHealthMs / a.processStartToHealthMs).toFixed(2)}x, RSS ${(b.rssMb / a.rssMb).toFixed(2)}x, chain restore ${(b.chains.home.ms / Math.max(1, a.chains.home.ms)).toFixed(2)}x, journal recovery ${(b.journal.ms / Math.max(1, a.journal.ms)).toFixed(2)}x`,
    );
    console.log(
      `${within ? "PASS" : "FAIL"}  the two sizes within ${Math.round((TARGET_RATIO - 1) * 100)} % (${ratio.toFixed(2)}x)`,
    );
  }
  console.log(
    `load average at the end ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(" ")}`,
  );
  process.exit(ok ? 0 : 1);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
