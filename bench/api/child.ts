// A bench's stack in a child process: forked with tsx (and a V8 CPU profile when BENCH_PROFILE names a
// folder), ready when it sends its first message, stopped by the message "stop" (killed after 60 s).
import { type ChildProcess, fork } from "node:child_process";

export async function forkBenchChild<T>(
  file: string,
  args: string[] = [],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ child: ChildProcess; ready: T }> {
  const child = fork(file, args, {
    execArgv: [
      "--import",
      "tsx",
      ...(process.env.BENCH_PROFILE ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : []),
    ],
    env,
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const ready = await new Promise<T>((resolve, reject) => {
    child.once("message", (m) => resolve(m as T));
    child.once("exit", (code) => reject(new Error(`the stack process exited (${code}) before it was ready`)));
  });
  return { child, ready };
}

export async function stopBenchChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  child.send("stop");
  const t = setTimeout(() => child.kill("SIGKILL"), 60_000);
  await exited;
  clearTimeout(t);
}
