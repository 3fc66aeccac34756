// The process's one DexService (scripts/stack/dex-service.ts) over two partitions served on a one-node
// nats-server, each serving the in-memory DexService narrowed to its own market: the DEX API, the exchange
// API and the simulated market share one router; the simulated market's agents trade both partitions' books
// through it; the router closes with the last component that used it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "@nats-io/transport-node";
import pino from "pino";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { createMemoryDexService, USD, WBTC, WETH, type MemoryDexService } from "../../api/testing/memory-dex-service";
import { servePartition } from "../../pipeline/partition/serve";
import { startNatsCluster } from "../../pipeline/replication/nats-cluster";
import { acquireDexService } from "./dex-service";
import { simulatorComponent } from "./components/simulator";
import type { ComponentHandle, StackContext } from "./types";
import { narrowed, waitFor as waitForIt } from "../../pipeline/testing/partitions";

const waitFor = (what: string, f: () => boolean | Promise<boolean>, timeoutMs = 60_000) =>
  waitForIt(what, f, timeoutMs, 50);

/** What the components read of a stack context here (the rest is never touched without a pipeline). */
function contextOf(
  routes: { symbols: string[]; index: number }[],
  servers: string,
  started = new Map<string, ComponentHandle>(),
): StackContext {
  const traders = [generatePrivateKey(), generatePrivateKey(), generatePrivateKey()].map((k) => ({
    privateKey: k,
    address: privateKeyToAccount(k).address,
  }));
  return {
    config: {
      partition: { routes, orderLog: { servers: [servers], replicas: 1, leaseMs: 2_000 } },
      simulator: { enabled: true, seed: 7, ordersPerSecond: 50, historyDays: 0, historyBudgetS: 40 },
      keys: { demoTraders: traders },
    },
    logger: pino({ level: "silent" }),
    started,
  } as unknown as StackContext;
}

test("one router per process: the DEX API, the exchange API and the simulated market share it; the simulator trades both partitions; the last release closes it", {
  timeout: 120_000,
}, async () => {
  const eth = createMemoryDexService();
  const btc = createMemoryDexService();
  const dir = mkdtempSync(join(tmpdir(), "dex-service-nats-"));
  const nats = await startNatsCluster({ dataDir: dir, size: 1 });
  const nc = await connect({ servers: nats.urls });
  const servers = [
    servePartition({ nc, service: narrowed(eth, ["WETH-USD"]), index: 0 }),
    servePartition({ nc, service: narrowed(btc, ["WBTC-USD"]), index: 1 }),
  ];
  try {
    const ctx = contextOf(
      [
        { symbols: ["WETH-USD"], index: 0 },
        { symbols: ["WBTC-USD"], index: 1 },
      ],
      nats.urls,
    );
    for (const k of ctx.config.keys.demoTraders)
      for (const svc of [eth, btc]) {
        svc.credit(k.address, USD, 10n ** 12n);
        svc.credit(k.address, WETH, 10n ** 21n);
        svc.credit(k.address, WBTC, 10n ** 11n);
      }
    const [a, b] = await Promise.all([acquireDexService(ctx, "dex-api"), acquireDexService(ctx, "exchange-api")]);
    assert.ok(a && b && a.routed);
    assert.equal(a.service, b.service, "one router, built once");
    assert.deepEqual(
      a.service
        .listMarkets()
        .map((m) => m.symbol)
        .sort(),
      ["WBTC-USD", "WETH-USD"],
    );

    // the simulated market through the same router: its agents' orders reach both partitions
    const sim = await simulatorComponent.start(ctx);
    const placedOn = async (svc: MemoryDexService, symbol: string) => {
      for (const k of ctx.config.keys.demoTraders)
        if ((await svc.listOrders({ account: k.address, symbol, limit: 1 })).length > 0) return true;
      return false;
    };
    await waitFor(
      "simulated orders on both partitions",
      async () => (await placedOn(eth, "WETH-USD")) && (await placedOn(btc, "WBTC-USD")),
    );
    await sim.stop();
    a.release();
    a.release(); // idempotent: b still holds it
    assert.ok(
      a.routed.partitions.every((c) => c.up),
      "still open while the exchange API uses it",
    );
    b.release();
    await waitFor("the router closed", () => a.routed!.partitions.every((c) => !c.up));
    // a later component (a restarted one) connects afresh
    const c = await acquireDexService(ctx, "dex-api");
    assert.ok(c && c.service !== a.service);
    c.release();
  } finally {
    await Promise.all(servers.map((s) => s.close()));
    await nc.close();
    await nats.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("without DEX_PARTITIONS and without a pipeline there is no DexService; with a pipeline, its own", async () => {
  assert.equal(await acquireDexService(contextOf([], ""), "exchange-api"), null);
  const svc = createMemoryDexService();
  const lease = await acquireDexService(
    contextOf([], "", new Map([["pipeline", { dexService: svc, stop: async () => {} } as unknown as ComponentHandle]])),
    "exchange-api",
  );
  assert.equal(lease?.service, svc);
  assert.equal(lease?.routed, null);
});
