// The pure parts of the test runner (scripts/run-tests.mjs): its arguments, which files and steps a run
// selects, and how a file's output and exit become counts. No I/O here, so scripts/run-tests.test.ts can
// check each rule on its own.

/** The groups `--only` accepts. `typecheck` is `tsc --noEmit -p tsconfig.json` and `deps` the layout's import
 *  rule (dependency-cruiser with .dependency-cruiser.cjs), each counted as one test. */
export const GROUPS = ["contracts", "unit", "e2e", "fork", "typecheck", "deps"];

const SKIP_DIRS = new Set(["node_modules", "artifacts", "cache", "typechain-types", "generated"]);
/** Folders never searched for tests: dependencies, build output, and every dot folder (.git, .data,
 *  .ponder, and the copies of the tree a mutation run keeps in .stryker-tmp). */
export const isSkippedDir = (name) =>
  SKIP_DIRS.has(name) ||
  name.startsWith(".") ||
  name.startsWith("artifacts-") ||
  name.startsWith("cache-") ||
  name.startsWith("typechain-types-");

/** Hardhat's mocha runs every file under test/contracts; these are the ones holding tests (the others
 *  are fixtures and helpers they import). */
export const isContractTestFile = (f) => f.startsWith("test/contracts/") && /\.test\.ts$/.test(f);

/**
 * `[--only <group>] [filter ...]` -> `{ only, filters }`, or `{ error }` for an unknown group, a missing
 * group name or an unknown option (a typo must not run nothing and pass).
 */
export function parseArgs(argv) {
  let only = null;
  const filters = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--only") {
      const g = argv[i + 1];
      if (g === undefined || g.startsWith("--")) return { error: `--only needs a group: ${GROUPS.join(", ")}` };
      if (!GROUPS.includes(g)) return { error: `unknown test group "${g}" (groups: ${GROUPS.join(", ")})` };
      if (only !== null && only !== g) return { error: `--only given twice ("${only}", "${g}"): one group per run` };
      only = g;
      i++;
    } else if (a.startsWith("--")) {
      return { error: `unknown option "${a}" (usage: run-tests.mjs [--only ${GROUPS.join("|")}] [path-filter ...])` };
    } else if (a !== "") {
      filters.push(a);
    }
  }
  return { only, filters };
}

/**
 * What a run does, from every test file of the tree (`files`: repo-relative paths of `*.test.ts` and of
 * the contract tests) and the parsed arguments:
 *   contracts: null (not run), "all" (hardhat test over test/contracts) or the contract test files the
 *              filters keep;
 *   unit, e2e: node:test files;
 *   fork:      the Hardhat tests of test/fork/ (test/fork/run.ts forks a stack of its own);
 *   typecheck: whether tsc runs (the full run, `--only unit` and `--only typecheck`, never a filtered run);
 *   deps:      whether dependency-cruiser checks the layout (the full run, `--only unit` and `--only deps`,
 *              never a filtered run);
 *   error:     set when the run would test nothing, or when a filter matches no file of the chosen
 *              group(s): a typo fails instead of passing with 0 tests.
 */
export function planRun(files, { only, filters }) {
  const wants = (g) => only === null || only === g;
  const keep = (f) => filters.length === 0 || filters.some((x) => f.includes(x));
  const pool = {
    contracts: wants("contracts") ? files.filter(isContractTestFile) : [],
    unit: wants("unit")
      ? files.filter(
          (f) =>
            f.endsWith(".test.ts") &&
            !f.startsWith("test/contracts/") &&
            !f.startsWith("test/e2e/") &&
            !f.startsWith("test/fork/"),
        )
      : [],
    e2e: wants("e2e") ? files.filter((f) => f.startsWith("test/e2e/") && f.endsWith(".test.ts")) : [],
    fork: wants("fork") ? files.filter((f) => f.startsWith("test/fork/") && f.endsWith(".test.ts")) : [],
  };
  const plan = {
    contracts: !wants("contracts")
      ? null
      : filters.length === 0
        ? pool.contracts.length
          ? "all"
          : null
        : pool.contracts.filter(keep),
    unit: pool.unit.filter(keep),
    e2e: pool.e2e.filter(keep),
    fork: pool.fork.filter(keep),
    typecheck: filters.length === 0 && (only === null || only === "unit" || only === "typecheck"),
    deps: filters.length === 0 && (only === null || only === "unit" || only === "deps"),
    error: null,
  };
  if (Array.isArray(plan.contracts) && plan.contracts.length === 0) plan.contracts = null;
  const scope = only === null ? "any group" : `group "${only}"`;
  const candidates = [...pool.contracts, ...pool.unit, ...pool.e2e, ...pool.fork];
  const unmatched = filters.filter((x) => !candidates.some((f) => f.includes(x)));
  if (unmatched.length) {
    plan.error =
      `no test file of ${scope} matches ${unmatched.map((x) => `"${x}"`).join(", ")}` +
      (only === "typecheck" || only === "deps" ? ` (${only} takes no filter)` : "");
  } else if (
    plan.contracts === null &&
    !plan.unit.length &&
    !plan.e2e.length &&
    !plan.fork.length &&
    !plan.typecheck &&
    !plan.deps
  ) {
    plan.error = `no test file in ${scope}: nothing to run`;
  }
  return plan;
}

