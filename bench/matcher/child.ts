// One engine in its own process: preload (untimed), then every command timed on its own.
// Prints one JSON line with throughput, latency percentiles, the largest pause and the fingerprint.
import { readFileSync } from "node:fs";
import { PerformanceObserver, performance } from "node:perf_hooks";
import { RESERVE_ORDERS, createOurs, createPeer, type BenchEngine } from "./adapters";
import { OP_CANCEL as CANCEL, OP_LIMIT as LIMIT, accountOf, decodeStream, orderIdOf } from "./stream";

// Local copies: tsx turns imported constants into getter calls.
const OP_LIMIT = LIMIT;
const OP_CANCEL = CANCEL;

const [file, engineName] = process.argv.slice(2);
const s = decodeStream(readFileSync(file));
const engine: BenchEngine =
  engineName === "ours"
    ? createOurs("sink")
    : engineName === "ours-objects"
      ? createOurs("objects")
      : createPeer(engineName as never);

// Accounts are few: one string each, shared. Order ids are built as each command arrives, as a
// service parsing requests would; keeping a million of them alive up front would make every
// engine's major GC mark them.
const accountNames = new Map<string, string>();
const accounts: string[] = new Array(s.length);
for (let i = 0; i < s.length; i++) {
  const name = s.op[i] === OP_LIMIT || s.op[i] === OP_CANCEL ? accountOf(s.id[i], s.side[i]) : "m";
  let shared = accountNames.get(name);
  if (shared === undefined) accountNames.set(name, (shared = name));
  accounts[i] = shared;
}
const idOf = orderIdOf;

function step(i: number): void {
  const op = s.op[i];
  const id = idOf(s.id[i]);
  if (op === OP_LIMIT) engine.limit(id, accounts[i], s.side[i] === 0 ? "buy" : "sell", s.price[i], s.size[i]);
  else if (op === OP_CANCEL) engine.cancel(id, accounts[i]);
  else engine.market(id, accounts[i], s.side[i] === 0 ? "buy" : "sell", s.size[i]);
}

for (let i = 0; i < s.preload; i++) step(i);
const gc = (globalThis as { gc?: () => void }).gc;
if (gc) gc();
// The forced full GC hands its sweeping to V8's helper thread: let it finish before the clock starts, so the
// timed loop does not pay for the bench's own gc() call.
setTimeout(timed, 250);

/** V8's own account of every GC pause within [start, end] (delivered once the loop yields). */
function watchGc() {
  const w = { maxGcMs: 0, gcCount: 0, gcByKind: {} as Record<string, number>, start: Infinity, end: -Infinity };
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (entry.startTime < w.start || entry.startTime > w.end) continue;
      w.gcCount++;
      if (entry.duration > w.maxGcMs) w.maxGcMs = entry.duration;
      const kind = String((entry as unknown as { detail?: { kind?: number } }).detail?.kind ?? "?");
      w.gcByKind[kind] = Math.max(w.gcByKind[kind] ?? 0, entry.duration);
    }
  });
  observer.observe({ entryTypes: ["gc"] });
  return { w, observer };
}

interface Loop {
  t0: number;
  elapsedMs: number;
  maxGapMs: number;
  cpuMs: number;
  lat?: Float64Array;
}

const CHECKPOINT = 64;

/** No per-command timer: a clock read every CHECKPOINT commands bounds the largest pause. */
function throughputLoop(n: number): Loop {
  let maxGapMs = 0;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  let prev = t0;
  for (let k = 0; k < n; k++) {
    step(s.preload + k);
    if ((k & (CHECKPOINT - 1)) === CHECKPOINT - 1) {
      const now = performance.now();
      if (now - prev > maxGapMs) maxGapMs = now - prev;
      prev = now;
    }
  }
  const elapsedMs = performance.now() - t0;
  const cpu = process.cpuUsage(c0);
  return { t0, elapsedMs, maxGapMs, cpuMs: (cpu.user + cpu.system) / 1000 };
}

/** Every command timed on its own. */
function latencyLoop(n: number): Loop {
  let maxGapMs = 0;
  const lat = new Float64Array(n);
  const t0 = performance.now();
  let prevEnd = t0;
  for (let k = 0; k < n; k++) {
    const a = performance.now();
    step(s.preload + k);
    const b = performance.now();
    lat[k] = b - a;
    if (b - prevEnd > maxGapMs) maxGapMs = b - prevEnd;
    prevEnd = b;
  }
  return { t0, elapsedMs: performance.now() - t0, maxGapMs, cpuMs: NaN, lat };
}

function timed(): void {
  const { w, observer } = watchGc();
  const n = s.length - s.preload;
  const mode = process.argv[4] ?? "latency";
  w.start = performance.now();
  const loop = mode === "throughput" ? throughputLoop(n) : latencyLoop(n);
  w.start = loop.t0;
  w.end = loop.t0 + loop.elapsedMs;
  // Let the observer receive the entries queued while the loop ran (they carry their own timestamps).
  setTimeout(() => {
    observer.disconnect();
    report(n, mode, loop, w);
  }, 50);
}

function report(n: number, mode: string, loop: Loop, gc: ReturnType<typeof watchGc>["w"]): void {
  const sorted = loop.lat === undefined ? new Float64Array(1) : loop.lat.slice().sort();
  const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] * 1000; // µs
  const fp = engine.fingerprint();
  process.stdout.write(
    `${JSON.stringify({
      engine: engineName,
      commands: n,
      opsPerSec: n / (loop.elapsedMs / 1000),
      opsPerCpuSec: n / (loop.cpuMs / 1000),
      p50Us: pct(0.5),
      p99Us: pct(0.99),
      p999Us: pct(0.999),
      mode,
      maxOpUs: sorted[sorted.length - 1] * 1000,
      maxGapMs: loop.maxGapMs,
      fingerprint: fp.hash,
      resting: fp.resting,
      checksum: engine.checksum(),
      maxGcMs: gc.maxGcMs,
      gcCount: gc.gcCount,
      gcByKind: gc.gcByKind,
      execArgv: process.execArgv,
      reserveOrders: engineName.startsWith("ours") ? RESERVE_ORDERS : 0,
    })}\n`,
  );
}
