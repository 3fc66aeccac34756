// Builds the trading app with Vite once per content: the output goes to web/.build/<hash>/, the hash
// covering web/index.html, web/exchange.html, web/vite.config.mjs, web/src, sdk/ and package-lock.json. `npm start` calls
// buildWebApp() and re-uses an existing build (a cached start adds ~0 s; a fresh build takes seconds). No
// download: Vite and its esbuild/rollup binaries come from npm packages.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

export const WEB_ROOT = __dirname;
const REPO = path.resolve(WEB_ROOT, "..");
export const BUILD_CACHE = path.join(WEB_ROOT, ".build");
const KEEP_BUILDS = 3;

function hashTree(hash: ReturnType<typeof createHash>, dir: string, accept: (name: string) => boolean): void {
  for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name === "node_modules" || e.name.startsWith(".")) continue;
      hashTree(hash, p, accept);
    } else if (accept(e.name)) {
      hash.update(path.relative(REPO, p)).update("\0").update(fs.readFileSync(p)).update("\0");
    }
  }
}

/** The content hash of everything the build reads (tests excluded: they change no byte of the app). */
export function webSourceHash(): string {
  const hash = createHash("sha256");
  for (const f of ["web/index.html", "web/exchange.html", "web/vite.config.mjs", "package-lock.json"])
    hash.update(f).update(fs.readFileSync(path.join(REPO, f)));
  const notTest = (n: string) => !n.endsWith(".test.ts");
  hashTree(hash, path.join(WEB_ROOT, "src"), notTest);
  hashTree(hash, path.join(REPO, "sdk"), (n) => notTest(n) && n.endsWith(".ts"));
  return hash.digest("hex").slice(0, 16);
}

export interface WebBuild {
  dir: string;
  hash: string;
  /** false: an earlier build of the same content was re-used */
  built: boolean;
  ms: number;
}

function runVite(outDir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const vite = path.join(REPO, "node_modules", "vite", "bin", "vite.js");
    const child = spawn(
      process.execPath,
      [vite, "build", "--config", path.join(WEB_ROOT, "vite.config.mjs"), "--outDir", outDir],
      { cwd: REPO, stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`vite build exited ${code}:\n${out.slice(-4000)}`)),
    );
  });
}

/** Builds the app unless a build of the same content exists; returns its folder. */
export async function buildWebApp(opts: { force?: boolean } = {}): Promise<WebBuild> {
  const started = Date.now();
  const hash = webSourceHash();
  const dir = path.join(BUILD_CACHE, hash);
  if (!opts.force && fs.existsSync(path.join(dir, "index.html")))
    return { dir, hash, built: false, ms: Date.now() - started };
  fs.mkdirSync(BUILD_CACHE, { recursive: true });
  const tmp = fs.mkdtempSync(path.join(BUILD_CACHE, `tmp-${hash}-`));
  try {
    await runVite(tmp);
    fs.rmSync(dir, { recursive: true, force: true });
    try {
      fs.renameSync(tmp, dir);
    } catch (err) {
      // another process finished the same build first: theirs is identical
      if (!fs.existsSync(path.join(dir, "index.html"))) throw err;
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  pruneBuilds(hash);
  return { dir, hash, built: true, ms: Date.now() - started };
}

/** Keeps the newest few builds (another checkout state may come back) and drops the rest. */
function pruneBuilds(current: string): void {
  const dirs = fs
    .readdirSync(BUILD_CACHE, { withFileTypes: true })
    .filter((e) => e.isDirectory() && e.name !== current)
    .filter(
      (e) => !e.name.startsWith("tmp-") || Date.now() - fs.statSync(path.join(BUILD_CACHE, e.name)).mtimeMs > 3_600_000,
    )
    .map((e) => ({ p: path.join(BUILD_CACHE, e.name), t: fs.statSync(path.join(BUILD_CACHE, e.name)).mtimeMs }))
    .sort((a, b) => b.t - a.t);
  for (const d of dirs.slice(KEEP_BUILDS - 1)) fs.rmSync(d.p, { recursive: true, force: true });
}
