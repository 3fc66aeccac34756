// Renews docs/screenshots/: runs the web apps' browser tests (each starts its own stack and drives Debian's
// chromium) with SCREENSHOTS_DIR set, so every page they visit is saved at 1280 and 390 px there, one folder
// per app (dex, web-exchange, bridge-portal). The old pictures are removed first, so none goes stale; a
// failing test fails the run. Usage: `npm run screenshots` (a few minutes per app on a quiet machine).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
const out = path.join(root, "docs", "screenshots");
const tests = [
  "test/e2e/web-dex-journeys.test.ts",
  "test/e2e/web-trading.test.ts",
  "test/e2e/web-exchange.test.ts",
  "test/e2e/bridge-portal.test.ts",
];

for (const entry of fs.readdirSync(out, { withFileTypes: true })) {
  const p = path.join(out, entry.name);
  if (entry.isDirectory()) fs.rmSync(p, { recursive: true, force: true });
  else if (entry.name.endsWith(".png")) fs.rmSync(p);
}
const run = spawnSync(process.execPath, ["--import", "tsx", "--test", "--test-concurrency=1", ...tests], {
  cwd: root,
  stdio: "inherit",
  env: { ...process.env, SCREENSHOTS_DIR: out },
});
// a failure's picture is the test's business, not the documentation's
for (const dir of fs.readdirSync(out, { withFileTypes: true }).filter((d) => d.isDirectory()))
  for (const f of fs.readdirSync(path.join(out, dir.name)))
    if (f.startsWith("failure-")) fs.rmSync(path.join(out, dir.name, f));
process.exit(run.status ?? 1);
