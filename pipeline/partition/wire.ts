// The partition transport's messages on NATS (docs/decisions/pipeline.md "Partitions"): JSON, bigints lossless
// as {"$n":"<decimal>"}, every message validated with zod on the side that receives it.
//
//   dex.p<n>.call      request/reply, served by partition n's leader only (a standby does not subscribe):
//                      {method, params, sign?} -> {result} | {error:{code,message,details}}
//   dex.p<n>.hello     request/reply, the leader's facts: {index, domain, markets, fees}
//   dex.market.<SYMBOL>.events   every DexEvent of the market, published by its partition's leader
//   <sign subject>     an API-key placement's order the leader asks the caller's API process to sign
//                      (its agent's key never leaves that process): {call, typedData} -> {signature} | {refused}
import { z } from "zod";
import type { Address } from "viem";
import { DEX_ORDER_TYPES, type DexEvent, type DexOrderType } from "../service";

// ------------------------------------------------------------------ codec

/** JSON with every bigint as {"$n": "<decimal>"}. */
export function encodeWire(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? { $n: v.toString() } : v));
}

const BIG = /^-?\d{1,80}$/;
/** The inverse of encodeWire; throws on text that is not JSON. JSON.parse without a reviver, then one walk that
 *  turns each {"$n": "<decimal>"} (that one key, an integer string) into a bigint: a reviver (a call into JS for
 *  every value) made decoding ~3x slower, and the API processes decode every event of the partition
 *  (docs/measurements.md, 2026-11-24). */
export function decodeWire(text: string): unknown {
  return revive(JSON.parse(text));
}

function revive(v: unknown): unknown {
  if (v === null || typeof v !== "object") return v;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      if (x !== null && typeof x === "object") v[i] = revive(x);
    }
    return v;
  }
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o);
  if (keys.length === 1 && keys[0] === "$n") {
    const n = o.$n;
    if (typeof n === "string" && BIG.test(n)) return BigInt(n);
  }
  for (const k of keys) {
    const x = o[k];
    if (x !== null && typeof x === "object") o[k] = revive(x);
  }
  return o;
}

// ------------------------------------------------------------------ shapes

const address = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/)
  .transform((a) => a as Address);
const hex = z
  .string()
  .regex(/^0x[0-9a-fA-F]*$/)
  .transform((h) => h as `0x${string}`);
const big = z.bigint();
const ms = z.number().finite();
const str = z.string().max(512);

export const marketSchema = z.object({
  symbol: str,
  baseToken: address,
  quoteToken: address,
  baseDecimals: z.number().int(),
  quoteDecimals: z.number().int(),
  tickSize: big,
  lotSize: big,
  minLots: big,
  maxLots: big,
});
export const feesSchema = z.object({ makerFeeBps: big, takerFeeBps: big });
export const domainSchema = z.object({
  name: str,
  version: str,
  chainId: z.number().int().positive(),
  verifyingContract: address,
});

const side = z.enum(["buy", "sell"]);
const orderType = z.enum(DEX_ORDER_TYPES as unknown as [DexOrderType, ...DexOrderType[]]);
const tif = z.enum(["gtc", "ioc", "fok", "gtd", "post_only"]);
const status = z.enum(["pending_trigger", "open", "partially_filled", "filled", "cancelled", "expired", "rejected"]);

/** an order's terms, as placed and as told back */
const terms = {
  symbol: str,
  side,
  type: orderType,
  timeInForce: tif,
  priceTicks: big.nullable(),
  triggerPriceTicks: big.nullable(),
  sizeLots: big,
};

export const fillSchema = z.object({
  tradeId: str,
  orderId: str,
  priceTicks: big,
  sizeLots: big,
  liquidity: z.enum(["maker", "taker"]),
  feeUnits: big,
  feeToken: address,
  timestampMs: ms,
  settlement: z.enum(["pending", "settled"]),
  txHash: hex.nullable(),
});
export const orderSchema = z.object({
  orderId: str,
  clientOrderId: str,
  account: address,
  apiKeyId: str.nullable(),
  ...terms,
  filledLots: big,
  filledQuoteUnits: big,
  status,
  statusReason: str.nullable(),
  createdAtMs: ms,
  updatedAtMs: ms,
  expiresAtMs: ms.nullable(),
  hidden: z.boolean().optional(),
  icebergVisibleLots: big.nullable().optional(),
});
export const orderWithFillsSchema = orderSchema.extend({ fills: z.array(fillSchema) });
const level = z.object({ priceTicks: big, sizeLots: big });
export const bookSchema = z.object({
  symbol: str,
  bids: z.array(level),
  asks: z.array(level),
  sequence: z.number().int(),
  timestampMs: ms,
});
export const tradeSchema = z.object({
  tradeId: str,
  symbol: str,
  priceTicks: big,
  sizeLots: big,
  takerSide: side,
  timestampMs: ms,
  makerOrderId: str,
  takerOrderId: str,
});
export const statsSchema = z.object({
  symbol: str,
  lastPriceTicks: big.nullable(),
  volume24hLots: big,
  open24hPriceTicks: big.nullable().optional(),
  timestampMs: ms,
});
export const balanceSchema = z.object({
  token: address,
  asset: str,
  decimals: z.number().int(),
  onChainUnits: big,
  lockedUnits: big,
  pendingWithdrawalUnits: big,
  availableUnits: big,
});
export const eventSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("book"),
    symbol: str,
    sequence: z.number().int(),
    timestampMs: ms,
    bids: z.array(level),
    asks: z.array(level),
  }),
  z.object({ kind: z.literal("trade"), trade: tradeSchema }),
  z.object({ kind: z.literal("order"), account: address, order: orderSchema, fill: fillSchema.nullable() }),
]);
const typedDataSchema = z.object({
  domain: domainSchema,
  types: z.record(z.string(), z.array(z.object({ name: str, type: str }))),
  primaryType: str,
  message: z.record(z.string(), z.unknown()),
});

