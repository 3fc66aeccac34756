// The order endpoints (spec 4.A), mounted at /v1 behind both tokens (res.locals.principal, .account):
//   POST   /orders           {assetId, side: BUY|SELL, orderType: market|limit, quantity, limitPrice?, isPreIPO?}
//                            -> 201 {data: order, message}   (10 per second per user, spec 8)
//   GET    /orders           ?status=PENDING|EXECUTED|CANCELLED|ALL (default ALL) &assetId &limit (1-500, 100)
//   GET    /orders/{id}      -> {data: order with filledQuantity, averagePrice, executedAt / cancelledAt}
//   PATCH  /orders/{id}      {quantity?, limitPrice?} -> cancel-replace: {data: the new order (replaces: id)}
//   DELETE /orders/{id}      -> {data: {orderId, status: CANCELLED, cancelledAt}}
//   POST   /sandbox/investor-profile {annualIncome?, netWorth?, usPerson?}  (sandbox only)
// quantity and limitPrice are JSON numbers or decimal strings, converted exactly (no float arithmetic).
import { Router, type Request, type Response } from "express";
import { z } from "zod";
import { numberToDecimalString, parseDecimal } from "../../../sdk/decimal";
import { createLimiter } from "../../dex/rate-limits";
import { validationError } from "../../errors";
import type { AccountRecord } from "../accounts";
import { OrderApiError } from "./errors";
import type { Orders } from "./service";

/** Spec 8: order placement 10 orders per second (per user). */
export const ORDERS_PER_SECOND = 10;
const MAX_DECIMAL_LENGTH = 40;
/** The largest income or net worth the sandbox accepts: $10^12. */
const MAX_PROFILE_DOLLARS = 1_000_000_000_000n;

const decimal = z.union([z.number(), z.string().max(MAX_DECIMAL_LENGTH)]).transform((v, ctx) => {
  const text = typeof v === "number" ? numberToDecimalString(v) : v.trim();
  if (text === null || !/^\d+(\.\d+)?$/.test(text) || text.length > MAX_DECIMAL_LENGTH) {
    ctx.addIssue({ code: "custom", message: "a positive decimal number" });
    return z.NEVER;
  }
  return text;
});
/** Spec 2.8's order types on the exchange API. */
export const ORDER_TYPES = ["market", "limit"] as const;
export const orderCreateBody = z
  .object({
    assetId: z.string().min(1).max(64),
    side: z.enum(["BUY", "SELL"]),
    orderType: z.enum(ORDER_TYPES),
    quantity: decimal,
    limitPrice: decimal.optional(),
    isPreIPO: z.boolean().optional(),
  })
  .strict();
export const orderUpdateBody = z
  .object({ quantity: decimal.optional(), limitPrice: decimal.optional() })
  .strict()
  .refine((b) => b.quantity !== undefined || b.limitPrice !== undefined, {
    message: "quantity or limitPrice is required",
  });
export const orderListQuery = z
  .object({
    status: z.enum(["PENDING", "EXECUTED", "CANCELLED", "ALL"]).default("ALL"),
    assetId: z.string().min(1).max(64).optional(),
    limit: z
      .string()
      .regex(/^\d{1,3}$/)
      .transform(Number)
      .pipe(z.number().int().min(1).max(500))
      .default(100),
  })
  .strict();
const dollars = decimal.transform((v, ctx) => {
  const cents = parseDecimal(v, 2);
  if (cents === null || cents > MAX_PROFILE_DOLLARS * 100n) {
    ctx.addIssue({ code: "custom", message: `dollars, whole cents at most, up to ${MAX_PROFILE_DOLLARS}` });
    return z.NEVER;
  }
  return cents;
});
export const investorProfileBody = z
  .object({ annualIncome: dollars.optional(), netWorth: dollars.optional(), usPerson: z.boolean().optional() })
  .strict();

function parse<S extends z.ZodType>(schema: S, value: unknown, where: string): z.output<S> {
  const r = schema.safeParse(value);
  if (!r.success) throw validationError(r.error, where);
  return r.data;
}

const accountOf = (res: Response): AccountRecord => {
  const a = res.locals.account as AccountRecord | undefined;
  if (!a) throw new OrderApiError("UNAUTHORIZED", "missing or invalid authentication", { reason: "no_account" });
  return a;
};

export function createOrdersRouter(deps: {
  orders: Orders;
  mode: "sandbox" | "production";
  ordersPerSecond?: number;
}): Router {
  const r = Router();
  const perUser = createLimiter("orders", 1000, deps.ordersPerSecond ?? ORDERS_PER_SECOND, (_req, res) => {
    const p = res.locals.principal as { issuer: string; userId: string };
    return `${p.issuer}|${p.userId}`;
  });
  const noQuery = (req: Request) => parse(z.object({}).strict(), req.query, "query");

  r.post("/orders", perUser, async (req, res) => {
    noQuery(req);
    const given = (req.body as { orderType?: unknown } | undefined)?.orderType;
    // spec 7: an order type the exchange does not support is INVALID_ORDER_TYPE (a missing one stays INVALID_REQUEST)
    if (given !== undefined && !(ORDER_TYPES as readonly unknown[]).includes(given)) {
      throw new OrderApiError(
        "INVALID_ORDER_TYPE",
        `unsupported order type: the exchange API takes ${ORDER_TYPES.join(" or ")}`,
        { orderType: typeof given === "string" ? given.slice(0, 32) : typeof given, supported: [...ORDER_TYPES] },
      );
    }
    const b = parse(orderCreateBody, req.body ?? {}, "body");
    const data = await deps.orders.create(accountOf(res), b);
    res.status(201).json({ data, message: `order ${String(data.status)}` });
  });
  r.get("/orders", async (req, res) => {
    const q = parse(orderListQuery, req.query, "query");
    const data = await deps.orders.list(accountOf(res), q);
    res.json({ data, message: `${data.length} orders` });
  });
  r.get("/orders/:id", async (req, res) => {
    noQuery(req);
    res.json({ data: await deps.orders.get(accountOf(res), String(req.params.id)), message: "order" });
  });
  r.patch("/orders/:id", perUser, async (req, res) => {
    noQuery(req);
    const b = parse(orderUpdateBody, req.body ?? {}, "body");
    const data = await deps.orders.update(accountOf(res), String(req.params.id), b);
    res.json({ data, message: "order replaced" });
  });
  r.delete("/orders/:id", async (req, res) => {
    noQuery(req);
    res.json({ data: await deps.orders.cancel(accountOf(res), String(req.params.id)), message: "order cancelled" });
  });
  r.post("/sandbox/investor-profile", async (req, res) => {
    if (deps.mode !== "sandbox") throw new OrderApiError("ROUTE_NOT_FOUND", `no route ${req.method} ${req.path}`, {});
    const b = parse(investorProfileBody, req.body ?? {}, "body");
    const account = accountOf(res);
    const current = await deps.orders.profileOf(account);
    const next = {
      annualIncomeCents: b.annualIncome ?? current.annualIncomeCents,
      netWorthCents: b.netWorth ?? current.netWorthCents,
      usPerson: b.usPerson ?? current.usPerson,
    };
    await deps.orders.setProfile(account.id, next);
    res.json({
      data: {
        annualIncome: Number(next.annualIncomeCents) / 100,
        netWorth: Number(next.netWorthCents) / 100,
        usPerson: next.usPerson,
      },
      message: "investor profile updated",
    });
  });
  return r;
}
