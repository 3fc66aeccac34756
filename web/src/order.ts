// The order form's rules, pure (tested in node): decimals typed by a person -> rounded to the market's tick
// and lot -> the POST /v1/orders body and the EIP-712 Order the wallet signs. Every refusal is a sentence
// the page shows next to the field; nothing is sent when there is one.
import { formatDecimal, parseDecimal, parseExactDecimal } from "../../sdk/decimal";

export interface MarketInfo {
  symbol: string;
  base: { symbol: string; address: `0x${string}`; decimals: number };
  quote: { symbol: string; address: `0x${string}`; decimals: number };
  tick_size: string;
  lot_size: string;
  min_size: string;
  max_size: string;
  fees: { maker_bps: number; taker_bps: number };
  order_types: { type: string; time_in_force: string[]; price: boolean; trigger_price: boolean }[];
  signed_order: {
    price_exponent: number;
    amount_exponent: number;
    base_token: `0x${string}`;
    quote_token: `0x${string}`;
  };
}

export interface MarketsInfo {
  chain_id: number;
  settlement: `0x${string}`;
  eip712: {
    domain: { name: string; version: string; chainId: number; verifyingContract: `0x${string}` };
    types: Record<string, { name: string; type: string }[]>;
    primary_type: "Order";
    flags: { post_only: number };
  };
  markets: MarketInfo[];
}

export interface OrderForm {
  side: "buy" | "sell";
  type: string;
  timeInForce: string;
  price: string;
  triggerPrice: string;
  /** the worst price the signature allows, for the types without a limit price (market, stop_loss, take_profit) */
  protectionPrice: string;
  size: string;
  hidden: boolean;
  icebergVisibleSize: string;
  /** GTD: when the order leaves the book, Unix ms */
  expiresAtMs: number | null;
}

export interface SignedOrderFields {
  trader: `0x${string}`;
  baseToken: `0x${string}`;
  quoteToken: `0x${string}`;
  side: number;
  price: bigint;
  amount: bigint;
  expiry: bigint;
  nonce: bigint;
  flags: number;
}

export interface BuiltOrder {
  /** what was typed, as it will be sent (rounded to tick and lot) */
  rounded: {
    price: string | null;
    triggerPrice: string | null;
    size: string;
    icebergVisibleSize: string | null;
    signedPrice: string;
  };
  message: SignedOrderFields;
  body: Record<string, unknown>;
}

export type FieldErrors = Partial<
  Record<"price" | "triggerPrice" | "protectionPrice" | "size" | "icebergVisibleSize" | "expiresAt" | "type", string>
>;

const MAX_INPUT = 40;

/** Rounds a typed decimal to a multiple of `step` (a decimal text). `mode`: nearest (half up) or down.
 *  Returns the multiple's count, or an error sentence. */
export function toSteps(
  input: string,
  step: string,
  mode: "nearest" | "down",
  what: string,
): { steps: bigint } | { error: string } {
  const text = input.trim();
  if (text === "") return { error: `Enter the ${what}.` };
  const v = parseExactDecimal(text, MAX_INPUT);
  if (!v) return { error: `The ${what} must be a number such as 12.5 (digits and one decimal point).` };
  if (v.digits <= 0n) return { error: `The ${what} must be more than zero.` };
  const s = parseExactDecimal(step)!;
  const scale = Math.max(v.scale, s.scale);
  const vi = v.digits * 10n ** BigInt(scale - v.scale);
  const si = s.digits * 10n ** BigInt(scale - s.scale);
  const steps = mode === "down" ? vi / si : (2n * vi + si) / (2n * si);
  if (steps <= 0n) return { error: `The ${what} is below the smallest step, ${step}.` };
  return { steps };
}

/** steps x step as decimal text */
export function stepsText(steps: bigint, step: string): string {
  const s = parseExactDecimal(step)!;
  return formatDecimal(steps * s.digits, s.scale);
}

type OrderRule = MarketInfo["order_types"][number];

/** The limit, trigger and worst prices the type needs, rounded to the tick (null where the type has none). */
function readPrices(m: MarketInfo, rule: OrderRule, f: OrderForm, errors: FieldErrors) {
  const price = (input: string, what: string, key: keyof FieldErrors): string | null => {
    const r = toSteps(input, m.tick_size, "nearest", what);
    if ("error" in r) {
      errors[key] = r.error;
      return null;
    }
    return stepsText(r.steps, m.tick_size);
  };
  return {
    limitPrice: rule.price ? price(f.price, "limit price", "price") : null,
    triggerPrice: rule.trigger_price ? price(f.triggerPrice, "trigger price", "triggerPrice") : null,
    protection: rule.price ? null : price(f.protectionPrice, "worst price", "protectionPrice"),
  };
}

/** The size rounded down to the lot, within the market's minimum and maximum. */
function readSize(m: MarketInfo, f: OrderForm, errors: FieldErrors): string | null {
  const sz = toSteps(f.size, m.lot_size, "down", "size");
  if ("error" in sz) {
    errors.size = sz.error;
    return null;
  }
  const lots = sz.steps;
  const minLots = (toSteps(m.min_size, m.lot_size, "down", "") as { steps: bigint }).steps;
  const maxLots = (toSteps(m.max_size, m.lot_size, "down", "") as { steps: bigint }).steps;
  if (lots < minLots) errors.size = `The size is below this market's minimum, ${m.min_size} ${m.base.symbol}.`;
  else if (lots > maxLots) errors.size = `The size is above this market's maximum, ${m.max_size} ${m.base.symbol}.`;
  return stepsText(sz.steps, m.lot_size);
}

