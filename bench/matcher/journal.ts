// What durability costs here: the latency of one append + fdatasync, and journaled-engine
// throughput with 1, 16 and 256 commands in flight (group commit batches the concurrent ones).
// Run: npx tsx bench/matcher/journal.ts   (BENCH_JOURNAL_DIR picks the disk; default: the OS temp dir)
import { mkdtempSync, rmSync } from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createJournaledEngine } from "../../matcher/journal/journaled-engine";
import type { Command } from "../../matcher/core/types";

const base = process.env.BENCH_JOURNAL_DIR ?? tmpdir();

async function fsyncLatency(dir: string, n: number): Promise<number[]> {
  const fh = await open(join(dir, "probe.log"), "a");
  const frame = Buffer.alloc(200, 1);
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fh.write(frame);
    await fh.datasync();
    out.push((performance.now() - t) * 1000);
  }
  await fh.close();
  return out.sort((a, b) => a - b);
}

function command(i: number): Command {
  const side = i % 2 === 0 ? "buy" : "sell";
  return i % 3 === 2
    ? { kind: "cancel", ts: i, account: `a${(i - 2) % 7}`, orderId: `o${i - 2}` }
    : {
        kind: "place",
        ts: i,
        account: `a${i % 7}`,
        orderId: `o${i}`,
        symbol: "ETH-USDC",
        side,
        type: "limit",
        timeInForce: "GTC",
        priceTicks: 1000 + (i % 11) - 5,
        sizeLots: 1 + (i % 9),
      };
}

async function journaledThroughput(dir: string, inFlight: number, total: number, fsync: boolean): Promise<number> {
  const j = await createJournaledEngine({
    dir,
    markets: [{ symbol: "ETH-USDC", minSizeLots: 1, maxSizeLots: 1_000_000 }],
    fsync,
  });
  const t = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < total) await j.submit(command(next++));
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  const secs = (performance.now() - t) / 1000;
  await j.close();
  return total / secs;
}

async function main() {
  const dir = mkdtempSync(join(base, "journal-bench-"));
  try {
    const lat = await fsyncLatency(dir, 300);
    const pct = (p: number) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))].toFixed(0);
    console.log(`append 200 B + fdatasync on ${base}: p50 ${pct(0.5)} µs, p99 ${pct(0.99)} µs, max ${pct(1)} µs`);
    for (const inFlight of [1, 16, 256]) {
      const total = inFlight === 1 ? 2_000 : 20_000;
      const ops = await journaledThroughput(join(dir, `j${inFlight}`), inFlight, total, true);
      console.log(
        `journaled engine, fdatasync per batch, ${inFlight} in flight: ${Math.round(ops).toLocaleString("en-US")} commands/s`,
      );
    }
    const ops = await journaledThroughput(join(dir, "nofsync"), 256, 20_000, false);
    console.log(
      `journaled engine, no fsync (write only), 256 in flight: ${Math.round(ops).toLocaleString("en-US")} commands/s`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
