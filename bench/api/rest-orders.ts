// npx tsx bench/api/rest-orders.ts — the CPU the DEX API's REST order entry costs per order, apart from the
// pipeline (issue #17): the REST app of the tests' harness (api/testing/harness.ts: real HTTP server, express
// app, auth, rate limits, PGlite key store) over a service whose placeOrder answers at once with the order
// open (no matching, no journal, no chain), driven by bench:e2e's own load generator (bench/e2e/loadgen.ts,
// forked: keep-alive HTTP/1.1, closed loop) with wallet-signed bodies (rest-wallet) and API-key orders
// (rest-key). Prints, per entry, requests/s and this (the API's) process's CPU-ms per order over the
// measured window, and the same orders through the shared placer called in-process (no HTTP), so that the
// difference is what the HTTP path costs. Env: BENCH_ENTRIES (rest-wallet,rest-key), BENCH_SECONDS (5),
// BENCH_WARMUP_SECONDS (2), BENCH_INFLIGHT (64), BENCH_PROFILE=dir (a V8 CPU profile of this process per entry).
import { fork } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Session } from "node:inspector/promises";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { createKey, fund, startHarness } from "../../api/testing/harness";
import { SETTLEMENT_DOMAIN, TEST_MARKETS } from "../../api/testing/memory-dex-service";
import { getDomainSeparator } from "../../sdk/eip712";
import { marketToJson } from "../../pipeline/markets";
import type { DexOrderWithFills, PlaceOrderRequest } from "../../pipeline/service";
import type { Entry, LoadJob, LoadResult } from "../e2e/loadgen";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const WARMUP = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
const INFLIGHT = Number(process.env.BENCH_INFLIGHT ?? 64);
const ENTRIES = (process.env.BENCH_ENTRIES ?? "rest-wallet,rest-key").split(",") as Entry[];

/** The order as the service would answer it when it rests untouched. */
function openOrder(r: PlaceOrderRequest): DexOrderWithFills {
  return {
    orderId: r.orderId,
    clientOrderId: r.clientOrderId,
    account: r.trader,
    apiKeyId: r.kind === "api_key" ? r.apiKeyId : null,
    symbol: r.symbol,
    side: r.side,
    type: r.type,
    timeInForce: r.timeInForce,
    priceTicks: r.priceTicks,
    triggerPriceTicks: r.triggerPriceTicks,
    sizeLots: r.sizeLots,
    filledLots: 0n,
    filledQuoteUnits: 0n,
    status: "open",
    statusReason: null,
    createdAtMs: r.receivedAtMs,
    updatedAtMs: r.receivedAtMs,
    expiresAtMs: r.expiresAtMs,
    hidden: r.hidden,
    icebergVisibleLots: r.icebergVisibleLots,
    fills: [],
  };
}

/** this process's CPU (user + system, ms) sampled every 20 ms, to read it at the load generator's window edges */
function cpuSampler() {
  const samples: { t: number; cpuMs: number; userMs: number }[] = [];
  const take = () => {
    const c = process.cpuUsage();
    samples.push({ t: Date.now(), cpuMs: (c.user + c.system) / 1000, userMs: c.user / 1000 });
  };
  take();
  const timer = setInterval(take, 20);
  return {
    stop: () => clearInterval(timer),
    /** CPU-ms (user + system, and user alone) between the samples nearest to a and b */
    between(a: number, b: number): { cpuMs: number; userMs: number } {
      const at = (t: number) => samples.reduce((best, s) => (Math.abs(s.t - t) < Math.abs(best.t - t) ? s : best));
      return { cpuMs: at(b).cpuMs - at(a).cpuMs, userMs: at(b).userMs - at(a).userMs };
    },
  };
}

/** One entry's load run in a load-generator child; prints its orders/s and the API process's CPU per order. */
async function runEntry(job: LoadJob, profiler: Session | undefined): Promise<void> {
  const { entry } = job;
  const child = fork(path.join(__dirname, "../e2e/loadgen.ts"), [], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  await new Promise<void>((resolve) => child.once("message", () => resolve()));
  const load0 = os.loadavg()[0];
  if (profiler) await profiler.post("Profiler.start");
  const cpu = cpuSampler();
  const result = await new Promise<LoadResult>((resolve, reject) => {
    child.once("message", (m: { type: string; result?: LoadResult; error?: string }) =>
      m.type === "result" ? resolve(m.result!) : reject(new Error(m.error)),
    );
    child.send(job);
  });
  cpu.stop();
  if (profiler) {
    const { profile } = await profiler.post("Profiler.stop");
    fs.mkdirSync(process.env.BENCH_PROFILE!, { recursive: true });
    fs.writeFileSync(
      path.join(process.env.BENCH_PROFILE!, `rest-orders-${entry}-${Date.now()}.cpuprofile`),
      JSON.stringify(profile),
    );
  }
  const load1 = os.loadavg()[0];
  const { cpuMs, userMs } = cpu.between(result.warmEnd, result.windowEnd);
  const perOrder = result.accepted > 0 ? cpuMs / result.accepted : NaN;
  console.log(
    `${entry.padEnd(12)} ${String(Math.round(result.accepted / SECONDS)).padStart(6)} orders/s  API process ${perOrder.toFixed(3)} CPU-ms/order (user ${(userMs / result.accepted).toFixed(3)}) ` +
      `(${Math.round((100 * cpuMs) / (SECONDS * 1000))} % of a core), load generator ${((100 * result.cpuMs) / ((WARMUP + SECONDS) * 1000)).toFixed(0)} %; ` +
      `rejected ${result.rejected}${result.exhausted ? " (orders ran out)" : ""}; load ${load0.toFixed(1)}..${load1.toFixed(1)} ${result.firstErrors.join(" | ")}`,
  );
}

async function main(): Promise<void> {
  const h = await startHarness({ logLevel: "info" }); // the production level (debug logs every request)
  h.service.placeOrder = async (r: PlaceOrderRequest) => openOrder(r);
  const market = TEST_MARKETS[0];
  const owners = Array.from({ length: 4 }, () => privateKeyToAccount(generatePrivateKey()));
  const keys = [] as { apiKey: string; secret: string }[];
  for (const o of owners) {
    fund(h, o.address);
    const k = await createKey(h, o);
    keys.push({ apiKey: k.apiKey, secret: k.secret });
  }
  // wallet-signed orders: any wallets (the stub service checks no balance); the load generator signs with them
  const traders = Array.from({ length: 4 }, () => {
    const privateKey = generatePrivateKey();
    return { address: privateKeyToAccount(privateKey).address, privateKey };
  });
  const profiler = process.env.BENCH_PROFILE ? new Session() : undefined;
  if (profiler) {
    profiler.connect();
    await profiler.post("Profiler.enable");
  }
  console.log(
    `rest-orders  ${INFLIGHT} in flight, ${WARMUP} s warm-up + ${SECONDS} s measured per entry; load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")} (${os.cpus().length} cores)`,
  );
  let nonceBase = 1;
  for (const entry of ENTRIES) {
    const job: LoadJob = {
      entry,
      restUrls: [h.url],
      wsUrls: [],
      market: marketToJson(market),
      domainSeparator: getDomainSeparator(SETTLEMENT_DOMAIN),
      traders,
      keys,
      nonceBase,
      priceTicks: "245000",
      sizeLots: "10",
      warmupS: WARMUP,
      seconds: SECONDS,
      inflight: INFLIGHT,
      wsConnections: 1,
      orders: entry === "rest-wallet" ? 80_000 : 1_000_000,
    };
    nonceBase += job.orders;
    await runEntry(job, profiler);
  }
  await h.close();
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
