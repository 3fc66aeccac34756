// The layout's import rule (README "## Layout", the "may import" column), checked by `npm run deps` and by
// the `deps` step of `npm test` (scripts/run-tests.mjs). Imports run down the table, never up: services
// never import scripts/, bench/ or test/; matcher/core does no I/O and imports nothing outside itself;
// production code never imports a test or a `testing/` folder; the APIs see the pipeline through its port
// (pipeline/service.ts) only. Type-only imports count (tsPreCompilationDeps). scripts/deps.test.ts shows
// every rule failing on a fixture tree. Violations the tree still has, each to be fixed by the area that
// owns it, are listed in .dependency-cruiser-known-violations.json: `npm run deps` ignores those and fails
// on any other; `npm run deps:baseline` rewrites the list (it may only shrink).
//
// "Production" is every file that is not a test (`*.test.ts`), a test helper (a `testing/` folder) or a
// benchmark (a `bench/` folder, `*.bench.ts`): tests and their helpers may start chains and stacks
// (scripts/chain, scripts/stack), production code may not.

/** Test code: test/ (tests that span services and their helpers), tests, test helpers, benchmarks (they may
 *  import the launcher and each other). */
const TEST_CODE = ["^test/", "\\.test\\.ts$", "(^|/)testing/", "(^|/)bench/", "\\.bench\\.ts$"];
/** The service folders: everything but the composition root (scripts/), test/ and bench/. */
const SERVICES = [
  "api",
  "simulator",
  "pipeline",
  "relayer",
  "signer-cluster",
  "indexer",
  "matcher",
  "sdk",
  "runtime",
  "config",
  "db",
];
const under = (folders) => `^(${folders.join("|")})/`;
/** npm packages (any kind) and node's built-in modules. */
const NPM = ["npm", "npm-dev", "npm-optional", "npm-peer", "npm-bundled", "npm-no-pkg", "npm-unknown"];

/**
 * The "may import" column, for production files of each folder (its own folder, npm packages and node
 * built-ins are always allowed; sdk/ and matcher/core have their own rules below). The targets the named
 * rules already forbid (scripts/, bench/, test/, test code, api<->pipeline) are left to them, so one bad
 * import gives one violation with the clearest name.
 */
const LAYOUT = {
  runtime: { may: ["sdk"] },
  config: { may: ["sdk", "runtime"] },
  db: { may: ["runtime", "config"] },
  "matcher/journal": { may: ["matcher/core"] },
  // the NATS clients are ESM-only packages that depcruise cannot resolve under the tree's `node` module
  // resolution (it sees them as unknown, not npm): named here so they count as the npm packages they are
  pipeline: { may: ["matcher", "sdk", "runtime", "config", "db"], also: ["^@nats-io/"] },
  api: { may: ["pipeline", "sdk", "runtime", "config", "db"] },
  relayer: { may: ["signer-cluster", "sdk", "runtime", "config", "db"] },
  "signer-cluster": { may: ["sdk", "runtime", "config"] },
  // Ponder's virtual modules (ponder:registry, ponder:schema, ponder:api) do not resolve outside Ponder
  indexer: { may: ["sdk", "runtime"], also: ["^ponder(:|/|$)"] },
  // the simulated market's agents (spec 5.5): they trade through the DEX service port like any client
  simulator: { may: ["pipeline", "sdk", "runtime", "config"] },
  // the trading web app (browser code, its build and its server): what a client may use, nothing of the services
  web: { may: ["sdk"] },
};
const NAMED_TARGETS = [under(["scripts", "bench", "test"]), ...TEST_CODE];
const NAMED_BY_FOLDER = { pipeline: ["^api/"], api: ["^pipeline/"] };

/** `folder`'s production code reaches what `behind` matches through the DEX service port, pipeline/service.ts, only. */
const throughPipelinePort = (folder, behind, comment) => ({
  name: `${folder}-through-pipeline-port`,
  comment,
  severity: "error",
  from: { path: `^${folder}/`, pathNot: TEST_CODE },
  to: { path: behind, pathNot: "^pipeline/service\\.ts$" },
});

