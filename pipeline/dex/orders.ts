// The DEX service's orders: a placement (a wallet's signed order, or one the key's agent signs) into the
// matcher service with the intent's fields journaled beside it, cancels, and the order lookups.
import type { Address, Hex } from "viem";
import { metrics } from "../../runtime/metrics";
import type { Order } from "../../sdk/eip712";
import type { MatcherService } from "../match/matcher-service";
import type { MarketSpec } from "../markets";
import {
  DEX_OPEN_STATUSES,
  DexServiceError,
  engineTimeInForce,
  type CancelOrderRequest,
  type DexOrder,
  type DexOrderWithFills,
  type DexStatusReason,
  type PlaceOrderRequest,
} from "../service";
import type { OrderRecord } from "../dex-history";
import type { ApiKeyOrderSigner } from "./api-key-order";
import { toDexError } from "./errors";
import { strip } from "./order-records";
import type { DexState } from "./state";

export interface DexOrdersDeps {
  service: MatcherService;
  state: DexState;
  apiKeyOrders: ApiKeyOrderSigner;
  marketOf(symbol: string): MarketSpec | undefined;
}

export const withFills = (r: OrderRecord): DexOrderWithFills => ({
  ...strip(r),
  fills: r.fills.map((f) => ({ ...f })),
});

export class DexOrders {
  constructor(private readonly deps: DexOrdersDeps) {}

  async place(req: PlaceOrderRequest): Promise<DexOrderWithFills> {
    const { service: svc, state } = this.deps;
    const known = req.newOrderId === true ? undefined : state.orderById(req.orderId);
    if (known) return withFills(known);
    const m = this.deps.marketOf(req.symbol);
    if (!m)
      throw new DexServiceError("INVALID_SYMBOL", `trading pair not supported: ${req.symbol}`, {
        symbol: req.symbol,
      });
    // refused whatever it is (backlog full, halted, chain down): before the agent signs it or a nonce is taken
    const refused = svc.admissionRefusal();
    if (refused) throw toDexError(refused, false);
    const signed = await this.signed(req, m);
    const t0 = performance.now();
    try {
      await svc.placeSigned(
        {
          symbol: req.symbol,
          type: req.type,
          timeInForce: engineTimeInForce(req.timeInForce),
          priceTicks: signed.priceTicks,
          sizeLots: req.sizeLots,
          triggerPriceTicks: req.triggerPriceTicks,
          order: signed.order,
          signature: signed.signature,
          expiresAtMs: req.expiresAtMs,
          hidden: req.hidden,
          icebergVisibleLots: req.icebergVisibleLots,
        },
        journaledInfo(req),
      );
    } catch (e) {
      throw toDexError(e, req.kind === "api_key");
    } finally {
      metrics.matchLatency.observe((performance.now() - t0) / 1000);
    }
    const r = state.orderById(req.orderId);
    if (!r) throw new DexServiceError("SERVICE_UNAVAILABLE", "the order was not recorded");
    return withFills(r);
  }

  /** The signed order and its ticks: a wallet's market / stop order has no limit in the intent, its ticks are
   *  its signed protection price's (the API checked that it is on the tick grid). */
  private async signed(
    req: PlaceOrderRequest,
    m: MarketSpec,
  ): Promise<{ order: Order; signature: Hex; priceTicks: bigint }> {
    try {
      return req.kind === "signed"
        ? {
            order: req.order as Order,
            signature: req.signature,
            priceTicks: req.priceTicks ?? req.order.price / m.tickSize,
          }
        : await this.deps.apiKeyOrders.sign(req, m);
    } catch (e) {
      throw toDexError(e, false);
    }
  }

  refusal(): DexServiceError | undefined {
    const refused = this.deps.service.admissionRefusal();
    return refused ? (toDexError(refused, false) as DexServiceError) : undefined;
  }

  async cancel(req: CancelOrderRequest): Promise<DexOrder> {
    const r = this.deps.state.orderById(req.orderId);
    if (!r || r.account.toLowerCase() !== req.account.toLowerCase())
      throw new DexServiceError("ORDER_NOT_FOUND", `order ${req.orderId} not found`);
    if (!DEX_OPEN_STATUSES.includes(r.status))
      throw new DexServiceError("ORDER_NOT_OPEN", `order ${req.orderId} is ${r.status}`, { status: r.status });
    try {
      await this.deps.service.cancel(r.hash, req.account, req.reason);
    } catch (e) {
      throw toDexError(e, false);
    }
    return strip(r);
  }

  async cancelOfApiKey(apiKeyId: string, account: Address, reason: DexStatusReason): Promise<string[]> {
    const open = [...this.deps.state.byId.values()].filter(
      (r) =>
        r.apiKeyId === apiKeyId &&
        r.account.toLowerCase() === account.toLowerCase() &&
        DEX_OPEN_STATUSES.includes(r.status),
    );
    await Promise.all(open.map((r) => this.deps.service.cancel(r.hash, account, reason).catch(() => undefined)));
    return open.map((r) => r.orderId);
  }
}

/** The intent's fields the signed order does not carry, journaled beside it (the DEX state's records). */
function journaledInfo(req: PlaceOrderRequest): Record<string, unknown> {
  return {
    orderId: req.orderId,
    clientOrderId: req.clientOrderId,
    apiKeyId: req.kind === "api_key" ? req.apiKeyId : null,
    expiresAtMs: req.expiresAtMs,
    priceTicks: req.priceTicks === null ? null : req.priceTicks.toString(),
    triggerPriceTicks: req.triggerPriceTicks === null ? null : req.triggerPriceTicks.toString(),
    hidden: req.hidden ?? false,
    icebergVisibleLots: req.icebergVisibleLots ? req.icebergVisibleLots.toString() : null,
    requestHash: req.requestHash ?? null,
  };
}
