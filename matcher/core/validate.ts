// Stateless checks of a place command against spec 3.2 and the market's limits.
// Returns the rejection, or null when the command is well formed.
import type { MarketConfig, OrderType, PlaceCommand, RejectCode, TimeInForce } from "./types";

export interface Rejection {
  code: RejectCode;
  reason: string;
}

/** Spec 3.2: the time-in-force values each order type allows. */
export const ALLOWED_TIME_IN_FORCE: Readonly<Record<OrderType, readonly TimeInForce[]>> = {
  market: ["IOC"],
  limit: ["GTC", "IOC", "FOK", "GTD", "POST_ONLY"],
  stop_loss: ["GTC"],
  stop_loss_limit: ["GTC"],
  take_profit: ["GTC"],
  take_profit_limit: ["GTC"],
  limit_maker: ["GTC"],
};

const TIME_IN_FORCE = new Set<string>(["GTC", "IOC", "FOK", "GTD", "POST_ONLY"]);
const STP_MODES = new Set<string>(["cancel_newest", "cancel_oldest", "cancel_both", "decrement"]);

export function isPositiveSafeInt(x: unknown): x is number {
  return typeof x === "number" && Number.isSafeInteger(x) && x > 0;
}

export function isNonEmptyString(x: unknown): x is string {
  return typeof x === "string" && x.length > 0;
}

function reject(code: RejectCode, reason: string): Rejection {
  return { code, reason };
}

/** Whether the type carries a limit price (and so can rest on the book). */
export function isLimitType(type: OrderType): boolean {
  return type === "limit" || type === "limit_maker" || type === "stop_loss_limit" || type === "take_profit_limit";
}

export function isStopType(type: OrderType): boolean {
  return type === "stop_loss" || type === "stop_loss_limit" || type === "take_profit" || type === "take_profit_limit";
}

/** The table of ALLOWED_TIME_IN_FORCE as branches: this runs for every order. */
function typeAllowsTimeInForce(type: OrderType, tif: TimeInForce): boolean {
  switch (type) {
    case "limit":
      return tif === "GTC" || tif === "IOC" || tif === "FOK" || tif === "GTD" || tif === "POST_ONLY";
    case "market":
      return tif === "IOC";
    case "stop_loss":
    case "stop_loss_limit":
    case "take_profit":
    case "take_profit_limit":
    case "limit_maker":
      return tif === "GTC";
    default:
      return false;
  }
}

export function validatePlace(cmd: PlaceCommand, market: MarketConfig | undefined, nowTs: number): Rejection | null {
  if (!isNonEmptyString(cmd.orderId)) return reject("INVALID_ORDER", "orderId must be a non-empty string");
  if (!isNonEmptyString(cmd.account)) return reject("INVALID_ORDER", "account must be a non-empty string");
  if (cmd.clientOrderId !== undefined && typeof cmd.clientOrderId !== "string")
    return reject("INVALID_ORDER", "clientOrderId must be a string");
  if (market === undefined) return reject("INVALID_SYMBOL", `trading pair not supported: ${String(cmd.symbol)}`);
  if (cmd.side !== "buy" && cmd.side !== "sell") return reject("INVALID_ORDER", "side must be buy or sell");
  if (!typeAllowsTimeInForce(cmd.type, cmd.timeInForce)) {
    const allowed = Object.prototype.hasOwnProperty.call(ALLOWED_TIME_IN_FORCE, cmd.type) ? ALLOWED_TIME_IN_FORCE[cmd.type] : undefined;
    if (allowed === undefined) return reject("INVALID_ORDER_TYPE", `order type not recognized: ${String(cmd.type)}`);
    if (!TIME_IN_FORCE.has(cmd.timeInForce))
      return reject("INVALID_ORDER_TYPE", `time in force not recognized: ${String(cmd.timeInForce)}`);
    return reject("INVALID_ORDER_TYPE", `${cmd.type} allows time in force ${allowed.join(", ")}, not ${cmd.timeInForce}`);
  }
  if (!isPositiveSafeInt(cmd.sizeLots)) return reject("INVALID_SIZE", "sizeLots must be a positive safe integer");
  if (cmd.sizeLots < market.minSizeLots) return reject("INVALID_SIZE", `sizeLots below the minimum ${market.minSizeLots}`);
  if (cmd.sizeLots > market.maxSizeLots) return reject("INVALID_SIZE", `sizeLots above the maximum ${market.maxSizeLots}`);
  const maxPrice = market.maxPriceTicks ?? Number.MAX_SAFE_INTEGER;
  if (cmd.priceTicks !== undefined) {
    if (!isPositiveSafeInt(cmd.priceTicks)) return reject("INVALID_PRICE", "priceTicks must be a positive safe integer");
    if (cmd.priceTicks > maxPrice) return reject("INVALID_PRICE", `priceTicks above the maximum ${maxPrice}`);
  } else if (isLimitType(cmd.type)) {
    return reject("INVALID_PRICE", `${cmd.type} needs priceTicks`);
  }
  if (isStopType(cmd.type)) {
    if (!isPositiveSafeInt(cmd.triggerPriceTicks))
      return reject("INVALID_TRIGGER_PRICE", "triggerPriceTicks must be a positive safe integer");
    if (cmd.triggerPriceTicks > maxPrice) return reject("INVALID_TRIGGER_PRICE", `triggerPriceTicks above the maximum ${maxPrice}`);
  } else if (cmd.triggerPriceTicks !== undefined) {
    return reject("INVALID_TRIGGER_PRICE", `${cmd.type} takes no triggerPriceTicks`);
  }
  if (cmd.timeInForce === "GTD") {
    if (!Number.isSafeInteger(cmd.expiresAt)) return reject("INVALID_EXPIRY", "GTD needs expiresAt (integer ms)");
    if (cmd.expiresAt! <= nowTs) return reject("INVALID_EXPIRY", "expiresAt is not in the future");
  } else if (cmd.expiresAt !== undefined) {
    return reject("INVALID_EXPIRY", "expiresAt is only for GTD");
  }
  if (cmd.hidden !== undefined && typeof cmd.hidden !== "boolean") return reject("INVALID_ORDER", "hidden must be a boolean");
  const restsOnBook = isLimitType(cmd.type) && cmd.timeInForce !== "IOC" && cmd.timeInForce !== "FOK";
  if (cmd.hidden === true && !restsOnBook) return reject("INVALID_ORDER", "only orders that can rest may be hidden");
  if (cmd.icebergVisibleLots !== undefined) {
    if (!isPositiveSafeInt(cmd.icebergVisibleLots) || cmd.icebergVisibleLots > cmd.sizeLots)
      return reject("INVALID_SIZE", "icebergVisibleLots must be a positive safe integer not above sizeLots");
    if (!restsOnBook) return reject("INVALID_ORDER", "only orders that can rest may be icebergs");
    if (cmd.hidden === true) return reject("INVALID_ORDER", "an order is hidden or an iceberg, not both");
  }
  if (cmd.stp !== undefined && cmd.stp !== "cancel_newest" && !STP_MODES.has(cmd.stp)) return reject("INVALID_ORDER", `stp mode not recognized: ${String(cmd.stp)}`);
  return null;
}
