// The browser code is type-checked with its own settings (DOM types, bundler resolution): web/tsconfig.json.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import path from "node:path";

test("web/ type-checks (tsc -p web/tsconfig.json)", { timeout: 300_000 }, () => {
  const tsc = path.join(__dirname, "..", "node_modules", "typescript", "bin", "tsc");
  try {
    execFileSync(process.execPath, [tsc, "-p", path.join(__dirname, "tsconfig.json")], {
      encoding: "utf8",
      stdio: "pipe",
    });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    assert.fail(`tsc found errors:\n${e.stdout ?? ""}${e.stderr ?? ""}`);
  }
});
