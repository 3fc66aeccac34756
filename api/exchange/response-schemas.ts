// The exchange API's response bodies as zod schemas, for its OpenAPI document (api/exchange/openapi.ts) and
// for the tests that check real responses against it. Each mirrors what a route answers today (spec 2.x plus
// the extra fields recorded in docs/decisions/api.md); z.toJSONSchema in output mode closes every object
// (additionalProperties false), so a field added to a response without its schema fails the conformance test.
import { z } from "zod";
import { ASSET_CATEGORIES, MARKET_RAILS, RESALE_REGIMES } from "./assets/catalogue";

const iso = z.iso.datetime({ offset: false }).describe("ISO 8601 UTC");
const num = z.number();
const numOrNull = z.number().nullable();
/** Numbers, never null (docs/decisions/api.md "Numbers, never null"): where no trade gives a price, the asset's
 *  reference price (its offering price) stands in, and priceSource says which. */
const priceSource = z
  .enum(["trades", "reference"])
  .describe("trades: from settled trades; reference: never traded, the prices are the offering's reference price");
const envelope = <T extends z.ZodType>(data: T, note?: string) =>
  z.object({ data: note ? data.describe(note) : data, message: z.string() });

export const navigationResponse = z.object({
  rails: z.array(
    z.object({
      id: z.enum(MARKET_RAILS),
      label: z.string(),
      categories: z.array(z.object({ id: z.enum(ASSET_CATEGORIES), label: z.string() })),
    }),
  ),
});

const assetSummaryFields = {
  id: z.string().describe("asset id, used in paths (the symbol, case-sensitive)"),
  symbol: z.string(),
  name: z.string(),
  type: z.enum(ASSET_CATEGORIES).describe("category id"),
  exchange: z.string().nullable().describe("null for crypto"),
  status: z.literal("APPROVED"),
  price: num.describe("last settled trade price; before any trade the offering's reference price (priceSource)"),
  change: num.describe("against the previous day's close; 0 before any trade"),
  changesPercentage: num,
  priceSource: priceSource,
  image: z.string().describe("absolute URL of the asset's image (SVG)"),
  marketRail: z.enum(MARKET_RAILS),
  tradeable: z.boolean().describe("its SYMBOL-USD book runs now"),
};
export const assetSummary = z.object(assetSummaryFields);
export const assetListResponse = z.object({
  data: z.array(assetSummary),
  message: z.string(),
  nextCursor: z
    .string()
    .nullable()
    .describe("pass as `cursor` with the same filters for the next page; null on the last page"),
});

export const dailyCandle = z.object({ timestamp: iso, open: num, high: num, low: num, close: num, volume: num });
export const assetDetailResponse = envelope(
  z.object({
    ...assetSummaryFields,
    accreditationType: z.enum(["506c", "506b"]).nullable().describe("null: retail"),
    offeringType: z.string(),
    regime: z.enum(RESALE_REGIMES).describe("resale regime (spec 4.A table)"),
    market: z.string().nullable().describe("the book's symbol, SYMBOL-USD; null when not tradeable"),
    trading: z
      .object({
        lotSize: z.string().describe("the quantity step, asset units (decimal text)"),
        tickSize: z.string().describe("the price step, USD (decimal text)"),
        minQuantity: z.string().describe("the smallest quantity of an order, asset units (decimal text)"),
        makerFeeBps: num.describe("basis points of what the resting side receives"),
        takerFeeBps: num.describe("basis points of what the incoming side receives"),
        feeTakenIn: z
          .literal("received")
          .describe("each side pays its fee in what it receives: a buy in the asset, a sell in USD"),
      })
      .nullable()
      .describe("the book's trading terms; null when not tradeable"),
    marketData: z.object({ perDay: z.array(dailyCandle).describe("the latest 30 UTC days with trades, oldest first") }),
  }),
);

export const quoteResponse = z.object({
  assetId: z.string(),
  last: num,
  open: num,
  high: num,
  low: num,
  prevClose: num.describe("the previous UTC day's close; on the first day of trading, today's open"),
  change: num,
  changePercent: num,
  volume: num.describe("today's volume, asset units"),
  priceSource,
  timestamp: iso,
});

/** The data of an SSE `quote` event and of a legacy WebSocket `quote` message (spec 6.1). */
export const quoteEvent = z
  .object({
    assetId: z.string(),
    last: num.describe("the last trade's price; before any trade the asset's reference price (priceSource)"),
    bid: num.describe("the best bid; 0 when no buy order rests"),
    ask: num.describe("the best ask; 0 when no sell order rests"),
    volume: num.describe("24 h volume, asset units"),
    priceSource,
    timestamp: iso,
  })
  .describe("SSE event `quote` / WebSocket message {type: quote, id, data}");
/** The data of an SSE `book` event and of a legacy WebSocket `book` message. */
export const bookEvent = z
  .object({
    assetId: z.string(),
    bids: z.array(z.object({ price: num, size: num })),
    asks: z.array(z.object({ price: num, size: num })),
    timestamp: iso,
  })
  .describe("SSE event `book` / WebSocket message {type: book, id, data}");

export const chartCandle = z.object({
  time: z.number().int().describe("bucket start, Unix ms (UTC-aligned)"),
  open: num,
  high: num,
  low: num,
  close: num,
  volume: num,
});
export const chartResponse = envelope(z.array(chartCandle), "candles oldest first; only buckets with trades");

