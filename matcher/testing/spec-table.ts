// Spec 3.2's order-type table, written out again on purpose for the tests and the naive reference engine (the
// core has its own copy, matcher/core/validate.ts ORDER_TYPE_RULES, which the tests check against this one).
import type { OrderType, TimeInForce } from "../core/types";

export const SPEC_ORDER_TYPES: OrderType[] = [
  "market",
  "limit",
  "stop_loss",
  "stop_loss_limit",
  "take_profit",
  "take_profit_limit",
  "limit_maker",
];

export const SPEC_TIMES_IN_FORCE: TimeInForce[] = ["GTC", "IOC", "FOK", "GTD", "POST_ONLY"];

/** the time-in-force values each order type allows, in the order the rejection message lists them */
export const SPEC_TIME_IN_FORCE: Record<OrderType, TimeInForce[]> = {
  market: ["IOC"],
  limit: ["GTC", "IOC", "FOK", "GTD", "POST_ONLY"],
  stop_loss: ["GTC"],
  stop_loss_limit: ["GTC"],
  take_profit: ["GTC"],
  take_profit_limit: ["GTC"],
  limit_maker: ["GTC"],
};
