// GET /v1/markets and GET /v1/time: what a client needs before it signs anything. Each market's tokens,
// grid and limits, the fee rates, the order types and time in force spec 3.2 allows (the engine's one
// table, ORDER_TYPE_RULES), and the chain, the Settlement contract and its EIP-712 domain and Order type,
// with the two exponents that turn the API's decimals into the signed order's integers.
import { z } from "zod";
import { ORDER_TYPES, OrderFlags } from "../../sdk/eip712";
import { formatDecimal } from "../../sdk/decimal";
import {
  ORDER_TYPE_RULES,
  dexTimeInForce,
  type DexFees,
  type DexOrderType,
  type DexService,
  type MarketSpec,
} from "../../pipeline/service";
import { priceExponent } from "./units";

const decimal = z.string().regex(/^\d+(\.\d+)?$/);
const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/);
const token = z.object({ symbol: z.string(), address, decimals: z.number().int() });

export const marketsResponse = z.object({
  chain_id: z.number().int().describe("the chain the Settlement contract settles on (the EIP-712 domain's chainId)"),
  settlement: address.describe("the Settlement contract (the EIP-712 domain's verifyingContract)"),
  eip712: z
    .object({
      domain: z.object({
        name: z.string(),
        version: z.string(),
        chainId: z.number().int(),
        verifyingContract: address,
      }),
      types: z.record(z.string(), z.array(z.object({ name: z.string(), type: z.string() }))),
      primary_type: z.literal("Order"),
      flags: z
        .object({ post_only: z.number().int() })
        .describe("bits of Order.flags: post_only is set exactly for time_in_force post_only and type limit_maker"),
    })
    .describe("what a wallet signs to place an order itself (POST /v1/orders with `order` and `signature`)"),
  markets: z.array(
    z.object({
      symbol: z.string(),
      base: token,
      quote: token,
      tick_size: decimal.describe("price increment, quote tokens per base token"),
      lot_size: decimal.describe("size increment, base tokens"),
      min_size: decimal,
      max_size: decimal,
      fees: z
        .object({ maker_bps: z.number().int(), taker_bps: z.number().int() })
        .describe("basis points of what each side receives, charged in that token"),
      order_types: z.array(
        z.object({
          type: z.string(),
          time_in_force: z.array(z.string()).describe("allowed; the first is the default"),
          price: z.boolean().describe("takes a limit price"),
          trigger_price: z.boolean().describe("takes a trigger price"),
        }),
      ),
      signed_order: z
        .object({
          price_exponent: z
            .number()
            .int()
            .describe("Order.price = price x 10^price_exponent (quote base units per 1e18 base base units)"),
          amount_exponent: z.number().int().describe("Order.amount = size x 10^amount_exponent (base base units)"),
          base_token: address,
          quote_token: address,
        })
        .describe("the market's fields of a signed Order"),
    }),
  ),
});

export const timeResponse = z.object({
  timestamp: z
    .number()
    .int()
    .describe("server time, Unix ms (X-TIMESTAMP and X-Wallet-Timestamp are checked against it)"),
  iso: z.string().describe("the same instant, ISO 8601 UTC"),
});

/** The token symbols of a market ("WETH-USD" -> WETH, USD). */
const tokenSymbols = (m: MarketSpec): [string, string] => {
  const [base = m.symbol, quote = ""] = m.symbol.split("-");
  return [base, quote];
};

const orderTypes = () =>
  (Object.keys(ORDER_TYPE_RULES) as DexOrderType[]).map((type) => {
    const rule = ORDER_TYPE_RULES[type];
    return {
      type,
      time_in_force: rule.timeInForce.map(dexTimeInForce),
      price: rule.needsPrice,
      trigger_price: rule.needsTrigger,
    };
  });

export function presentMarket(m: MarketSpec, fees: DexFees) {
  const [base, quote] = tokenSymbols(m);
  const exp = priceExponent(m);
  return {
    symbol: m.symbol,
    base: { symbol: base, address: m.baseToken, decimals: m.baseDecimals },
    quote: { symbol: quote, address: m.quoteToken, decimals: m.quoteDecimals },
    tick_size: formatDecimal(m.tickSize, exp),
    lot_size: formatDecimal(m.lotSize, m.baseDecimals),
    min_size: formatDecimal(m.minLots * m.lotSize, m.baseDecimals),
    max_size: formatDecimal(m.maxLots * m.lotSize, m.baseDecimals),
    fees: { maker_bps: Number(fees.makerFeeBps), taker_bps: Number(fees.takerFeeBps) },
    order_types: orderTypes(),
    signed_order: {
      price_exponent: exp,
      amount_exponent: m.baseDecimals,
      base_token: m.baseToken,
      quote_token: m.quoteToken,
    },
  };
}

export function presentMarkets(service: DexService): z.infer<typeof marketsResponse> {
  const domain = service.settlementDomain;
  const fees = service.getFees();
  return {
    chain_id: domain.chainId,
    settlement: domain.verifyingContract,
    eip712: {
      domain: {
        name: domain.name,
        version: domain.version,
        chainId: domain.chainId,
        verifyingContract: domain.verifyingContract,
      },
      types: { Order: ORDER_TYPES.Order.map((f) => ({ ...f })) },
      primary_type: "Order",
      flags: { post_only: OrderFlags.POST_ONLY },
    },
    markets: service.listMarkets().map((m) => presentMarket(m, fees)),
  };
}

export const presentTime = (nowMs: number): z.infer<typeof timeResponse> => ({
  timestamp: nowMs,
  iso: new Date(nowMs).toISOString(),
});
