// The contract between the DEX API (REST, WebSocket, gRPC) and the live pipeline behind it (signed order
// intake, matcher, batcher). The API validates, authenticates, rate-limits and converts between the spec's
// decimals and integers; the service owns orders, books, balances and settlement. Money is integers here:
// ticks, lots and token base units (bigint). Nothing in this file is JSON.
import type { Address, Hex, LocalAccount } from "viem";
import type { AgentRenouncement } from "../sdk/eip712";
/** The signer of an EIP-712 order digest under the contract's signature rule (the intake's recovery): the
 *  API authenticates a wallet-signed order with it. */
export { recoverSigner } from "./intake/recover";
/** The signers this process established for orders (the API's recovery, an agent's own signature), which the
 *  intake then need not recover again: one per process, made by the composition root (known-signers.ts). */
export { SignerCache } from "./intake/known-signers";
/** The EIP-712 order digest for one domain separator (the intake's: native keccak, the domain hashed once). */
export { createOrderDigester } from "../runtime/order-digest";
/** An API key's agent: a viem account that also signs an order digest natively (what the API's key store returns). */
export { agentAccount, type AgentAccount } from "./intake/agent-signer";
import type { AgentAccount } from "./intake/agent-signer";
import type { OrderType, TimeInForce } from "../matcher/core/types";
import type { MarketSpec } from "./markets";

/** Spec 3.2's order-type table (allowed time in force, price and trigger needs): the engine's, one table. */
export { ORDER_TYPE_RULES, orderTypeRule, type OrderTypeRule } from "../matcher/core/validate";
import { ORDER_TYPE_RULES } from "../matcher/core/validate";
import { AppError } from "../runtime/errors";

// ------------------------------------------------------------------ enumerations (spec 3.2, lower-case)

export const DEX_SIDES = ["buy", "sell"] as const;
export type DexSide = (typeof DEX_SIDES)[number];

/** Spec 3.2's order types: the engine's, in its table's order (the payloads write them the same way). */
export const DEX_ORDER_TYPES = Object.keys(ORDER_TYPE_RULES) as readonly OrderType[];
export type DexOrderType = OrderType;

/** Spec 3.2 writes GTC, IOC, FOK, GTD, POST_ONLY; the DEX payloads use them lower-case. */
export const DEX_TIME_IN_FORCE = ["gtc", "ioc", "fok", "gtd", "post_only"] as const;
export type DexTimeInForce = (typeof DEX_TIME_IN_FORCE)[number];

/** The payloads' lower-case time in force <-> the engine's (spec 3.2's) upper case: the only two places the
 *  case changes (the intent entering the pipeline; the table's values shown to a client). */
export const engineTimeInForce = (t: DexTimeInForce): TimeInForce => t.toUpperCase() as TimeInForce;
export const dexTimeInForce = (t: TimeInForce): DexTimeInForce => t.toLowerCase() as DexTimeInForce;

/** Order statuses (spec 3.2 names only `open`; docs/decisions.md "DEX API" defines the rest):
 *  - pending_trigger: a stop / take-profit order held off the book until its trigger price trades;
 *  - open: on the book (or accepted and not yet matched), nothing filled;
 *  - partially_filled: on the book with part of its size filled;
 *  - filled: completely filled (terminal);
 *  - cancelled: removed before completion: by its owner, an IOC/market remainder, a revoked API key, a
 *    withdrawal that left it unfunded (terminal; filled_size tells whether part of it traded);
 *  - expired: a GTD order (or a signed order's expiry) passed its time (terminal);
 *  - rejected: refused by the book after intake: POST_ONLY / limit_maker that would take, FOK that cannot
 *    fill entirely, a market order facing an empty book (terminal, nothing filled).
 *  A triggered stop order leaves pending_trigger for open / partially_filled / filled like any order. */
export const DEX_ORDER_STATUSES = [
  "pending_trigger",
  "open",
  "partially_filled",
  "filled",
  "cancelled",
  "expired",
  "rejected",
] as const;
export type DexOrderStatus = (typeof DEX_ORDER_STATUSES)[number];
export const DEX_OPEN_STATUSES: readonly DexOrderStatus[] = ["pending_trigger", "open", "partially_filled"];

