// The TradingService calls (proto/trading.proto) over a typed context: authentication in metadata (API key +
// secret, or the HMAC scheme) with the key's permission and IP allowlist, spec 8's per-key limits, and each
// call's work. Errors are thrown; the server turns them into statuses (toServiceError).
import type * as grpc from "@grpc/grpc-js";
import type { Logger } from "pino";
import type { ApiKeyRecord, ApiKeyStore } from "../auth/api-keys";
import type { Authenticator } from "../auth/authenticate";
import { constantTimeEqual } from "../auth/hmac";
import { ipAllowed, normalizeIp } from "../auth/ip-allowlist";
import type { DexApiConfig } from "../dex/config";
import { findMarket } from "../dex/order-intent";
import type { OrderPlacer } from "../dex/place-order";
import { placeOrderBody } from "../dex/schemas";
import { lotsToSize, ticksToPrice } from "../dex/units";
import { ApiError, validationError } from "../errors";
import type { DexEvent, DexService } from "../../pipeline/service";
import type { Clock } from "../../runtime/clock";
import { WindowCounter } from "../../runtime/window-counter";
import type { GrpcOrderRequest } from "../../sdk/grpc";

export const SERVICE_NAME = "dex.v1.TradingService";

export interface GrpcContext {
  config: DexApiConfig;
  logger: Logger;
  service: DexService;
  keys: ApiKeyStore;
  auth: Authenticator;
  placeOrder: OrderPlacer;
  limits: GrpcLimits;
  /** a thrown error as the call's status (the server's one mapper) */
  toServiceError(err: unknown, logger: Logger): Partial<grpc.StatusObject>;
}

/** Spec 8 limits per API key: order placement per second (and the signed-key per-minute limits). Counted
 *  synchronously (runtime/window-counter.ts): concurrent calls each read their own count. */
type LimitStore = "orders" | "cancels" | "signedOrders" | "signedCancels";

export class GrpcLimits {
  private readonly stores: Record<LimitStore, WindowCounter>;

  constructor(private readonly clock: Clock) {
    const now = () => clock.now();
    this.stores = {
      orders: new WindowCounter(1000, now),
      cancels: new WindowCounter(60_000, now),
      signedOrders: new WindowCounter(60_000, now),
      signedCancels: new WindowCounter(60_000, now),
    };
  }

  async hit(store: LimitStore, key: string, max: number): Promise<void> {
    const hit = this.stores[store].hit(key);
    if (hit.hits > max) {
      throw new ApiError("RATE_LIMIT_EXCEEDED", `rate limit exceeded: ${max}`, {
        limit: max,
        retry_after: Math.max(1, Math.ceil((hit.resetAt - this.clock.now()) / 1000)),
      });
    }
  }
}

const meta = (m: grpc.Metadata, name: string): string | undefined => {
  const v = m.get(name)[0];
  return v === undefined ? undefined : String(v);
};

export async function authenticate(
  ctx: GrpcContext,
  call: grpc.ServerUnaryCall<unknown, unknown>,
  method: string,
): Promise<{ key: ApiKeyRecord; signed: boolean }> {
  const m = call.metadata;
  const apiKey = meta(m, "x-api-key");
  if (!apiKey) throw new ApiError("UNAUTHORIZED", "metadata x-api-key is required", { reason: "missing_credentials" });
  let key: ApiKeyRecord;
  const signature = meta(m, "x-signature");
  if (signature !== undefined) {
    key = await ctx.auth.verifyHmac({
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
    const found = await ctx.keys.findByApiKey(apiKey);
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

/** PlaceOrder's request as the server decodes it: the SDK's request with every proto3 scalar present (0, ""
 *  and false when not sent) and the side as sent. */
export type OrderRequest = Required<Omit<GrpcOrderRequest, "side">> & { side: string };

/** PlaceOrder's work; the handler counts its outcome (dex_orders_accepted_total / dex_orders_refused_total) */
export async function placeOrderCall(ctx: GrpcContext, call: grpc.ServerUnaryCall<OrderRequest, unknown>) {
  const { key, signed } = await authenticate(ctx, call, "PlaceOrder");
  if (signed) await ctx.limits.hit("signedOrders", key.id, ctx.config.rateLimits.signedOrdersPerMinute);
  else await ctx.limits.hit("orders", key.id, ctx.config.rateLimits.ordersPerSecond);
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
  const placed = await ctx.placeOrder(parsed.data, { scheme: signed ? "hmac" : "api_key", account: key.owner, key });
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
}

export async function cancelOrderCall(ctx: GrpcContext, call: grpc.ServerUnaryCall<{ order_id: string }, unknown>) {
  const { key, signed } = await authenticate(ctx, call, "CancelOrder");
  if (signed) await ctx.limits.hit("signedCancels", key.id, ctx.config.rateLimits.signedCancelsPerMinute);
  else await ctx.limits.hit("cancels", key.id, ctx.config.rateLimits.privatePerMinute);
  const id = call.request.order_id;
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) {
    throw new ApiError("INVALID_REQUEST", "order_id must be a UUID", { field: "order_id" });
  }
  const o = await ctx.service.getOrder(id);
  if (!o || o.account.toLowerCase() !== key.owner.toLowerCase())
    throw new ApiError("ORDER_NOT_FOUND", "order not found", { order_id: id });
  const agent = await ctx.keys.agentOf(key.id);
  const c = await ctx.service.cancelOrder({
    orderId: id,
    account: key.owner,
    agent: agent ?? undefined,
    reason: "user_cancelled",
  });
  const m = findMarket(ctx.service, c.symbol);
  return {
    order_id: c.orderId,
    status: c.status,
    timestamp: c.updatedAtMs,
    filled_size: lotsToSize(m, c.filledLots),
  };
}

export async function getOrderBookCall(
  ctx: GrpcContext,
  call: grpc.ServerUnaryCall<{ symbol: string; depth: number }, unknown>,
) {
  const { symbol, depth } = call.request;
  if (!Number.isInteger(depth) || depth < 0 || depth > ctx.config.maxBookDepth) {
    throw new ApiError("INVALID_REQUEST", `depth must be 1 to ${ctx.config.maxBookDepth}`, { field: "depth" });
  }
  const m = findMarket(ctx.service, symbol);
  const book = await ctx.service.getOrderBook(symbol, depth || ctx.config.defaultBookDepth);
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
}

export function streamTrades(ctx: GrpcContext, call: grpc.ServerWritableStream<{ symbol: string }, unknown>): void {
  let m: ReturnType<typeof findMarket>;
  try {
    m = findMarket(ctx.service, call.request.symbol);
  } catch (err) {
    call.emit("error", ctx.toServiceError(err, ctx.logger));
    return;
  }
  let sequence = 0;
  const unsubscribe = ctx.service.subscribe((e: DexEvent) => {
    if (e.kind !== "trade" || e.trade.symbol !== m.symbol) return;
    sequence += 1;
    // A client that stops reading is cut off rather than buffered without bound.
    if (call.writableLength > ctx.config.ws.maxBufferedBytes) {
      unsubscribe();
      call.emit(
        "error",
        ctx.toServiceError(
          new ApiError("RATE_LIMIT_EXCEEDED", "slow consumer", { reason: "slow_consumer" }),
          ctx.logger,
        ),
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
}
