// The test runner's rules: a group or filter that matches nothing fails (exit 1, one failure counted)
// before anything is built; skipped tests are counted from the reporters' real output; the typecheck and
// the deps check are one test each, in the full and unit runs only (and their own groups); the closing line
// CI reads keeps its `N passed, N failed`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  addTotals,
  closingLine,
  countOutput,
  isSkippedDir,
  judgeDeps,
  judgeRun,
  judgeTypecheck,
  parseArgs,
  planRun,
  type RunArgs,
} from "./run-tests-lib.mjs";

const root = join(__dirname, "..");
const runner = join(root, "scripts", "run-tests.mjs");

/** Runs the real runner; every case here must end before its build starts (a few hundred ms). */
function runRunner(args: string[]): { code: number | null; out: string } {
  const r = spawnSync(process.execPath, [runner, ...args], {
    cwd: root,
    env: childEnv(),
    encoding: "utf8",
    timeout: 60_000,
  });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}
const lastLine = (out: string) => out.trim().split("\n").at(-1);
/** The environment without node:test's marker: a `node --test` child that inherits it reports to this
 *  process instead of printing its own summary (and exits 0 whatever failed). */
const childEnv = (): NodeJS.ProcessEnv => {
  const { NODE_TEST_CONTEXT: _ctx, ...env } = process.env;
  return env;
};

for (const [name, args, message] of [
  ["an unknown group", ["--only", "typo"], /unknown test group "typo"/],
  ["--only without a group", ["--only"], /--only needs a group/],
  ["an unknown option", ["--onyl", "unit"], /unknown option "--onyl"/],
  [
    "a filter that matches no test file",
    ["somefilterthatmatchesnothing"],
    /no test file of any group matches "somefilterthatmatchesnothing"/,
  ],
  [
    "a filter matching only files of another group",
    ["--only", "e2e", "scripts/run-tests.test.ts"],
    /no test file of group "e2e" matches/,
  ],
  ["a filtered typecheck", ["--only", "typecheck", "scripts/"], /typecheck takes no filter/],
  ["a filtered deps check", ["--only", "deps", "scripts/"], /deps takes no filter/],
] as const) {
  test(`runner: ${name} fails at once with exit 1 and one failure counted`, () => {
    const r = runRunner([...args]);
    assert.equal(r.code, 1);
    assert.match(r.out, message);
    assert.equal(lastLine(r.out), "tests: 0 passed, 1 failed, 0 skipped");
    assert.doesNotMatch(r.out, /build: hardhat compile/, "refused before the build");
  });
}

test("parseArgs: groups, filters, errors", () => {
  assert.deepEqual(parseArgs([]), { only: null, filters: [] });
  assert.deepEqual(parseArgs(["--only", "unit", "pipeline/", "sdk"]), { only: "unit", filters: ["pipeline/", "sdk"] });
  assert.deepEqual(parseArgs(["pipeline/", "--only", "typecheck"]), { only: "typecheck", filters: ["pipeline/"] });
  for (const g of ["contracts", "unit", "e2e", "fork", "typecheck", "deps"])
    assert.deepEqual(parseArgs(["--only", g]), { only: g, filters: [] });
  assert.match(String(parseArgs(["--only", "Unit"]).error), /unknown test group "Unit"/, "groups are exact");
  assert.match(String(parseArgs(["--only", "--only", "unit"]).error), /--only needs a group/);
  assert.match(String(parseArgs(["--only", "unit", "--only", "e2e"]).error), /given twice/);
  assert.deepEqual(parseArgs(["--only", "unit", "--only", "unit"]), { only: "unit", filters: [] });
  assert.match(String(parseArgs(["-x"]).error ?? ""), /^$/, "a single-dash word is a filter");
});

test("test search: dot folders (a mutation run's .stryker-tmp copies), dependencies and build output are skipped", () => {
  for (const d of [
    ".stryker-tmp",
    ".git",
    ".data",
    ".ponder",
    "node_modules",
    "artifacts",
    "artifacts-exchange",
    "cache-bridge",
    "typechain-types",
    "typechain-types-exchange",
    "generated",
  ]) {
    assert.equal(isSkippedDir(d), true, d);
  }
  for (const d of ["pipeline", "test", "contracts", "scripts", "api", "matcher", "cached", "artifact"])
    assert.equal(isSkippedDir(d), false, d);
});

const FILES = [
  "matcher/core/engine.test.ts",
  "pipeline/ledger.test.ts",
  "scripts/run-tests.test.ts",
  "test/contracts/exchange/cancel.test.ts",
  "test/contracts/exchange/settle.test.ts",
  "test/contracts/bridge/vault.test.ts",
  "test/e2e/stack.test.ts",
  "test/fork/settle-on-fork.test.ts",
];
const plan = (a: Partial<RunArgs>) => planRun(FILES, { only: null, filters: [], ...a });

