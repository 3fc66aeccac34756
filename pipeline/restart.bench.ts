// npx tsx pipeline/restart.bench.ts [N ...] — the pipeline side of a restart, without chains: for each N
// (default 10000 and 100000) a matcher service with the stack's DexState takes N signed orders (pairs of 2
// lots: a sell rests, the next buy takes it, one trade per two orders; each with an order id and a client
// order id as the DEX service journals them), every trade is settled by a stand-in batcher (100 trades a
// batch), the service stops cleanly (snapshot); then a fresh process opens the same journal and reports the
// time to recover the service and the DEX state, the time to the first answer of each of the DEX state's
// reads, the journal snapshot's size, and the RSS / heap after a GC. Iterates in seconds where
// `npm run bench:restart` (chains, the whole stack) takes minutes.
// Env: RESTART_BENCH_KEEP=1 keeps the data dirs.
import { fork } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import type { Hex } from "viem";
import type { MatcherService } from "./match/matcher-service";
import type { Order } from "../sdk/eip712";
import { typedOrder } from "./testing/orders";
import { TEST_MARKET as market, testDigest as digest, historyMatcher } from "./testing/matcher";
import type { PlaceSignedInput } from "./intake/intake";
import { signDigestHex } from "./intake/recover";
import type { SettleableTrade } from "./settle/batcher";
import type { DexState } from "./dex-service";
import type { DexHistory } from "./dex-history";
import { HARDHAT_DEV_PRIVATE_KEYS } from "../config/dev-accounts";
import { privateKeyToAccount } from "viem/accounts";

const traders = [4, 5, 6, 7].map((k) => ({
  key: HARDHAT_DEV_PRIVATE_KEYS[k] as Hex,
  address: privateKeyToAccount(HARDHAT_DEV_PRIVATE_KEYS[k] as Hex).address,
}));
const PRICE_TICKS = 250_000n;

interface Opened {
  svc: MatcherService;
  state: DexState;
  history: DexHistory;
}

async function open(dir: string): Promise<Opened> {
  const { svc, state, history } = await historyMatcher(dir);
  await svc.open();
  for (const t of traders) {
    svc.deposited(t.address, market.baseToken, 10n ** 26n);
    svc.deposited(t.address, market.quoteToken, 10n ** 20n);
  }
  return { svc, state, history };
}

async function close(o: Opened): Promise<void> {
  await o.svc.close();
  await o.state.close();
}

async function fill(dir: string, n: number): Promise<void> {
  const o = await open(dir);
  const expiry = BigInt(Math.floor(Date.now() / 1000) + 6 * 3600);
  let batch: SettleableTrade[] = [];
  let batchId = 0n;
  const settle = () => {
    if (!batch.length) return;
    const trades = batch;
    batch = [];
    o.svc.tradesSettled(trades);
    o.state.onSettled({
      batchId: batchId++,
      trades,
      txHash: `0x${(batchId + 1n).toString(16).padStart(64, "0")}` as Hex,
      gasUsed: 0n,
      settledAtMs: Date.now(),
    });
  };
  o.svc.setTradeSink((t) => {
    batch.push(t);
    if (batch.length >= 100) settle();
  });
  const t0 = performance.now();
  const pending: Promise<unknown>[] = [];
  for (let i = 0; i < n; i++) {
    const ti = (i >> 1) % traders.length;
    const k = (i & 1) === 0 ? ti : (ti + 1) % traders.length;
    const order: Order = {
      trader: traders[k].address,
      baseToken: market.baseToken,
      quoteToken: market.quoteToken,
      side: (i & 1) === 0 ? 1 : 0,
      price: PRICE_TICKS * market.tickSize,
      amount: market.lotSize * 2n,
      expiry,
      nonce: BigInt(i + 1),
      flags: 0,
    };
    const input: PlaceSignedInput = {
      ...typedOrder(market, { priceTicks: PRICE_TICKS, sizeLots: 2n }),
      order,
      signature: signDigestHex(digest(order), traders[k].key),
    };
    const orderId = randomUUID();
    pending.push(
      o.svc.placeSigned(input, {
        orderId,
        clientOrderId: `c-${i}`,
        apiKeyId: null,
        expiresAtMs: null,
        priceTicks: PRICE_TICKS.toString(),
        triggerPriceTicks: null,
        hidden: false,
        icebergVisibleLots: null,
        requestHash: null,
      }),
    );
    if (pending.length >= 256) await Promise.all(pending.splice(0));
  }
  await Promise.all(pending);
  settle();
  await o.state.flush();
  const fillMs = performance.now() - t0;
  await close(o);
  process.send!({ type: "fill", fillMs: Math.round(fillMs) });
}

async function restart(dir: string): Promise<void> {
  const t0 = performance.now();
  const o = await open(dir);
  const tOpen = performance.now();
  // the reads the API makes: one order by id (the oldest, from history), one account's orders, a client id
  const list = o.state.listOrders({ account: traders[0].address, limit: 100 });
  const first = o.state.orderById(list.at(-1)?.orderId ?? "none");
  const byClient = o.state.findByClientOrderId(traders[0].address, "c-0");
  const tReads = performance.now();
  (globalThis as { gc?: () => void }).gc?.();
  const mem = process.memoryUsage();
  process.send!({
    type: "restart",
    openMs: Math.round(tOpen - t0),
    journalMs: Math.round(o.svc.recovery.ms),
    readsMs: Math.round(tReads - tOpen),
    reads: { first: first?.status ?? null, list: list.length, byClient: byClient?.order.status ?? null },
    rssMb: Math.round(mem.rss / 2 ** 20),
    heapMb: Math.round(mem.heapUsed / 2 ** 20),
    snapshotKb: Math.round(
      readdirSync(join(dir, "matcher"))
        .filter((f) => f.startsWith("snapshot-"))
        .reduce((a, f) => a + statSync(join(dir, "matcher", f)).size, 0) / 1024,
    ),
  });
  await close(o);
}

function child(mode: string, dir: string, n: number): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const c = fork(__filename, [], {
      env: { ...process.env, RB_MODE: mode, RB_DIR: dir, RB_N: String(n) },
      execArgv: ["--import", "tsx", "--expose-gc"],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    let out: Record<string, unknown> | undefined;
    c.on("message", (m) => (out = m as Record<string, unknown>));
    c.on("exit", (code) => (code === 0 && out ? resolve(out) : reject(new Error(`${mode} exited ${code}`))));
  });
}

async function main(): Promise<void> {
  if (process.env.RB_MODE) {
    const dir = process.env.RB_DIR!;
    if (process.env.RB_MODE === "fill") await fill(dir, Number(process.env.RB_N));
    else await restart(dir);
    return;
  }
  const sizes = process.argv.slice(2).map(Number);
  console.log(
    `pipeline restart bench; load average ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(" ")}`,
  );
  for (const n of sizes.length ? sizes : [10_000, 100_000]) {
    const dir = mkdtempSync(join(os.tmpdir(), "pipeline-restart-"));
    try {
      const f = await child("fill", dir, n);
      const r = await child("restart", dir, n);
      console.log(`${n} orders: fill ${f.fillMs} ms; restart ${JSON.stringify(r)}`);
    } finally {
      if (!process.env.RESTART_BENCH_KEEP) rmSync(dir, { recursive: true, force: true });
      else console.log(`  kept ${dir}`);
    }
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
