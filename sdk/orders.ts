// Wallet-signed orders (no API key: the EIP-712 signature is the authorization): builds the contract's
// `Order` from what GET /v1/markets says (tokens, exponents, EIP-712 domain and types), signs it with any
// TradingSigner (viem or ethers) and returns the POST /v1/orders body (also the WebSocket order entry's
// `body`). Prices and sizes are decimal text, turned into integers exactly (never through floats).
import { getAddress, type Address, type Hex } from "viem";
import { parseDecimal } from "./decimal";
import { isPostOnly, type Order } from "./eip712";
import type { paths } from "./openapi/dex-api";
import type { TradingSigner, TypedDataField } from "./signers";

/** GET /v1/markets */
export type MarketsResponse = paths["/v1/markets"]["get"]["responses"][200]["content"]["application/json"];
export type MarketInfo = MarketsResponse["markets"][number];
/** POST /v1/orders's body */
export type PlaceOrderBody = NonNullable<paths["/v1/orders"]["post"]["requestBody"]>["content"]["application/json"];

export interface WalletOrderInput {
  symbol: string;
  side: "buy" | "sell";
  /** decimal text, a whole number of ticks */
  price: string;
  /** decimal text, a whole number of lots */
  size: string;
  /** limit (default) or limit_maker */
  type?: "limit" | "limit_maker";
  /** gtc (default), ioc, fok, gtd, post_only */
  timeInForce?: "gtc" | "ioc" | "fok" | "gtd" | "post_only";
  clientOrderId?: string;
  /** the signed order's expiry, Unix seconds (default: 24 hours from now) */
  expiry?: bigint;
  /** gtd only: Unix ms */
  expiresAt?: number;
  /** a number the wallet never used (default: nextNonce()) */
  nonce?: bigint;
  hidden?: boolean;
  icebergVisibleSize?: string;
}

let lastNonce = 0n;
/** A nonce this process never returned before: microseconds since the epoch, or the last one + 1 (the
 *  contract keeps a bitmap of used nonces per trader; several processes of one wallet need their own scheme). */
export function nextNonce(nowMs = Date.now()): bigint {
  const candidate = BigInt(nowMs) * 1000n;
  lastNonce = candidate > lastNonce ? candidate : lastNonce + 1n;
  return lastNonce;
}

/** The integer of `text` at 10^exponent, or an error naming the field (too many decimals, not a number). */
function scaled(field: string, text: string, exponent: number): bigint {
  const v = parseDecimal(text, exponent);
  if (v === null || v <= 0n)
    throw new RangeError(
      `${field} ${JSON.stringify(text)} is not a positive decimal with at most ${exponent} decimals`,
    );
  return v;
}

/** The contract's Order for `input` in `markets` (throws for an unknown symbol or a bad price or size). */
export function buildOrder(markets: MarketsResponse, trader: Address, input: WalletOrderInput): Order {
  const market = markets.markets.find((m) => m.symbol === input.symbol);
  if (!market) throw new RangeError(`no market ${input.symbol}`);
  const postOnly = isPostOnly(input.type, input.timeInForce);
  return {
    trader: getAddress(trader),
    baseToken: getAddress(market.signed_order.base_token),
    quoteToken: getAddress(market.signed_order.quote_token),
    side: input.side === "buy" ? 0 : 1,
    price: scaled("price", input.price, market.signed_order.price_exponent),
    amount: scaled("size", input.size, market.signed_order.amount_exponent),
    expiry: input.expiry ?? BigInt(Math.floor(Date.now() / 1000) + 24 * 3600),
    nonce: input.nonce ?? nextNonce(),
    flags: postOnly ? markets.eip712.flags.post_only : 0,
  };
}

/** Builds, signs and returns the POST /v1/orders body of a wallet-signed order. */
export async function signWalletOrder(
  signer: TradingSigner,
  markets: MarketsResponse,
  input: WalletOrderInput,
): Promise<PlaceOrderBody & { order: NonNullable<PlaceOrderBody["order"]>; signature: Hex }> {
  const order = buildOrder(markets, await signer.getAddress(), input);
  const { domain, types, primary_type } = markets.eip712;
  const signature = await signer.signTypedData({
    domain: { ...domain, verifyingContract: getAddress(domain.verifyingContract) },
    types: types as Record<string, TypedDataField[]>,
    primaryType: primary_type,
    message: order,
  });
  return {
    symbol: input.symbol,
    side: input.side,
    type: input.type ?? "limit",
    price: input.price,
    size: input.size,
    time_in_force: input.timeInForce ?? "gtc",
    ...(input.clientOrderId !== undefined ? { client_order_id: input.clientOrderId } : {}),
    ...(input.expiresAt !== undefined ? { expires_at: input.expiresAt } : {}),
    ...(input.hidden !== undefined ? { hidden: input.hidden } : {}),
    ...(input.icebergVisibleSize !== undefined ? { iceberg_visible_size: input.icebergVisibleSize } : {}),
    order: orderToWire(order),
    signature,
  };
}

/** The contract's struct as the body's `order` (snake_case, integers as decimal strings). */
export function orderToWire(order: Order) {
  return {
    trader: order.trader,
    base_token: order.baseToken,
    quote_token: order.quoteToken,
    side: order.side as 0 | 1,
    price: order.price.toString(),
    amount: order.amount.toString(),
    expiry: order.expiry.toString(),
    nonce: order.nonce.toString(),
    flags: order.flags,
  };
}
