// Signed order intake: every check a signed order must pass BEFORE the matcher sees it. Pure except for
// the optional ERC-1271 call (contract wallets). A failed check changes nothing and reports a spec code.
import type { Address, Hex } from "viem";
import type { OrderType, TimeInForce } from "../../matcher/core/types";
import { orderTypeRule } from "../../matcher/core/validate";
import { PipelineError } from "../errors";
import { orderLockOf, type OrderLock } from "../match/ledger";
import { lotsToBase, minRestingPriceTicks, ticksToPrice, type MarketSpec } from "../markets";
import { OrderFlags, type Order, type TypedOrder } from "../order";
import type { SignerCache } from "./known-signers";
import { recoverSigner } from "./recover";

export type { TypedOrder } from "../order";

const UINT128_MAX = (1n << 128n) - 1n;
const UINT64_MAX = (1n << 64n) - 1n;
const MAX_ENGINE_INT = BigInt(Number.MAX_SAFE_INTEGER);

/** The typed order (ticks, lots, the engine's time in force, the trigger in ticks) and the contract's order
 *  signed for it. */
export interface PlaceSignedInput extends TypedOrder {
  /** GTD: the engine expires the order at this time (ms); the matcher service ticks expiries */
  expiresAtMs?: number | null;
  /** display options the signed order does not carry (the request's, beside it): the engine checks them */
  hidden?: boolean;
  icebergVisibleLots?: bigint | null;
  order: Order;
  signature: Hex;
}

export interface ValidatedOrder {
  hash: Hex;
  market: MarketSpec;
  /** lower-case trader address: the engine's account */
  account: string;
  side: "buy" | "sell";
  type: OrderType;
  timeInForce: TimeInForce;
  priceTicks: number;
  triggerPriceTicks?: number;
  sizeLots: number;
  lock: OrderLock;
  /** the matcher treats the order as dead from here on (signed expiry, or agent expiry, minus the margin) */
  deadlineMs: number;
  /** who signed: the trader, an agent, or the trader's ERC-1271 wallet itself */
  signer: Address;
}

export interface IntakeContext {
  marketOf(symbol: string): MarketSpec | undefined;
  digest(order: Order): Hex;
  nowMs(): number;
  expiryMarginMs: number;
  /** unix seconds until which `agent` may sign for `trader` (0 = not an agent) */
  agentExpiry(trader: string, agent: string): bigint;
  /** why the nonce cannot be used, or null when it is free */
  nonceProblem(trader: string, nonce: bigint): string | null;
  /** signer recovery off this thread (a worker pool); absent = recovered inline */
  recoverSigner?(digest: Hex, signature: Hex): Promise<Address | null>;
  /** ERC-1271 check for contract wallets (an eth_call); absent = only EOAs and agents */
  isValidContractSignature?(wallet: Address, hash: Hex, signature: Hex): Promise<boolean>;
  /** signers this process already established (the API's check, an agent's own signature); absent = none */
  knownSigners?: SignerCache;
}

const invalid = (message: string, details: Record<string, unknown> = {}) =>
  new PipelineError("INVALID_ORDER", message, details);

/** Everything except the funds check, which the service does atomically with the reservation. */
export async function validateSignedOrder(ctx: IntakeContext, input: PlaceSignedInput): Promise<ValidatedOrder> {
  const market = ctx.marketOf(input.symbol);
  if (!market)
    throw new PipelineError("INVALID_SYMBOL", `trading pair not supported: ${input.symbol}`, { symbol: input.symbol });
  const { type, timeInForce: tif } = input;
  // typed, and still checked: the table is the rule, whoever calls
  const rule = orderTypeRule(type);
  if (!rule)
    throw new PipelineError("INVALID_ORDER_TYPE", `order type not recognized: ${input.type}`, { type: input.type });
  if (!rule.timeInForce.includes(tif)) {
    throw new PipelineError("INVALID_ORDER_TYPE", `${type} does not take time in force ${input.timeInForce}`, {
      type,
      timeInForce: input.timeInForce,
      allowed: rule.timeInForce,
    });
  }
  const o = input.order;
  checkSignedFields(o, market, type, tif);
  const { lots, ticks, triggerPriceTicks } = checkGrid(o, market, input, rule);
  const hash = ctx.digest(o);
  const now = ctx.nowMs();
  const trader = o.trader.toLowerCase();
  const { signer, deadlineMs } = await resolveSigner(ctx, o, hash, input.signature, now);
  if (deadlineMs <= now) {
    throw new PipelineError(
      "ORDER_EXPIRED",
      `the order expires within the ${ctx.expiryMarginMs / 1000} s settlement margin`,
      { expiry: o.expiry.toString() },
    );
  }
  const nonceProblem = ctx.nonceProblem(trader, o.nonce);
  if (nonceProblem) throw new PipelineError("INVALID_NONCE", nonceProblem, { nonce: o.nonce.toString() });

  const side = o.side === 0 ? "buy" : "sell";
  const lock = orderLockOf(market, o);
  return {
    hash,
    market,
    account: trader,
    side,
    type,
    timeInForce: tif,
    priceTicks: Number(ticks),
    triggerPriceTicks,
    sizeLots: Number(lots),
    lock,
    deadlineMs,
    signer,
  };
}

