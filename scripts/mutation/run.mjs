#!/usr/bin/env node
// `npm run test:mutation`: mutation testing of the critical code, one score per area.
//   TypeScript (StrykerJS, one config per area in this folder): matcher/core, api/auth, the pipeline's
//   settle logic (batcher, settle sender, ledger), the exchange API's order rules, registry sync and funding
//   (exchange.stryker.conf.mjs, one area each), the identity provider's codes and token store (api/iam);
//   Solidity: `npm run test:mutation:sol` when package.json has it (its own mutator over contracts/).
// Then one table: area, mutants, killed, survived, timeout, no coverage, score. The score is Stryker's:
// (killed + timeout) / (killed + timeout + survived + no coverage); mutants that do not compile or
// crash the run are left out, as Stryker does. Goal: >= 90 % per area (issue #11).
//
//   node scripts/mutation/run.mjs [--ts | --sol] [--incremental] [area ...] [-- solidity mutator options]
//     --ts / --sol     only the TypeScript areas / only the Solidity mutator
//     --incremental    Stryker re-tests only what changed since the area's last run
//     area             matcher-core, api-auth, pipeline-settle, exchange-orders, exchange-compliance,
//                      exchange-funding, api-iam (default: all)
//     -- ...           passed to scripts/mutation/solidity.ts (default: its seeded sample of 20 per area)
// MUTATION_CONCURRENCY (default 1) sets Stryker's worker count. Reports: reports/mutation/<area>.html|json.
// Exit code: 0 when every area ran, 1 when one could not run (a score under the goal is reported, not
// an error: the run is advisory, not a CI gate). The Solidity rows count its killed, survived and timed-out
// mutants (its equivalent and non-compiling ones are left out, as it does itself).
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";

const root = new URL("../..", import.meta.url).pathname;
const GOAL = 90;
const TS_AREAS = [
  { area: "matcher-core", config: "scripts/mutation/matcher.stryker.conf.mjs" },
  { area: "api-auth", config: "scripts/mutation/auth.stryker.conf.mjs" },
  { area: "pipeline-settle", config: "scripts/mutation/pipeline.stryker.conf.mjs" },
  // #26: the exchange API's order rules, registry sync and funding (one config, MUTATION_AREA picks), the IAM
  {
    area: "exchange-orders",
    config: "scripts/mutation/exchange.stryker.conf.mjs",
    env: { MUTATION_AREA: "exchange-orders" },
  },
  {
    area: "exchange-compliance",
    config: "scripts/mutation/exchange.stryker.conf.mjs",
    env: { MUTATION_AREA: "exchange-compliance" },
  },
  {
    area: "exchange-funding",
    config: "scripts/mutation/exchange.stryker.conf.mjs",
    env: { MUTATION_AREA: "exchange-funding" },
  },
  { area: "api-iam", config: "scripts/mutation/iam.stryker.conf.mjs" },
];

const dashDash = process.argv.indexOf("--");
const argv = dashDash === -1 ? process.argv.slice(2) : process.argv.slice(2, dashDash);
/** Arguments after `--` go to the Solidity mutator (e.g. `-- --all`, `-- --sample 40 --seed 2`). */
const solArgs = dashDash === -1 ? [] : process.argv.slice(dashDash + 1);
const onlyTs = argv.includes("--ts");
const onlySol = argv.includes("--sol");
const incremental = argv.includes("--incremental");
const picked = argv.filter((a) => !a.startsWith("--"));

function run(cmd, args, env = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, stdio: "inherit", env: { ...process.env, ...env } });
    child.on("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
    child.on("error", () => resolve(1));
  });
}

/** Counts by status from a mutation-testing-report-schema JSON (what Stryker's json reporter writes). */
export function summarize(report) {
  const c = { mutants: 0, killed: 0, survived: 0, timeout: 0, noCoverage: 0, errors: 0, ignored: 0 };
  for (const file of Object.values(report.files ?? {})) {
    for (const m of file.mutants ?? []) {
      c.mutants++;
      if (m.status === "Killed") c.killed++;
      else if (m.status === "Survived") c.survived++;
      else if (m.status === "Timeout") c.timeout++;
      else if (m.status === "NoCoverage") c.noCoverage++;
      else if (m.status === "Ignored") c.ignored++;
      else c.errors++; // CompileError, RuntimeError
    }
  }
  const valid = c.killed + c.timeout + c.survived + c.noCoverage;
  c.score = valid === 0 ? null : ((c.killed + c.timeout) * 100) / valid;
  return c;
}

