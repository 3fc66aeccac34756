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

function timed(): void {
  // V8's own account of every GC pause during the timed loop (delivered once the loop yields).
  let maxGcMs = 0;
  let gcCount = 0;
  const gcByKind: Record<string, number> = {};
  let loopStart = Infinity;
  let loopEnd = -Infinity;
  const gcObserver = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (entry.startTime < loopStart || entry.startTime > loopEnd) continue;
      gcCount++;
      if (entry.duration > maxGcMs) maxGcMs = entry.duration;
      const kind = String((entry as unknown as { detail?: { kind?: number } }).detail?.kind ?? "?");
      gcByKind[kind] = Math.max(gcByKind[kind] ?? 0, entry.duration);
    }
  });
  gcObserver.observe({ entryTypes: ["gc"] });

  const n = s.length - s.preload;
  const mode = process.argv[4] ?? "latency";
  const CHECKPOINT = 64;
  let elapsedMs = 0;
  let maxGapMs = 0;
  let cpuMs = NaN;

  let lat: Float64Array | undefined;
  if (mode === "throughput") {
    // No per-command timer: a clock read every CHECKPOINT commands bounds the largest pause.
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    loopStart = t0;
    let prev = t0;
    for (let k = 0; k < n; k++) {
      step(s.preload + k);
      if ((k & (CHECKPOINT - 1)) === CHECKPOINT - 1) {
        const now = performance.now();
        if (now - prev > maxGapMs) maxGapMs = now - prev;
        prev = now;
      }
    }
    elapsedMs = performance.now() - t0;
    loopEnd = t0 + elapsedMs;
    const cpu = process.cpuUsage(c0);
    cpuMs = (cpu.user + cpu.system) / 1000;
  } else {
    lat = new Float64Array(n);
    const t0 = performance.now();
    loopStart = t0;
    let prevEnd = t0;
    for (let k = 0; k < n; k++) {
      const a = performance.now();
      step(s.preload + k);
      const b = performance.now();
      lat[k] = b - a;
      if (b - prevEnd > maxGapMs) maxGapMs = b - prevEnd;
      prevEnd = b;
    }
    elapsedMs = performance.now() - t0;
    loopEnd = t0 + elapsedMs;
  }
  async function report(): Promise<void> {
    // Let the observer receive the entries queued while the loop ran (they carry their own timestamps).
    await new Promise((r) => setTimeout(r, 50));
    gcObserver.disconnect();
    const sorted = lat === undefined ? new Float64Array(1) : lat.slice().sort();
    const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] * 1000; // µs
    const fp = engine.fingerprint();
    process.stdout.write(
      `${JSON.stringify({
        engine: engineName,
        commands: n,
        opsPerSec: n / (elapsedMs / 1000),
        opsPerCpuSec: n / (cpuMs / 1000),
        p50Us: pct(0.5),
        p99Us: pct(0.99),
        p999Us: pct(0.999),
        mode,
        maxOpUs: sorted[sorted.length - 1] * 1000,
        maxGapMs,
        fingerprint: fp.hash,
        resting: fp.resting,
        checksum: engine.checksum(),
        maxGcMs,
        gcCount,
        gcByKind,
        execArgv: process.execArgv,
        reserveOrders: engineName.startsWith("ours") ? RESERVE_ORDERS : 0,
      })}\n`,
    );
  }
  void report();
}
