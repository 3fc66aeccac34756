// Zod schemas of the DEX REST API: the same objects validate requests and generate the OpenAPI document.
import { z } from "zod";
import { DEX_ORDER_STATUSES } from "../../pipeline/service";

const decimalText = z.string().regex(/^-?\d+(\.\d+)?$/, "a plain decimal");
/** Spec 2.14: price and size are numbers; an exact decimal string is accepted too. */
export const decimalInput = z.union([z.number(), decimalText]);
const uintText = z.string().regex(/^\d{1,78}$/, "an unsigned integer in decimal");
const uintInput = z.union([z.number().int().nonnegative(), uintText]);
const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, "a 20-byte hex address");
const hexSignature = z
  .string()
  .regex(/^0x([0-9a-fA-F]{2})+$/, "hex bytes")
  .max(2 + 2 * 4096);
export const symbolParam = z.string().min(1).max(32).describe("trading pair BASE-QUOTE, e.g. WETH-USD");
export const clientOrderId = z.string().regex(/^[A-Za-z0-9_.:-]{1,64}$/, "1 to 64 characters of A-Z a-z 0-9 _ . : -");

export const orderBookParams = z.object({ symbol: symbolParam }).strict();
export const orderBookQuery = z
  .object({ depth: z.coerce.number().int().min(1).max(1000).optional().describe("levels per side (default 20)") })
  .strict();
export const tradesQuery = z
  .object({
    symbol: symbolParam,
    limit: z.coerce.number().int().min(1).max(1000).optional().describe("newest first (default 100)"),
  })
  .strict();
export const orderIdParams = z.object({ order_id: z.string().uuid() }).strict();
export const ordersQuery = z
  .object({
    status: z
      .enum(["open", "all", ...DEX_ORDER_STATUSES])
      .optional()
      .describe("open = pending_trigger, open and partially_filled; default open"),
    symbol: symbolParam.optional(),
    limit: z.coerce.number().int().min(1).max(500).optional().describe("newest first (default 100)"),
  })
  .strict();
export const emptyQuery = z.object({}).strict();
export const apiKeyIdParams = z.object({ id: z.string().uuid() }).strict();

/** Fields of the Settlement contract's EIP-712 Order, snake_case, integers as decimal strings. */
export const signedOrderFields = z
  .object({
    trader: address,
    base_token: address,
    quote_token: address,
    side: z.union([z.literal(0), z.literal(1)]).describe("0 = buy, 1 = sell"),
    price: uintInput.describe("quote base units per 1e18 base base units"),
    amount: uintInput.describe("base-token base units"),
    expiry: uintInput.describe("unix seconds"),
    nonce: uintInput,
    flags: z.number().int().min(0).max(255).describe("bit 0 = POST_ONLY"),
  })
  .strict();

/** POST /v1/orders. Spec fields (4.B) + client_order_id (+ trigger_price, expires_at, hidden,
 *  iceberg_visible_size); a wallet-signed order adds `order` (the EIP-712 fields it signed) and `signature`
 *  (hidden and iceberg_visible_size are display options beside the signed order: docs/decisions/api.md). `type` and `time_in_force` are
 *  strings here so that an unknown type gets INVALID_ORDER_TYPE (spec 7), not a generic validation error. */
export const placeOrderBody = z
  .object({
    symbol: symbolParam,
    side: z.enum(["buy", "sell"]),
    type: z
      .string()
      .max(32)
      .describe("market, limit, stop_loss, stop_loss_limit, take_profit, take_profit_limit, limit_maker"),
    price: decimalInput.optional().describe("limit price (number); required except for market, stop_loss, take_profit"),
    size: decimalInput.describe("base quantity (number)"),
    time_in_force: z
      .string()
      .max(16)
      .optional()
      .describe("gtc, ioc, fok, gtd, post_only (upper case accepted); default gtc, ioc for market"),
    client_order_id: clientOrderId
      .optional()
      .describe("idempotency key: a retry with the same id returns the first result"),
    trigger_price: decimalInput.optional().describe("stop_loss(_limit) and take_profit(_limit) only"),
    expires_at: z
      .number()
      .int()
      .positive()
      .optional()
      .describe("GTD only: expiry, Unix ms; the order leaves the book then (status expired)"),
    hidden: z
      .boolean()
      .optional()
      .describe(
        "rest off the displayed book (REST, WebSocket and gRPC books never show it) yet match; orders that can rest only (limit types, not ioc/fok); default false",
      ),
    iceberg_visible_size: decimalInput
      .optional()
      .describe(
        "iceberg: the displayed slice (a whole number of lots, at most size), refreshed after each fill behind the orders already at its price; orders that can rest only, not with hidden",
      ),
    order: signedOrderFields.optional().describe("wallet-signed orders: the EIP-712 Order fields"),
    signature: hexSignature.optional().describe("wallet-signed orders: the EIP-712 signature of `order`"),
  })
  .strict();
export type PlaceOrderBody = z.infer<typeof placeOrderBody>;

export const createApiKeyBody = z
  .object({
    label: z.string().max(64).optional(),
    permissions: z
      .array(z.enum(["read", "trade", "transfer"]))
      .min(1)
      .max(3),
    ip_allowlist: z.array(z.string().max(64)).max(32).optional().describe("addresses or CIDR blocks"),
    position_limit: decimalInput
      .optional()
      .describe("quote currency: max notional of the key's open orders per market"),
    daily_loss_limit: decimalInput.optional().describe("quote currency: max loss of the key's fills per UTC day"),
  })
  .strict();

