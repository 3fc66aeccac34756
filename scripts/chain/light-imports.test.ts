// The chain layer runs on worker threads of their own (start-chain-worker.ts), and each thread loads its
// modules before its node can spawn (the snapshot load starts only then). config/index.ts loads zod and
// viem: ~0.6 s per thread on this machine, so the chain modules take their constants from config/base.ts
// (issue #13, restarts). This keeps it so.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import path from "node:path";

test("the chain layer's modules (what a chain thread loads) load neither config/index.ts, zod nor viem", () => {
  const entry = path.join(__dirname, "start-chain.ts");
  const out = execFileSync(
    process.execPath,
    [
      "--import",
      "tsx",
      "-e",
      `require(${JSON.stringify(entry)}); console.log(JSON.stringify(Object.keys(require.cache)))`,
    ],
    { encoding: "utf8", cwd: path.join(__dirname, "..", "..") },
  );
  const loaded = JSON.parse(out.trim().split("\n").at(-1)!) as string[];
  assert.ok(
    loaded.some((f) => f.endsWith(path.join("scripts", "chain", "supervisor.ts"))),
    "the chain modules were loaded",
  );
  assert.ok(loaded.some((f) => f.endsWith(path.join("config", "base.ts"))));
  const heavy = loaded.filter(
    (f) => f.endsWith(path.join("config", "index.ts")) || /node_modules[\\/](zod|viem|ox|@noble)[\\/]/.test(f),
  );
  assert.deepEqual(heavy, []);
});
