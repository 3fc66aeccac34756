// The layout's import rule (.dependency-cruiser.cjs) fails where it should: dependency-cruiser runs with the
// real config over a small fixture tree in a temp dir holding one wrong import per rule (and the imports the
// layout allows, which must pass), and over the real tree, which passes apart from the known violations
// listed in .dependency-cruiser-known-violations.json.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { withTempDir } from "../test/support/temp-dir";

const root = join(__dirname, "..");
const CONFIG = join(root, ".dependency-cruiser.cjs");
const KNOWN = join(root, ".dependency-cruiser-known-violations.json");
const depcruise = join(root, "node_modules", "dependency-cruiser", "bin", "dependency-cruise.mjs");

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
}

/** Runs depcruise with the real config in `cwd` over `.`; its JSON result's violations. */
function cruise(cwd: string, extra: string[] = []): { code: number | null; violations: Violation[]; out: string } {
  const r = spawnSync(process.execPath, [depcruise, "--config", CONFIG, "--output-type", "json", ...extra, "."], {
    cwd,
    encoding: "utf8",
    timeout: 300_000,
    maxBuffer: 256 * 1024 * 1024,
  });
  assert.equal(r.error, undefined, String(r.error));
  let violations: Violation[] = [];
  try {
    violations = (JSON.parse(r.stdout) as { summary: { violations: Violation[] } }).summary.violations;
  } catch {
    assert.fail(`depcruise printed no JSON (exit ${r.status}): ${r.stderr}`);
  }
  return { code: r.status, violations, out: r.stderr };
}
const key = (v: Violation) => `${v.rule.name}: ${v.from} -> ${v.to}`;
/** A cycle's violation names one of its edges, whichever the cruise met first: keyed by its two ends, sorted. */
const fixtureKey = (v: Violation) =>
  v.rule.name === "no-folder-cycle"
    ? `${v.rule.name}: cycle: ${[v.from, v.to].sort().join(", ")}`
    : key({ ...v, to: v.to.replace(/^node_modules\/((?:@[^/]+\/)?[^/]+)\/.*$/, "npm:$1") });

/** A file importing `targets` (a value import each, or `import type` for targets starting with "type:"). */
const importing = (...targets: string[]) =>
  targets
    .map((t, i) =>
      t.startsWith("type:") ? `import type { T${i} } from "${t.slice(5)}";` : `import { v${i} } from "${t}";`,
    )
    .concat(["export const v = 1;", "export type T = number;"])
    .join("\n");
const LEAF =
  "export const v0 = 0, v1 = 1, v2 = 2, v3 = 3, v4 = 4, v5 = 5;\nexport type T0 = 0; export type T1 = 1; export type T2 = 2;\n";

