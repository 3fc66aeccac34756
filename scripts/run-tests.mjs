#!/usr/bin/env node
// Runs every test of the project and ends with one line `tests: N passed, N failed`.
//   contracts: Hardhat's mocha over test/contracts (in-process Hardhat network)
//   unit:      node:test over every *.test.ts outside test/contracts and test/e2e (files in parallel)
//   e2e:       node:test over test/e2e/**/*.test.ts, one file at a time (they start real stacks)
// `--only <group>` runs one group.
import { spawn } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const only = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1] : null;
const SKIP_DIRS = new Set(["node_modules", ".git", "artifacts", "cache", "typechain-types", ".data", ".ponder", "generated"]);

function findTests(dir, out = []) {
  for (const name of readdirSync(dir)) {
    if (SKIP_DIRS.has(name) || name.startsWith("artifacts-") || name.startsWith("cache-")) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) findTests(p, out);
    else if (name.endsWith(".test.ts")) out.push(relative(root, p));
  }
  return out;
}

function run(cmd, args, env = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => { out += d; process.stdout.write(d); });
    child.stderr.on("data", (d) => { out += d; process.stderr.write(d); });
    child.on("close", (code) => resolve({ code, out }));
  });
}

const totals = { passed: 0, failed: 0 };
let exitCode = 0;

function count(re, text) {
  let n = 0;
  for (const m of text.matchAll(re)) n += Number(m[1]);
  return n;
}

const all = findTests(root);
const groups = [
  { name: "contracts", enabled: true },
  { name: "unit", files: all.filter((f) => !f.startsWith("test/contracts/") && !f.startsWith("test/e2e/")) },
  { name: "e2e", files: all.filter((f) => f.startsWith("test/e2e/")) },
];

for (const g of groups) {
  if (only && only !== g.name) continue;
  if (g.name === "contracts") {
    const r = await run("npx", ["hardhat", "test"]);
    const passed = count(/^\s*(\d+) passing/gm, r.out);
    const failed = count(/^\s*(\d+) failing/gm, r.out);
    totals.passed += passed;
    totals.failed += failed + (r.code !== 0 && failed === 0 ? 1 : 0);
    if (r.code !== 0) exitCode = 1;
    continue;
  }
  if (g.files.length === 0) continue;
  const args = ["--import", "tsx", "--test", "--test-reporter=spec"];
  if (g.name === "e2e") args.push("--test-concurrency=1");
  const r = await run(process.execPath, [...args, ...g.files]);
  const passed = count(/^ℹ pass (\d+)/gm, r.out);
  const failed = count(/^ℹ fail (\d+)/gm, r.out);
  totals.passed += passed;
  totals.failed += failed + (r.code !== 0 && failed === 0 ? 1 : 0);
  if (r.code !== 0) exitCode = 1;
}

console.log(`tests: ${totals.passed} passed, ${totals.failed} failed`);
process.exit(exitCode);
