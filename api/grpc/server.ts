// createGrpcServer: TradingService of proto/trading.proto on @grpc/grpc-js, with the standard health
// check and server reflection. Authentication in metadata (API key + secret, or the HMAC scheme);
// errors through the one mapper (ApiError -> gRPC status + x-error-code / x-error-details trailers).
import { metrics, refusalReason } from "../../runtime/metrics";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { HealthImplementation, protoPath as HEALTH_PROTO_PATH } from "grpc-health-check";
import { WindowCounter } from "../../runtime/window-counter";
import { join } from "node:path";
import type { Logger } from "pino";
import type { ApiKeyRecord, ApiKeyStore } from "../auth/api-keys";
import type { Authenticator } from "../auth/authenticate";
import { constantTimeEqual } from "../auth/hmac";
import { ipAllowed, normalizeIp } from "../auth/ip-allowlist";
import type { DexApiConfig } from "../dex/config";
import { findMarket } from "../dex/order-intent";
import { createOrderPlacer, type OrderPlacer } from "../dex/place-order";
import { placeOrderBody } from "../dex/schemas";
import type { DexEvent, DexService } from "../../pipeline/service";
import { systemClock, type Clock } from "../../runtime/clock";
import { lotsToSize, ticksToPrice } from "../dex/units";
import { ApiError, logServerError, plain, toApiError, validationError } from "../errors";
import { addReflection } from "./reflection";

export const PROTO_PATH = join(__dirname, "..", "..", "proto", "trading.proto");
export const SERVICE_NAME = "dex.v1.TradingService";

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

