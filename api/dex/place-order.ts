// Order placement shared by REST, gRPC and the WebSocket order entry: parse -> authorize -> idempotency (in memory) -> key limits -> service.
import { randomUUID } from "node:crypto";
import type { Address, Hex } from "viem";
import { ApiError } from "../errors";
import type { ApiKeyRecord, ApiKeyStore } from "../auth/api-keys";
import type { AuthContext } from "../auth/authenticate";
import { InFlightPlacements, requestHash } from "./idempotency";
import { checkSignedOrder, findMarket, intentOf, parseOrderFields } from "./order-intent";
import { getDomainSeparator, type Order } from "../../sdk/eip712";
import { presentOrder } from "./present";
import { checkDailyLossLimit, checkPositionLimit } from "./risk-limits";
import type { PlaceOrderBody } from "./schemas";
import {
  createOrderDigester,
  recoverSigner,
  type AgentAccount,
  type DexService,
  type SignerCache,
  type PlaceOrderRequest,
} from "../../pipeline/service";

export interface PlacementDeps {
  service: DexService;
  keys: ApiKeyStore;
  now: () => number;
  /** books that take orders through the exchange API only (DexApiConfig.exchangeOnlySymbols) */
  exchangeOnlySymbols?: readonly string[];
  /** the in-process pipeline's signer cache: a wallet signer recovered here is not recovered again by its
   *  intake (absent when the pipeline is elsewhere: nothing to tell it) */
  knownSigners?: SignerCache;
}

export type OrderJson = ReturnType<typeof presentOrder>;

export interface PlacementResult {
  order: OrderJson;
  /** true when this is a retry, answered with the order the first request placed (as it stands now) */
  replayed: boolean;
}

/** Serialises the placements of one API key while its limits are checked, so that two concurrent orders
 *  cannot both pass a limit that only one fits under. */
class KeyedMutex {
  private tails = new Map<string, Promise<unknown>>();
  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    const next = prev.then(fn, fn);
    const tail = next.catch(() => {});
    this.tails.set(key, tail);
    try {
      return await next;
    } finally {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}

export function isWalletSigned(body: PlaceOrderBody): boolean {
  return body.order !== undefined || body.signature !== undefined;
}

export interface PlacementHooks {
  /** Runs once the caller is authenticated (a wallet-signed order: its signature recovered to its trader),
   *  before the client order id is looked up and anything is placed: the per-account rate limit. */
  authenticated?(account: Address): Promise<void>;
}

export type OrderPlacer = (
  body: PlaceOrderBody,
  auth: AuthContext | null,
  hooks?: PlacementHooks,
) => Promise<PlacementResult>;

/** One per process, shared by REST and gRPC (its in-flight registry de-duplicates across both). */
export function createOrderPlacer(deps: PlacementDeps): OrderPlacer {
  const placer = new Placer(deps);
  return (body, auth, hooks = {}) => placer.place(body, auth, hooks);
}

type SignedParts = NonNullable<ReturnType<typeof checkSignedOrder>>;
type Market = ReturnType<typeof findMarket>;

/** One placement's facts, worked out before anything is placed. */
interface Placement {
  body: PlaceOrderBody;
  market: Market;
  fields: ReturnType<typeof parseOrderFields>;
  signedParts: SignedParts | null;
  account: Address;
  key: ApiKeyRecord | null;
  nowMs: number;
  hash: string;
  hasLimits: boolean;
}

class Placer {
  private readonly mutex = new KeyedMutex();
  private readonly inFlight = new InFlightPlacements<PlacementResult>();
  private digest: ((o: Order) => Hex) | null = null;
  private readonly exchangeOnly: Set<string>;

  constructor(private readonly deps: PlacementDeps) {
    this.exchangeOnly = new Set(deps.exchangeOnlySymbols ?? []);
  }

  /** the domain is the service's for its lifetime: hashed once, not per order (docs/measurements.md) */
  private orderHash(o: Order): Hex {
    this.digest ??= createOrderDigester(getDomainSeparator(this.deps.service.settlementDomain));
    return this.digest(o);
  }