// One wrong import per rule (and per kind the rule names), then the imports the layout allows.
const FIXTURE: Record<string, string> = {
  // a service imports the launcher, a benchmark, a cross-service test helper
  "pipeline/wires.ts": importing("../scripts/stack/start"),
  "relayer/bench-user.ts": importing("../bench/api/client"),
  "db/e2e-user.ts": importing("../test/e2e/harness"),
  // production code imports a test helper, a test
  "api/uses-helper.ts": importing("./testing/harness"),
  "scripts/stack/uses-test.ts": importing("../../pipeline/ok.test"),
  // matcher/core: I/O, an npm package, another folder
  "matcher/core/engine.ts": importing("node:fs", "node:worker_threads", "viem", "../../sdk/eip712"),
  // sdk: a node built-in, another folder
  "sdk/eip712.ts": importing("viem", "node:crypto", "../runtime/clock"),
  // the pipeline imports the API (type-only: it counts)
  "pipeline/serves.ts": importing("type:../api/errors"),
  // the API reaches past the pipeline's port
  "api/place.ts": importing("../pipeline/service", "../pipeline/intake/recover"),
  // a folder imports one above it in the layout table
  "db/index.ts": importing("../pipeline/service"),
  "api/bridge/transfers.ts": importing("type:../../relayer/store"),
  "signer-cluster/node.ts": importing("../api/errors"),
  // a cycle between two top-level folders that no layout row covers
  "app/a.ts": importing("../scripts/b"),
  "scripts/b.ts": importing("../app/a"),
  // the identity provider and the exchange API import each other (either way; their shared api/errors is fine)
  "api/iam/token.ts": importing("../exchange/accounts", "../errors"),
  "api/exchange/accounts.ts": importing("type:../iam/users", "../errors"),
  "api/iam/users.ts": LEAF,
  // the simulator reaches past the pipeline's port (its orders must go through the DEX service)
  "simulator/agent.ts": importing("../pipeline/service", "../pipeline/intake/recover"),
  // a test imports a benchmark
  "test/e2e/dex.test.ts": importing("../../bench/api/client"),
  // an example (what an integrator copies) imports repository code
  "examples/place-order.ts": importing("viem", "node:http", "../sdk/eip712"),
  "api/uses-dev.ts": importing("fast-check"),

  // allowed: the layout's "may import" column, tests and their helpers using the launcher
  "api/ok.ts": importing(
    "../pipeline/service",
    "../sdk/eip712",
    "../runtime/clock",
    "../config/index",
    "../db/index",
    "node:http",
    "viem",
  ),
  "api/errors.ts": LEAF,
  "pipeline/service.ts": importing("../matcher/core/types", "../sdk/eip712", "../runtime/clock", "../config/index"),
  "pipeline/intake/recover.ts": LEAF,
  "pipeline/ok.test.ts": importing("../scripts/chain/index", "./testing/fixture", "../api/errors", "fast-check"),
  "pipeline/testing/fixture.ts": importing("../../scripts/chain/index", "../service"),
  "relayer/store.ts": importing("../signer-cluster/client", "../db/index", "node:fs"),
  "signer-cluster/client.ts": importing("../sdk/eip712", "../config/index"),
  "matcher/core/types.ts": LEAF,
  "matcher/journal/index.ts": importing("../core/types", "node:fs", "node:zlib"),
  "matcher/core/engine.test.ts": importing("node:test", "../testing/helpers"),
  "matcher/testing/helpers.ts": importing("../core/types"),
  "runtime/clock.ts": importing("../sdk/eip712"),
  "config/index.ts": importing("../sdk/eip712", "../runtime/clock"),
  "indexer/src/handlers.ts": importing("ponder:registry", "../../sdk/eip712"),
  "scripts/stack/start.ts": importing("../../pipeline/service", "../../api/ok", "../../relayer/store"),
  "scripts/chain/index.ts": LEAF,
  "bench/api/client.ts": importing("../../test/e2e/harness", "../../api/ok"),
  "test/e2e/harness.ts": importing("../../scripts/stack/start"),
  "api/testing/harness.ts": importing("../ok"),
};

const EXPECTED = [
  "no-service-imports-launcher: pipeline/wires.ts -> scripts/stack/start.ts",
  "no-service-imports-launcher: relayer/bench-user.ts -> bench/api/client.ts",
  "nothing-imports-bench: relayer/bench-user.ts -> bench/api/client.ts",
  "no-service-imports-launcher: db/e2e-user.ts -> test/e2e/harness.ts",
  "no-production-imports-test-code: db/e2e-user.ts -> test/e2e/harness.ts",
  "no-production-imports-test-code: api/uses-helper.ts -> api/testing/harness.ts",
  "no-production-imports-test-code: scripts/stack/uses-test.ts -> pipeline/ok.test.ts",
  "matcher-core-no-io: matcher/core/engine.ts -> fs",
  "matcher-core-no-io: matcher/core/engine.ts -> worker_threads",
  "matcher-core-self-contained: matcher/core/engine.ts -> npm:viem",
  "matcher-core-self-contained: matcher/core/engine.ts -> sdk/eip712.ts",
  "sdk-npm-only: sdk/eip712.ts -> crypto",
  "sdk-npm-only: sdk/eip712.ts -> runtime/clock.ts",
  "pipeline-not-api: pipeline/serves.ts -> api/errors.ts",
  "api-through-pipeline-port: api/place.ts -> pipeline/intake/recover.ts",
  "layout-db: db/index.ts -> pipeline/service.ts",
  "layout-api: api/bridge/transfers.ts -> relayer/store.ts",
  "layout-signer-cluster: signer-cluster/node.ts -> api/errors.ts",
  // a cycle is reported once, from one of its edges (cycle: below)
  "no-folder-cycle: cycle: app/a.ts, scripts/b.ts",
  "no-folder-cycle: cycle: runtime/clock.ts, sdk/eip712.ts",
  "nothing-imports-bench: test/e2e/dex.test.ts -> bench/api/client.ts",
  "examples-npm-only: examples/place-order.ts -> sdk/eip712.ts",
  "iam-exchange-apart: api/iam/token.ts -> api/exchange/accounts.ts",
  "iam-exchange-apart: api/exchange/accounts.ts -> api/iam/users.ts",
  "simulator-through-pipeline-port: simulator/agent.ts -> pipeline/intake/recover.ts",
  "production-no-dev-packages: api/uses-dev.ts -> npm:fast-check",
].sort();