/** Why an order left the book without filling (null while open or when filled). */
export type DexStatusReason =
  | "user_cancelled"
  | "api_key_revoked"
  | "ioc_remainder"
  | "withdrawal_unfunded"
  | "self_trade_prevention"
  | "post_only_would_take"
  | "fok_not_fillable"
  | "no_liquidity"
  | "expired"
  /** a buy on a restricted security's book that the resale rule refused at a match (issue #26) */
  | "resale_restricted"
  | (string & {});

// ------------------------------------------------------------------ markets

/** One trading pair (symbol, tokens, decimals, tick and lot): the pipeline's one market type. */
export type { MarketSpec } from "./markets";

// ------------------------------------------------------------------ the settlement contract's signed order

/** EIP-712 `Order(address trader,address baseToken,address quoteToken,uint8 side,uint256 price,
 *  uint256 amount,uint64 expiry,uint256 nonce,uint8 flags)` of the Settlement contract (domain
 *  "Settlement" v1). Structurally equal to the pipeline's / sdk's Order. */
export interface SettlementOrder {
  trader: Address;
  baseToken: Address;
  quoteToken: Address;
  /** 0 = buy base, 1 = sell base */
  side: 0 | 1;
  /** quote base units per 1e18 base base units (a multiple of the market's tickSize) */
  price: bigint;
  /** base units (a multiple of the market's lotSize) */
  amount: bigint;
  /** unix seconds */
  expiry: bigint;
  nonce: bigint;
  /** bit 0 = POST_ONLY */
  flags: number;
}

// ------------------------------------------------------------------ commands

/** An order's terms: what it trades, how, at which prices and for how many lots (an intent and a read alike). */
export interface DexOrderTerms {
  symbol: string;
  side: DexSide;
  type: DexOrderType;
  timeInForce: DexTimeInForce;
  /** limit price; null for market, stop_loss and take_profit */
  priceTicks: bigint | null;
  /** trigger price of stop_loss(_limit) and take_profit(_limit); null otherwise */
  triggerPriceTicks: bigint | null;
  sizeLots: bigint;
}

/** What every placement carries. The API converted the spec's decimals to integers exactly (off-grid
 *  input never reaches the service) and checked the type / time-in-force combination of spec 3.2. */
export interface DexOrderIntent extends DexOrderTerms {
  /** UUID chosen by the API before the call. Placement MUST be idempotent on it: a second call with an
   *  order id the service already knows returns that order and places nothing. */
  orderId: string;
  /** the client's id (generated by the API when the client sent none); unique per account */
  clientOrderId: string;
  /** GTD expiry (ms); null otherwise */
  expiresAtMs: number | null;
  /** rests off the displayed book (REST, WebSocket and gRPC books never show it) yet matches; absent = false */
  hidden?: boolean;
  /** iceberg: the displayed slice (lots), refreshed after each fill behind the orders already at its price;
   *  absent or null = the whole size is displayed */
  icebergVisibleLots?: bigint | null;
  /** when the API received the request (ms) */
  receivedAtMs: number;
  /** fingerprint of the request that placed it (the API's SHA-256 of the body), kept with the order
   *  (journaled) so that reusing `clientOrderId` for a different order is refused, after a restart too */
  requestHash?: string;
  /** true: the caller made `orderId` for this call alone (a random UUID, never sent before), so the service
   *  need not look it up first (a lookup of an unknown id reads the history store); absent: it does */
  newOrderId?: boolean;
}

/** A wallet or dApp signed the Settlement Order itself. The API checked that the order's tokens, side,
 *  price and amount equal the intent's (and expiry for GTD); the service verifies the signature (EOA or
 *  ERC-1271), the nonce, the expiry, the flags and the funds. */
export interface PlaceSignedOrderRequest extends DexOrderIntent {
  kind: "signed";
  trader: Address;
  order: SettlementOrder;
  signature: Hex;
}

