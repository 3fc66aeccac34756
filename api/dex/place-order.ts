// Order placement shared by REST and gRPC: parse -> authorize -> key limits -> idempotency -> service.
import { randomUUID } from "node:crypto";
import type { Address } from "viem";
import { ApiError } from "../errors";
import type { ApiKeyStore } from "../auth/api-keys";
import type { AuthContext } from "../auth/authenticate";
import type { IdempotencyStore } from "./idempotency";
import { requestHash } from "./idempotency";
import { checkSignedOrder, findMarket, intentOf, parseOrderFields } from "./order-intent";
import { presentOrder } from "./present";
import { checkDailyLossLimit, checkPositionLimit } from "./risk-limits";
import type { PlaceOrderBody } from "./schemas";
import { DexServiceError, type DexService, type PlaceOrderRequest } from "./service";

export interface PlacementDeps {
  service: DexService;
  keys: ApiKeyStore;
  idempotency: IdempotencyStore;
  now: () => number;
}

export type OrderJson = ReturnType<typeof presentOrder>;

export interface PlacementResult {
  order: OrderJson;
  /** true when this is a retry answered from the stored first result */
  replayed: boolean;
}

/** Serialises the placements of one API key while its limits are checked, so that two concurrent orders
 *  cannot both pass a limit that only one fits under. */
class KeyedMutex {
  private tails = new Map<string, Promise<unknown>>();
  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    const next = prev.then(fn, fn);
    const tail = next.catch(() => {});
    this.tails.set(key, tail);
    try {
      return await next;
    } finally {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}

export function isWalletSigned(body: PlaceOrderBody): boolean {
  return body.order !== undefined || body.signature !== undefined;
}

/** The trader of a wallet-signed body (for rate limiting before the heavier checks). */
export function signedTrader(body: PlaceOrderBody): Address | null {
  return body.order ? (body.order.trader.toLowerCase() as Address) : null;
}

export function createOrderPlacer(deps: PlacementDeps) {
  const mutex = new KeyedMutex();

  return async function placeOrder(body: PlaceOrderBody, auth: AuthContext | null): Promise<PlacementResult> {
    const nowMs = deps.now();
    const market = findMarket(deps.service, body.symbol);
    const signed = isWalletSigned(body);
    if (signed && (!body.order || !body.signature)) {
      throw new ApiError("INVALID_REQUEST", "a wallet-signed order needs both `order` and `signature`", { field: body.order ? "signature" : "order" });
    }
    const fields = parseOrderFields(market, body, nowMs, signed);
    const signedParts = signed ? checkSignedOrder(market, body, fields, nowMs) : null;
    if (!signed && !auth?.key) {
      throw new ApiError("UNAUTHORIZED", "an API key, or a wallet-signed order, is required", { reason: "missing_credentials" });
    }
    const account: Address = signedParts ? signedParts.order.trader : auth!.account;
    const key = signed ? null : auth!.key!;

    const submit = async (): Promise<PlacementResult> => {
      const clientOrderId = body.client_order_id ?? randomUUID();
      const hash = requestHash(body);
      // A retry of a stored order is answered before the key's limit checks: the first attempt already
      // passed them (and counting the order itself again would refuse its own retry). Without limits there
      // is nothing to skip, and reserve() alone answers retries.
      const hasLimits = key !== null && (key.positionLimitE18 !== null || key.dailyLossLimitE18 !== null);
      const earlier = body.client_order_id && hasLimits ? await deps.idempotency.peek(account, clientOrderId, hash) : null;
      if (earlier?.state === "done") return { order: earlier.response as OrderJson, replayed: true };
      if (earlier?.state === "conflict") throw duplicate(clientOrderId, earlier.orderId);
      let agent = null;
      if (key) {
        if (key.agentStatus !== "approved") {
          throw new ApiError("FORBIDDEN", "the API key's agent is not approved on chain yet", { reason: "agent_not_approved" });
        }
        if (hasLimits && !earlier) {
          const probe = intentOf(market.symbol, body.side, fields, { orderId: "", clientOrderId }, nowMs);
          await checkPositionLimit(deps.service, market, key, probe);
          await checkDailyLossLimit(deps.service, deps.service.listMarkets(), key, nowMs);
        }
        agent = await deps.keys.agentOf(key.id);
        if (!agent) throw new ApiError("UNAUTHORIZED", "unknown or revoked API key", { reason: "invalid_api_key" });
      }
      const reservation = await deps.idempotency.reserve(account, clientOrderId, hash);
      if (reservation.state === "done") return { order: reservation.response as OrderJson, replayed: true };
      if (reservation.state === "conflict") throw duplicate(clientOrderId, reservation.orderId);
      const intent = intentOf(market.symbol, body.side, fields, { orderId: reservation.orderId, clientOrderId }, nowMs);
      const request: PlaceOrderRequest = signedParts
        ? { ...intent, kind: "signed", trader: account, order: signedParts.order, signature: signedParts.signature }
        : { ...intent, kind: "api_key", trader: account, apiKeyId: key!.id, agent: agent! };
      let placed;
      try {
        placed = await deps.service.placeOrder(request);
      } catch (err) {
        // A refusal places nothing: free the client order id. Any other failure (SERVICE_UNAVAILABLE, a
        // crash, a timeout: the order may have been taken) keeps the reservation, so a retry re-sends the
        // same order id and the service answers it without a second order.
        if (err instanceof DexServiceError && err.code !== "SERVICE_UNAVAILABLE" && reservation.state === "new") {
          await deps.idempotency.release(account, clientOrderId, reservation.orderId);
        }
        throw err;
      }
      const json = presentOrder(market, placed);
      const stored = (await deps.idempotency.complete(account, clientOrderId, json)) as OrderJson;
      return { order: stored, replayed: reservation.state !== "new" };
    };

    const limited = key && (key.positionLimitE18 !== null || key.dailyLossLimitE18 !== null);
    return limited ? mutex.run(key!.id, submit) : submit();
  };
}

function duplicate(clientOrderId: string, orderId: string): ApiError {
  return new ApiError("DUPLICATE_CLIENT_ORDER_ID", "client_order_id was already used for a different order", {
    client_order_id: clientOrderId,
    order_id: orderId,
  });
}
