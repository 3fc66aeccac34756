// The matcher runs in production as `npm run bench:matcher` measures it: the same order-node reserve and the
// same V8 flags, all read from matcher/deployment.ts (issue #17: "the figures describe production"). The bench
// checks its own side: its child processes report their flags and reserve, and a run whose engine ran with
// other settings fails ("runs with the matcher service's settings").
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MATCHER_RESERVE_ORDERS, missingMatcherFlags } from "../../matcher/deployment";
import type { JournaledEngine } from "../../matcher/journal";
import type { MatcherService } from "./matcher-service";
import { testMatcher } from "../testing/matcher";
import { REPO_ROOT } from "../../config";

test("`npm start` and `npm run bench:e2e` start the stack's process (where the matcher runs) with the matcher's V8 flags, and node accepts them", () => {
  const scripts = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")).scripts;
  // bench:e2e hosts the stack in its own process: its figures describe the service only with the same flags
  const bench: string = scripts["bench:e2e"];
  const benchArgv = bench.split(/\s+/);
  assert.deepEqual(
    missingMatcherFlags(benchArgv.slice(benchArgv.indexOf("node") + 1, benchArgv.indexOf("bench/e2e/run.ts"))),
    [],
    `package.json bench:e2e: ${bench}`,
  );
  assert.ok(benchArgv[0] === "node" && benchArgv.indexOf("bench/e2e/run.ts") > 0, bench);
  const start: string = scripts.start;
  const argv = start.split(/\s+/);
  const script = argv.indexOf("scripts/start.ts");
  const nodeArgs = argv.slice(argv.indexOf("node") + 1, script);
  assert.ok(script > 0 && argv.includes("node"), start);
  assert.deepEqual(missingMatcherFlags(nodeArgs), [], `package.json start: ${start}`);
  // the same node options, as the stack's process gets them: node starts with them (an unknown flag would fail)
  // and the process sees every flag
  const flags = nodeArgs.filter((a) => a !== "--import" && a !== "tsx");
  const seen = execFileSync(
    process.execPath,
    [...flags, "-e", "process.stdout.write(JSON.stringify(process.execArgv))"],
    { encoding: "utf8" },
  );
  assert.deepEqual(missingMatcherFlags(JSON.parse(seen)), []);
  assert.deepEqual(missingMatcherFlags(["--v8-pool-size=1"]), [
    "--min-semi-space-size=1",
    "--max-semi-space-size=1",
    "--heap-growing-percent=100",
  ]);
});

test("the pipeline's matcher service allocates the bench's reserve, at its first open and when reopened", async () => {
  const dir = mkdtempSync(join(tmpdir(), "matcher-deploy-"));
  const engineOf = (s: MatcherService) => (s as unknown as { journal: JournaledEngine }).journal.engine;
  try {
    // (matcher/journal/journal.test.ts: the journaled engine keeps its reserve when restored from a snapshot)
    const open = async () => {
      const svc = testMatcher({ journalDir: dir, snapshotEvery: 1 });
      await svc.open();
      return svc;
    };
    const first = await open();
    assert.equal(engineOf(first).reserveOrders, MATCHER_RESERVE_ORDERS);
    await first.close();
    const again = await open();
    assert.equal(engineOf(again).reserveOrders, MATCHER_RESERVE_ORDERS);
    await again.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