/** An API-key bot placed the order; the service builds the Settlement Order (its own nonce and expiry)
 *  for `trader` and signs it with `agent`, which `trader` approved on chain: natively over the order digest
 *  when the agent has `signDigest` (`agentAccount`, what the API's key store returns), else with the
 *  account's own `signTypedData` (e.g. an agent whose key lives in another process). */
export interface PlaceApiKeyOrderRequest extends DexOrderIntent {
  kind: "api_key";
  trader: Address;
  apiKeyId: string;
  agent: LocalAccount & Partial<Pick<AgentAccount, "signDigest">>;
}

export type PlaceOrderRequest = PlaceSignedOrderRequest | PlaceApiKeyOrderRequest;

export interface CancelOrderRequest {
  orderId: string;
  /** the authenticated account: the service refuses (ORDER_NOT_FOUND) an order of another account */
  account: Address;
  /** set when an API key cancels: the service may sign the on-chain cancel with it */
  agent?: LocalAccount;
  reason: DexStatusReason;
}

/** The wallet's EIP-712 `AgentApproval(address trader,address agent,uint64 expiry,uint256 nonce,
 *  uint64 deadline)` for a freshly generated agent key. */
export interface AgentApproval {
  trader: Address;
  agent: Address;
  /** unix seconds the approval lasts until (exclusive) */
  expiry: bigint;
  nonce: bigint;
  /** unix seconds by which it must be submitted */
  deadline: bigint;
}

export interface Eip712TypedData {
  domain: { name: string; version: string; chainId: number; verifyingContract: Address };
  types: Record<string, readonly { name: string; type: string }[]>;
  primaryType: string;
  message: Record<string, unknown>;
}

// ------------------------------------------------------------------ read models

export interface DexFill {
  tradeId: string;
  orderId: string;
  priceTicks: bigint;
  sizeLots: bigint;
  liquidity: "maker" | "taker";
  /** fee in the token this side received, base units */
  feeUnits: bigint;
  feeToken: Address;
  timestampMs: number;
  /** pending until the batch holding the trade is confirmed on chain */
  settlement: "pending" | "settled";
  txHash: Hex | null;
}

export interface DexOrder extends DexOrderTerms {
  orderId: string;
  clientOrderId: string;
  account: Address;
  /** the API key that placed it; null for wallet-signed orders */
  apiKeyId: string | null;
  filledLots: bigint;
  /** quote base units filled (sum of fill notionals), for the average price */
  filledQuoteUnits: bigint;
  status: DexOrderStatus;
  statusReason: DexStatusReason | null;
  createdAtMs: number;
  updatedAtMs: number;
  expiresAtMs: number | null;
  /** as placed (DexOrderIntent.hidden); absent = false */
  hidden?: boolean;
  /** as placed (DexOrderIntent.icebergVisibleLots); absent = null */
  icebergVisibleLots?: bigint | null;
}

export interface DexOrderWithFills extends DexOrder {
  fills: DexFill[];
}

export interface DexOrderQuery {
  account: Address;
  /** any of these statuses; omitted = all */
  statuses?: readonly DexOrderStatus[];
  symbol?: string;
  apiKeyId?: string;
  /** orders created or updated at or after this time */
  sinceMs?: number;
  /** newest first, at most this many */
  limit: number;
}

export interface DexBalance {
  token: Address;
  /** the token's symbol, e.g. "WETH" */
  asset: string;
  decimals: number;
  /** internal balance in the Settlement contract (confirmed) */
  onChainUnits: bigint;
  /** locked by open orders */
  lockedUnits: bigint;
  /** requested withdrawals not yet executed or cancelled */
  pendingWithdrawalUnits: bigint;
  /** onChain - locked - pendingWithdrawal (what a new order may use), never negative */
  availableUnits: bigint;
}

export interface DexLevel {
  priceTicks: bigint;
  /** total size at the price; 0 in an update = the level is gone */
  sizeLots: bigint;
}

export interface DexBookSnapshot {
  symbol: string;
  /** best first */
  bids: DexLevel[];
  asks: DexLevel[];
  /** the sequence of the last book event applied to this snapshot (see DexBookEvent) */
  sequence: number;
  timestampMs: number;
}

