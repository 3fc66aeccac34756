// The Settlement order the DEX service signs for an API-key placement, with the key's agent: its price (a
// market / stop order's protection price, else the intent's limit), a nonce from the key's range, the
// expiry, and the agent's signature (remembered for the intake when the composition root gave a cache).
import type { Hex } from "viem";
import type { Clock } from "../../runtime/clock";
import { orderFlagsFor, signOrder, type Order, type SettlementDomain } from "../../sdk/eip712";
import type { ApiKeyNonces } from "../intake/api-nonces";
import type { SignerCache } from "../intake/known-signers";
import type { MatcherService } from "../match/matcher-service";
import type { MarketSpec } from "../markets";
import { DexServiceError, type PlaceOrderRequest } from "../service";

/** Market / stop orders signed by an agent carry a protection price this far from the reference price
 *  (best opposite level, or the trigger): the contract needs a limit on every order. */
const PROTECTION_BPS = 1_000n;
/** Lifetime of an API-key order's signed expiry (non-GTD). */
const API_ORDER_LIFETIME_SEC = 30n * 24n * 3600n;

export type ApiKeyPlacement = Extract<PlaceOrderRequest, { kind: "api_key" }>;

export interface ApiKeyOrderDeps {
  service: MatcherService;
  clock: Clock;
  domain: SettlementDomain;
  /** an API-key order's digest (domain separator once, native keccak), signed by the agent natively */
  digest(order: Order): Hex;
  nonces: ApiKeyNonces;
  knownSigners?: SignerCache;
}

export class ApiKeyOrderSigner {
  constructor(private readonly deps: ApiKeyOrderDeps) {}

  async sign(req: ApiKeyPlacement, m: MarketSpec): Promise<{ order: Order; signature: Hex; priceTicks: bigint }> {
    const priceTicks = req.priceTicks ?? this.protectionPrice(req, m);
    // taken before the first await: two concurrent placements of one account never get the same nonce
    const nonce = this.deps.nonces.next(req.trader);
    const nowSec = BigInt(Math.floor(this.deps.clock.now() / 1000));
    const expiry =
      req.expiresAtMs !== null ? BigInt(Math.ceil(req.expiresAtMs / 1000)) + 10n : nowSec + API_ORDER_LIFETIME_SEC;
    const order: Order = {
      trader: req.trader,
      baseToken: m.baseToken,
      quoteToken: m.quoteToken,
      side: req.side === "buy" ? 0 : 1,
      price: priceTicks * m.tickSize,
      amount: req.sizeLots * m.lotSize,
      expiry,
      nonce,
      flags: orderFlagsFor(req.type, req.timeInForce),
    };
    const { agent } = req;
    const { digest, knownSigners } = this.deps;
    const signature = agent.signDigest
      ? (knownSigners?.signAsAgent(agent.address, agent.signDigest, digest(order)) ?? agent.signDigest(digest(order)))
      : await signOrder(agent, this.deps.domain, order);
    return { order, signature, priceTicks };
  }

  /** A market / stop order's limit: PROTECTION_BPS beyond the trigger or the best opposite level. */
  private protectionPrice(req: ApiKeyPlacement, m: MarketSpec): bigint {
    const ref = req.triggerPriceTicks ?? this.bestOpposite(req.side, m.symbol);
    if (ref === null)
      throw new DexServiceError("INVALID_REQUEST", "no liquidity to price a market order against", {
        statusReason: "no_liquidity",
      });
    const priceTicks =
      req.side === "buy" ? (ref * (10_000n + PROTECTION_BPS)) / 10_000n : (ref * (10_000n - PROTECTION_BPS)) / 10_000n;
    return priceTicks < 1n ? 1n : priceTicks;
  }

  private bestOpposite(side: "buy" | "sell", symbol: string): bigint | null {
    const d = this.deps.service.engine.getDepth(symbol, 1);
    const lvl = side === "buy" ? d?.asks[0] : d?.bids[0];
    return lvl ? BigInt(lvl[0]) : null;
  }
}