const intent = {
  orderId: str,
  clientOrderId: str,
  ...terms,
  expiresAtMs: ms.nullable(),
  hidden: z.boolean().optional(),
  icebergVisibleLots: big.nullable().optional(),
  receivedAtMs: ms,
  requestHash: str.optional(),
};
const settlementOrder = z.object({
  trader: address,
  baseToken: address,
  quoteToken: address,
  side: z.union([z.literal(0), z.literal(1)]),
  price: big,
  amount: big,
  expiry: big,
  nonce: big,
  flags: z.number().int(),
});
/** The message of a "sign" request as an API process signs it: exactly a canonical Order, each field in its EIP-712 type's range. */
export const orderMessageSchema = z.strictObject({
  trader: address,
  baseToken: address,
  quoteToken: address,
  side: z.union([z.literal(0), z.literal(1)]),
  price: big.min(0n).max(2n ** 256n - 1n),
  amount: big.min(0n).max(2n ** 256n - 1n),
  expiry: big.min(0n).max(2n ** 64n - 1n),
  nonce: big.min(0n).max(2n ** 256n - 1n),
  flags: z.number().int().min(0).max(255),
});
/** A placement on the wire: a wallet-signed one as it is; an API-key one names its agent's address (the
 *  partition asks the caller to sign with it). */
export const wirePlaceSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("signed"), ...intent, trader: address, order: settlementOrder, signature: hex }),
  z.object({ kind: z.literal("api_key"), ...intent, trader: address, apiKeyId: str, agentAddress: address }),
]);

const query = z.object({
  account: address,
  statuses: z.array(status).optional(),
  symbol: str.optional(),
  apiKeyId: str.optional(),
  sinceMs: ms.optional(),
  limit: z.number().int().positive(),
});

/** Every method: its params and its result. */
export const METHODS = {
  placeOrder: { params: wirePlaceSchema, result: orderWithFillsSchema },
  cancelOrder: { params: z.object({ orderId: str, account: address, reason: str }), result: orderSchema },
  cancelOrdersOfApiKey: { params: z.object({ apiKeyId: str, account: address, reason: str }), result: z.array(str) },
  getOrder: { params: z.object({ orderId: str }), result: orderWithFillsSchema.nullable() },
  findOrderByClientOrderId: {
    params: z.object({ account: address, clientOrderId: str }),
    result: z.object({ order: orderWithFillsSchema, requestHash: str.nullable() }).nullable(),
  },
  listOrders: { params: query, result: z.array(orderWithFillsSchema) },
  getBalances: { params: z.object({ account: address }), result: z.array(balanceSchema) },
  getOrderBook: {
    params: z.object({ symbol: str, depth: z.number().int().nonnegative().optional() }),
    result: bookSchema.nullable(),
  },
  getRecentTrades: {
    params: z.object({ symbol: str, limit: z.number().int().nonnegative() }),
    result: z.array(tradeSchema),
  },
  getMarketStats: { params: z.object({ symbol: str }), result: statsSchema.nullable() },
  prepareAgentApproval: { params: z.object({ trader: address, agent: address, expiry: big }), result: typedDataSchema },
  submitAgentApproval: {
    params: z.object({
      approval: z.object({ trader: address, agent: address, expiry: big, nonce: big, deadline: big }),
      signature: hex,
    }),
    result: z.null(),
  },
  submitAgentRenouncement: {
    params: z.object({
      renouncement: z.object({ trader: address, agent: address, nonce: big, deadline: big }),
      signature: hex,
    }),
    result: z.object({ txHash: hex.nullable(), agentExpiry: big }),
  },
  /** waits until the partition's chain follower reached the chain's head (after an approval sent elsewhere) */
  syncChain: { params: z.object({}), result: z.null() },
} as const;
export type MethodName = keyof typeof METHODS;

export const callSubject = (index: number) => `dex.p${index}.call`;
export const helloSubject = (index: number) => `dex.p${index}.hello`;
export const eventSubject = (symbol: string) => `dex.market.${symbol}.events`;
/** every market's events (an API process serves every market) */
export const ALL_EVENTS = "dex.market.*.events";

export const errorBodySchema = z.object({
  code: str,
  message: z.string().max(4096),
  details: z.record(z.string(), z.unknown()),
});
export const helloSchema = z.object({
  index: z.number().int().nonnegative(),
  domain: domainSchema,
  markets: z.array(marketSchema),
  fees: feesSchema,
});
export const callSchema = z.object({
  method: z.string().max(64),
  params: z.unknown(),
  /** an API-key placement: where to ask for the agent's signature, and this call's id there */
  sign: z.object({ subject: z.string().max(256), call: z.number().int().nonnegative() }).optional(),
});
export const answerSchema = z.union([z.object({ result: z.unknown() }), z.object({ error: errorBodySchema })]);
export const signRequestSchema = z.object({ call: z.number().int().nonnegative(), typedData: typedDataSchema });
export const signAnswerSchema = z.union([z.object({ signature: hex }), z.object({ refused: z.string().max(1024) })]);

/** The market an event belongs to (its subject). */
export const eventSymbol = (e: DexEvent): string =>
  e.kind === "book" ? e.symbol : e.kind === "trade" ? e.trade.symbol : e.order.symbol;
