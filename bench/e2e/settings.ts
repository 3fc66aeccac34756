// bench:e2e's settings from the environment (documented at the top of run.ts), its goals, and the small
// measuring helpers its parts share.
import fs from "node:fs";
import os from "node:os";
import type { Entry } from "./loadgen";

export const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
/** the same load before the measured window, reported apart: JIT, first-touch storage, caches */
export const WARMUP = Number(process.env.BENCH_WARMUP_SECONDS ?? 5);
export const INFLIGHT = Number(process.env.BENCH_INFLIGHT ?? 64);
export const WS_CONNECTIONS = Number(process.env.BENCH_WS_CONNECTIONS ?? 4);
/** API processes apart from this one (0: the DEX API in this process) */
export const API_PROCESSES = Number(process.env.BENCH_API_PROCESSES ?? 0);
if (!Number.isInteger(API_PROCESSES) || API_PROCESSES < 0 || API_PROCESSES > 8)
  throw new Error(`BENCH_API_PROCESSES: an integer 0..8 (got ${process.env.BENCH_API_PROCESSES})`);
export const WITH_INDEXER = process.env.BENCH_INDEXER !== "0";
export const UNEQUAL = process.env.BENCH_UNEQUAL === "1";
/** orders per second to pace at (in-process); unset = as fast as the stack takes them */
export const RATE = process.env.BENCH_RATE ? Number(process.env.BENCH_RATE) : undefined;
export type Phase = "in-process" | Entry;
const ALL_PHASES: Phase[] = ["in-process", "rest-wallet", "rest-key", "ws-wallet", "ws-key"];
export const PHASES = (process.env.BENCH_ENTRIES ?? ALL_PHASES.join(",")).split(",").map((x) => x.trim()) as Phase[];
for (const p of PHASES)
  if (!ALL_PHASES.includes(p)) throw new Error(`BENCH_ENTRIES: unknown entry ${p} (known: ${ALL_PHASES.join(", ")})`);
/** issue #17's goals */
export const GOAL = { lowLatencyPerS: 6000, restPerS: 3000, p99SettleMs: 100, p99IndexerMs: 1000 };
/** orders prepared per second of a client run (the run ends early, and says so, if they run out) */
export const PREPARED_PER_S: Record<Entry, number> = {
  "rest-wallet": 6000,
  "rest-key": 6000,
  "ws-wallet": 12000,
  "ws-key": 12000,
};

export function pct(xs: number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

export const loadAvg = () => os.loadavg()[0];

/** CPU seconds (user + system) of one process (/proc; Linux) */
export function pidCpuS(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) / 100; // USER_HZ
  } catch {
    return NaN; // gone
  }
}

/** CPU seconds (user + system) of a process and its children alive now (/proc; Linux) */
export function postgresCpuS(rootPid: number): number {
  const tick = 100; // USER_HZ
  let total = 0;
  for (const d of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, "utf8");
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      // fields after the name: state(0) ppid(1) ... utime(11) stime(12)
      if (Number(d) === rootPid || Number(f[1]) === rootPid) total += (Number(f[11]) + Number(f[12])) / tick;
    } catch {
      /* gone */
    }
  }
  return total;
}
