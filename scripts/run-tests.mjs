#!/usr/bin/env node
// Runs every test of the project and ends with one line `tests: N passed, N failed, N skipped`.
//   build:     `hardhat compile` of the whole tree and of the exchange area, once, before any test: a
//              fresh clone has no artifacts, and unit tests that compile on demand would otherwise
//              race each other writing the same artifacts folder.
//   contracts: Hardhat's mocha over test/contracts (in-process Hardhat network)
//   unit:      node:test, one process per *.test.ts outside test/contracts and test/e2e, run side by
//              side with the contracts run (TEST_CONCURRENCY at a time, default 2)
//   typecheck: `tsc --noEmit -p tsconfig.json` and `-p indexer/tsconfig.json`, then `biome check .` (format and
//              lint), each counted as one test (failed when tsc exits non-zero, its
//              output printed), side by side with the contracts run; in the full run, `--only unit` and
//              `--only typecheck`, never in a filtered run
//   deps:      the layout's import rule, `depcruise --config .dependency-cruiser.cjs --ignore-known` (README
//              "## Layout"), counted as one test like the typecheck; in the full run, `--only unit` and
//              `--only deps`, never in a filtered run
//   e2e:       node:test over test/e2e/**/*.test.ts, TEST_E2E_CONCURRENCY files at a time (default 2; each
//              starts its own stacks on ports of its own, and most of their time is spent waiting on
//              chains and sockets: 553 s one at a time, 346 s two at a time on 2 cores)
//   fork:      Hardhat's mocha over test/fork/ on a fork of a stack's home chain (test/fork/run.ts
//              --own-stack: it starts and stops its own stack, never forks a running `npm start`)
// Every file runs in its own process group, under a time limit (TEST_FILE_TIMEOUT_MS, e2e
// TEST_E2E_FILE_TIMEOUT_MS, contracts TEST_CONTRACTS_TIMEOUT_MS); when it ends, whatever it left
// running is killed. A file that crashes, times out or exits non-zero without a failing test counts
// as one failure. Skipped tests (node:test skip/todo, mocha pending) are counted and listed.
// `--only <group>` runs one group (the build still runs first); other arguments keep only the test files
// (contract tests included) whose path contains one of them. An unknown group or option, or a filter that
// matches no test file, fails at once (exit 1, `tests: 0 passed, 1 failed, 0 skipped`) before any build.
// The rules themselves (arguments, selection, counting) are in run-tests-lib.mjs, tested by run-tests.test.ts.
import { spawn } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import {
  addTotals,
  closingLine,
  isSkippedDir,
  judgeDeps,
  judgeRun,
  judgeTypecheck,
  parseArgs,
  planRun,
} from "./run-tests-lib.mjs";

const root = new URL("..", import.meta.url).pathname;
const args = parseArgs(process.argv.slice(2));
const envMs = (name, fallback) => (Number(process.env[name]) > 0 ? Number(process.env[name]) : fallback);
const CONCURRENCY = envMs("TEST_CONCURRENCY", 2);
const E2E_CONCURRENCY = envMs("TEST_E2E_CONCURRENCY", 2);
const UNIT_TIMEOUT_MS = envMs("TEST_FILE_TIMEOUT_MS", 6 * 60_000);
const E2E_TIMEOUT_MS = envMs("TEST_E2E_FILE_TIMEOUT_MS", 10 * 60_000);
const CONTRACTS_TIMEOUT_MS = envMs("TEST_CONTRACTS_TIMEOUT_MS", 15 * 60_000);
const BUILD_TIMEOUT_MS = envMs("TEST_BUILD_TIMEOUT_MS", 10 * 60_000);
const TYPECHECK_TIMEOUT_MS = envMs("TEST_TYPECHECK_TIMEOUT_MS", 10 * 60_000);
const DEPS_TIMEOUT_MS = envMs("TEST_DEPS_TIMEOUT_MS", 5 * 60_000);

function findTests(dir, out = []) {
  for (const name of readdirSync(dir)) {
    if (isSkippedDir(name)) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) findTests(p, out);
    else if (name.endsWith(".test.ts")) out.push(relative(root, p));
  }
  return out.sort();
}

// Process groups of the children still running, killed if the runner itself is stopped.
const live = new Set();
function killGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false; // the group is gone
  }
}
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(sig, () => {
    for (const pid of live) killGroup(pid, "SIGKILL");
    console.log(closingLine({ passed: 0, failed: 1, skipped: 0 }));
    process.exit(1);
  });
}
process.on("exit", () => {
  for (const pid of live) killGroup(pid, "SIGKILL");
});

