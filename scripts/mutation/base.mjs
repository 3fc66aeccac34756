// Shared StrykerJS settings for the TypeScript areas (one config per area, each prints its own score).
// The tests are node:test files. Stryker has no node:test runner, so they run inside mocha
// (node-test-on-mocha.cjs hands them mocha's test functions; tsx/cjs compiles them): one process per worker
// loads every test once and runs, for each mutant, only the tests that reach it. (The tap runner, which
// starts a Node process per test file and mutant, was tried first: 10-20 mutants a minute on this 2-core
// machine, two hours for the matcher alone.)
// MUTATION_CONCURRENCY: worker processes (default 1: the machine has 2 cores shared with others).
// MUTATION_TIMEOUT_MS: the least time a mutant's tests get before it counts as timed out (default: the
// area's). On a loaded machine a test that opens a database can outrun a short one, and a timeout counts
// as a kill: raise it there so that only a mutant that really hangs times out.

/**
 * @param {{ area: string, mutate: string[], testFiles: string[], timeoutMS?: number }} area
 * @returns {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export function areaConfig({ area, mutate, testFiles, timeoutMS = 5_000 }) {
  return {
    packageManager: "npm",
    testRunner: "mocha",
    plugins: ["@stryker-mutator/mocha-runner"],
    mochaOptions: { config: "scripts/mutation/mocharc.json", spec: testFiles },
    coverageAnalysis: "perTest",
    mutate,
    // The sandbox is a copy of the checkout: leave out what no TypeScript test reads.
    ignorePatterns: [".data", "indexer", "reports", "coverage", ".scratch*", ".tmp-*", "docs", "bench"],
    tempDirName: ".stryker-tmp",
    cleanTempDir: "always",
    concurrency: Number(process.env.MUTATION_CONCURRENCY ?? 1),
    timeoutMS: Number(process.env.MUTATION_TIMEOUT_MS ?? timeoutMS),
    timeoutFactor: 2,
    disableTypeChecks: false,
    reporters: ["clear-text", "progress", "html", "json"],
    htmlReporter: { fileName: `reports/mutation/${area}.html` },
    jsonReporter: { fileName: `reports/mutation/${area}.json` },
    clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
    // `stryker run <config> --incremental` (or `node scripts/mutation/run.mjs --incremental`) re-tests
    // only mutants whose code or covering tests changed since the last run of the area.
    incrementalFile: `reports/mutation/${area}.incremental.json`,
    thresholds: { high: 90, low: 80, break: null },
  };
}