test("planRun: the full run runs everything, the typecheck and the deps check included", () => {
  assert.deepEqual(plan({}), {
    contracts: "all",
    unit: ["matcher/core/engine.test.ts", "pipeline/ledger.test.ts", "scripts/run-tests.test.ts"],
    e2e: ["test/e2e/stack.test.ts"],
    fork: ["test/fork/settle-on-fork.test.ts"],
    typecheck: true,
    deps: true,
    error: null,
  });
});

test("planRun: test/fork is Hardhat's (the fork group), never a node:test unit file", () => {
  assert.deepEqual(
    plan({ only: "unit" }).unit.filter((f) => f.startsWith("test/fork/")),
    [],
  );
  assert.deepEqual(plan({ only: "fork" }).fork, ["test/fork/settle-on-fork.test.ts"]);
  assert.deepEqual(plan({ only: "e2e" }).fork, []);
});

test("planRun: the deps check runs in the full run, --only unit and --only deps; never filtered", () => {
  assert.equal(plan({}).deps, true);
  assert.equal(plan({ only: "unit" }).deps, true);
  assert.equal(plan({ only: "deps" }).deps, true);
  for (const only of ["contracts", "e2e", "typecheck"]) assert.equal(plan({ only }).deps, false, only);
  assert.equal(plan({ only: "unit", filters: ["pipeline/"] }).deps, false);
  assert.equal(plan({ filters: ["pipeline/"] }).deps, false);
  const d = plan({ only: "deps" });
  assert.deepEqual([d.contracts, d.unit, d.e2e, d.typecheck, d.error], [null, [], [], false, null]);
  assert.equal(
    plan({ only: "deps", filters: ["scripts/"] }).error,
    'no test file of group "deps" matches "scripts/" (deps takes no filter)',
  );
});

test("planRun: the typecheck runs in the full run, --only unit and --only typecheck; never filtered", () => {
  assert.equal(plan({}).typecheck, true);
  assert.equal(plan({ only: "unit" }).typecheck, true);
  assert.equal(plan({ only: "typecheck" }).typecheck, true);
  assert.equal(plan({ only: "contracts" }).typecheck, false);
  assert.equal(plan({ only: "e2e" }).typecheck, false);
  assert.equal(plan({ only: "deps" }).typecheck, false);
  assert.equal(plan({ only: "unit", filters: ["pipeline/"] }).typecheck, false);
  assert.equal(plan({ filters: ["pipeline/"] }).typecheck, false);
  const tc = plan({ only: "typecheck" });
  assert.deepEqual([tc.contracts, tc.unit, tc.e2e, tc.deps, tc.error], [null, [], [], false, null]);
});

test("planRun: filters keep files of every group, contract tests included", () => {
  const p = plan({ filters: ["exchange/cancel", "ledger"] });
  assert.deepEqual(
    [p.contracts, p.unit, p.e2e, p.error],
    [["test/contracts/exchange/cancel.test.ts"], ["pipeline/ledger.test.ts"], [], null],
  );
  // a filter matching exactly one file runs exactly that file
  assert.deepEqual(plan({ filters: ["scripts/run-tests.test.ts"] }).unit, ["scripts/run-tests.test.ts"]);
  assert.equal(
    plan({ filters: ["scripts/run-tests.test.ts"] }).contracts,
    null,
    "no contract file matched: hardhat test does not run",
  );
  assert.deepEqual(plan({ only: "contracts", filters: ["bridge"] }).contracts, ["test/contracts/bridge/vault.test.ts"]);
});

test("planRun: one filter of several matching nothing is an error naming it", () => {
  assert.equal(plan({ filters: ["ledger", "ledgr"] }).error, 'no test file of any group matches "ledgr"');
  assert.equal(plan({ filters: ["ledger"] }).error, null);
  assert.equal(
    plan({ only: "unit", filters: ["test/e2e/stack"] }).error,
    'no test file of group "unit" matches "test/e2e/stack"',
  );
  assert.equal(plan({ only: "e2e", filters: ["test/e2e/stack"] }).error, null);
});

test("planRun: a group with no test file is an error", () => {
  const noE2e = FILES.filter((f) => !f.startsWith("test/e2e/"));
  assert.equal(planRun(noE2e, { only: "e2e", filters: [] }).error, 'no test file in group "e2e": nothing to run');
  assert.equal(
    planRun([], { only: "contracts", filters: [] }).error,
    'no test file in group "contracts": nothing to run',
  );
  assert.equal(planRun(noE2e, { only: null, filters: [] }).error, null);
});

/** Runs a command in a fresh temp dir holding `files`; returns its output (never printed: the runner
 *  counting this file would count the fixture's summary lines too). */