const level = z.object({ price: num, size: num.describe("total quantity at the price") });
export const bookResponse = z.object({
  assetId: z.string(),
  bids: z.array(level),
  asks: z.array(level),
  timestamp: iso,
});

export const tradesResponse = envelope(
  z.array(
    z.object({
      tradeId: z.string(),
      assetId: z.string(),
      price: num,
      size: num,
      side: z.enum(["buy", "sell"]).describe("the taker's side"),
      timestamp: iso,
    }),
  ),
  "newest first",
);

export const tenantTokenResponse = z.object({ token: z.string().describe("the tenant token (JWT)") });

export const accountView = z.object({
  accountId: z.string(),
  userId: z.string(),
  orgId: z.string(),
  email: z.string().describe("empty when the account has none (a phone-only login)"),
  phone: z.string().describe("empty when the account has none"),
  kycStatus: z.string(),
  kybStatus: z.string(),
  accreditationStatus: z.string(),
  accreditationType: z
    .enum(["506c", "506b"])
    .optional()
    .describe("absent while the account holds no accreditation (accreditationStatus none, pending or rejected)"),
  settlementAddress: z.string().describe("the account's own address in the Settlement contract (custody)"),
  cashBalance: num.describe("dollars"),
  buyingPower: num.describe("dollars: cash less pending withdrawals less what open buy orders hold"),
  cashBalanceUnits: z.string().describe("exact demo USD base units"),
  buyingPowerUnits: z.string(),
  createdAt: iso,
});
export const accountResponse = envelope(accountView);

export const order = z.object({
  orderId: z.string().describe("ord_<32 hex>"),
  assetId: z.string(),
  side: z.enum(["BUY", "SELL"]),
  orderType: z.enum(["market", "limit"]),
  quantity: num,
  limitPrice: num.optional(),
  isPreIPO: z.literal(true).optional(),
  status: z.enum(["PENDING", "EXECUTED", "CANCELLED"]),
  createdAt: iso,
  filledQuantity: num.optional(),
  averagePrice: numOrNull.optional(),
  executedAt: iso.optional(),
  cancelledAt: iso.optional(),
  remainingQuantity: num.optional(),
  settlement: z
    .enum(["pending", "settled"])
    .nullable()
    .optional()
    .describe("whether the order's fills are settled on chain; null: no fill"),
  replaces: z.string().optional(),
  replacedBy: z.string().optional(),
});
export const orderResponse = envelope(order);
export const orderListResponse = envelope(z.array(order), "newest first");
export const orderCancelResponse = envelope(
  z.object({ orderId: z.string(), status: z.literal("CANCELLED"), cancelledAt: iso }),
);

const holdingBase = {
  assetId: z.string(),
  symbol: z.string(),
  name: z.string(),
  type: z.enum(ASSET_CATEGORIES),
  quantity: num,
  averageCost: num,
};
export const portfolioResponse = envelope(
  z.array(
    z.object({
      ...holdingBase,
      currentPrice: numOrNull,
      marketValue: numOrNull,
      unrealizedPnl: numOrNull,
      unrealizedPnlPercent: numOrNull,
      realizedPnl: num,
      quantityUnits: z.string().describe("exact base units (the chain's Settlement balance)"),
    }),
  ),
);
export const lot = z.object({
  quantity: num,
  acquisitionDate: iso,
  restrictionEndDate: iso,
  isRestricted: z.boolean(),
  offeringType: z.string(),
  regime: z.enum(RESALE_REGIMES),
  costBasis: num,
  quantityUnits: z.string(),
});
export const exchangePortfolioResponse = envelope(
  z.array(z.object({ ...holdingBase, lots: z.array(lot).describe("FIFO, oldest first") })),
);

export const fundingTransaction = z.object({
  id: z.string().describe("uuid"),
  type: z.enum(["deposit", "withdrawal"]),
  assetId: z.literal("USD"),
  side: z.enum(["in", "out"]),
  quantity: num,
  price: num,
  total: num,
  fee: num,
  status: z.enum(["pending", "completed", "failed"]),
  timestamp: iso,
  method: z.enum(["ach", "wire", "instant", "sandbox"]),
  amountUnits: z.string(),
  completesAt: iso,
  completedAt: iso.nullable(),
  failureReason: z.string().nullable(),
  txHashes: z.array(z.string()),
});
export const tradeTransaction = z.object({
  id: z.string().describe("trd_<trade sequence>_<buy|sell>"),
  type: z.literal("trade"),
  assetId: z.string(),
  side: z.enum(["BUY", "SELL"]),
  quantity: num,
  price: num,
  total: num.describe("notional, dollars"),
  fee: num.describe("dollars"),
  feeAsset: z.string(),
  feeQuantity: num,
  status: z.enum(["pending", "completed"]),
  timestamp: iso,
  orderId: z.string(),
  txHash: z.string().nullable(),
});
export const transaction = z.union([fundingTransaction, tradeTransaction]);
export const transactionResponse = envelope(transaction);
export const transactionListResponse = envelope(z.array(transaction), "newest first");
export const fundingTransactionResponse = envelope(fundingTransaction);

export const investorProfileResponse = envelope(z.object({ annualIncome: num, netWorth: num, usPerson: z.boolean() }));
export const advanceClockResponse = envelope(z.object({ now: iso }));
