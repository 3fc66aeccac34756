// Shared StrykerJS settings for the TypeScript areas (one config per area, each prints its own score).
// The tests are node:test files run by tsx: the tap runner runs each test file as its own
// `node --import tsx --test-reporter=tap <file>` process, which gives coverage per test file, so a
// mutant only runs the files that reach it (much faster than the `command` runner, which runs
// everything for every mutant).
// MUTATION_CONCURRENCY: processes at once (default 1: the machine has 2 cores shared with others).

/**
 * @param {{ area: string, mutate: string[], testFiles: string[], timeoutMS?: number }} area
 * @returns {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export function areaConfig({ area, mutate, testFiles, timeoutMS = 4_000 }) {
  return {
    packageManager: "npm",
    testRunner: "tap",
    plugins: ["@stryker-mutator/tap-runner"],
    tap: {
      testFiles,
      nodeArgs: ["--import", "tsx", "--test-reporter=tap", "-r", "{{hookFile}}", "{{testFile}}"],
      forceBail: true,
    },
    coverageAnalysis: "perTest",
    mutate,
    // The sandbox is a copy of the checkout: leave out what no TypeScript test reads.
    ignorePatterns: [".data", "indexer", "reports", "coverage", ".scratch*", ".tmp-*", "docs", "bench"],
    tempDirName: ".stryker-tmp",
    cleanTempDir: "always",
    concurrency: Number(process.env.MUTATION_CONCURRENCY ?? 1),
    timeoutMS,
    timeoutFactor: 2,
    // Tests here are not type-checked at run time (tsx strips types), so no `// @ts-nocheck` needed.
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