test("deps: each layout rule catches its wrong import in a fixture tree, and the allowed imports pass", async () => {
  await withTempDir("deps-fixture-", async (dir) => {
    for (const [name, text] of Object.entries(FIXTURE)) {
      mkdirSync(dirname(join(dir, name)), { recursive: true });
      writeFileSync(join(dir, name), text);
    }
    writeFileSync(
      join(dir, "package.json"),
      JSON.stringify({
        name: "deps-fixture",
        private: true,
        dependencies: { viem: "*" },
        devDependencies: { "fast-check": "*" },
      }),
    );
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          module: "commonjs",
          moduleResolution: "node",
          strict: true,
          esModuleInterop: true,
          noEmit: true,
        },
      }),
    );
    symlinkSync(join(root, "node_modules"), join(dir, "node_modules"), "dir");
    const r = cruise(dir, ["--preserve-symlinks"]); // node_modules is a link to the repo's
    const found = [...new Set(r.violations.map(fixtureKey))].sort();
    assert.deepEqual(found, EXPECTED);
    // what `npm run deps` and the runner's deps step run: the err reporter, whose exit code is the error count
    const err = spawnSync(
      process.execPath,
      [depcruise, "--config", CONFIG, "--preserve-symlinks", "--output-type", "err", "."],
      { cwd: dir, encoding: "utf8", timeout: 300_000 },
    );
    assert.equal(err.status, r.violations.length, err.stdout);
    assert.match(err.stdout, new RegExp(`${r.violations.length} dependency violations`));
    // every rule of the config is shown failing here
    const rules = (require(CONFIG) as { forbidden: { name: string }[] }).forbidden.map((x) => x.name);
    const layoutShown = new Set(EXPECTED.map((e) => e.split(":")[0]));
    const notShown = rules.filter((n) => !layoutShown.has(n) && !/^layout-/.test(n));
    assert.deepEqual(notShown, [], "a named rule without a failing fixture");
  });
});

test("deps: the real tree breaks no rule beyond the known violations, each of which still exists", (t) => {
  const strict = cruise(root);
  const known = (JSON.parse(readFileSync(KNOWN, "utf8")) as Violation[]).map(key);
  const found = strict.violations.map(key);
  const unknown = found.filter((v) => !known.includes(v));
  assert.deepEqual(
    unknown,
    [],
    'imports running the wrong way (README "## Layout"); fix them, do not add them to the known list',
  );
  const fixed = known.filter((v) => !found.includes(v));
  // a fixed violation leaves a stale line: `npm run deps:baseline` drops it (the list only shrinks)
  if (fixed.length)
    t.diagnostic(`known violations fixed since the list was written (run npm run deps:baseline): ${fixed.join("; ")}`);
  for (const v of known.filter((k) => found.includes(k))) t.diagnostic(`known violation still open: ${v}`);
});
