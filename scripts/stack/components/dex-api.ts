// The DEX API as a stack component (`npm start`): REST on config.ports.dexRest, WebSocket on
// config.ports.dexWs (/ws), gRPC on config.ports.grpc, serving the process's DexService (scripts/stack/dex-service.ts:
// the pipeline's, started before it, or with DEX_PARTITIONS the router over the matcher partitions).
import path from "node:path";
import { createDb, type Db } from "../../../db";
import type { Config } from "../../../config";
import type { Component, ComponentHandle, StackContext } from "../types";
import { dexApiConfig, resolveEncryptionKey } from "../../../api/dex/config";
import type { DexService } from "../../../pipeline/service";
import { startDexApi } from "../../../api/dex/start";
import { acquireDexService, type DexServiceLease } from "../dex-service";
import { systemClock } from "../../../runtime/clock";
import { bookSymbolOf, CATALOGUE } from "../../../api/exchange/assets/catalogue";
import { hasHold } from "../../../api/exchange/orders/resale";

/** The books of the exchange's restricted securities (a resale hold: Reg D, Reg CF, Reg S): orders reach them
 *  through the exchange API only, which applies the resale rules to its known investors (docs/decisions/api.md). */
export function exchangeOnlySymbols(): string[] {
  return CATALOGUE.filter((a) => hasHold(a.regime))
    .map((a) => bookSymbolOf(a))
    .filter((s): s is string => !!s);
}

// Its own PGlite directory (one PGlite instance per directory); with DATABASE_URL, its own schema (dex_api)
// of the shared Postgres, which every DEX API process of the deployment shares.
function openDb(config: Config): Promise<Db> {
  return createDb({
    dataDir: path.join(config.dataDir, "dex-api", "pglite"),
    databaseUrl: config.database.url,
    schema: "dex_api",
  });
}

export const dexApiComponent: Component = {
  name: "dex-api",
  serving: true,
  // the database opens while the chains start: PGlite's start is ~1 s of this thread's CPU (issue #13)
  prepare: (config: Config) => openDb(config),
  async release(db) {
    await (db as Db).close();
  },
  async start(ctx: StackContext): Promise<ComponentHandle> {
    // DEX_PARTITIONS: the markets' matcher partitions, reached over NATS (the process's one
    // router, shared with the exchange API and the simulated market); else the pipeline in this process
    const closePrepared = async () => {
      if (ctx.prepared) await ((await ctx.prepared.catch(() => undefined)) as Db | undefined)?.close();
    };
    const lease: DexServiceLease | null = await acquireDexService(ctx, "dex-api").catch(async (err: unknown) => {
      await closePrepared();
      throw err;
    });
    if (!lease) {
      await closePrepared();
      throw new Error(
        "dex-api: the pipeline component (and its dexService) must start first, or DEX_PARTITIONS name the matcher partitions",
      );
    }
    const service: DexService = lease.service;
    const routed = lease.routed;
    const dir = path.join(ctx.config.dataDir, "dex-api");
    const db = ((await ctx.prepared) as Db | undefined) ?? (await openDb(ctx.config));
    const apiKeyEncryptionKey = resolveEncryptionKey({
      mode: ctx.config.mode,
      keyHex: ctx.config.dexApi.encryptionKeyHex,
      keyFile: ctx.config.dexApi.encryptionKeyFile,
      dataDir: ctx.config.dataDir,
      legacyFile: path.join(dir, "api-key-encryption.key"),
    });
    const config = dexApiConfig({
      apiKeyEncryptionKey,
      walletAuthHosts: [...ctx.config.dexApi.walletAuthHosts],
      rateLimits: { ipPerMinute: ctx.config.dexApi.ipPerMinute },
      exchangeOnlySymbols: exchangeOnlySymbols(),
      trustProxy: ctx.config.trustedProxies,
    });
    const api = await startDexApi({
      config,
      logger: ctx.logger.child({ component: "dex-api" }),
      service,
      db,
      ports: { rest: ctx.config.ports.dexRest, ws: ctx.config.ports.dexWs, grpc: ctx.config.ports.grpc },
      host: ctx.config.host,
      clock: systemClock,
      knownSigners: lease.knownSigners ?? undefined,
    }).catch(async (err: unknown) => {
      lease.release();
      await db.close();
      throw err;
    });
    let stopped = false;
    return {
      urls: {
        "dex rest": api.urls.rest,
        "dex openapi": `${api.urls.rest}/openapi.json`,
        "dex websocket": api.urls.ws,
        "dex grpc": api.urls.grpc,
      },
      drain: () => api.drain(),
      async stop() {
        if (stopped) return;
        stopped = true;
        await api.close();
        lease.release();
        await db.close();
      },
      async health() {
        try {
          const r = await fetch(`${api.urls.rest}/openapi.json`);
          // a partition down makes its markets unavailable, not the API: shown, not failed
          const ok = r.status === 200 || r.status === 429;
          if (!routed) return { ok };
          return {
            ok,
            detail: `partitions: ${routed.partitions.map((c) => `${c.name} ${c.up ? "up" : "down"}`).join(", ")}`,
          };
        } catch (err) {
          return { ok: false, detail: String(err) };
        }
      },
    };
  },
};