export interface DexTrade {
  tradeId: string;
  symbol: string;
  priceTicks: bigint;
  sizeLots: bigint;
  /** the taker's side */
  takerSide: DexSide;
  timestampMs: number;
  makerOrderId: string;
  takerOrderId: string;
}

export interface DexMarketStats {
  symbol: string;
  lastPriceTicks: bigint | null;
  /** traded base size over the last 24 h */
  volume24hLots: bigint;
  /** the price of the first trade of the last 24 h (the base of the 24 h change); null without one */
  open24hPriceTicks?: bigint | null;
  timestampMs: number;
}

// ------------------------------------------------------------------ events

/** Book levels that changed, with their new total size (0 = removed). `sequence` increases by exactly 1
 *  per event of a symbol, starting after the snapshot's sequence, so a consumer that applies events with
 *  sequence > snapshot.sequence in order holds the book exactly. */
export interface DexBookEvent {
  kind: "book";
  symbol: string;
  sequence: number;
  timestampMs: number;
  bids: DexLevel[];
  asks: DexLevel[];
}

export interface DexTradeEvent {
  kind: "trade";
  trade: DexTrade;
}

/** A change of one account's order: a new status, a fill (with `fill` set), or both. */
export interface DexOrderEvent {
  kind: "order";
  account: Address;
  order: DexOrder;
  fill: DexFill | null;
}

export type DexEvent = DexBookEvent | DexTradeEvent | DexOrderEvent;

// ------------------------------------------------------------------ errors the service throws

/** Refusals the service reports by throwing DexServiceError; the API maps each to the spec's body. */
export type DexServiceErrorCode =
  | "INVALID_SYMBOL"
  | "INVALID_ORDER_TYPE"
  | "INSUFFICIENT_BALANCE"
  | "ORDER_NOT_FOUND"
  | "ORDER_NOT_OPEN"
  | "INVALID_SIGNATURE"
  | "INVALID_NONCE"
  | "ORDER_EXPIRED"
  | "AGENT_NOT_APPROVED"
  | "INVALID_REQUEST"
  | "SERVICE_UNAVAILABLE"
  /** the home chain cannot settle now: details {chainId, retry_after (s)} (HTTP 503 with Retry-After) */
  | "CHAIN_UNAVAILABLE"
  /** any other code is answered as INVALID_REQUEST with details.reason = the code in lower case */
  | (string & {});

/** details of INSUFFICIENT_BALANCE: exact base units (bigint or decimal string) and either the token's
 *  decimals or the token-unit numbers `required` / `available` (spec 7). */
export interface InsufficientBalanceDetails {
  token: Address;
  requiredUnits: bigint | string;
  availableUnits: bigint | string;
  decimals?: number;
  required?: number;
  available?: number;
}

/** A refusal of the service; retryable only when the service cannot answer now (SERVICE_UNAVAILABLE,
 *  CHAIN_UNAVAILABLE). */
export class DexServiceError extends AppError<DexServiceErrorCode> {
  constructor(
    code: DexServiceErrorCode,
    message: string,
    details: Record<string, unknown> = {},
    options?: { cause?: unknown },
  ) {
    super(code, message, {
      ...options,
      details,
      retryable: code === "SERVICE_UNAVAILABLE" || code === "CHAIN_UNAVAILABLE",
    });
    this.name = "DexServiceError";
  }
}

// ------------------------------------------------------------------ the service

export interface ClientOrderMatch {
  order: DexOrderWithFills;
  /** DexOrderIntent.requestHash of the placement; null when it carried none */
  requestHash: string | null;
}

/** Fee rates in basis points (1 = 0.01 %), each charged in the token its side receives. */
export interface DexFees {
  makerFeeBps: bigint;
  takerFeeBps: bigint;
}

export interface DexService {
  /** The Settlement contract's EIP-712 domain: the API checks wallet-signed orders against it before it
   *  counts or looks up anything under their trader's name. */
  readonly settlementDomain: { name: string; version: string; chainId: number; verifyingContract: Address };

  /** Every tradable market. Read once per request; may change between calls. */
  listMarkets(): readonly MarketSpec[];