/**
 * Runs one command in its own process group. `stream`: copy its output through as it comes (else it
 * is printed as one block when it ends, so files running side by side do not interleave).
 */
function run(label, cmd, args, { env = {}, timeoutMs, stream }) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(cmd, args, {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true, // its own process group: a timeout or the end kills what it started, too
    });
    live.add(child.pid);
    let out = "";
    const onData = (d) => {
      out += d;
      if (stream) process.stdout.write(d);
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid, "SIGTERM");
      setTimeout(() => killGroup(child.pid, "SIGKILL"), 5_000).unref();
    }, timeoutMs);
    child.on("error", (e) => {
      out += `\n${label}: could not start: ${e.message}\n`;
    });
    child.on("close", async (code, signal) => {
      clearTimeout(timer);
      const ms = Date.now() - started;
      // Whatever the file left behind (a chain, a server) dies with it. Helpers that exit on their own
      // once their parent is gone (tsx's esbuild service) get a few seconds first.
      for (let i = 0; i < 30 && killGroup(child.pid, 0); i++) await new Promise((r) => setTimeout(r, 100));
      const leftovers = killGroup(child.pid, "SIGKILL");
      live.delete(child.pid);
      let note = "";
      if (timedOut) note += `\n${label}: TIMED OUT after ${Math.round(timeoutMs / 1000)} s, killed\n`;
      if (leftovers && !timedOut) note += `\n${label}: warning: processes were still running after it ended; killed\n`;
      if (!stream) process.stdout.write(`\n──── ${label} (${(ms / 1000).toFixed(1)} s) ────\n${out}`);
      else process.stdout.write(`──── end of ${label} (${(ms / 1000).toFixed(1)} s) ────\n`);
      if (note) process.stdout.write(note);
      resolve({ code: timedOut ? 1 : (code ?? 1), signal, out, ms, timedOut, leftovers });
    });
  });
}

const results = []; // { group, label, passed, failed, skipped, ms, note }
function record(group, label, r, kind) {
  results.push({
    group,
    label,
    ms: r.ms,
    ...(kind === "typecheck" ? judgeTypecheck(r) : kind === "deps" ? judgeDeps(r) : judgeRun(kind, r)),
  });
}

/** Runs the jobs, `limit` at a time, in the order given. */
async function pool(jobs, limit) {
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) await jobs[next++]();
  };
  await Promise.all(Array.from({ length: Math.min(limit, jobs.length) }, worker));
}

const hardhatCli = join(root, "node_modules", "hardhat", "internal", "cli", "cli.js");
const nodeTest = (file, timeoutMs, stream) => async () => {
  const r = await run(file, process.execPath, ["--import", "tsx", "--test", "--test-reporter=spec", file], {
    timeoutMs,
    stream,
  });
  record(file.startsWith("test/e2e/") ? "e2e" : "unit", file, r, "node:test");
};

const plan = args.error ? { error: args.error } : planRun(findTests(root), args);
if (plan.error) {
  console.log(`run-tests: ${plan.error}`);
  console.log(closingLine({ passed: 0, failed: 1, skipped: 0 }));
  process.exit(1);
}
const groupMs = {};
const t0 = Date.now();

// Build: the whole tree (artifacts/) and the exchange area (artifacts-exchange/), side by side.
{
  const started = Date.now();
  const builds = [
    ["build: hardhat compile", {}],
    ["build: hardhat compile (exchange area)", { HARDHAT_AREA: "exchange" }],
  ];
  await Promise.all(
    builds.map(async ([label, env]) => {
      const r = await run(label, process.execPath, [hardhatCli, "compile", "--quiet"], {
        env,
        timeoutMs: BUILD_TIMEOUT_MS,
        stream: false,
      });
      if (r.code !== 0)
        results.push({
          group: "build",
          label,
          passed: 0,
          failed: 1,
          skipped: 0,
          ms: r.ms,
          note: r.timedOut ? "timed out" : `exit code ${r.code}`,
        });
    }),
  );
  groupMs.build = Date.now() - started;
}