  async place(body: PlaceOrderBody, auth: AuthContext | null, hooks: PlacementHooks): Promise<PlacementResult> {
    const { deps } = this;
    const nowMs = deps.now();
    const market = findMarket(deps.service, body.symbol);
    this.refuseExchangeOnly(market);
    const signed = isWalletSigned(body);
    if (signed && (!body.order || !body.signature)) {
      throw new ApiError("INVALID_REQUEST", "a wallet-signed order needs both `order` and `signature`", {
        field: body.order ? "signature" : "order",
      });
    }
    const fields = parseOrderFields(market, body, nowMs, signed);
    const signedParts = signed ? checkSignedOrder(market, body, fields, nowMs) : null;
    if (!signed && !auth?.key) {
      throw new ApiError("UNAUTHORIZED", "an API key, or a wallet-signed order, is required", {
        reason: "missing_credentials",
      });
    }
    // A placement without a client order id cannot be a replay: when the service refuses every new order now
    // (settlement backlog full...), it is refused before its signature is recovered or signed for.
    if (!body.client_order_id) {
      const refused = deps.service.placementRefusal?.();
      if (refused) throw refused;
    }
    // A wallet-signed order authenticates itself: nothing is counted or looked up under its trader's name
    // (rate limit, client order id) until its signature is the trader's, under the contract's rule.
    if (signedParts) this.authenticateSignature(signedParts);
    const account: Address = signedParts ? signedParts.order.trader : auth!.account;
    const key = signed ? null : auth!.key!;
    await hooks.authenticated?.(account);
    const hasLimits = key !== null && (key.positionLimitE18 !== null || key.dailyLossLimitE18 !== null);
    const p: Placement = { body, market, fields, signedParts, account, key, nowMs, hash: requestHash(body), hasLimits };
    return hasLimits ? this.mutex.run(key!.id, () => this.submitOrPlace(p)) : this.submitOrPlace(p);
  }

  private submitOrPlace(p: Placement): Promise<PlacementResult> {
    const clientOrderId = p.body.client_order_id;
    return clientOrderId ? this.submit(p, clientOrderId) : this.placeNew(p, randomUUID(), randomUUID());
  }

  /** a restricted security's book: the resale rules (who may buy a lot still in its hold) are the exchange
   *  API's, which knows its investors; a wallet here is anonymous, so it cannot place there at all */
  private refuseExchangeOnly(market: Market): void {
    if (!this.exchangeOnly.has(market.symbol)) return;
    throw new ApiError(
      "FORBIDDEN",
      `${market.symbol} trades a restricted security: place orders through the exchange API, which applies the accreditation and resale rules`,
      {
        reason: "exchange_only_book",
        symbol: market.symbol,
      },
    );
  }

  /** The signature is the trader's; its recovered signer is remembered for the intake (when the pipeline is in
   *  this process), which then takes this answer instead of recovering the signature again. */
  private authenticateSignature(signedParts: SignedParts): void {
    const { deps } = this;
    const d = this.orderHash(signedParts.order);
    const signer = deps.knownSigners
      ? deps.knownSigners.recoverAndRemember(d, signedParts.signature)
      : recoverSigner(d, signedParts.signature);
    if (signer !== null && signer.toLowerCase() === signedParts.order.trader.toLowerCase()) return;
    const dom = deps.service.settlementDomain;
    throw new ApiError(
      "UNAUTHORIZED",
      `the order signature is not the trader's: sign the EIP-712 Order under the domain name "${dom.name}", version "${dom.version}", chainId ${dom.chainId}, verifyingContract ${dom.verifyingContract} (GET /v1/markets gives them), with the trader's key; 65 bytes, v 27 or 28, low s`,
      {
        reason: "invalid_order_signature",
        expected_domain: {
          name: dom.name,
          version: dom.version,
          chainId: dom.chainId,
          verifyingContract: dom.verifyingContract,
        },
      },
    );
  }

