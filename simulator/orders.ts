// A signed order as a wallet sends it: the Settlement contract's EIP-712 Order signed by the trader's own
// key, and the DexService placement carrying it (the path every client's wallet-signed order takes after
// the API's checks). The simulator's agents place these; tests use it too.
import { metrics, refusalReason } from "../runtime/metrics";
import { randomUUID } from "node:crypto";
import type { PrivateKeyAccount } from "viem";
import { ORDER_TYPES } from "../sdk/eip712";
import type {
  DexOrderWithFills,
  DexService,
  DexSide,
  DexTimeInForce,
  MarketSpec,
  PlaceSignedOrderRequest,
} from "../pipeline/service";

export interface SignedOrderSpec {
  account: PrivateKeyAccount;
  market: MarketSpec;
  domain: DexService["settlementDomain"];
  side: DexSide;
  priceTicks: bigint;
  sizeLots: bigint;
  /** gtc rests, ioc takes what crosses and drops the rest */
  timeInForce: Extract<DexTimeInForce, "gtc" | "ioc">;
  nonce: bigint;
  /** unix seconds */
  expiry: bigint;
  nowMs: number;
}

export async function signedPlacement(s: SignedOrderSpec): Promise<PlaceSignedOrderRequest> {
  const order = {
    trader: s.account.address,
    baseToken: s.market.baseToken,
    quoteToken: s.market.quoteToken,
    side: s.side === "buy" ? 0 : 1,
    price: s.priceTicks * s.market.tickSize,
    amount: s.sizeLots * s.market.lotSize,
    expiry: s.expiry,
    nonce: s.nonce,
    flags: 0,
  } as const;
  const signature = await s.account.signTypedData({
    domain: s.domain,
    types: ORDER_TYPES,
    primaryType: "Order",
    message: order,
  });
  const orderId = randomUUID();
  return {
    kind: "signed",
    orderId,
    clientOrderId: `sim-${orderId}`,
    symbol: s.market.symbol,
    side: s.side,
    type: "limit",
    timeInForce: s.timeInForce,
    priceTicks: s.priceTicks,
    triggerPriceTicks: null,
    sizeLots: s.sizeLots,
    expiresAtMs: null,
    receivedAtMs: s.nowMs,
    trader: s.account.address,
    order,
    signature,
  };
}

/** Nonces above any earlier run's (microseconds of `now()` at the first use), one counter per trader. */
export function nonceCounter(now: () => number): (a: PrivateKeyAccount) => bigint {
  const nonces = new Map<string, bigint>();
  return (a) => {
    const n = (nonces.get(a.address) ?? BigInt(now()) * 1000n) + 1n;
    nonces.set(a.address, n);
    return n;
  };
}

/** An order of `who` on `market`: `ticks` and `lots`, gtc rests, ioc takes what crosses. */
export type PlaceOn = (
  market: MarketSpec,
  who: PrivateKeyAccount,
  side: DexSide,
  ticks: bigint,
  lots: bigint,
  tif: SignedOrderSpec["timeInForce"],
) => Promise<DexOrderWithFills>;

/** Places signed orders on `dex`, each trader's nonces counted from `now` (as placeSigned does, one by one). */
export function signedPlacer(dex: DexService, now: () => number): PlaceOn {
  const nonceOf = nonceCounter(now);
  return (market, account, side, priceTicks, sizeLots, timeInForce) =>
    placeSigned(dex, {
      account,
      market,
      side,
      priceTicks,
      sizeLots,
      timeInForce,
      nonce: nonceOf(account),
      nowMs: now(),
    });
}

/** Lots of `m` worth `targetQuoteUnits` at `ticks`, within the market's minimum and maximum size. */
export function lotsWorth(m: MarketSpec, ticks: bigint, targetQuoteUnits: bigint): bigint {
  const unitPriceQuote = (ticks * m.tickSize * 10n ** BigInt(m.baseDecimals)) / 10n ** 18n; // quote units per whole base unit
  const lotValue = (unitPriceQuote * m.lotSize) / 10n ** BigInt(m.baseDecimals); // quote units per lot
  const lots = lotValue > 0n ? targetQuoteUnits / lotValue : m.minLots;
  return lots < m.minLots ? m.minLots : lots > m.maxLots ? m.maxLots : lots;
}

/** Signs `s` (an order valid for a day from `nowMs`) with the trader's key and places it through the service. */
export async function placeSigned(
  dex: DexService,
  s: Omit<SignedOrderSpec, "domain" | "expiry">,
): Promise<DexOrderWithFills> {
  try {
    const placed = await dex.placeOrder(
      await signedPlacement({
        ...s,
        domain: dex.settlementDomain,
        expiry: BigInt(Math.floor(s.nowMs / 1000) + 86_400),
      }),
    );
    metrics.ordersAccepted.inc("simulator");
    return placed;
  } catch (e) {
    metrics.ordersRefused.inc("simulator", refusalReason(e));
    throw e;
  }
}
