// How the matching engine is deployed: the one place the order-node reserve and the V8 flags are set.
// `npm run bench:matcher` runs its engine with these, the pipeline's matcher service allocates this
// reserve (also after a restart from a snapshot), and `npm start` (package.json) starts the stack's
// process with these flags, so the benchmark's figures describe the service (matcher/deployment.test.ts
// checks all three). Why these values: docs/decisions/matching.md.

/** Order nodes (and order-index buckets) allocated at start, ~40 MB: a book up to this many open orders
 *  takes its nodes from the reserve instead of the young generation, so no mark-compact and no long
 *  scavenge lands on the matching path while it grows. */
export const MATCHER_RESERVE_ORDERS = 131_072;

/**
 * V8 flags of the process that hosts the matcher:
 * - `--v8-pool-size=1`: one V8 helper thread; concurrent marking and sweeping run beside the matching
 *   thread on the other core of a 2-core machine, without a second helper competing for it;
 * - a fixed 1 MB semi-space: each scavenge copies few survivors (short pauses) and the space never resizes
 *   mid-run;
 * - `--heap-growing-percent=100`: after a full GC the old generation may grow to twice what survived before
 *   the next one starts (V8 chose ~1.25x here). Every full GC marks the whole reserve (~40 MB of order
 *   nodes), and while it runs the helper thread is busy marking, so scavenges lose their helper and the
 *   final pause and marking steps land on the matching thread: fewer full GCs, for up to twice the memory.
 */
export const MATCHER_V8_FLAGS: readonly string[] = [
  "--v8-pool-size=1",
  "--min-semi-space-size=1",
  "--max-semi-space-size=1",
  "--heap-growing-percent=100",
];

/** The flags of MATCHER_V8_FLAGS this process was not started with (empty when it runs as the bench does). */
export function missingMatcherFlags(execArgv: readonly string[] = process.execArgv): string[] {
  return MATCHER_V8_FLAGS.filter((f) => !execArgv.includes(f));
}
