// bench:e2e's entries, one after the other on the same stack: each entry's load, then the batcher drained, with
// the CPU every process spent on it.
import os from "node:os";
import type { SettledBatch } from "../../pipeline/settle/batcher";
import type { LoadResult } from "./loadgen";
import type { BenchStack } from "./bench-stack";
import { runInProcess, type InProcessResult } from "./in-process";
import { runViaClients } from "./clients";
import { WARMUP, loadAvg, pidCpuS, type Phase } from "./settings";

export interface PhaseResult {
  phase: Phase;
  warmEnd: number;
  windowEnd: number;
  drainedAt: number;
  batches: SettledBatch[];
  load: number[];
  accepted: number;
  rejected: number;
  shed: number;
  ackMs: number[];
  note: string;
}

interface CpuSample {
  t: number;
  us: number;
  apiS: number[];
}

/** This process's CPU (and the API processes'), sampled each 100 ms, and the load average each second. */
class CpuSampler {
  readonly at: CpuSample[] = [];
  readonly load: number[] = [loadAvg()];
  private readonly cpuTimer: NodeJS.Timeout;
  private readonly loadTimer: NodeJS.Timeout;

  constructor(private readonly b: BenchStack) {
    this.sample();
    this.cpuTimer = setInterval(() => this.sample(), 100);
    this.loadTimer = setInterval(() => this.load.push(loadAvg()), 1000);
  }

  stop(): void {
    clearInterval(this.loadTimer);
    clearInterval(this.cpuTimer);
    this.sample();
    this.load.push(loadAvg());
  }

  /** the first sample at or after `t` (the last one if none) */
  from(t: number): CpuSample {
    return this.at.find((x) => x.t >= t) ?? this.at[this.at.length - 1];
  }

  private sample(): void {
    const u = process.cpuUsage();
    this.at.push({ t: Date.now(), us: u.user + u.system, apiS: this.b.apiChildren.map((c) => pidCpuS(c.proc.pid!)) });
  }
}

/** What the entry cost in CPU: this process's share over the load window (after preparation), per accepted
 *  order in the measured window, the chain node's per batch, the load generator's, every process's seconds. */
function cpuNote(b: BenchStack, r: InProcessResult | LoadResult, cpu: CpuSampler, nodeCpu0: number, batches: number) {
  const loadStart = r.warmEnd - WARMUP * 1000;
  const from = cpu.from(loadStart);
  const to = cpu.at[cpu.at.length - 1];
  const stackCpu = (to.us - from.us) / 1000 / Math.max(1, to.t - from.t);
  const cpuPerOrder = (cpu.from(r.windowEnd).us - cpu.from(r.warmEnd).us) / 1000 / Math.max(1, r.accepted);
  const nodePid = b.stack.chains.home.nodePid;
  const nodeS = pidCpuS(nodePid) - nodeCpu0;
  let note = `CPU: this (the stack's) process ${(100 * stackCpu).toFixed(0)} % of one core, ${cpuPerOrder.toFixed(3)} CPU-ms per accepted order (measured window)`;
  note += `; the chain node ${nodeS.toFixed(1)} CPU-s over the entry, ${((1000 * nodeS) / Math.max(1, batches)).toFixed(1)} CPU-ms a settle batch (${batches} batches, warm-up and drain included)`;
  if ("exhausted" in r) {
    note += `, the load generator ${((100 * r.cpuMs) / (r.windowEnd - (r.warmEnd - WARMUP * 1000))).toFixed(0)} % (${os.cpus().length} cores shared with the chain node and everything else); `;
    note += `prepared in ${(r.prepareMs / 1000).toFixed(1)} s before the clock${r.exhausted ? "; RAN OUT of prepared orders (the figure is a floor)" : ""}${r.firstErrors.length ? `; first refusals: ${r.firstErrors.join(" | ")}` : ""}`;
  }
  // every process's CPU seconds over the load (warm-up + measured window)
  const loadS = (to.t - from.t) / 1000;
  const cpuS = [
    `this process${b.apiProcesses > 0 ? " (the matcher partition)" : ""} ${((to.us - from.us) / 1e6).toFixed(1)}`,
    ...b.apiChildren.map((c, i) => `${c.name} ${(to.apiS[i] - from.apiS[i]).toFixed(1)}`),
  ];
  if ("exhausted" in r) cpuS.push(`load generator ${(r.cpuMs / 1000).toFixed(1)}`);
  note += `\n                            CPU seconds over the ${loadS.toFixed(1)} s of load (warm-up + measured): ${cpuS.join(", ")}`;
  return note;
}

/** Runs one entry with nonces from `nonceBase`; returns its result and the nonces it used. */
export async function runPhase(
  b: BenchStack,
  phase: Phase,
  nonceBase: number,
): Promise<{ x: PhaseResult; used: number }> {
  const batchesBefore = b.settled.length;
  const cpu = new CpuSampler(b);
  const nodeCpu0 = pidCpuS(b.stack.chains.home.nodePid); // the home chain's node (Anvil or Hardhat)
  const { r, used } =
    phase === "in-process" ? await runInProcess(b, nonceBase) : await runViaClients(b, phase, nonceBase);
  cpu.stop();
  await b.handle.pipeline.batcher.drain();
  const drainedAt = Date.now();
  const note = cpuNote(b, r, cpu, nodeCpu0, b.settled.length - batchesBefore);
  const x: PhaseResult = {
    phase,
    warmEnd: r.warmEnd,
    windowEnd: r.windowEnd,
    drainedAt,
    batches: b.settled.slice(batchesBefore),
    load: cpu.load,
    accepted: r.accepted,
    rejected: r.rejected,
    shed: r.shed,
    ackMs: r.ackMs,
    note,
  };
  return { x, used };
}