/** The signed order's own fields: the market's tokens, side, flags, positive and within their on-chain ranges. */
function checkSignedFields(o: Order, market: MarketSpec, type: OrderType, tif: TimeInForce): void {
  if (
    o.baseToken.toLowerCase() !== market.baseToken.toLowerCase() ||
    o.quoteToken.toLowerCase() !== market.quoteToken.toLowerCase()
  ) {
    throw invalid(`the order's tokens are not ${market.symbol}'s`, { symbol: market.symbol });
  }
  if (o.side !== 0 && o.side !== 1) throw invalid("side must be 0 (buy) or 1 (sell)");
  if ((o.flags & ~OrderFlags.POST_ONLY) !== 0) throw invalid("flags: only bit 0 (POST_ONLY) may be set");
  if ((o.flags & OrderFlags.POST_ONLY) !== 0 && tif !== "POST_ONLY" && type !== "limit_maker") {
    throw invalid("a POST_ONLY-flagged order must be limit_maker or time in force POST_ONLY");
  }
  if (o.amount <= 0n) throw invalid("size must be positive", { amount: o.amount.toString() });
  if (o.price <= 0n) throw invalid("price must be positive", { price: o.price.toString() });
  // the batcher settles through settlePacked, whose orders carry price/amount < 2^128 and nonce < 2^64
  if (
    o.amount > UINT128_MAX ||
    o.price > UINT128_MAX ||
    o.expiry > UINT64_MAX ||
    o.nonce < 0n ||
    o.nonce > UINT64_MAX
  ) {
    throw invalid("a field is out of its on-chain range (price and amount < 2^128, expiry and nonce < 2^64)");
  }
}

/** The typed order's lots and ticks on the market's grid, equal to the signed amount and price, within the
 *  market's bounds; the trigger in the engine's numbers. */
function checkGrid(
  o: Order,
  market: MarketSpec,
  input: PlaceSignedInput,
  rule: NonNullable<ReturnType<typeof orderTypeRule>>,
): { lots: bigint; ticks: bigint; triggerPriceTicks: number | undefined } {
  const tif = input.timeInForce;
  // the typed order's lots and ticks are the order's; the signed amount and price must be them on the market's grid
  const { sizeLots: lots, priceTicks: ticks } = input;
  if (o.amount !== lotsToBase(market, lots)) {
    if (o.amount % market.lotSize !== 0n)
      throw invalid(`size is not a multiple of the lot size ${market.lotSize}`, { lotSize: market.lotSize.toString() });
    throw invalid("the signed amount is not the order's size", {
      amount: o.amount.toString(),
      sizeLots: lots.toString(),
    });
  }
  if (o.price !== ticksToPrice(market, ticks)) {
    if (o.price % market.tickSize !== 0n)
      throw invalid(`price is not a multiple of the tick size ${market.tickSize}`, {
        tickSize: market.tickSize.toString(),
      });
    throw invalid("the signed price is not the order's price", {
      price: o.price.toString(),
      priceTicks: ticks.toString(),
    });
  }
  // An order that can rest may become a maker, and every fill trades at the maker's price: one lot at a resting
  // price must reach the contract's minimum fill (Settlement.MIN_FILL_UNITS). Orders that never rest need not.
  const minTicks = minRestingPriceTicks(market);
  if (ticks < minTicks && rule.needsPrice && tif !== "IOC" && tif !== "FOK") {
    throw invalid(
      `a resting order's price must be at least ${minTicks * market.tickSize} (one lot worth the on-chain minimum fill)`,
      {
        minPrice: (minTicks * market.tickSize).toString(),
        minPriceTicks: minTicks.toString(),
      },
    );
  }
  if (lots < market.minLots || lots > market.maxLots) {
    throw invalid(`size must be between ${market.minLots} and ${market.maxLots} lots`, {
      minLots: market.minLots.toString(),
      maxLots: market.maxLots.toString(),
    });
  }
  if (ticks > MAX_ENGINE_INT) throw invalid("price too large");
  let triggerPriceTicks: number | undefined;
  if (rule.needsTrigger) {
    const t = input.triggerPriceTicks;
    if (t === null || t <= 0n || t > MAX_ENGINE_INT) throw invalid("stop orders need a positive trigger price");
    triggerPriceTicks = Number(t);
  }

  return { lots, ticks, triggerPriceTicks };
}

/** Who signed (the trader, an approved agent, or the trader's ERC-1271 wallet) and until when the order may
 *  match (its signed expiry, or its agent's, minus the margin). */
async function resolveSigner(
  ctx: IntakeContext,
  o: Order,
  hash: Hex,
  signature: Hex,
  now: number,
): Promise<{ signer: Address; deadlineMs: number }> {
  let deadlineMs = Number(o.expiry) * 1000 - ctx.expiryMarginMs;
  const trader = o.trader.toLowerCase();
  // a signer this process already established for this exact pair (the API's check, an agent's own signature)
  const recovered =
    ctx.knownSigners?.take(hash, signature) ??
    (ctx.recoverSigner ? await ctx.recoverSigner(hash, signature) : recoverSigner(hash, signature));
  let signer: Address;
  if (recovered && recovered.toLowerCase() === trader) {
    signer = o.trader;
  } else if (recovered && ctx.agentExpiry(trader, recovered) > 0n) {
    const agentUntil = ctx.agentExpiry(trader, recovered);
    if (agentUntil * 1000n <= BigInt(now) + BigInt(ctx.expiryMarginMs)) {
      throw new PipelineError("INVALID_SIGNATURE", "the agent's approval has expired", { agent: recovered });
    }
    deadlineMs = Math.min(deadlineMs, Number(agentUntil) * 1000 - ctx.expiryMarginMs);
    signer = recovered;
  } else if (ctx.isValidContractSignature && (await ctx.isValidContractSignature(o.trader, hash, signature))) {
    signer = o.trader;
  } else {
    throw new PipelineError("INVALID_SIGNATURE", "the signature is not the trader's nor an approved agent's", {
      recovered,
    });
  }
  return { signer, deadlineMs };
}
