// Types of run-tests-lib.mjs (plain JavaScript: the runner runs under node without tsx).
export declare const GROUPS: readonly string[];
export declare function isSkippedDir(name: string): boolean;
export declare function isContractTestFile(f: string): boolean;
export interface RunArgs {
  only: string | null;
  filters: string[];
}
export declare function parseArgs(argv: readonly string[]): (RunArgs & { error?: undefined }) | { error: string };
export interface RunPlan {
  contracts: "all" | string[] | null;
  unit: string[];
  e2e: string[];
  fork: string[];
  typecheck: boolean;
  deps: boolean;
  error: string | null;
}
export declare function planRun(files: readonly string[], args: RunArgs): RunPlan;
export interface Counts {
  passed: number;
  failed: number;
  skipped: number;
}
export declare function countOutput(kind: "mocha" | "node:test", out: string): Counts;
export interface ProcessEnd {
  out: string;
  code: number | null;
  signal?: string | null;
  timedOut?: boolean;
  leftovers?: boolean;
}
export declare function judgeRun(kind: "mocha" | "node:test", r: ProcessEnd): Counts & { note: string };
export declare function judgeTypecheck(r: ProcessEnd): Counts & { note: string };
export declare function judgeDeps(r: ProcessEnd): Counts & { note: string };
export declare function addTotals(results: readonly (Omit<Counts, "skipped"> & { skipped?: number })[]): Counts;
export declare function closingLine(totals: Counts): string;
