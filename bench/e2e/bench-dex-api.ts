// The DEX API as bench:e2e runs it: the production wiring (startDexApi over the pipeline's DexService, its
// own PGlite) with spec 8's per-key / per-trader / per-IP limits raised, because the bench's few accounts
// would otherwise meet them at a few orders per second (the same raise as bench:api's stack-child.ts).
import { randomBytes } from "node:crypto";
import path from "node:path";
import { createDb } from "../../db";
import { dexApiConfig } from "../../api/dex/config";
import { startDexApi } from "../../api/dex/start";
import type { DexService } from "../../pipeline/service";
import type { Component, ComponentHandle } from "../../scripts/stack";

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
    const pipeline = ctx.started.get("pipeline") as (ComponentHandle & { dexService: DexService }) | undefined;
    if (!pipeline?.dexService) throw new Error("dex-api: the pipeline must start first");
    const db = await createDb({ dataDir: path.join(ctx.config.dataDir, "dex-api", "pglite"), databaseUrl: ctx.config.database.url });
    const config = dexApiConfig({
      apiKeyEncryptionKey: randomBytes(32).toString("hex"),
      rateLimits: BENCH_RATE_LIMITS,
      ws: { maxConnectionsPerUser: 100, connectionsPerMinutePerIp: 10_000 },
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
