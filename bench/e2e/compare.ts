// npm run bench:e2e -- --compare <rev>: bench:e2e on this tree and on <rev> (a git worktree of it, in the system's
// temporary folder, sharing this tree's node_modules, its contracts compiled there), in alternated runs (ABBA:
// this, rev, rev, this, ...), each a whole `npm run bench:e2e` of its own tree with the same environment. Prints
// each run's summary line per entry and, per tree and entry, the median trades settled per second and the
// indexer's visibility p99 (block -> GET /trades) over the runs. Env: BENCH_COMPARE_RUNS (runs per tree, 3),
// BENCH_COMPARE_KEEP=1 (keep the worktree), and every BENCH_* of bench:e2e (the same for both trees).
import { spawn, execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

interface SummaryLine {
  entry: string;
  tradesPerS: number;
  /** block -> indexer p99 in ms (NaN: not measured) */
  indexP99: number;
}

/** The summary table's lines of one bench:e2e output (report.ts reportSummary). */
export function parseSummary(output: string): SummaryLine[] {
  const lines = output.split("\n");
  const head = lines.findIndex((l) => l.startsWith("entry ") && l.includes("trades/s"));
  if (head < 0) return [];
  const out: SummaryLine[] = [];
  for (const l of lines.slice(head + 1)) {
    const m = /^(\S+)\s+(\d+)\s+(\d+)\s+\S+\s+(?:\d+\/(\d+|NaN)|not measured)\s+\S+\s+\S+$/.exec(l.trim());
    if (!m) break;
    out.push({ entry: m[1]!, tradesPerS: Number(m[3]), indexP99: m[4] === undefined ? NaN : Number(m[4]) });
  }
  return out;
}

const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8" }).trim();

/** A worktree of `rev` with this tree's node_modules and its contracts compiled; returns its path. */
function worktreeOf(repo: string, rev: string): string {
  const sha = git(repo, "rev-parse", "--verify", `${rev}^{commit}`);
  const dir = path.join(os.tmpdir(), `bench-e2e-compare-${sha.slice(0, 12)}`);
  if (!fs.existsSync(dir)) {
    git(repo, "worktree", "add", "--detach", dir, sha);
    fs.symlinkSync(path.join(repo, "node_modules"), path.join(dir, "node_modules"), "dir");
  }
  console.log(`compare: ${rev} = ${sha.slice(0, 12)} in ${dir}; compiling its contracts`);
  execFileSync(process.execPath, [path.join(repo, "node_modules/hardhat/internal/cli/cli.js"), "compile", "--quiet"], {
    cwd: dir,
    stdio: "inherit",
  });
  return dir;
}

/** One whole `npm run bench:e2e` in `cwd`; its output goes through, prefixed with `label`. */
function runOnce(cwd: string, label: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn("npm", ["run", "--silent", "bench:e2e"], {
      cwd,
      env: process.env,
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      process.stdout.write(
        d
          .toString()
          .split("\n")
          .map((l) => (l ? `[${label}] ${l}` : l))
          .join("\n"),
      );
    });
    child.once("exit", (code) =>
      code === 0 ? resolve(out) : reject(new Error(`bench:e2e in ${cwd} exited with ${code}`)),
    );
  });
}

const median = (xs: number[]) => {
  const s = xs.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.floor((s.length - 1) / 2)]!;
};

function printComparison(labels: string[], runs: Map<string, SummaryLine[][]>): void {
  console.log(
    "\ncompare: per tree and entry, over its runs (trades settled /s within the window; block -> indexer p99)",
  );
  console.log("tree                  entry         trades/s (each run)      median  indexer p99 ms (each run)  median");
  for (const label of labels) {
    const all = runs.get(label)!;
    const entries = [...new Set(all.flat().map((s) => s.entry))];
    for (const entry of entries) {
      const of = all.map((r) => r.find((s) => s.entry === entry));
      const tps = of.map((s) => s?.tradesPerS ?? NaN);
      const p99 = of.map((s) => s?.indexP99 ?? NaN);
      console.log(
        `${label.padEnd(22)}${entry.padEnd(14)}${tps.join(", ").padEnd(25)}${String(median(tps)).padStart(6)}  ${p99.join(", ").padEnd(25)}${String(median(p99)).padStart(8)}`,
      );
    }
  }
}

/** `npm run bench:e2e -- --compare <rev>` */
export async function compareMain(rev: string | undefined): Promise<void> {
  if (!rev || rev.startsWith("-")) throw new Error("usage: npm run bench:e2e -- --compare <git revision>");
  const repo = git(process.cwd(), "rev-parse", "--show-toplevel");
  const runsPerTree = Number(process.env.BENCH_COMPARE_RUNS ?? 3);
  if (!Number.isInteger(runsPerTree) || runsPerTree < 1) throw new Error("BENCH_COMPARE_RUNS: an integer >= 1");
  const dir = worktreeOf(repo, rev);
  const trees = [
    { label: `this (${git(repo, "rev-parse", "--short", "HEAD")}+)`, cwd: repo },
    { label: rev, cwd: dir },
  ];
  const runs = new Map(trees.map((t) => [t.label, [] as SummaryLine[][]]));
  try {
    for (let i = 0; i < runsPerTree; i++) {
      // ABBA: a slow drift of the machine weighs on both trees alike
      const order = i % 2 === 0 ? trees : [...trees].reverse();
      for (const t of order) {
        console.log(`\ncompare: run ${i + 1}/${runsPerTree} of ${t.label}`);
        const summary = parseSummary(await runOnce(t.cwd, t.label));
        if (summary.length === 0) throw new Error(`no summary table in the output of ${t.label}`);
        runs.get(t.label)!.push(summary);
      }
    }
    printComparison(
      trees.map((t) => t.label),
      runs,
    );
  } finally {
    if (process.env.BENCH_COMPARE_KEEP !== "1") git(repo, "worktree", "remove", "--force", dir);
  }
}