function sum(re, text) {
  let n = 0;
  for (const m of text.matchAll(re)) n += Number(m[1]);
  return n;
}

/**
 * The counts a test process reports. mocha (Hardhat): `N passing`, `N failing`, `N pending`. node:test
 * (spec reporter): `ℹ pass`, `ℹ fail`, `ℹ cancelled` (a cancelled test did not pass: its file timed out
 * or a hook failed), `ℹ skipped` and `ℹ todo` (neither asserted anything, so both count as skipped).
 */
export function countOutput(kind, out) {
  if (kind === "mocha") {
    return {
      passed: sum(/^\s*(\d+) passing/gm, out),
      failed: sum(/^\s*(\d+) failing/gm, out),
      skipped: sum(/^\s*(\d+) pending/gm, out),
    };
  }
  return {
    passed: sum(/^ℹ pass (\d+)/gm, out),
    failed: sum(/^ℹ fail (\d+)/gm, out) + sum(/^ℹ cancelled (\d+)/gm, out),
    skipped: sum(/^ℹ skipped (\d+)/gm, out) + sum(/^ℹ todo (\d+)/gm, out),
  };
}

/**
 * One file's result: its counts checked against how the process ended. A crash, a kill, a time-out or a
 * non-zero exit without a failing test counts as one failure. `r`: { out, code, signal, timedOut, leftovers }.
 */
export function judgeRun(kind, r) {
  let { passed, failed, skipped } = countOutput(kind, r.out);
  let note = r.timedOut ? "timed out" : "";
  if (r.code !== 0 && failed === 0) {
    failed = 1;
    note ||= r.signal ? `killed by ${r.signal}` : `exit code ${r.code}, no failing test reported`;
  }
  if (r.code === 0 && failed > 0) note ||= "exit code 0 with failing tests";
  if (r.leftovers && !r.timedOut) note = [note, "left processes running"].filter(Boolean).join("; ");
  return { passed, failed, skipped, note };
}

/** The typecheck step as one test: passed when tsc exits 0, failed otherwise. */
export function judgeTypecheck(r) {
  return judgeOneCommand("tsc", r);
}

/** The deps step as one test: passed when depcruise exits 0 (its exit code is the number of violations). */
export function judgeDeps(r) {
  return judgeOneCommand("depcruise", r);
}

function judgeOneCommand(name, r) {
  const ok = r.code === 0 && !r.timedOut;
  return {
    passed: ok ? 1 : 0,
    failed: ok ? 0 : 1,
    skipped: 0,
    note: ok ? "" : r.timedOut ? "timed out" : `${name} exit code ${r.code}`,
  };
}

export function addTotals(results) {
  return results.reduce(
    (t, r) => ({ passed: t.passed + r.passed, failed: t.failed + r.failed, skipped: t.skipped + (r.skipped ?? 0) }),
    { passed: 0, failed: 0, skipped: 0 },
  );
}

/** The closing line CI reads: `tests: N passed, N failed` and then `, N skipped`. */
export const closingLine = ({ passed, failed, skipped }) =>
  `tests: ${passed} passed, ${failed} failed, ${skipped} skipped`;
