// Processes as the stack tests watch them (Linux /proc).
import fs from "node:fs";

/** True while process `pid` exists. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The direct children of process `parent`: each pid with its command line's words. */
export function childProcesses(parent: number): { pid: number; argv: string[] }[] {
  const out: { pid: number; argv: string[] }[] = [];
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === parent)
        out.push({ pid: Number(name), argv: fs.readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0") });
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}