  /** The Settlement contract's fee rates now (basis points of what each side receives; they follow its
   *  FeesUpdated events), the same for every market. */
  getFees(): DexFees;

  /** Places an order (idempotent on `orderId`). Resolves with the order as it stands after the matcher
   *  processed it (it may already be filled, cancelled as an IOC remainder, or rejected). Throws
   *  DexServiceError: INVALID_SYMBOL, INVALID_ORDER_TYPE, INSUFFICIENT_BALANCE (details:
   *  InsufficientBalanceDetails), INVALID_SIGNATURE, INVALID_NONCE, ORDER_EXPIRED, AGENT_NOT_APPROVED. */
  placeOrder(request: PlaceOrderRequest): Promise<DexOrderWithFills>;

  /** Why placeOrder would refuse any new order now, before looking at it (SERVICE_UNAVAILABLE: settlement
   *  halted or its backlog full; CHAIN_UNAVAILABLE), else undefined: the API asks before it spends a
   *  signature recovery on a placement that cannot be a replay. Optional: absent, the API does not ask. */
  placementRefusal?(): DexServiceError | undefined;

  /** Cancels one open order of `account`. Throws ORDER_NOT_FOUND (unknown or another account's) or
   *  ORDER_NOT_OPEN (details: { status }). Resolves with the cancelled order. */
  cancelOrder(request: CancelOrderRequest): Promise<DexOrder>;

  /** Cancels every open order placed with this API key (key revoked). Resolves with their ids. */
  cancelOrdersOfApiKey(apiKeyId: string, account: Address, reason: DexStatusReason): Promise<string[]>;

  getOrder(orderId: string): Promise<DexOrderWithFills | null>;
  /** The order `account` placed with this client order id (accepted or rejected by the matcher; an order
   *  refused before it was recorded does not count), with the request fingerprint it was placed with.
   *  Answers from memory: the API calls it on every placement that carries a client order id. It MUST
   *  survive a restart for every order whose placement was acknowledged. */
  findOrderByClientOrderId(account: Address, clientOrderId: string): Promise<ClientOrderMatch | null>;
  listOrders(query: DexOrderQuery): Promise<DexOrderWithFills[]>;
  getBalances(account: Address): Promise<DexBalance[]>;

  /** Best `depth` levels per side; all levels when depth is undefined. Null for an unknown symbol. */
  getOrderBook(symbol: string, depth?: number): Promise<DexBookSnapshot | null>;
  /** Newest first. */
  getRecentTrades(symbol: string, limit: number): Promise<DexTrade[]>;
  getMarketStats(symbol: string): Promise<DexMarketStats | null>;

  /** The typed data the wallet must sign to approve `agent` (fresh nonce and deadline chosen by the
   *  service, Settlement's domain). */
  prepareAgentApproval(trader: Address, agent: Address, expiry: bigint): Promise<Eip712TypedData>;
  /** Verifies the wallet's AgentApproval signature and submits approveAgentWithSig on chain (through the
   *  operator); resolves once it is accepted (mined or queued durably). Throws INVALID_SIGNATURE. */
  submitAgentApproval(approval: AgentApproval, signature: Hex): Promise<void>;
  /** Submits an agent's own signed AgentRenouncement (Settlement.renounceAgentWithSig) through the agent
   *  relayer, unless the agent holds no approval on chain; resolves once it is mined (and the chain's events
   *  applied), with its transaction (null when nothing had to be sent) and the agent's approval expiry
   *  afterwards (0 = none). Throws INVALID_SIGNATURE (the contract refuses it) or SERVICE_UNAVAILABLE (not
   *  sent or not confirmed: try again). */
  submitAgentRenouncement(
    renouncement: AgentRenouncement,
    signature: Hex,
  ): Promise<{ txHash: Hex | null; agentExpiry: bigint }>;

  /** Book, trade and order events, delivered synchronously in order (book events by sequence).
   *  Returns the unsubscribe function. A listener that throws is the listener's problem, not the
   *  service's: the service catches and ignores it. */
  subscribe(listener: (event: DexEvent) => void): () => void;
}
