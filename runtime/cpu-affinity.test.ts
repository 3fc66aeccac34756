// The CPU pinning prefix: taskset with the list asked for, "last" resolved, nothing when not asked, on
// one CPU or without taskset; a malformed list is refused.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import { test } from "node:test";
import { cpuAffinityPrefix } from "./cpu-affinity";

const taskset = ["/usr/bin/taskset", "/bin/taskset"].find((f) => fs.existsSync(f));
const cpus = os.cpus().length;

test("no pinning unless asked, and only where it can be done", () => {
  assert.deepEqual(cpuAffinityPrefix(undefined), []);
  assert.deepEqual(cpuAffinityPrefix(""), []);
  if (!taskset || cpus < 2) {
    assert.deepEqual(cpuAffinityPrefix("0"), []);
    return;
  }
  assert.deepEqual(cpuAffinityPrefix("0"), [taskset, "-c", "0"]);
  assert.deepEqual(cpuAffinityPrefix("last"), [taskset, "-c", String(cpus - 1)]);
  assert.throws(() => cpuAffinityPrefix("0; rm -rf /"), /CPU list/);
  // the prefix really pins: a child started through it reports only that CPU as allowed
  const [cmd, ...args] = cpuAffinityPrefix("last");
  const out = execFileSync(
    cmd,
    [...args, process.execPath, "-e", "process.stdout.write(require('fs').readFileSync('/proc/self/status','utf8'))"],
    { encoding: "utf8" },
  );
  assert.match(out, new RegExp(`Cpus_allowed_list:\\s+${cpus - 1}\\n`));
});
