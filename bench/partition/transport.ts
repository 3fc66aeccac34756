// What the partition transport (pipeline/partition/) adds to a placement: the API's in-memory DexService called
// in process, then the same service served on NATS (a one-node nats-server on 127.0.0.1) and reached through the
// RoutedDexService (request/reply on the partition's subject). Wallet-signed orders, signed before the clock starts; one at a time
// (latency) and 32 in flight (throughput). `npx tsx bench/partition/transport.ts [orders]` (default 4,000).
import { limitIntent } from "../../pipeline/testing/orders";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { connect } from "@nats-io/transport-node";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import {
  createMemoryDexService,
  SETTLEMENT_DOMAIN,
  TEST_MARKETS,
  USD,
  WETH,
} from "../../api/testing/memory-dex-service";
import { signOrder } from "../../sdk/eip712";
import type { DexService, PlaceOrderRequest } from "../../pipeline/service";
import { servePartition } from "../../pipeline/partition/serve";
import { startNatsCluster } from "../../pipeline/replication/nats-cluster";
import { createRoutedDexService } from "../../pipeline/partition/routed";

const N = Number(process.argv[2] ?? 4_000);
const m = TEST_MARKETS.find((x) => x.symbol === "WETH-USD")!;
const trader = privateKeyToAccount(generatePrivateKey());

async function orders(n: number, nonceFrom: bigint): Promise<PlaceOrderRequest[]> {
  const out: PlaceOrderRequest[] = [];
  for (let i = 0; i < n; i++) {
    // resting bids at spread-out prices: every placement books an order, none trades
    const side = 0 as const;
    const priceTicks = 1_000n + BigInt(i % 500);
    const order = {
      trader: trader.address,
      baseToken: m.baseToken,
      quoteToken: m.quoteToken,
      side,
      price: priceTicks * m.tickSize,
      amount: m.lotSize,
      expiry: BigInt(Math.floor(Date.now() / 1000) + 3600),
      nonce: nonceFrom + BigInt(i),
      flags: 0,
    };
    out.push({
      kind: "signed",
      ...limitIntent(m.symbol, "buy", priceTicks, 1n),
      trader: trader.address,
      order,
      signature: await signOrder(trader, SETTLEMENT_DOMAIN, order),
    });
  }
  return out;
}

async function run(label: string, svc: DexService, reqs: PlaceOrderRequest[], inFlight: number): Promise<void> {
  const lat: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < reqs.length) {
        const r = reqs[next++];
        const s = performance.now();
        await svc.placeOrder(r);
        lat.push(performance.now() - s);
      }
    }),
  );
  const secs = (performance.now() - t0) / 1000;
  lat.sort((a, b) => a - b);
  const q = (p: number) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))].toFixed(2);
  console.log(
    `${label.padEnd(34)} ${String(Math.round(reqs.length / secs)).padStart(7)} orders/s   p50 ${q(0.5)} ms   p99 ${q(0.99)} ms`,
  );
}

async function main(): Promise<void> {
  const local = createMemoryDexService();
  const remote = createMemoryDexService();
  for (const s of [local, remote])
    s.credit(trader.address, USD, 10n ** 15n), s.credit(trader.address, WETH, 10n ** 24n);
  const dir = mkdtempSync(path.join(os.tmpdir(), "bench-partition-"));
  const nats = await startNatsCluster({ dataDir: dir, size: 1 });
  const nc = await connect({ servers: nats.urls });
  const server = servePartition({ nc, service: remote, index: 0 });
  const routed = await createRoutedDexService({
    routes: [{ symbols: TEST_MARKETS.map((x) => x.symbol), index: 0 }],
    servers: [nats.urls],
  });
  console.log(
    `partition transport, ${N} wallet-signed orders per run, load ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
  );
  // signature checks are the service's in both cases (the memory double verifies each order)
  await run("in process, 1 in flight", local, await orders(N, 1n), 1);
  await run("through the partition, 1 in flight", routed, await orders(N, 1n), 1);
  await run("in process, 32 in flight", local, await orders(N, 10_000_000n), 32);
  await run("through the partition, 32 in flight", routed, await orders(N, 10_000_000n), 32);
  console.log(
    `load after ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
  );
  routed.close();
  await server.close();
  await nc.close();
  await nats.stop();
  rmSync(dir, { recursive: true, force: true });
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