/** The iceberg's visible size (hidden and iceberg orders must be able to rest; not both). */
function readIceberg(
  m: MarketInfo,
  rule: OrderRule,
  f: OrderForm,
  tif: string,
  size: string | null,
  errors: FieldErrors,
): string | null {
  const resting = !["ioc", "fok"].includes(tif) && f.type !== "market" && rule.price;
  if ((f.hidden || f.icebergVisibleSize.trim() !== "") && !resting) {
    errors.icebergVisibleSize =
      "Hidden and iceberg orders must be able to rest in the book: a limit type with gtc, gtd or post_only.";
  }
  if (f.hidden && f.icebergVisibleSize.trim() !== "")
    errors.icebergVisibleSize = "An order is either hidden or an iceberg, not both.";
  if (errors.icebergVisibleSize || f.icebergVisibleSize.trim() === "") return null;
  const r = toSteps(f.icebergVisibleSize, m.lot_size, "down", "visible size");
  if ("error" in r) {
    errors.icebergVisibleSize = r.error;
    return null;
  }
  if (size !== null && r.steps > (toSteps(size, m.lot_size, "down", "") as { steps: bigint }).steps) {
    errors.icebergVisibleSize = "The visible size cannot be larger than the order's size.";
  }
  return stepsText(r.steps, m.lot_size);
}

/** Validates the form against the market and builds what is signed and sent. */
export function buildOrder(
  info: MarketsInfo,
  m: MarketInfo,
  f: OrderForm,
  ctx: { trader: `0x${string}`; nowMs: number; nonce: bigint },
): { ok: true; order: BuiltOrder } | { ok: false; errors: FieldErrors } {
  const errors: FieldErrors = {};
  const rule = m.order_types.find((t) => t.type === f.type);
  if (!rule) return { ok: false, errors: { type: `The order type ${f.type} is not offered on ${m.symbol}.` } };
  const tif = rule.time_in_force.includes(f.timeInForce) ? f.timeInForce : rule.time_in_force[0];
  const { limitPrice, triggerPrice, protection } = readPrices(m, rule, f, errors);
  const size = readSize(m, f, errors);
  const iceberg = readIceberg(m, rule, f, tif, size, errors);
  if (tif === "gtd") {
    if (f.expiresAtMs === null || !Number.isFinite(f.expiresAtMs))
      errors.expiresAt = "Choose when a good-till-date order expires.";
    else if (f.expiresAtMs <= ctx.nowMs) errors.expiresAt = "The expiry must be in the future.";
  }
  if (Object.keys(errors).length > 0 || size === null) return { ok: false, errors };

  const signedPriceText = (limitPrice ?? protection)!;
  const postOnly = tif === "post_only" || f.type === "limit_maker" ? info.eip712.flags.post_only : 0;
  // a resting order's signature lasts 30 days; a GTD one one minute past its expiry (the book drops it then)
  const expirySec =
    tif === "gtd" ? Math.ceil(f.expiresAtMs! / 1000) + 60 : Math.floor(ctx.nowMs / 1000) + 30 * 24 * 3600;
  const message: SignedOrderFields = {
    trader: ctx.trader,
    baseToken: m.signed_order.base_token,
    quoteToken: m.signed_order.quote_token,
    side: f.side === "buy" ? 0 : 1,
    price: parseDecimal(signedPriceText, m.signed_order.price_exponent)!,
    amount: parseDecimal(size, m.signed_order.amount_exponent)!,
    expiry: BigInt(expirySec),
    nonce: ctx.nonce,
    flags: postOnly,
  };
  const body: Record<string, unknown> = {
    symbol: m.symbol,
    side: f.side,
    type: f.type,
    size,
    time_in_force: tif,
    ...(limitPrice !== null ? { price: limitPrice } : {}),
    ...(triggerPrice !== null ? { trigger_price: triggerPrice } : {}),
    ...(tif === "gtd" ? { expires_at: f.expiresAtMs } : {}),
    ...(f.hidden ? { hidden: true } : {}),
    ...(iceberg !== null ? { iceberg_visible_size: iceberg } : {}),
  };
  return {
    ok: true,
    order: {
      rounded: { price: limitPrice, triggerPrice, size, icebergVisibleSize: iceberg, signedPrice: signedPriceText },
      message,
      body,
    },
  };
}

/** The POST body's `order` (integers as decimal strings) and `signature`. */
export function withSignature(o: BuiltOrder, signature: `0x${string}`): Record<string, unknown> {
  const m = o.message;
  return {
    ...o.body,
    order: {
      trader: m.trader,
      base_token: m.baseToken,
      quote_token: m.quoteToken,
      side: m.side,
      price: m.price.toString(),
      amount: m.amount.toString(),
      expiry: m.expiry.toString(),
      nonce: m.nonce.toString(),
      flags: m.flags,
    },
    signature,
  };
}

/** A fresh nonce: milliseconds x 2^20 + 20 random bits (two tabs of one wallet never collide in practice). */
export function freshNonce(nowMs: number, random: number): bigint {
  return BigInt(nowMs) * 1_048_576n + BigInt(Math.floor(random * 1_048_576));
}
