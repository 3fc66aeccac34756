// The DEX API as bench:e2e runs it: the production wiring (startDexApi over the pipeline's DexService, its
// own PGlite) with spec 8's per-key / per-trader / per-IP limits raised, because the bench's few accounts
// would otherwise meet them at a few orders per second (the same raise as bench:api's stack-child.ts).
// With DEX_PARTITIONS (BENCH_API_PROCESSES=N: bench/e2e/api-process.ts) it serves the matcher partitions'
// RoutedDexService, as scripts/stack/components/dex-api.ts does, instead of an in-process pipeline.
import { randomBytes } from "node:crypto";
import path from "node:path";
import { createDb } from "../../db";
import { dexApiConfig } from "../../api/dex/config";
import { startDexApi } from "../../api/dex/start";
import { createRoutedDexService } from "../../pipeline/partition/routed";
import type { Component, ComponentHandle } from "../../scripts/stack";
import type { PipelineHandle } from "../../scripts/stack/components/pipeline";

const RAISED = 1e9;
export const BENCH_RATE_LIMITS = {
  ipPerMinute: RAISED,
  publicPerMinute: RAISED,
  privatePerMinute: RAISED,
  ordersPerSecond: RAISED,
  signedMarketDataPerMinute: RAISED,
  signedAccountPerMinute: RAISED,
  signedOrdersPerMinute: RAISED,
  signedCancelsPerMinute: RAISED,
};

export const benchDexApiComponent: Component = {
  name: "dex-api",
  async start(ctx): Promise<ComponentHandle> {
    const pipeline = ctx.started.get("pipeline") as PipelineHandle | undefined;
    const routes = ctx.config.partition.routes;
    const routed =
      routes.length > 0
        ? await createRoutedDexService({
            routes,
            servers: ctx.config.partition.orderLog!.servers,
            logger: ctx.logger.child({ component: "dex-api", part: "partitions" }),
          })
        : null;
    if (!routed && !pipeline?.dexService)
      throw new Error("dex-api: the pipeline must start first, or DEX_PARTITIONS name the matcher partitions");
    const db = await createDb({
      dataDir: path.join(ctx.config.dataDir, "dex-api", "pglite"),
      databaseUrl: ctx.config.database.url,
    });
    const config = dexApiConfig({
      apiKeyEncryptionKey: randomBytes(32).toString("hex"),
      rateLimits: BENCH_RATE_LIMITS,
      ws: { maxConnectionsPerUser: 100, connectionsPerMinutePerIp: 10_000 },
    });
    const api = await startDexApi({
      config,
      logger: ctx.logger.child({ component: "dex-api" }),
      service: routed ?? pipeline!.dexService,
      knownSigners: routed ? undefined : pipeline!.knownSigners,
      db,
      ports: { rest: ctx.config.ports.dexRest, ws: ctx.config.ports.dexWs, grpc: ctx.config.ports.grpc },
      host: ctx.config.host,
    });
    return {
      urls: { rest: api.urls.rest, ws: api.urls.ws, grpc: api.urls.grpc },
      async stop() {
        await api.close();
        routed?.close();
        await db.close();
      },
    };
  },
};
