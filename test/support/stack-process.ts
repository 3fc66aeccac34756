// Stacks as child processes, for tests and benchmarks of a deployment "past one machine" (docs/operations.md "Scale-out and
// production mapping"): each child is `node --import tsx <script>` (default `scripts/start.ts`, i.e. `npm start`)
// with its own environment (typically `createTestConfig(...).env` plus the deployment's variables), its output kept
// (the last 30,000 characters) for the failure message, and its exit awaited. Used by test/e2e/scale-out.test.ts and
// bench:e2e (bench/e2e/run.ts, BENCH_API_PROCESSES).
import { spawn, type ChildProcess } from "node:child_process";
import { REPO_ROOT } from "../../config/base";

export interface StackChild {
  name: string;
  proc: ChildProcess;
  env: Record<string, string>;
  log(): string;
  exited: Promise<number | null>;
}

/** Starts `script` (relative to the repository's root; default scripts/start.ts) as a child with `env` over this process's. */
export function spawnStack(name: string, env: Record<string, string>, script = "scripts/start.ts"): StackChild {
  const base = { ...process.env };
  delete base.NODE_TEST_CONTEXT;
  const proc = spawn(process.execPath, ["--import", "tsx", script], {
    cwd: REPO_ROOT,
    env: { ...base, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const keep = (d: Buffer) => (out = (out + d.toString()).slice(-30_000));
  proc.stdout!.on("data", keep);
  proc.stderr!.on("data", keep);
  const exited = new Promise<number | null>((resolve) => proc.once("exit", (code) => resolve(code)));
  return { name, proc, env, log: () => out, exited };
}

/** Polls `f` every 100 ms until it returns something truthy; fails at once when one of `children` exited, and after `timeoutMs` with their logs. */
export async function waitFor<T>(
  what: string,
  f: () => Promise<T | undefined | null | false>,
  timeoutMs = 60_000,
  children: StackChild[] = [],
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await f().catch(() => undefined);
    if (v) return v;
    for (const c of children)
      if (c.proc.exitCode !== null)
        throw new Error(`${c.name} exited (${c.proc.exitCode}) while waiting for ${what}:\n${c.log()}`);
    if (Date.now() > end)
      throw new Error(
        `timed out waiting for ${what}\n${children.map((c) => `--- ${c.name}\n${c.log().slice(-3000)}`).join("\n")}`,
      );
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Waits until the child's health server (its env's HEALTH_PORT) answers 200. */
export const healthy = (c: StackChild, timeoutMs = 150_000) =>
  waitFor(
    `${c.name} /health 200`,
    async () => (await fetch(`http://127.0.0.1:${c.env.HEALTH_PORT}/health`)).status === 200,
    timeoutMs,
    [c],
  );

/** SIGTERM to every child still running, up to `graceMs` for each to exit, then SIGKILL. */
export async function stopChildren(children: StackChild[], graceMs = 30_000): Promise<void> {
  for (const c of children) if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill("SIGTERM");
  await Promise.all(children.map((c) => Promise.race([c.exited, new Promise((r) => setTimeout(r, graceMs).unref())])));
  for (const c of children) if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill("SIGKILL");
}
