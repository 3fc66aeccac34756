// The stack under benchmark, in its own process (so the load generator does not share its event loop):
// chains + deployment + the registry's `pipeline` component + the DEX API with rate limits raised so
// that they do not dominate the figures (spec 8's 100 public req/min per IP or 10 orders/s per key would
// cap autocannon at a few requests), and the WebSocket per-user (per-IP before auth) connection limit
// raised so that one process can hold 1,000 subscribers. Everything else is the production wiring.
// Started by bench/api/run.ts with `fork`; reports its URLs over IPC; stops on "stop" or disconnect.
import { randomBytes } from "node:crypto";
import path from "node:path";
import { createDb } from "../../db";
import { loadConfig } from "../../config";
import { dexApiConfig } from "../../api/dex/config";
import type { DexService } from "../../pipeline/service";
import { startDexApi } from "../../api/dex/start";
import { defaultComponents, startStack, type Component, type ComponentHandle } from "../../scripts/stack";

export const BENCH_RATE_LIMITS = {
  ipPerMinute: 1e9,
  publicPerMinute: 1e9,
  privatePerMinute: 1e9,
  ordersPerSecond: 1e9,
  signedMarketDataPerMinute: 1e9,
  signedAccountPerMinute: 1e9,
  signedOrdersPerMinute: 1e9,
  signedCancelsPerMinute: 1e9,
};

function benchDexApi(subscribers: number): Component {
  return {
    name: "dex-api",
    async start(ctx): Promise<ComponentHandle> {
      const pipeline = ctx.started.get("pipeline") as (ComponentHandle & { dexService: DexService }) | undefined;
      if (!pipeline?.dexService) throw new Error("dex-api: the pipeline must start first");
      const db = await createDb({
        dataDir: path.join(ctx.config.dataDir, "dex-api", "pglite"),
        databaseUrl: ctx.config.database.url,
      });
      const config = dexApiConfig({
        apiKeyEncryptionKey: randomBytes(32).toString("hex"),
        rateLimits: BENCH_RATE_LIMITS,
        ws: { maxConnectionsPerUser: subscribers + 50, connectionsPerMinutePerIp: 2 * subscribers + 100 },
      });
      const api = await startDexApi({
        config,
        logger: ctx.logger.child({ component: "dex-api" }),
        service: pipeline.dexService,
        db,
        ports: { rest: ctx.config.ports.dexRest, ws: ctx.config.ports.dexWs, grpc: ctx.config.ports.grpc },
        host: ctx.config.host,
      });
      return {
        urls: { rest: api.urls.rest, ws: api.urls.ws, grpc: api.urls.grpc },
        async stop() {
          await api.close();
          await db.close();
        },
      };
    },
  };
}

async function main() {
  const config = loadConfig(process.env);
  const subscribers = Number(process.env.BENCH_SUBSCRIBERS ?? 1000);
  const stack = await startStack({
    config,
    components: [...defaultComponents(["pipeline"]), benchDexApi(subscribers)],
    onComponentError: "fail",
  });
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await stack.stop();
    process.exit(0);
  };
  process.on("message", (msg) => {
    if (msg === "stop") void stop();
  });
  process.on("disconnect", () => void stop());
  process.on("SIGTERM", () => void stop());
  const pipeline = stack.components.find((c) => c.name === "pipeline")!.handle as ComponentHandle & {
    dexService: DexService;
  };
  const m = pipeline.dexService.listMarkets().find((x) => x.symbol === "WETH-USD")!;
  process.send!({
    type: "ready",
    urls: stack.components.find((c) => c.name === "dex-api")!.handle!.urls,
    settlement: stack.deployments.home.contracts.Settlement,
    chainId: config.chains.home.chainId,
    market: {
      ...m,
      tickSize: m.tickSize.toString(),
      lotSize: m.lotSize.toString(),
      minLots: m.minLots.toString(),
      maxLots: m.maxLots.toString(),
    },
    timingsMs: stack.timingsMs,
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