const rows = [];
let failed = false;

if (!onlySol) {
  for (const { area, config, env } of TS_AREAS) {
    if (picked.length > 0 && !picked.includes(area)) continue;
    console.log(`\n=== mutation: ${area} (${config}) ===`);
    const reportFile = join(root, "reports/mutation", `${area}.json`);
    const started = Date.now();
    const code = await run("npx", ["stryker", "run", config, ...(incremental ? ["--incremental"] : [])], env);
    const fresh = existsSync(reportFile) && statMtime(reportFile) >= started - 1000;
    if (code !== 0 || !fresh) {
      failed = true;
      rows.push({ area, error: `stryker exited ${code}${fresh ? "" : ", no report"}` });
      continue;
    }
    rows.push({ area, ...summarize(JSON.parse(readFileSync(reportFile, "utf8"))) });
  }
}

if (!onlyTs && picked.length === 0) {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  if (pkg.scripts?.["test:mutation:sol"]) {
    console.log(
      `\n=== mutation: solidity (npm run test:mutation:sol${solArgs.length ? ` -- ${solArgs.join(" ")}` : ""}) ===`,
    );
    const file = join(root, "reports/mutation/solidity.json");
    mkdirSync(dirname(file), { recursive: true });
    const started = Date.now();
    // scripts/mutation/solidity.ts: exit 0, or 1 when an area scores under 90 %; anything else is a failure
    // to run. --json leaves one result per mutant: { results: [{ mutant: { area }, outcome }] }.
    const code = await run("npm", ["run", "--silent", "test:mutation:sol", "--", ...solArgs, "--json", file]);
    if ((code === 0 || code === 1) && existsSync(file) && statMtime(file) >= started - 1000) {
      const { results = [] } = JSON.parse(readFileSync(file, "utf8"));
      const areas = [...new Set(results.map((r) => r.mutant?.area ?? "solidity"))];
      for (const area of areas) {
        const of = (k) => results.filter((r) => (r.mutant?.area ?? "solidity") === area && r.outcome === k).length;
        const c = {
          mutants: results.filter((r) => (r.mutant?.area ?? "solidity") === area).length,
          killed: of("killed"),
          survived: of("survived"),
          timeout: of("timeout"),
          noCoverage: 0,
        };
        const valid = c.killed + c.timeout + c.survived;
        rows.push({
          area: `solidity-${area}`,
          ...c,
          score: valid === 0 ? null : ((c.killed + c.timeout) * 100) / valid,
        });
      }
    } else {
      failed = true;
      rows.push({ area: "solidity", error: `test:mutation:sol exited ${code}` });
    }
  } else {
    rows.push({ area: "solidity", error: "no test:mutation:sol script" });
  }
}

const header = ["area", "mutants", "killed", "survived", "timeout", "no coverage", "score"];
const table = rows.map((r) =>
  r.error
    ? [r.area, "-", "-", "-", "-", "-", r.error]
    : [
        r.area,
        r.mutants,
        r.killed,
        r.survived,
        r.timeout,
        r.noCoverage,
        r.score === null ? "n/a" : `${r.score.toFixed(2)} %${r.score >= GOAL ? "" : ` (< ${GOAL} %)`}`,
      ].map(String),
);
const widths = header.map((h, i) => Math.max(h.length, ...table.map((r) => String(r[i]).length)));
const line = (cells) =>
  cells
    .map((c, i) =>
      i === 0 ? String(c).padEnd(widths[i]) : i === cells.length - 1 ? String(c) : String(c).padStart(widths[i]),
    )
    .join("  ");
console.log(`\nmutation score per area (goal >= ${GOAL} %)`);
console.log(line(header));
for (const r of table) console.log(line(r));
process.exit(failed ? 1 : 0);

function statMtime(file) {
  return statSync(file).mtimeMs;
}
