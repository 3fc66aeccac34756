// Order entry on the DEX WebSocket: the low-latency way in (docs/decisions/api.md "Order entry").
// `{"type":"order","id":<correlation id>,"body":<the POST /v1/orders body>}` places an order exactly as
// POST /v1/orders does (one shared placer: validation, idempotency, risk limits, the pipeline) and is
// answered `{"type":"order_result","id","status","body"}` with the status and body REST would answer
// (201 + the order, or 4xx/5xx + the spec error body). Two ways to be authorised, as on REST:
//   - a wallet-signed order (body.order + body.signature) carries its EIP-712 signature; no login needed;
//   - an API-key order needs the connection's `auth` (the HMAC scheme over a timestamped login message,
//     once per connection; each signature used once), and the key's `trade` permission and IP allowlist,
//     checked per order.
// Limits: at most `ws.maxOrdersInFlight` orders of one connection unanswered at a time (one more is
// answered 429 RATE_LIMIT_EXCEEDED, reason orders_in_flight, and not placed), and the REST order limits
// (ordersPerSecond per API key, per trader for wallet-signed orders), counted per process for this entry.

import { metrics, refusalReason } from "../../runtime/metrics";
import type { Logger } from "pino";
import type { Address } from "viem";
import { z } from "zod";
import type { Clock } from "../../runtime/clock";
import { WindowCounter } from "../../runtime/window-counter";
import { authorize } from "../auth/authenticate";
import type { DexApiConfig } from "../dex/config";
import { isWalletSigned, type OrderPlacer } from "../dex/place-order";
import { placeOrderBody } from "../dex/schemas";
import { ApiError, toHttpError, validationError } from "../errors";
import type { Conn, ConnSender } from "./connection";

export const ORDER_MESSAGE_TYPE = "order";

const correlationId = z.union([z.string().min(1).max(64), z.number().int().safe()]);
export const orderMessage = z
  .object({
    type: z.literal(ORDER_MESSAGE_TYPE),
    id: correlationId,
    body: placeOrderBody,
  })
  .strict();
export type OrderMessage = z.infer<typeof orderMessage>;

export interface OrderEntryDeps {
  config: DexApiConfig;
  placeOrder: OrderPlacer;
  out: ConnSender;
  clock: Clock;
  logger: Logger;
}

export interface OrderEntry {
  /** one `order` message (already JSON-parsed); answers it on `c` */
  handle(c: Conn, parsed: unknown): Promise<void>;
  /** orders of `c` placed and not answered yet */
  inFlight(c: Conn): number;
}

export function createOrderEntry(deps: OrderEntryDeps): OrderEntry {
  const entry = new WsOrderEntry(deps);
  return { inFlight: (c) => entry.inFlight(c), handle: (c, parsed) => entry.handle(c, parsed) };
}

class WsOrderEntry {
  private readonly perSecond: WindowCounter;
  private readonly inFlightOf = new WeakMap<Conn, number>();

  constructor(private readonly deps: OrderEntryDeps) {
    this.perSecond = new WindowCounter(1000, () => deps.clock.now());
  }

  inFlight(c: Conn): number {
    return this.inFlightOf.get(c) ?? 0;
  }

  async handle(c: Conn, parsed: unknown): Promise<void> {
    const r = orderMessage.safeParse(parsed);
    if (!r.success) {
      // without a usable correlation id the refusal is a plain error message (with the id when there is one)
      const rawId = (parsed as { id?: unknown }).id;
      const id = correlationId.safeParse(rawId).success ? (rawId as string | number) : undefined;
      const e = validationError(r.error, "message");
      if (id === undefined) this.deps.out.sendError(c, e);
      else this.answer(c, id, e.status, e.toBody());
      return;
    }
    const msg = r.data;
    const n = this.inFlightOf.get(c) ?? 0;
    const maxInFlight = this.deps.config.ws.maxOrdersInFlight;
    if (n >= maxInFlight) {
      const e = new ApiError(
        "RATE_LIMIT_EXCEEDED",
        `at most ${maxInFlight} orders of one connection in flight; wait for their answers`,
        {
          reason: "orders_in_flight",
          limit: maxInFlight,
        },
      );
      this.answer(c, msg.id, e.status, e.toBody());
      return;
    }
    this.inFlightOf.set(c, n + 1);
    try {
      await this.place(c, msg);
      metrics.ordersAccepted.inc("websocket");
    } catch (err) {
      metrics.ordersRefused.inc("websocket", refusalReason(err));
      const { status, body, error } = toHttpError(err);
      if (status >= 500) {
        // a retryable refusal (chain down, settlement backlog) is the service working as designed: no stack
        if (error.retryable)
          this.deps.logger.warn({ conn: c.id, code: error.code, reason: error.message }, "ws order refused");
        else this.deps.logger.error({ conn: c.id, err: error.cause ?? err }, "ws order failed");
      }
      this.answer(c, msg.id, status, body, error.retryAfterS);
    } finally {
      this.inFlightOf.set(c, (this.inFlightOf.get(c) ?? 1) - 1);
    }
  }

  private async limit(name: string): Promise<void> {
    const max = this.deps.config.rateLimits.ordersPerSecond;
    const hit = this.perSecond.hit(name);
    if (hit.hits > max) {
      throw new ApiError("RATE_LIMIT_EXCEEDED", `rate limit exceeded: ${max} per 1 s`, {
        limit: max,
        window_ms: 1000,
        retry_after: Math.max(1, Math.ceil((hit.resetAt - this.deps.clock.now()) / 1000)),
      });
    }
  }

  /** `retryAfterS`: REST's Retry-After header, as a field beside the body */
  private answer(c: Conn, id: string | number, status: number, body: unknown, retryAfterS?: number): void {
    const retry = retryAfterS !== undefined ? `,"retry_after":${retryAfterS}` : "";
    this.deps.out.send(
      c,
      `{"type":"order_result","id":${JSON.stringify(id)},"status":${status}${retry},"body":${JSON.stringify(body)}}`,
    );
  }

  private async place(c: Conn, msg: OrderMessage): Promise<void> {
    const body = msg.body;
    if (isWalletSigned(body)) {
      // the signature authenticates the order; the per-trader limit once it is recovered (the placer calls it)
      const result = await this.deps.placeOrder(body, null, {
        authenticated: (account: Address) => this.limit(`wallet:${account.toLowerCase()}`),
      });
      this.answer(c, msg.id, 201, result.order);
      return;
    }
    if (!c.key || !c.account) {
      throw new ApiError(
        "UNAUTHORIZED",
        "an API-key order needs an authenticated connection (send `auth` first), or sign the order with the wallet",
        {
          reason: "missing_credentials",
        },
      );
    }
    const auth = { scheme: "api_key" as const, account: c.account, key: c.key };
    authorize(auth, "trade", c.ip);
    await this.limit(`key:${c.key.id}`);
    const result = await this.deps.placeOrder(body, auth);
    this.answer(c, msg.id, 201, result.order);
  }
}
