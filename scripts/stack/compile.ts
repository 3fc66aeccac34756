// Makes sure contract artifacts exist and are current before anything is deployed: a fresh clone has
// none. Hardhat's compile is incremental, but starting Hardhat costs seconds, so it runs only when a
// source is newer than the last compilation (or there was none).
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "../../config";

const CONTRACTS_DIR = path.join(REPO_ROOT, "contracts");
const ARTIFACTS_DIR = path.join(REPO_ROOT, "artifacts");
const COMPILE_CACHE = path.join(REPO_ROOT, "cache", "solidity-files-cache.json");

function newestSourceMtimeMs(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSourceMtimeMs(p));
    else if (entry.name.endsWith(".sol")) newest = Math.max(newest, fs.statSync(p).mtimeMs);
  }
  return newest;
}

export function artifactsAreStale(): boolean {
  if (!fs.existsSync(ARTIFACTS_DIR) || !fs.existsSync(COMPILE_CACHE)) return true;
  return newestSourceMtimeMs(CONTRACTS_DIR) > fs.statSync(COMPILE_CACHE).mtimeMs;
}

export interface CompileOutcome {
  /** "fresh": nothing to do; "compiled": ran and succeeded; "stale": failed, but earlier artifacts exist. */
  status: "fresh" | "compiled" | "stale";
  error?: string;
}

/**
 * Runs `hardhat compile` (the whole tree, default paths) when needed. A failed compile with earlier
 * artifacts present is reported, not thrown: in a shared working tree a colleague's half-written
 * contract must not stop the stack; with no artifacts at all it throws.
 */
export async function ensureCompiled(): Promise<CompileOutcome> {
  if (!artifactsAreStale()) return { status: "fresh" };
  try {
    await runCompile();
    return { status: "compiled" };
  } catch (e) {
    if (fs.existsSync(path.join(ARTIFACTS_DIR, "contracts"))) return { status: "stale", error: String(e) };
    throw e;
  }
}

async function runCompile(): Promise<void> {
  const cli = path.join(REPO_ROOT, "node_modules", "hardhat", "internal", "cli", "cli.js");
  const env: NodeJS.ProcessEnv = { ...process.env, HARDHAT_DISABLE_TELEMETRY_PROMPT: "true" };
  delete env.HARDHAT_AREA; // npm start deploys from the whole tree's artifacts
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, [cli, "compile", "--quiet"], {
      cwd: REPO_ROOT,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (c: Buffer) => (output += c.toString()));
    child.stderr.on("data", (c: Buffer) => (output += c.toString()));
    child.once("error", reject);
    child.once("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`hardhat compile failed (exit ${code}):\n${output.slice(-4000)}`)),
    );
  });
  // Hardhat leaves the cache file untouched when nothing changed; touch it so the check above holds.
  const now = new Date();
  if (fs.existsSync(COMPILE_CACHE)) fs.utimesSync(COMPILE_CACHE, now, now);
}
