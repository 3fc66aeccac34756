// CPU pinning of the child processes that benefit from a core of their own (util-linux `taskset`, which
// execs the command in place, so the child's pid is the command's). Measured in docs/decisions.md
// ("Pipeline: a core for the chain"): on 2 cores, the home chain's node on CPU 0 and the indexer on the
// other one settle ~20 % more trades per second, with a lower p99, than letting the scheduler move them.
import fs from "node:fs";
import os from "node:os";

const TASKSET = ["/usr/bin/taskset", "/bin/taskset"].find((f) => fs.existsSync(f));

/** `cpus` as taskset reads it ("0", "1-3", "0,2"); "last" = the highest CPU. Returns the command prefix
 *  (empty when `cpus` is empty, the machine has one CPU or taskset is missing: no pinning then). */
export function cpuAffinityPrefix(cpus: string | undefined): string[] {
  const n = os.cpus().length;
  if (!cpus || !TASKSET || n < 2) return [];
  const list = cpus === "last" ? String(n - 1) : cpus;
  if (!/^[0-9]+([-,][0-9]+)*$/.test(list)) throw new Error(`CPU list "${cpus}": expected e.g. 0, 1-3, 0,2 or last`);
  return [TASKSET, "-c", list];
}
