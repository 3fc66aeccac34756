// createGrpcServer: TradingService of proto/trading.proto on @grpc/grpc-js, with the standard health
// check and server reflection. Authentication in metadata (API key + secret, or the HMAC scheme);
// errors through the one mapper (ApiError -> gRPC status + x-error-code / x-error-details trailers).
import { metrics, refusalReason } from "../../runtime/metrics";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { HealthImplementation, protoPath as HEALTH_PROTO_PATH } from "grpc-health-check";
import { join } from "node:path";
import type { Logger } from "pino";
import type { ApiKeyStore } from "../auth/api-keys";
import type { Authenticator } from "../auth/authenticate";
import type { DexApiConfig } from "../dex/config";
import { createOrderPlacer, type OrderPlacer } from "../dex/place-order";
import type { DexService } from "../../pipeline/service";
import { systemClock, type Clock } from "../../runtime/clock";
import { logServerError, plain, toApiError } from "../errors";
import {
  cancelOrderCall,
  getOrderBookCall,
  GrpcLimits,
  placeOrderCall,
  SERVICE_NAME,
  streamTrades,
  type GrpcContext,
  type OrderRequest,
} from "./calls";
import { addReflection } from "./reflection";

export const PROTO_PATH = join(__dirname, "..", "..", "proto", "trading.proto");
export { SERVICE_NAME };

export interface GrpcServerDeps {
  config: DexApiConfig;
  logger: Logger;
  service: DexService;
  /** share the REST app's (one in-flight registry of client order ids); created when omitted */
  placeOrder?: OrderPlacer;
  keys: ApiKeyStore;
  auth: Authenticator;
  /** default: the system clock */
  clock?: Clock;
}

export interface DexGrpcServer {
  server: grpc.Server;
  health: HealthImplementation;
  listen(port: number, host?: string): Promise<{ port: number; address: string }>;
  close(): Promise<void>;
}

export function loadTradingPackage(): protoLoader.PackageDefinition {
  return protoLoader.loadSync(PROTO_PATH, {
    keepCase: true,
    longs: Number,
    enums: String,
    defaults: true,
    oneofs: true,
  });
}

function toServiceError(err: unknown, logger: Logger): Partial<grpc.StatusObject> {
  const e = toApiError(err);
  logServerError(logger, e, err, {}, "grpc call failed");
  const metadata = new grpc.Metadata();
  metadata.set("x-error-code", e.code);
  metadata.set("x-error-details", JSON.stringify(plain(e.details)));
  // seconds, as REST's Retry-After header (CHAIN_UNAVAILABLE)
  if (e.retryAfterS !== undefined) metadata.set("retry-after", String(e.retryAfterS));
  return { code: e.grpcStatus, details: `${e.code}: ${e.message}`, metadata };
}

export function createGrpcServer(deps: GrpcServerDeps): DexGrpcServer {
  const { service, logger, config } = deps;
  const pkgDef = loadTradingPackage();
  const pkg = grpc.loadPackageDefinition(pkgDef) as unknown as {
    dex: { v1: { TradingService: grpc.ServiceClientConstructor } };
  };
  const clock = deps.clock ?? systemClock;
  const placeOrder =
    deps.placeOrder ??
    createOrderPlacer({
      service,
      keys: deps.keys,
      now: () => clock.now(),
      exchangeOnlySymbols: deps.config.exchangeOnlySymbols,
    });

  const ctx: GrpcContext = {
    config,
    logger,
    service,
    keys: deps.keys,
    auth: deps.auth,
    placeOrder,
    limits: new GrpcLimits(clock),
    toServiceError,
  };
  const handlers = tradingHandlers(ctx);
  const server = new grpc.Server();
  server.addService(pkg.dex.v1.TradingService.service, handlers as unknown as grpc.UntypedServiceImplementation);
  const health = new HealthImplementation({ "": "SERVING", [SERVICE_NAME]: "SERVING" });
  health.addToServer(server);
  // Reflection describes TradingService and the health service (so a client can call both by name).
  addReflection(server, [PROTO_PATH, HEALTH_PROTO_PATH]);

  let closing: Promise<void> | undefined;
  return {
    server,
    health,
    listen(port, host = "127.0.0.1") {
      return new Promise((resolve, reject) => {
        server.bindAsync(`${host}:${port}`, grpc.ServerCredentials.createInsecure(), (err, bound) => {
          if (err) return reject(err);
          resolve({ port: bound, address: `${host}:${bound}` });
        });
      });
    },
    /** Graceful: no new call, the calls under way answered (a drain); idempotent. */
    close() {
      closing ??= new Promise((resolve) => {
        health.setStatus("", "NOT_SERVING");
        server.tryShutdown(() => resolve());
        // streams (StreamTrades) never end on their own: force them after a grace period
        setTimeout(() => server.forceShutdown(), 500).unref();
      });
      return closing;
    },
  };
}

/** TradingService's handlers over `ctx`: a unary call's thrown error becomes its status (toServiceError). */
function tradingHandlers(ctx: GrpcContext) {
  const unary =
    <Req, Res>(fn: (ctx: GrpcContext, call: grpc.ServerUnaryCall<Req, Res>) => Promise<Res>) =>
    (call: grpc.ServerUnaryCall<Req, Res>, callback: grpc.sendUnaryData<Res>) => {
      fn(ctx, call).then(
        (res) => callback(null, res),
        (err) => callback(toServiceError(err, ctx.logger)),
      );
    };
  const handlers = {
    PlaceOrder: unary<OrderRequest, unknown>(async (c, call) => {
      try {
        const answer = await placeOrderCall(c, call);
        metrics.ordersAccepted.inc("grpc");
        return answer;
      } catch (e) {
        metrics.ordersRefused.inc("grpc", refusalReason(e));
        throw e;
      }
    }),
    CancelOrder: unary(cancelOrderCall),
    GetOrderBook: unary(getOrderBookCall),
    StreamTrades: (call: grpc.ServerWritableStream<{ symbol: string }, unknown>) => streamTrades(ctx, call),
  };
  return handlers;
}