  /** A retry is answered before the key's limit checks: the first attempt already passed them (and
   *  counting the order itself again would refuse its own retry). */
  private async submit(p: Placement, clientOrderId: string): Promise<PlacementResult> {
    const { deps, inFlight } = this;
    const k = InFlightPlacements.key(p.account, clientOrderId);
    for (;;) {
      const pending = inFlight.get(k);
      if (!pending) break;
      if (pending.requestHash !== p.hash) throw duplicate(clientOrderId, pending.orderId);
      await pending.done.catch(() => undefined); // then look again: placed (a replay) or refused (free)
    }
    const orderId = randomUUID();
    return inFlight.start(k, p.hash, orderId, async () => {
      const earlier = await deps.service.findOrderByClientOrderId(p.account, clientOrderId);
      if (earlier) {
        if (earlier.requestHash !== null && earlier.requestHash !== p.hash)
          throw duplicate(clientOrderId, earlier.order.orderId);
        return { order: presentOrder(findMarket(deps.service, earlier.order.symbol), earlier.order), replayed: true };
      }
      return this.placeNew(p, clientOrderId, orderId);
    });
  }

  /** `orderId` is always made by randomUUID just before this call (newOrderId: the service skips its lookup) */
  private async placeNew(p: Placement, clientOrderId: string, orderId: string): Promise<PlacementResult> {
    const { deps } = this;
    let agent: AgentAccount | null = null;
    if (p.key) {
      if (p.key.agentStatus !== "approved") {
        throw new ApiError("FORBIDDEN", "the API key's agent is not approved on chain yet", {
          reason: "agent_not_approved",
        });
      }
      if (p.hasLimits) {
        const probe = intentOf(p.market.symbol, p.body.side, p.fields, { orderId: "", clientOrderId }, p.nowMs);
        await checkPositionLimit(deps.service, p.market, p.key, probe);
        await checkDailyLossLimit(deps.service, deps.service.listMarkets(), p.key, p.nowMs);
      }
      agent = await deps.keys.agentOf(p.key.id);
      if (!agent) throw new ApiError("UNAUTHORIZED", "unknown or revoked API key", { reason: "invalid_api_key" });
    }
    // A refusal (funds, signature, nonce...) records nothing, so the client order id stays free for a
    // corrected retry. An order the matcher took is journaled with its client order id and `hash` before
    // this resolves: from then on findOrderByClientOrderId answers its retries, across a restart too.
    const request = placementRequest(p, clientOrderId, orderId, agent);
    return { order: presentOrder(p.market, await deps.service.placeOrder(request)), replayed: false };
  }
}

/** The service's request: intentOf's fields, written out once (three object spreads per order cost more), and
 *  its kind's fields added to that same object: a spread followed by more properties gives every request a
 *  hidden class of its own in V8, and each reader of the request a megamorphic access. */
function placementRequest(
  p: Placement,
  clientOrderId: string,
  orderId: string,
  agent: AgentAccount | null,
): PlaceOrderRequest {
  const { type, timeInForce, priceTicks, triggerPriceTicks, sizeLots, expiresAtMs, hidden, icebergVisibleLots } =
    p.fields;
  const { market, body, nowMs, hash, account, signedParts } = p;
  const intent = {
    orderId,
    clientOrderId,
    symbol: market.symbol,
    side: body.side,
    type,
    timeInForce,
    priceTicks,
    triggerPriceTicks,
    sizeLots,
    expiresAtMs,
    hidden,
    icebergVisibleLots,
    receivedAtMs: nowMs,
    requestHash: hash,
    trader: account,
    newOrderId: true,
  };
  return signedParts
    ? Object.assign(intent, { kind: "signed" as const, order: signedParts.order, signature: signedParts.signature })
    : Object.assign(intent, { kind: "api_key" as const, apiKeyId: p.key!.id, agent: agent! });
}

function duplicate(clientOrderId: string, orderId: string): ApiError {
  return new ApiError("DUPLICATE_CLIENT_ORDER_ID", "client_order_id was already used for a different order", {
    client_order_id: clientOrderId,
    order_id: orderId,
  });
}
