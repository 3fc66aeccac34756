// Orders: place (API key or wallet-signed), cancel, one order with its fills, the account's orders.
import { authorize } from "../../auth/authenticate";
import { ApiError } from "../../errors";
import { findMarket } from "../order-intent";
import { isWalletSigned } from "../place-order";
import { presentOrder, presentOrderWithFills } from "../present";
import { authOf, jsonBody, parseWith, refusalAnswers, runMiddleware, applyAuthLimits, type Route } from "../route-kit";
import {
  cancelResponse,
  errorResponse,
  orderIdParams,
  orderResponse,
  ordersQuery,
  ordersResponse,
  orderWithFillsResponse,
  placeOrderBody,
} from "../schemas";
import { DEX_OPEN_STATUSES, type DexOrderStatus } from "../../../pipeline/service";
import { dexRoute, privateRefusals, type RouteContext } from "./context";
import type { Request, Response } from "express";
import { metrics, refusalReason } from "../../../runtime/metrics";

const errors = privateRefusals("invalid request, symbol, type or balance", "permission, IP allowlist or key limit");
const READ = ["read", "account"] as const;

// POST /v1/orders: counted by its outcome in dex_orders_accepted_total / dex_orders_refused_total
const NO_HOOKS = {};

/** Wallet-signed: limited per trader once the signature is verified (the placer calls this). */
function walletHooks(c: RouteContext, req: Request, res: Response) {
  return {
    authenticated: async (account: string) => {
      res.locals.trader = account.toLowerCase();
      await runMiddleware(c.limiters.walletOrders, req, res);
    },
  };
}

async function placeFromRest(c: RouteContext, req: Request, res: Response): Promise<void> {
  const body = parseWith(placeOrderBody, jsonBody(req), "body");
  let auth = null;
  if (!isWalletSigned(body)) {
    auth = await c.auth.authenticate(req, { apiKey: true, hmac: true });
    res.locals.auth = auth;
    await applyAuthLimits(c.limiters, auth, "order", req, res);
    authorize(auth, "trade", req.ip);
  }
  const result = await c.placeOrder(body, auth, auth ? NO_HOOKS : walletHooks(c, req, res));
  if (result.replayed) res.setHeader("Idempotent-Replayed", "true");
  res.status(201).json(result.order);
}

async function ownOrder(c: RouteContext, orderId: string, account: string) {
  const o = await c.service.getOrder(orderId);
  // Another account's order is reported exactly like a missing one: existence is not revealed.
  if (!o || o.account.toLowerCase() !== account.toLowerCase())
    throw new ApiError("ORDER_NOT_FOUND", "order not found", { order_id: orderId });
  return o;
}

export function orderRoutes(c: RouteContext): Route[] {
  return [postOrdersRoute(c), deleteOrdersOrderIdRoute(c), getOrdersOrderIdRoute(c), getOrdersRoute(c)];
}

function postOrdersRoute(c: RouteContext): Route {
  return {
    spec: {
      method: "post",
      path: "/v1/orders",
      summary:
        "Place an order (spec 4.B). Either with an API key (X-API-Key + X-API-Secret, or the signed scheme) or wallet-signed: the body carries the EIP-712 `order` and its `signature`, no key needed.",
      auth: "order",
      body: placeOrderBody,
      responses: {
        201: {
          description:
            "the order as it stands after matching (a retry with the same client_order_id returns the first result)",
          schema: orderResponse,
        },
        ...refusalAnswers({ 409: "client_order_id reused for another order", 413: "body too large", ...errors }),
        // pipeline/settle/chain-availability.ts: the home chain's node is down (restarting), or the settlement
        // backlog is full (SERVICE_UNAVAILABLE, details.retryAfterMs); nothing is placed, retry later
        503: {
          description:
            "CHAIN_UNAVAILABLE: the home chain cannot settle now (details {chainId, retry_after}); or SERVICE_UNAVAILABLE: settlement halted or its backlog full. Nothing is placed; retry after Retry-After seconds",
          schema: errorResponse,
          headers: {
            "Retry-After": {
              description: "seconds to wait before retrying (CHAIN_UNAVAILABLE)",
              schema: { type: "integer", minimum: 1 },
            },
          },
        },
      },
    },
    handlers: [
      async (req, res) => {
        try {
          await placeFromRest(c, req, res);
          metrics.ordersAccepted.inc("rest");
        } catch (e) {
          metrics.ordersRefused.inc("rest", refusalReason(e));
          throw e;
        }
      },
    ],
  };
}

function deleteOrdersOrderIdRoute(c: RouteContext): Route {
  const declared = {
    summary: "Cancel one of your open orders (spec 4.B)",
    auth: "key_or_wallet",
    access: ["trade", "cancel"],
    params: orderIdParams,
    answers: {
      200: ["the cancelled order", cancelResponse],
      404: "no such order of yours",
      409: "the order is no longer open",
      ...errors,
    },
  } as const;
  return dexRoute(c, "delete /v1/orders/{order_id}", declared, async ({ params: { order_id }, res }) => {
    const auth = authOf(res);
    const o = await ownOrder(c, order_id, auth.account);
    const agent = auth.key ? await c.keys.agentOf(auth.key.id) : null;
    const cancelled = await c.service.cancelOrder({
      orderId: order_id,
      account: auth.account,
      agent: agent ?? undefined,
      reason: "user_cancelled",
    });
    return presentOrder(findMarket(c.service, o.symbol), cancelled);
  });
}

function getOrdersOrderIdRoute(c: RouteContext): Route {
  const summary = "One of your orders with its status and fills";
  const answers = { 200: ["the order", orderWithFillsResponse], 404: "no such order of yours", ...errors } as const;
  const declared = { summary, auth: "key_or_wallet", access: READ, params: orderIdParams, answers } as const;
  return dexRoute(c, "get /v1/orders/{order_id}", declared, async ({ params: { order_id }, res }) => {
    const o = await ownOrder(c, order_id, authOf(res).account);
    return presentOrderWithFills(findMarket(c.service, o.symbol), o);
  });
}

function getOrdersRoute(c: RouteContext): Route {
  const summary = "Your orders, newest first (status=open by default: pending_trigger, open, partially_filled)";
  const answers = { 200: ["orders", ordersResponse], ...errors } as const;
  const declared = { summary, auth: "key_or_wallet", access: READ, query: ordersQuery, answers } as const;
  return dexRoute(c, "get /v1/orders", declared, async ({ query: q, res }) => {
    if (q.symbol) findMarket(c.service, q.symbol);
    const status = q.status ?? "open";
    const statuses: readonly DexOrderStatus[] | undefined =
      status === "open" ? DEX_OPEN_STATUSES : status === "all" ? undefined : [status as DexOrderStatus];
    const orders = await c.service.listOrders({
      account: authOf(res).account,
      statuses,
      symbol: q.symbol,
      limit: q.limit ?? 100,
    });
    const markets = new Map(c.service.listMarkets().map((m) => [m.symbol, m]));
    return {
      orders: orders.filter((o) => markets.has(o.symbol)).map((o) => presentOrder(markets.get(o.symbol)!, o)),
    };
  });
}