function runFixture(files: Record<string, string>, cmd: string[]): { code: number | null; out: string } {
  const dir = mkdtempSync(join(tmpdir(), "run-tests-fixture-"));
  try {
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    const r = spawnSync(
      process.execPath,
      cmd.map((c) => c.replace("$DIR", dir)),
      { cwd: root, env: childEnv(), encoding: "utf8", timeout: 120_000 },
    );
    return { code: r.status, out: `${r.stdout}${r.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("counting node:test's real spec output: passed, failed, skipped (skip, t.skip() and todo)", () => {
  const r = runFixture(
    {
      "package.json": '{"type":"commonjs"}',
      "f.test.ts": [
        'import { test, describe } from "node:test";',
        'test("a", () => {});',
        'test("b", () => {});',
        'test("c", () => { throw new Error("no"); });',
        'test("d", { skip: true }, () => {});',
        'test.skip("e", () => {});',
        'test("f", { todo: true }, () => {});',
        'describe("g", () => { test("h", (t) => { t.skip(); }); });',
      ].join("\n"),
    },
    ["--import", "tsx", "--test", "--test-reporter=spec", "$DIR/f.test.ts"],
  );
  assert.equal(r.code, 1);
  assert.deepEqual(countOutput("node:test", r.out), { passed: 2, failed: 1, skipped: 4 });
  assert.deepEqual(judgeRun("node:test", { out: r.out, code: r.code }), { passed: 2, failed: 1, skipped: 4, note: "" });
});

test("counting mocha's real spec output (Hardhat's reporter): passing, failing, pending", () => {
  const r = runFixture(
    {
      "f.spec.js": [
        'const assert = require("node:assert");',
        'describe("m", () => {',
        '  it("a", () => {});',
        '  it("b", () => assert.fail("no"));',
        '  it.skip("c", () => {});',
        '  it("d");',
        '  it("e", function () { this.skip(); });',
        "});",
      ].join("\n"),
    },
    [join(root, "node_modules", "mocha", "bin", "mocha.js"), "--reporter", "spec", "$DIR/f.spec.js"],
  );
  assert.equal(r.code, 1);
  assert.deepEqual(countOutput("mocha", r.out), { passed: 1, failed: 1, skipped: 3 });
});

test("judgeRun: the exit agrees with the counts", () => {
  const ok = "ℹ pass 3\nℹ fail 0\nℹ cancelled 0\nℹ skipped 1\nℹ todo 0\n";
  assert.deepEqual(judgeRun("node:test", { out: ok, code: 0 }), { passed: 3, failed: 0, skipped: 1, note: "" });
  assert.deepEqual(judgeRun("node:test", { out: ok, code: 1 }), {
    passed: 3,
    failed: 1,
    skipped: 1,
    note: "exit code 1, no failing test reported",
  });
  assert.deepEqual(judgeRun("node:test", { out: "", code: null, signal: "SIGKILL" }), {
    passed: 0,
    failed: 1,
    skipped: 0,
    note: "killed by SIGKILL",
  });
  assert.deepEqual(judgeRun("node:test", { out: "ℹ pass 1\nℹ cancelled 2\n", code: 1, timedOut: true }), {
    passed: 1,
    failed: 2,
    skipped: 0,
    note: "timed out",
  });
  assert.equal(judgeRun("node:test", { out: "ℹ fail 1\n", code: 0 }).note, "exit code 0 with failing tests");
  assert.equal(judgeRun("mocha", { out: "  2 passing\n", code: 0, leftovers: true }).note, "left processes running");
});

test("judgeTypecheck: one test, passed only when tsc exits 0", () => {
  assert.deepEqual(judgeTypecheck({ out: "", code: 0 }), { passed: 1, failed: 0, skipped: 0, note: "" });
  assert.deepEqual(judgeTypecheck({ out: "x.ts(1,1): error TS2322", code: 2 }), {
    passed: 0,
    failed: 1,
    skipped: 0,
    note: "tsc exit code 2",
  });
  assert.deepEqual(judgeTypecheck({ out: "", code: 1, timedOut: true }), {
    passed: 0,
    failed: 1,
    skipped: 0,
    note: "timed out",
  });
});

test("judgeDeps: one test, passed only when depcruise exits 0 (its exit code counts the violations)", () => {
  assert.deepEqual(judgeDeps({ out: "no dependency violations found", code: 0 }), {
    passed: 1,
    failed: 0,
    skipped: 0,
    note: "",
  });
  assert.deepEqual(judgeDeps({ out: "x 3 dependency violations", code: 3 }), {
    passed: 0,
    failed: 1,
    skipped: 0,
    note: "depcruise exit code 3",
  });
  assert.deepEqual(judgeDeps({ out: "", code: null, timedOut: true }), {
    passed: 0,
    failed: 1,
    skipped: 0,
    note: "timed out",
  });
});

test("closing line: `tests: N passed, N failed` then `, N skipped`, totals over every file", () => {
  const t = addTotals([
    { passed: 3, failed: 0, skipped: 2 },
    { passed: 1, failed: 1 },
    { passed: 0, failed: 0, skipped: 1 },
  ]);
  assert.deepEqual(t, { passed: 4, failed: 1, skipped: 3 });
  const line = closingLine(t);
  assert.equal(line, "tests: 4 passed, 1 failed, 3 skipped");
  assert.deepEqual(line.match(/tests: (\d+) passed, (\d+) failed/)?.slice(1), ["4", "1"], "what CI reads");
});
