// Builds and signs Settlement orders for tests and benches, with the typed order beside them.
import { randomUUID } from "node:crypto";
import type { Hex } from "viem";
import type { PrivateKeyAccount } from "viem/accounts";
import { getSettlementDomain, signOrder, type Order } from "../../sdk/eip712";
import type { OrderType, TimeInForce } from "../../matcher/core/types";
import type { PlaceSignedInput, TypedOrder } from "../intake/intake";
import type { MarketSpec } from "../markets";
import type { DexOrderIntent, PlaceSignedOrderRequest } from "../service";

let nonceCounter = BigInt(Date.now()) * 1000n;

export interface OrderSpec {
  side: "buy" | "sell";
  priceTicks: bigint;
  sizeLots: bigint;
  type?: OrderType;
  /** the engine's (upper case); default GTC */
  timeInForce?: TimeInForce;
  triggerPriceTicks?: bigint;
  expirySec?: bigint;
  nonce?: bigint;
  flags?: number;
}

/** The typed order of a spec on market `m` (what the edge hands the intake beside the signed order). */
export function typedOrder(
  m: MarketSpec,
  s: Pick<OrderSpec, "priceTicks" | "sizeLots" | "type" | "timeInForce" | "triggerPriceTicks">,
): TypedOrder {
  return {
    symbol: m.symbol,
    type: s.type ?? "limit",
    timeInForce: s.timeInForce ?? "GTC",
    priceTicks: s.priceTicks,
    sizeLots: s.sizeLots,
    triggerPriceTicks: s.triggerPriceTicks ?? null,
  };
}

/** The EIP-712 order a spec makes on market `m` for `trader` (expiry default: in an hour), signed by `signer`
 *  for the Settlement at `settlement`. */
export async function signSpecOrder(
  signer: PrivateKeyAccount,
  trader: `0x${string}`,
  domain: { chainId: number; settlement: `0x${string}` },
  m: MarketSpec,
  s: Pick<OrderSpec, "side" | "priceTicks" | "sizeLots" | "expirySec"> & { nonce: bigint; flags: number },
): Promise<{ order: Order; signature: Hex }> {
  const order: Order = {
    trader,
    baseToken: m.baseToken,
    quoteToken: m.quoteToken,
    side: s.side === "buy" ? 0 : 1,
    price: s.priceTicks * m.tickSize,
    amount: s.sizeLots * m.lotSize,
    expiry: s.expirySec ?? BigInt(Math.floor(Date.now() / 1000) + 3600),
    nonce: s.nonce,
    flags: s.flags,
  };
  const signature: Hex = await signOrder(signer, getSettlementDomain(domain.chainId, domain.settlement), order);
  return { order, signature };
}

export async function signedInput(
  signer: PrivateKeyAccount,
  trader: `0x${string}`,
  chainId: number,
  settlement: `0x${string}`,
  m: MarketSpec,
  s: OrderSpec,
): Promise<PlaceSignedInput> {
  const nonce = s.nonce ?? nonceCounter++;
  const signed = await signSpecOrder(signer, trader, { chainId, settlement }, m, { ...s, nonce, flags: s.flags ?? 0 });
  return { ...typedOrder(m, s), ...signed };
}

/** What a limit order of `sizeLots` at `priceTicks` carries into the DEX service (fresh ids, received now). */
export function limitIntent(
  symbol: string,
  side: "buy" | "sell",
  priceTicks: bigint,
  sizeLots: bigint,
  timeInForce: DexOrderIntent["timeInForce"] = "gtc",
): DexOrderIntent {
  return {
    orderId: randomUUID(),
    clientOrderId: randomUUID(),
    symbol,
    side,
    type: "limit",
    timeInForce,
    priceTicks,
    triggerPriceTicks: null,
    sizeLots,
    expiresAtMs: null,
    receivedAtMs: Date.now(),
  };
}

/** A wallet-signed limit order as the DEX service takes it, signed by `who` for its own address. */
export async function signedPlaceRequest(
  who: PrivateKeyAccount,
  chainId: number,
  settlement: `0x${string}`,
  m: MarketSpec,
  s: {
    side: "buy" | "sell";
    priceTicks: bigint;
    sizeLots: bigint;
    timeInForce?: PlaceSignedOrderRequest["timeInForce"];
  },
): Promise<PlaceSignedOrderRequest> {
  const timeInForce = s.timeInForce ?? "gtc";
  const signed = await signedInput(who, who.address, chainId, settlement, m, {
    side: s.side,
    priceTicks: s.priceTicks,
    sizeLots: s.sizeLots,
    timeInForce: timeInForce.toUpperCase() as TimeInForce,
  });
  return {
    kind: "signed",
    ...limitIntent(m.symbol, s.side, s.priceTicks, s.sizeLots, timeInForce),
    trader: who.address,
    order: signed.order,
    signature: signed.signature,
  };
}