const meta = (m: grpc.Metadata, name: string): string | undefined => {
  const v = m.get(name)[0];
  return v === undefined ? undefined : String(v);
};

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

  // Spec 8 limits per API key: order placement per second (and the signed-key per-minute limits).
  // Counted synchronously (runtime/window-counter.ts): concurrent calls each read their own count.
  const now = () => clock.now();
  const stores = {
    orders: new WindowCounter(1000, now),
    cancels: new WindowCounter(60_000, now),
    signedOrders: new WindowCounter(60_000, now),
    signedCancels: new WindowCounter(60_000, now),
  };
  async function limit(store: WindowCounter, key: string, max: number): Promise<void> {
    const hit = store.hit(key);
    if (hit.hits > max) {
      throw new ApiError("RATE_LIMIT_EXCEEDED", `rate limit exceeded: ${max}`, {
        limit: max,
        retry_after: Math.max(1, Math.ceil((hit.resetAt - clock.now()) / 1000)),
      });
    }
  }

  async function authenticate(
    call: grpc.ServerUnaryCall<unknown, unknown>,
    method: string,
  ): Promise<{ key: ApiKeyRecord; signed: boolean }> {
    const m = call.metadata;
    const apiKey = meta(m, "x-api-key");
    if (!apiKey)
      throw new ApiError("UNAUTHORIZED", "metadata x-api-key is required", { reason: "missing_credentials" });
    let key: ApiKeyRecord;
    const signature = meta(m, "x-signature");
    if (signature !== undefined) {
      key = await deps.auth.verifyHmac({
        apiKey,
        timestamp: meta(m, "x-timestamp"),
        signature,
        method: "POST",
        path: `/${SERVICE_NAME}/${method}`,
        body: new Uint8Array(0),
      });
    } else {
      const secret = meta(m, "x-api-secret");
      if (!secret)
        throw new ApiError("UNAUTHORIZED", "metadata x-api-secret (or x-timestamp + x-signature) is required", {
          reason: "missing_credentials",
        });
      const found = await deps.keys.findByApiKey(apiKey);
      const ok = constantTimeEqual(found?.secret ?? "0".repeat(64), secret);
      if (!found) throw new ApiError("UNAUTHORIZED", "unknown or revoked API key", { reason: "invalid_api_key" });
      if (!ok) throw new ApiError("UNAUTHORIZED", "API secret does not match", { reason: "invalid_secret" });
      key = found.record;
    }
    if (!key.permissions.includes("trade"))
      throw new ApiError("FORBIDDEN", "this API key lacks the trade permission", {
        reason: "missing_permission",
        permission: "trade",
      });
    const peer = call
      .getPeer()
      .replace(/^ipv[46]:/, "")
      .replace(/^\[(.*)\]:\d+$/, "$1")
      .replace(/:\d+$/, "");
    if (!ipAllowed(key.ipAllowlist, normalizeIp(peer)))
      throw new ApiError("FORBIDDEN", "request from an address outside the key's IP allowlist", {
        reason: "ip_not_allowed",
      });
    return { key, signed: signature !== undefined };
  }

  const unary =
    <Req, Res>(fn: (call: grpc.ServerUnaryCall<Req, Res>) => Promise<Res>) =>
    (call: grpc.ServerUnaryCall<Req, Res>, callback: grpc.sendUnaryData<Res>) => {
      fn(call).then(
        (res) => callback(null, res),
        (err) => callback(toServiceError(err, logger)),
      );
    };

  interface OrderRequest {
    symbol: string;
    side: string;
    type: string;
    price: number;
    size: number;
    time_in_force: string;
    client_order_id: string;
    trigger_price: number;
    expires_at: number;
    hidden: boolean;
    iceberg_visible_size: number;
  }

  /** PlaceOrder's work; the handler counts its outcome (dex_orders_accepted_total / dex_orders_refused_total) */
  const placeOrderCall = async (call: grpc.ServerUnaryCall<OrderRequest, unknown>) => {
    const { key, signed } = await authenticate(call, "PlaceOrder");
    if (signed) await limit(stores.signedOrders, key.id, config.rateLimits.signedOrdersPerMinute);
    else await limit(stores.orders, key.id, config.rateLimits.ordersPerSecond);
    const r = call.request;
    // proto3 scalars default to 0 / "": those mean "not given"
    const parsed = placeOrderBody.safeParse({
      symbol: r.symbol,
      side: r.side,
      type: r.type,
      size: r.size,
      ...(r.price !== 0 ? { price: r.price } : {}),
      ...(r.time_in_force ? { time_in_force: r.time_in_force } : {}),
      ...(r.client_order_id ? { client_order_id: r.client_order_id } : {}),
      ...(r.trigger_price !== 0 ? { trigger_price: r.trigger_price } : {}),
      ...(r.expires_at ? { expires_at: r.expires_at } : {}),
      ...(r.hidden ? { hidden: true } : {}),
      ...(r.iceberg_visible_size !== 0 ? { iceberg_visible_size: r.iceberg_visible_size } : {}),
    });
    if (!parsed.success) throw validationError(parsed.error, "request");
    const placed = await placeOrder(parsed.data, { scheme: signed ? "hmac" : "api_key", account: key.owner, key });
    const o = placed.order;
    return {
      order_id: o.order_id,
      status: o.status,
      timestamp: o.created_at,
      client_order_id: o.client_order_id,
      filled_size: o.filled_size,
      average_price: o.average_price ?? 0,
      status_reason: o.status_reason ?? "",
      symbol: o.symbol,
      side: o.side,
      type: o.type,
      price: o.price ?? 0,
      size: o.size,
      time_in_force: o.time_in_force,
      trigger_price: o.trigger_price ?? 0,
      expires_at: o.expires_at ?? 0,
      hidden: o.hidden,
      iceberg_visible_size: o.iceberg_visible_size ?? 0,
    };
  };

  const handlers = {
    PlaceOrder: unary<OrderRequest, unknown>(async (call) => {
      try {
        const answer = await placeOrderCall(call);
        metrics.ordersAccepted.inc("grpc");
        return answer;
      } catch (e) {
        metrics.ordersRefused.inc("grpc", refusalReason(e));
        throw e;
      }
    }),
    CancelOrder: unary<{ order_id: string }, unknown>(async (call) => {
      const { key, signed } = await authenticate(call, "CancelOrder");
      if (signed) await limit(stores.signedCancels, key.id, config.rateLimits.signedCancelsPerMinute);
      else await limit(stores.cancels, key.id, config.rateLimits.privatePerMinute);
      const id = call.request.order_id;
      if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) {
        throw new ApiError("INVALID_REQUEST", "order_id must be a UUID", { field: "order_id" });
      }
      const o = await service.getOrder(id);
      if (!o || o.account.toLowerCase() !== key.owner.toLowerCase())
        throw new ApiError("ORDER_NOT_FOUND", "order not found", { order_id: id });
      const agent = await deps.keys.agentOf(key.id);
      const c = await service.cancelOrder({
        orderId: id,
        account: key.owner,
        agent: agent ?? undefined,
        reason: "user_cancelled",
      });
      const m = findMarket(service, c.symbol);
      return {
        order_id: c.orderId,
        status: c.status,
        timestamp: c.updatedAtMs,
        filled_size: lotsToSize(m, c.filledLots),
      };
    }),
    GetOrderBook: unary<{ symbol: string; depth: number }, unknown>(async (call) => {
      const { symbol, depth } = call.request;
      if (!Number.isInteger(depth) || depth < 0 || depth > config.maxBookDepth) {
        throw new ApiError("INVALID_REQUEST", `depth must be 1 to ${config.maxBookDepth}`, { field: "depth" });
      }
      const m = findMarket(service, symbol);
      const book = await service.getOrderBook(symbol, depth || config.defaultBookDepth);
      if (!book) throw new ApiError("INVALID_SYMBOL", `trading pair ${symbol} is not supported`, { symbol });
      const level = (l: { priceTicks: bigint; sizeLots: bigint }) => ({
        price: ticksToPrice(m, l.priceTicks),
        size: lotsToSize(m, l.sizeLots),
      });
      return {
        symbol,
        bids: book.bids.map(level),
        asks: book.asks.map(level),
        timestamp: book.timestampMs,
        sequence: book.sequence,
      };
    }),
    StreamTrades: (call: grpc.ServerWritableStream<{ symbol: string }, unknown>) => {
      let m: ReturnType<typeof findMarket>;
      try {
        m = findMarket(service, call.request.symbol);
      } catch (err) {
        call.emit("error", toServiceError(err, logger));
        return;
      }
      let sequence = 0;
      const unsubscribe = service.subscribe((e: DexEvent) => {
        if (e.kind !== "trade" || e.trade.symbol !== m.symbol) return;
        sequence += 1;
        // A client that stops reading is cut off rather than buffered without bound.
        if (call.writableLength > config.ws.maxBufferedBytes) {
          unsubscribe();
          call.emit(
            "error",
            toServiceError(new ApiError("RATE_LIMIT_EXCEEDED", "slow consumer", { reason: "slow_consumer" }), logger),
          );
          return;
        }
        call.write({
          trade_id: e.trade.tradeId,
          symbol: e.trade.symbol,
          price: ticksToPrice(m, e.trade.priceTicks),
          size: lotsToSize(m, e.trade.sizeLots),
          side: e.trade.takerSide,
          timestamp: e.trade.timestampMs,
          sequence,
        });
      });
      call.on("cancelled", unsubscribe);
      call.on("close", unsubscribe);
      call.on("error", unsubscribe);
    },
  };

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
