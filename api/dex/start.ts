// startDexApi: the three DEX surfaces on their own listeners (REST {dex_base_url}, WebSocket /ws, gRPC),
// sharing one API key store and one authenticator (one replay cache). What `npm start` calls.
import type { Logger } from "pino";
import type { Db } from "../../db";
import { createApiKeyStore, type ApiKeyStore } from "../auth/api-keys";
import { createSecretBox } from "../auth/secret-box";
import { createGrpcServer } from "../grpc/server";
import { createWsServer } from "../ws/server";
import { createAgentRenouncer, RENOUNCEMENT_DRAIN_INTERVAL_MS } from "./agent-renouncer";
import { createDexAuthenticator, createDexRestApp, listenDexRest } from "./app";
import { createOrderPlacer } from "./place-order";
import type { DexApiConfig } from "./config";
import type { DexService, SignerCache } from "../../pipeline/service";
import { systemClock, type Clock } from "../../runtime/clock";

export interface StartDexApiDeps {
  config: DexApiConfig;
  logger: Logger;
  service: DexService;
  /** must have run db/migrations (createDb does) */
  db: Db;
  /** 0 = a free port */
  ports: { rest: number; ws: number; grpc: number };
  host?: string;
  /** what the three surfaces read time through (default: the system clock) */
  clock?: Clock;
  /** the in-process pipeline's signer cache (PipelineHandle.knownSigners), when the service is local */
  knownSigners?: SignerCache;
}

export interface RunningDexApi {
  urls: { rest: string; ws: string; grpc: string };
  /** Stops accepting on every surface and answers what was received; close() after it. */
  drain(): Promise<void>;
  keys: ApiKeyStore;
  close(): Promise<void>;
}

export async function startDexApi(deps: StartDexApiDeps): Promise<RunningDexApi> {
  const host = deps.host ?? "127.0.0.1";
  const clock = deps.clock ?? systemClock;
  const now = () => clock.now();
  const keys = createApiKeyStore({ db: deps.db, box: createSecretBox(deps.config.apiKeyEncryptionKey), clock });
  const auth = createDexAuthenticator({ config: deps.config, keys, now });
  // one placer for REST, WebSocket order entry and gRPC: a retry on one surface of an order in flight on the other waits for it
  const placeOrder = createOrderPlacer({
    service: deps.service,
    keys,
    now,
    exchangeOnlySymbols: deps.config.exchangeOnlySymbols,
    knownSigners: deps.knownSigners,
  });
  const common = { config: deps.config, service: deps.service, auth, clock };
  const rest = await listenDexRest(
    createDexRestApp({ ...common, logger: deps.logger.child({ surface: "dex-rest" }), keys, placeOrder, now }),
    deps.ports.rest,
    host,
  );
  const ws = await createWsServer({ ...common, logger: deps.logger.child({ surface: "dex-ws" }), keys, placeOrder });
  const wsUrl = (await ws.listen(deps.ports.ws, host)).url;
  const grpc = createGrpcServer({ ...common, logger: deps.logger.child({ surface: "dex-grpc" }), keys, placeOrder });
  const { address } = await grpc.listen(deps.ports.grpc, host);
  // deleted keys' agent renouncements that are not on chain yet (a failed send, a restart): retried here
  const renouncer = createAgentRenouncer({
    keys,
    service: deps.service,
    logger: deps.logger.child({ surface: "agent-renouncer" }),
  });
  renouncer.start(RENOUNCEMENT_DRAIN_INTERVAL_MS);
  return {
    urls: { rest: rest.url, ws: wsUrl, grpc: address },
    keys,
    /** Stops accepting on every surface and answers the requests received (REST, WebSocket orders, gRPC calls). */
    async drain() {
      await Promise.all([rest.close(), ws.drain(), grpc.close()]);
    },
    async close() {
      await renouncer.stop();
      await Promise.all([rest.close(), ws.close(), grpc.close()]);
    },
  };
}