module.exports = {
  forbidden: [
    {
      name: "no-service-imports-launcher",
      comment:
        "A service never imports the composition root (scripts/), a benchmark (bench/) or a cross-service test (test/): scripts/ wires services, not the other way round.",
      severity: "error",
      from: { path: under(SERVICES), pathNot: TEST_CODE },
      to: { path: under(["scripts", "bench", "test"]) },
    },
    {
      name: "no-production-imports-test-code",
      comment: "Production code never imports a test (*.test.ts), a test helper (a testing/ folder) or a benchmark.",
      severity: "error",
      from: { pathNot: TEST_CODE },
      // (a benchmark: nothing-imports-bench below)
      to: { path: ["^test/", "\\.test\\.ts$", "(^|/)testing/"] },
    },
    {
      name: "production-no-dev-packages",
      comment:
        "What `npm start` runs never imports a devDependency: `npm ci --omit=dev` leaves those out (test tools, benchmarks' peers, @types).",
      severity: "error",
      from: {
        path: [under(SERVICES), "^web/", "^examples/", "^scripts/(start\\.ts|stack/|chain/)"],
        pathNot: TEST_CODE,
      },
      to: { dependencyTypes: ["npm-dev"] },
    },
    {
      name: "matcher-core-no-io",
      comment:
        "matcher/core is the pure engine: no node built-in module (fs, net, http, child_process, worker_threads, ...): time and input are passed in.",
      severity: "error",
      from: { path: "^matcher/core/", pathNot: TEST_CODE },
      to: { dependencyTypes: ["core"] },
    },
    {
      name: "matcher-core-self-contained",
      comment: "matcher/core imports nothing outside matcher/core (no npm package, no other folder).",
      severity: "error",
      from: { path: "^matcher/core/", pathNot: TEST_CODE },
      to: { pathNot: "^matcher/core/", dependencyTypesNot: ["core"] },
    },
    {
      name: "sdk-npm-only",
      comment:
        "sdk/ is what clients and services share: it imports npm packages and sdk/ only (no node built-in, no other folder).",
      severity: "error",
      from: { path: "^sdk/", pathNot: TEST_CODE },
      to: { pathNot: "^sdk/", dependencyTypesNot: NPM },
    },
    {
      name: "examples-npm-only",
      comment:
        "examples/ are the README's Integrate snippets, what an integrator copies: npm packages, node built-ins and the SDK's public entry (@onchain-exchange/sdk, sdk/index.ts by tsconfig paths) only, no other repository code.",
      severity: "error",
      from: { path: "^examples/" },
      to: { pathNot: ["^examples/", "^sdk/index\\.ts$"], dependencyTypesNot: NPM.concat(["core"]) },
    },
    {
      name: "pipeline-not-api",
      comment:
        "The pipeline never imports the APIs that serve it (api/ depends on pipeline/service.ts, not the other way round).",
      severity: "error",
      from: { path: "^pipeline/", pathNot: TEST_CODE },
      to: { path: "^api/" },
    },
    {
      name: "iam-exchange-apart",
      comment:
        "The identity provider (api/iam) and the exchange API (api/exchange) never import each other: the exchange API verifies tokens by the issuer's discovery and JWKS only, so another provider can replace ours by configuration.",
      severity: "error",
      from: { path: "^api/(iam|exchange)/", pathNot: TEST_CODE },
      to: { path: "^api/(iam|exchange)/", pathNot: "^api/$1/" },
    },
    throughPipelinePort(
      "api",
      "^pipeline/",
      "api/ sees the pipeline through its port, pipeline/service.ts, only: what the API needs of the pipeline is exported there.",
    ),
    throughPipelinePort(
      "simulator",
      "^(pipeline|matcher)/",
      "simulator/ trades through the DEX service port, pipeline/service.ts, only: never the matcher or the batcher behind it.",
    ),
    ...Object.entries(LAYOUT).map(([folder, { may, also = [] }]) => ({
      name: `layout-${folder.replace("/", "-")}`,
      comment: `${folder}/ may import only ${may.map((f) => `${f}/`).join(", ")}, npm packages and node built-ins (README "## Layout").`,
      severity: "error",
      from: { path: `^${folder}/`, pathNot: TEST_CODE },
      to: {
        pathNot: [
          `^${folder}/`,
          ...may.map((f) => `^${f}/`),
          ...also,
          ...NAMED_TARGETS,
          ...(NAMED_BY_FOLDER[folder] ?? []),
        ],
        dependencyTypesNot: NPM.concat(["core"]),
      },
    })),
    {
      name: "no-folder-cycle",
      comment:
        "No circular dependency between top-level folders (the layout table is an order): an import cycle of production files that leaves its folder.",
      severity: "error",
      from: { path: "^([^/]+)/", pathNot: TEST_CODE },
      to: { circular: true, via: { pathNot: "^$1/" } },
    },
    {
      name: "nothing-imports-bench",
      comment:
        "A benchmark is a leaf: nothing outside bench/ imports it (so test/ and bench/, which may import everything else, never form a cycle). A helper both need lives in a testing/ folder.",
      severity: "error",
      from: { pathNot: ["(^|/)bench/", "\\.bench\\.ts$"] },
      to: { path: ["(^|/)bench/", "\\.bench\\.ts$"] },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    // dot folders (.git, .data, a mutation run's .stryker-tmp copies), build output, docs; npm packages are
    // seen (matcher/core may not import one) but not followed
    exclude: { path: "(^|/)[.][^./]|^artifacts|^cache|^typechain-types|^generated/|^reports/|^docs/|^sdk/dist/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
  },
};