// Contracts, the typecheck and unit files share the cores (the typecheck beside the long contracts run).
{
  const started = Date.now();
  const jobs = [];
  if (plan.contracts) {
    const files = plan.contracts === "all" ? [] : plan.contracts;
    jobs.push(async () => {
      const s = Date.now();
      const r = await run("contracts: hardhat test", process.execPath, [hardhatCli, "test", "--no-compile", ...files], {
        timeoutMs: CONTRACTS_TIMEOUT_MS,
        stream: false,
      });
      record(
        "contracts",
        files.length ? `test/contracts (hardhat test, ${files.length} file(s))` : "test/contracts (hardhat test)",
        r,
        "mocha",
      );
      groupMs.contracts = Date.now() - s;
    });
  }
  if (plan.typecheck) {
    jobs.push(async () => {
      const s = Date.now();
      const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
      // The service tree, then the indexer (its own ESM/bundler settings): one test, failed if either fails.
      for (const project of ["tsconfig.json", "indexer/tsconfig.json"]) {
        const r = await run(
          `typecheck: tsc --noEmit -p ${project}`,
          process.execPath,
          [tsc, "--noEmit", "-p", project],
          { timeoutMs: TYPECHECK_TIMEOUT_MS, stream: false },
        );
        record("typecheck", `typecheck (tsc --noEmit -p ${project})`, r, "typecheck");
      }
      // Biome's formatter and linter over the tree (biome.json): one test, failed on any finding.
      const biome = join(root, "node_modules", "@biomejs", "biome", "bin", "biome");
      const lint = await run("lint: biome check", process.execPath, [biome, "check", "--colors=off", "."], {
        timeoutMs: TYPECHECK_TIMEOUT_MS,
        stream: false,
      });
      record("typecheck", "lint (biome check: format + lint, biome.json)", lint, "typecheck");
      groupMs.typecheck = Date.now() - s;
    });
  }
  if (plan.deps) {
    jobs.push(async () => {
      const s = Date.now();
      const depcruise = join(root, "node_modules", "dependency-cruiser", "bin", "dependency-cruise.mjs");
      const r = await run(
        "deps: depcruise --config .dependency-cruiser.cjs",
        process.execPath,
        [depcruise, "--config", ".dependency-cruiser.cjs", "--ignore-known", "--output-type", "err", "."],
        { timeoutMs: DEPS_TIMEOUT_MS, stream: false },
      );
      record("deps", 'deps (dependency-cruiser, README "## Layout")', r, "deps");
      groupMs.deps = Date.now() - s;
    });
  }
  for (const f of plan.unit) jobs.push(nodeTest(f, UNIT_TIMEOUT_MS, false));
  await pool(jobs, CONCURRENCY);
  if (jobs.length) groupMs["contracts+unit"] = Date.now() - started;
}

// e2e: E2E_CONCURRENCY files at a time. One at a time, output as it comes; side by side, each file's output as
// one block when it ends (run()'s `stream`), so two files' lines do not interleave in the log.
if (plan.e2e.length) {
  const started = Date.now();
  const stream = E2E_CONCURRENCY === 1;
  await pool(
    plan.e2e.map((f) => async () => {
      if (stream) console.log(`\n──── ${f} ────`);
      await nodeTest(f, E2E_TIMEOUT_MS, stream)();
    }),
    E2E_CONCURRENCY,
  );
  groupMs.e2e = Date.now() - started;
}

// fork: test/fork/run.ts starts a stack and runs hardhat test over all of test/fork/ on a fork of it.
if (plan.fork.length) {
  const started = Date.now();
  console.log("\n──── test/fork ────");
  const r = await run(
    "fork: hardhat test on a fork",
    process.execPath,
    ["--import", "tsx", "test/fork/run.ts", "--own-stack"],
    { timeoutMs: E2E_TIMEOUT_MS, stream: true },
  );
  record("fork", "test/fork (hardhat test on a forked stack)", r, "mocha");
  groupMs.fork = Date.now() - started;
}

const totals = addTotals(results);
const fmt = (ms) => `${(ms / 1000).toFixed(1).padStart(7)} s`;
console.log("\n════ summary ════");
console.log(
  `groups: ${Object.entries(groupMs)
    .map(([g, ms]) => `${g} ${(ms / 1000).toFixed(1)} s`)
    .join(", ")}; total ${((Date.now() - t0) / 1000).toFixed(1)} s`,
);
console.log("slowest files:");
for (const r of [...results].sort((a, b) => b.ms - a.ms).slice(0, 10)) console.log(`  ${fmt(r.ms)}  ${r.label}`);
const failing = results.filter((r) => r.failed > 0);
if (failing.length) {
  console.log("failing files:");
  for (const r of failing) console.log(`  ${r.label}: ${r.failed} failed${r.note ? ` (${r.note})` : ""}`);
}
const skipping = results.filter((r) => r.skipped > 0);
if (skipping.length) {
  console.log("files with skipped tests:");
  for (const r of skipping) console.log(`  ${r.label}: ${r.skipped} skipped`);
}
for (const r of results.filter((r) => r.failed === 0 && r.note)) console.log(`warning: ${r.label}: ${r.note}`);
console.log(closingLine(totals));
process.exit(totals.failed > 0 ? 1 : 0);