export const agentApprovalBody = z
  .object({
    approval: z
      .object({ trader: address, agent: address, expiry: uintInput, nonce: uintInput, deadline: uintInput })
      .strict(),
    signature: hexSignature,
  })
  .strict();

// ------------------------------------------------------------------ responses (documentation)

const level = z.object({ price: z.number(), size: z.number() });
export const orderBookResponse = z.object({
  symbol: z.string(),
  bids: z.array(level),
  asks: z.array(level),
  timestamp: z.number().int().describe("Unix ms"),
  sequence: z
    .number()
    .int()
    .describe(
      "the book's sequence: the per-market book event counter that the WebSocket orderbook channel and gRPC GetOrderBook carry too. To follow the book from this snapshot, subscribe to the WebSocket at the same depth, skip updates whose sequence is at most this one, and apply the rest (the first one's prev_sequence is at most this one; each next one's prev_sequence is the last one's sequence). docs/integrate.md#book-sync",
    ),
});
const fill = z.object({
  trade_id: z.string(),
  price: z.number(),
  size: z.number(),
  liquidity: z.enum(["maker", "taker"]),
  fee: z.string().describe("decimal, in fee_token units"),
  fee_token: z.string(),
  timestamp: z.number().int(),
  settlement: z.enum(["pending", "settled"]),
  tx_hash: z.string().nullable(),
});
export const orderResponse = z.object({
  order_id: z.string().uuid(),
  client_order_id: z.string(),
  symbol: z.string(),
  side: z.enum(["buy", "sell"]),
  type: z.string(),
  price: z.number().nullable(),
  trigger_price: z.number().nullable(),
  size: z.number(),
  filled_size: z.number(),
  average_price: z.number().nullable(),
  time_in_force: z.string(),
  status: z.enum(DEX_ORDER_STATUSES),
  status_reason: z.string().nullable(),
  created_at: z.number().int().describe("Unix ms"),
  updated_at: z.number().int(),
  expires_at: z.number().int().nullable(),
  hidden: z.boolean(),
  iceberg_visible_size: z.number().nullable(),
});
export const orderWithFillsResponse = orderResponse.extend({ fills: z.array(fill) });
export const ordersResponse = z.object({ orders: z.array(orderResponse) });
export const tradesResponse = z.object({
  symbol: z.string(),
  trades: z.array(
    z.object({
      trade_id: z.string(),
      symbol: z.string(),
      price: z.number(),
      size: z.number(),
      side: z.enum(["buy", "sell"]),
      timestamp: z.number().int(),
    }),
  ),
});
export const balancesResponse = z.object({
  balances: z.array(
    z.object({
      asset: z.string(),
      token: z.string(),
      decimals: z.number().int(),
      available: z.string(),
      locked: z.string(),
      on_chain: z.string(),
      pending_withdrawal: z.string(),
    }),
  ),
});
/** best bid and ask and the last trade's price, decimal strings (null when there is none) */
const topOfBook = { bid: z.string().nullable(), ask: z.string().nullable(), last: z.string().nullable() };
export const tickerResponse = z.object({
  symbol: z.string(),
  ...topOfBook,
  volume24h: z.string(),
  timestamp: z.number().int(),
});
export const marketSummaryResponse = z.object({
  markets: z.array(
    z.object({
      symbol: z.string(),
      ...topOfBook,
      open24h: z.string().nullable(),
      /** percent, 2 decimals, truncated toward zero ("-1.25"); null without a trade in the last 24 h */
      change24h: z.string().nullable(),
      volume24h: z.string(),
    }),
  ),
  timestamp: z.number().int(),
});
export const apiKeyResponse = z.object({
  id: z.string().uuid(),
  api_key: z.string(),
  label: z.string(),
  permissions: z.array(z.string()),
  ip_allowlist: z.array(z.string()),
  position_limit: z.string().nullable(),
  daily_loss_limit: z.string().nullable(),
  agent_address: z.string(),
  agent_status: z.enum(["pending_approval", "approved"]),
  created_at: z.number().int(),
  revoked_at: z.number().int().nullable(),
});
export const createdApiKeyResponse = apiKeyResponse.extend({
  api_secret: z.string().describe("shown once"),
  agent_approval: z.record(z.string(), z.unknown()).describe("EIP-712 typed data of the AgentApproval to sign"),
});
export const apiKeysResponse = z.object({ api_keys: z.array(apiKeyResponse) });
export const revokeResponse = z.object({
  id: z.string(),
  revoked_at: z.number().int(),
  cancelled_order_ids: z.array(z.string()),
  agent_revocation: z
    .object({
      status: z
        .enum(["done", "pending", "failed", "none"])
        .describe(
          "done: the agent holds no approval on chain; pending: its renouncement is not mined yet and is retried in the background; failed: the contract refused it, the approval lapses at its expiry; none: a key revoked before on-chain revocation existed",
        ),
      tx_hash: z.string().nullable().describe("the renounceAgentWithSig transaction; null when none was sent (yet)"),
    })
    .describe("the on-chain revocation of the key's agent"),
});
export const cancelResponse = orderResponse;
export const errorResponse = z.object({
  error: z.object({ code: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()) }),
});
