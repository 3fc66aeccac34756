// One deployer at a time for a shared DEPLOYMENTS_FILE: several processes (API processes, matcher
// partitions) may start at once against one external chain; the first takes `<file>.lock` (created
// exclusively, naming its host and pid), deploys and provisions, writes the file and removes the lock;
// the others wait for the lock to go and then find the file and reuse it. A lock left by a dead process
// of this host is taken over; one of another host is waited for (up to `timeoutMs`), then reported.
import fs from "node:fs";
import os from "node:os";
import { setTimeout as sleep } from "node:timers/promises";

interface LockOwner {
  host: string;
  pid: number;
  sinceMs: number;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

function readOwner(lockFile: string): LockOwner | undefined {
  try {
    const o = JSON.parse(fs.readFileSync(lockFile, "utf8")) as LockOwner;
    return typeof o.pid === "number" && typeof o.host === "string" ? o : undefined;
  } catch {
    return undefined;
  }
}

/** Takes `<file>.lock`; resolves with its release. Throws when another live holder keeps it past `timeoutMs`. */
export async function lockDeployments(
  file: string,
  opts: { timeoutMs?: number; pollMs?: number; onWait?(owner: LockOwner | undefined): void } = {},
): Promise<() => void> {
  const lockFile = `${file}.lock`;
  const me: LockOwner = { host: os.hostname(), pid: process.pid, sinceMs: Date.now() };
  const deadline = Date.now() + (opts.timeoutMs ?? 15 * 60_000);
  let told = false;
  for (;;) {
    try {
      fs.writeFileSync(lockFile, JSON.stringify(me), { flag: "wx" });
      let released = false;
      return () => {
        if (released) return;
        released = true;
        if (readOwner(lockFile)?.pid === me.pid) fs.rmSync(lockFile, { force: true });
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
    const owner = readOwner(lockFile);
    // a holder of this host that died (or a lock file cut short by a crash while it was written)
    if (
      (owner && owner.host === me.host && !alive(owner.pid)) ||
      (!owner && fs.existsSync(lockFile) && Date.now() - fs.statSync(lockFile).mtimeMs > 10_000)
    ) {
      fs.rmSync(lockFile, { force: true });
      continue;
    }
    if (!told) {
      opts.onWait?.(owner);
      told = true;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `${lockFile} is held by ${owner ? `pid ${owner.pid} on ${owner.host} since ${new Date(owner.sinceMs).toISOString()}` : "another process"}: another process is deploying to the shared DEPLOYMENTS_FILE; remove the lock file if that process is gone`,
      );
    }
    await sleep(opts.pollMs ?? 200);
  }
}
