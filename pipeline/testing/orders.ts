// Builds and signs Settlement orders for tests and benches.
import type { Hex } from "viem";
import type { PrivateKeyAccount } from "viem/accounts";
import { getSettlementDomain, signOrder, type Order } from "../../sdk/eip712";
import type { PlaceSignedInput } from "../intake/intake";
import type { MarketSpec } from "../markets";

let nonceCounter = BigInt(Date.now()) * 1000n;

export interface OrderSpec {
  side: "buy" | "sell";
  priceTicks: bigint;
  sizeLots: bigint;
  type?: string;
  timeInForce?: string;
  expirySec?: bigint;
  nonce?: bigint;
  flags?: number;
}

export async function signedInput(
  signer: PrivateKeyAccount,
  trader: `0x${string}`,
  chainId: number,
  settlement: `0x${string}`,
  m: MarketSpec,
  s: OrderSpec,
): Promise<PlaceSignedInput> {
  const order: Order = {
    trader,
    baseToken: m.baseToken,
    quoteToken: m.quoteToken,
    side: s.side === "buy" ? 0 : 1,
    price: s.priceTicks * m.tickSize,
    amount: s.sizeLots * m.lotSize,
    expiry: s.expirySec ?? BigInt(Math.floor(Date.now() / 1000) + 3600),
    nonce: s.nonce ?? nonceCounter++,
    flags: s.flags ?? 0,
  };
  const signature: Hex = await signOrder(signer, getSettlementDomain(chainId, settlement), order);
  return { symbol: m.symbol, type: s.type ?? "limit", timeInForce: s.timeInForce ?? "GTC", order, signature };
}
