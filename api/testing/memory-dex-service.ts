// TEST DOUBLE ONLY: an in-memory DexService for the API's own unit tests: the real matching engine
// (matcher/core) behind the DexService port, as pipeline/dex-service.ts presents it, with signatures checked,
// funds locked and trades settled at once in memory (no chain, no journal, no batcher).
import { randomUUID } from "node:crypto";
import { getAddress, verifyTypedData, type Address, type Hex } from "viem";
import {
  MatchingEngine,
  type CancelReason,
  type Command,
  type PlaceCommand,
  type RejectCode,
  type TimeInForce,
} from "../../matcher/core";
import {
  DEX_OPEN_STATUSES,
  DexServiceError,
  type AgentApproval,
  type CancelOrderRequest,
  type DexBalance,
  type DexBookSnapshot,
  type DexEvent,
  type DexFill,
  type DexLevel,
  type MarketSpec,
  type DexMarketStats,
  type DexOrderQuery,
  type DexOrderWithFills,
  type DexService,
  type DexStatusReason,
  type DexTrade,
  type Eip712TypedData,
  type PlaceOrderRequest,
  type SettlementOrder,
} from "../../pipeline/service";

export const TEST_CHAIN_ID = 31337;
export const TEST_SETTLEMENT: Address = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
export const WETH: Address = "0x1000000000000000000000000000000000000001";
export const USD: Address = "0x1000000000000000000000000000000000000002";
export const WBTC: Address = "0x1000000000000000000000000000000000000003";

/** A market against USD (6 decimals) with the seed's order bounds. */
const usdMarket = (base: string, baseToken: Address, baseDecimals: number, tickSize: bigint, lotSize: bigint) => ({
  symbol: `${base}-USD`,
  baseToken,
  quoteToken: USD,
  baseDecimals,
  quoteDecimals: 6,
  tickSize,
  lotSize,
  minLots: 1n,
  maxLots: 10n ** 8n,
});

export const TEST_MARKETS: MarketSpec[] = [
  usdMarket("WETH", WETH, 18, 10n ** 4n, 10n ** 14n),
  usdMarket("WBTC", WBTC, 8, 10n ** 14n, 10n ** 4n),
];
const TOKENS: Record<string, { asset: string; decimals: number }> = {
  [WETH.toLowerCase()]: { asset: "WETH", decimals: 18 },
  [USD.toLowerCase()]: { asset: "USD", decimals: 6 },
  [WBTC.toLowerCase()]: { asset: "WBTC", decimals: 8 },
};

export const SETTLEMENT_DOMAIN = {
  name: "Settlement",
  version: "1",
  chainId: TEST_CHAIN_ID,
  verifyingContract: TEST_SETTLEMENT,
} as const;
// The one EIP-712 definition of the order and agent approval (the contract's twin).
import {
  ORDER_TYPES,
  AGENT_APPROVAL_TYPES,
  AGENT_RENOUNCEMENT_TYPES,
  orderFlagsFor,
  type AgentRenouncement,
} from "../../sdk/eip712";
export { ORDER_TYPES, AGENT_APPROVAL_TYPES };

interface Resting extends DexOrderWithFills {
  lockedToken: Address;
  lockedUnits: bigint;
}

export interface MemoryDexService extends DexService {
  credit(account: Address, token: Address, units: bigint): void;
  /** every placeOrder call that reached the service (idempotent replays included) */
  readonly placeCalls: PlaceOrderRequest[];
  /** every agent approval submitted "on chain" (what a relayer would pay gas for) */
  readonly approvalSubmissions: AgentApproval[];
  /** every agent renouncement sent "on chain" */
  readonly renouncementSubmissions: AgentRenouncement[];
  /** what submitAgentRenouncement does next: "ok", "unavailable" (SERVICE_UNAVAILABLE, nothing sent) or
   *  "refused" (INVALID_SIGNATURE, as when the contract refuses it) */
  renouncementMode: "ok" | "unavailable" | "refused";
  /** the agent's approval expiry "on chain" (0 = none) */
  agentExpiry(trader: Address, agent: Address): bigint;
  /** orders the service accepted (refusals excluded) */
  orderCount(): number;
  /** test hook: break the book event sequence once (the WS test injects a gap) */
  skipNextBookSequence(): void;
  /** time passes (the pipeline's matcher service ticks every 250 ms): GTD orders due at `now()` expire */
  tick(): void;
}

/** The engine's account of a trader (one spelling, whatever the request's case). */
const engineAccount = (a: Address) => a.toLowerCase();
/** Engine rejections of a placement, as the order's status reason (pipeline/dex-service.ts's mapping). */
const REJECTED: Partial<Record<RejectCode, DexStatusReason>> = {
  POST_ONLY_WOULD_CROSS: "post_only_would_take",
  FOK_NOT_FILLABLE: "fok_not_fillable",
};
const CANCELLED: Partial<Record<CancelReason, DexStatusReason>> = {
  stp: "self_trade_prevention",
  user: "user_cancelled",
};

export function createMemoryDexService(options: { now?: () => number } = {}): MemoryDexService {
  const now = options.now ?? Date.now;
  const markets = new Map(TEST_MARKETS.map((m) => [m.symbol, m]));
  const orders = new Map<string, Resting>();
  const engine = new MatchingEngine({
    markets: TEST_MARKETS.map((m) => ({
      symbol: m.symbol,
      minSizeLots: Number(m.minLots),
      maxSizeLots: Number(m.maxLots),
    })),
  });
  /** the book event sequence of each symbol */
  const bookSequence = new Map<string, number>(TEST_MARKETS.map((m) => [m.symbol, 0]));
  const balances = new Map<string, { onChain: bigint; locked: bigint }>();
  const trades = new Map<string, DexTrade[]>();
  const agents = new Map<string, bigint>(); // trader:agent -> expiry
  const usedNonces = new Set<string>();
  const listeners = new Set<(e: DexEvent) => void>();
  const placeCalls: PlaceOrderRequest[] = [];
  const approvalSubmissions: AgentApproval[] = [];
  const renouncementSubmissions: AgentRenouncement[] = [];
  const renouncedNonces = new Set<string>();
  /** account \n client order id -> the order it placed (what the pipeline rebuilds from its journal) */
  const byClientId = new Map<string, { orderId: string; requestHash: string | null }>();
  let approvalNonce = 1000n;
  let skipSequence = false;

  const bal = (a: Address, t: Address) => {
    const k = `${a.toLowerCase()}:${t.toLowerCase()}`;
    let b = balances.get(k);
    if (!b) balances.set(k, (b = { onChain: 0n, locked: 0n }));
    return b;
  };
  const emit = (e: DexEvent) => {
    for (const l of listeners) {
      try {
        l(e);
      } catch {
        // a listener's failure is its own
      }
    }
  };
  const quoteOf = (m: MarketSpec, ticks: bigint, lots: bigint) =>
    (lots * m.lotSize * ticks * m.tickSize + 10n ** 18n - 1n) / 10n ** 18n;
  /** level changes of one engine command, per symbol: price -> new total size, bids and asks */
  type Touched = Map<string, { bids: Map<bigint, bigint>; asks: Map<bigint, bigint> }>;
  const emitBooks = (touched: Touched) => {
    for (const [symbol, t] of touched) {
      const sequence = bookSequence.get(symbol)! + (skipSequence ? 2 : 1);
      bookSequence.set(symbol, sequence);
      skipSequence = false;
      const levels = (side: Map<bigint, bigint>): DexLevel[] =>
        [...side].map(([priceTicks, sizeLots]) => ({ priceTicks, sizeLots }));
      emit({ kind: "book", symbol, sequence, timestampMs: now(), bids: levels(t.bids), asks: levels(t.asks) });
    }
  };
  const snapshotOf = (o: Resting): DexOrderWithFills => {
    const { lockedToken: _t, lockedUnits: _u, ...rest } = o;
    return { ...rest, fills: [...o.fills] };
  };
  const orderEvent = (o: Resting, fill: DexFill | null) =>
    emit({ kind: "order", account: o.account, order: snapshotOf(o), fill });
  const unlock = (o: Resting, units: bigint) => {
    const u = units > o.lockedUnits ? o.lockedUnits : units;
    bal(o.account, o.lockedToken).locked -= u;
    o.lockedUnits -= u;
  };
  const finish = (o: Resting, status: "cancelled" | "rejected" | "expired", reason: DexStatusReason) => {
    o.status = status;
    o.statusReason = reason;
    o.updatedAtMs = now();
    unlock(o, o.lockedUnits);
  };

  function verifySigned(req: Extract<PlaceOrderRequest, { kind: "signed" }>): Promise<boolean> {
    return verifyTypedData({
      address: req.trader,
      domain: SETTLEMENT_DOMAIN,
      types: ORDER_TYPES,
      primaryType: "Order",
      message: req.order,
      signature: req.signature,
    });
  }

  async function place(req: PlaceOrderRequest): Promise<DexOrderWithFills> {
    const m = markets.get(req.symbol);
    if (!m) throw new DexServiceError("INVALID_SYMBOL", `unknown symbol ${req.symbol}`);
    const trader = getAddress(req.trader);
    if (req.kind === "signed") {
      if (!(await verifySigned(req)))
        throw new DexServiceError("INVALID_SIGNATURE", "order signature does not recover to the trader");
      const nonceKey = `${trader}:${req.order.nonce}`;
      if (usedNonces.has(nonceKey)) throw new DexServiceError("INVALID_NONCE", "nonce already used");
      usedNonces.add(nonceKey);
    } else {
      const expiry = agents.get(`${trader.toLowerCase()}:${req.agent.address.toLowerCase()}`);
      if (expiry === undefined) throw new DexServiceError("AGENT_NOT_APPROVED", "agent not approved");
      // Sign like the real service would (exercises the agent account the API hands over).
      const order: SettlementOrder = {
        trader,
        baseToken: m.baseToken,
        quoteToken: m.quoteToken,
        side: req.side === "buy" ? 0 : 1,
        price: (req.priceTicks ?? 1n) * m.tickSize,
        amount: req.sizeLots * m.lotSize,
        expiry: BigInt(Math.floor(now() / 1000) + 86400),
        nonce: BigInt(orders.size + 1),
        flags: orderFlagsFor(req.type, req.timeInForce),
      };
      await req.agent.signTypedData({
        domain: SETTLEMENT_DOMAIN,
        types: ORDER_TYPES,
        primaryType: "Order",
        message: order,
      });
    }
    // funds: a buy locks its quote at its limit (a market buy: the sweep cost), a sell its base
    let lockToken: Address;
    let lockUnits: bigint;
    if (req.side === "sell") {
      lockToken = m.baseToken;
      lockUnits = req.sizeLots * m.lotSize;
    } else {
      lockToken = m.quoteToken;
      if (req.priceTicks !== null) lockUnits = quoteOf(m, req.priceTicks, req.sizeLots);
      else {
        let left = req.sizeLots;
        lockUnits = 0n;
        for (const r of engine.getBookOrders(m.symbol, "sell")) {
          if (left === 0n) break;
          const take = BigInt(r.remainingLots) < left ? BigInt(r.remainingLots) : left;
          lockUnits += quoteOf(m, BigInt(r.priceTicks!), take);
          left -= take;
        }
      }
    }
    const b = bal(trader, lockToken);
    const available = b.onChain - b.locked;
    if (available < lockUnits) {
      throw new DexServiceError("INSUFFICIENT_BALANCE", "insufficient balance", {
        token: lockToken,
        requiredUnits: lockUnits,
        availableUnits: available,
        decimals: TOKENS[lockToken.toLowerCase()].decimals,
      });
    }
    const t = now();
    const o: Resting = {
      orderId: req.orderId,
      clientOrderId: req.clientOrderId,
      account: trader,
      apiKeyId: req.kind === "api_key" ? req.apiKeyId : null,
      symbol: m.symbol,
      side: req.side,
      type: req.type,
      timeInForce: req.timeInForce,
      priceTicks: req.priceTicks,
      triggerPriceTicks: req.triggerPriceTicks,
      sizeLots: req.sizeLots,
      filledLots: 0n,
      filledQuoteUnits: 0n,
      status: "open",
      statusReason: null,
      createdAtMs: t,
      updatedAtMs: t,
      expiresAtMs: req.expiresAtMs,
      hidden: req.hidden ?? false,
      icebergVisibleLots: req.icebergVisibleLots ?? null,
      fills: [],
      lockedToken: lockToken,
      lockedUnits: lockUnits,
    };
    b.locked += lockUnits;
    orders.set(o.orderId, o);
    const ck = `${trader.toLowerCase()}\n${req.clientOrderId}`;
    if (!byClientId.has(ck)) byClientId.set(ck, { orderId: o.orderId, requestHash: req.requestHash ?? null });
    const cmd: PlaceCommand = {
      kind: "place",
      ts: t,
      orderId: o.orderId,
      account: engineAccount(trader),
      symbol: m.symbol,
      side: req.side,
      type: req.type,
      timeInForce: (req.timeInForce === "post_only" ? "POST_ONLY" : req.timeInForce.toUpperCase()) as TimeInForce,
      sizeLots: Number(req.sizeLots),
    };
    if (req.priceTicks !== null) cmd.priceTicks = Number(req.priceTicks);
    if (req.triggerPriceTicks !== null) cmd.triggerPriceTicks = Number(req.triggerPriceTicks);
    if (req.timeInForce === "gtd" && req.expiresAtMs !== null) cmd.expiresAt = req.expiresAtMs;
    if (req.hidden) cmd.hidden = true;
    if (req.icebergVisibleLots) cmd.icebergVisibleLots = Number(req.icebergVisibleLots);
    run(cmd, o);
    return snapshotOf(o);
  }

  /** The engine's answer to one command, as the service's orders, balances and events: per trade the maker's
   *  order event, the trade, the taker's order event; then a placed order's own status; then the books. */
  function run(cmd: Command, placed: Resting | null, cancelReason?: DexStatusReason): void {
    const touched: Touched = new Map();
    for (const e of engine.apply(cmd)) {
      switch (e.type) {
        case "accepted":
          if (placed && e.triggerPriceTicks !== undefined) {
            placed.status = "pending_trigger";
            orderEvent(placed, null);
          }
          break;
        case "rejected":
          if (placed && e.command === "place") {
            finish(placed, "rejected", REJECTED[e.code] ?? e.code.toLowerCase());
            orderEvent(placed, null);
          }
          break;
        case "trade":
          settleTrade(
            orders.get(e.makerOrderId)!,
            orders.get(e.takerOrderId)!,
            BigInt(e.priceTicks),
            BigInt(e.sizeLots),
          );
          break;
        case "triggered": {
          const o = orders.get(e.orderId)!;
          o.status = "open";
          o.updatedAtMs = now();
          orderEvent(o, null);
          break;
        }
        case "cancelled": {
          if (e.remainingLots > 0) break; // a self-trade decrement: still open
          const o = orders.get(e.orderId)!;
          if (cancelReason !== undefined && e.reason === "user") finish(o, "cancelled", cancelReason);
          else if (e.reason === "ioc_remainder" || e.reason === "market_remainder") {
            if (o.filledLots === 0n && o.priceTicks === null) finish(o, "rejected", "no_liquidity");
            else finish(o, "cancelled", "ioc_remainder");
          } else finish(o, "cancelled", CANCELLED[e.reason] ?? e.reason);
          orderEvent(o, null);
          break;
        }
        case "expired": {
          const o = orders.get(e.orderId)!;
          finish(o, "expired", "expired");
          orderEvent(o, null);
          break;
        }
        case "level": {
          let t = touched.get(e.symbol);
          if (!t) touched.set(e.symbol, (t = { bids: new Map(), asks: new Map() }));
          (e.side === "buy" ? t.bids : t.asks).set(BigInt(e.priceTicks), BigInt(e.newTotalLots));
          break;
        }
        default:
          break;
      }
    }
    if (placed && placed.status === "open" && placed.filledLots === 0n && engine.getOrder(placed.orderId))
      orderEvent(placed, null);
    if (placed && placed.filledLots === placed.sizeLots) unlock(placed, placed.lockedUnits);
    emitBooks(touched);
  }

  /** One trade settled at once: balances move, both orders fill. */
  function settleTrade(r: Resting, o: Resting, price: bigint, take: bigint): void {
    const m = markets.get(o.symbol)!;
    const quote = (take * m.lotSize * price * m.tickSize) / 10n ** 18n;
    const base = take * m.lotSize;
    const buyer = o.side === "buy" ? o : r;
    const seller = o.side === "buy" ? r : o;
    bal(buyer.account, m.quoteToken).onChain -= quote;
    bal(buyer.account, m.baseToken).onChain += base;
    bal(seller.account, m.baseToken).onChain -= base;
    bal(seller.account, m.quoteToken).onChain += quote;
    unlock(buyer, buyer.priceTicks === null ? quote : quoteOf(m, buyer.priceTicks, take));
    unlock(seller, base);
    const tradeId = randomUUID();
    const ts = now();
    for (const [x, liquidity] of [
      [r, "maker"],
      [o, "taker"],
    ] as const) {
      x.filledLots += take;
      x.filledQuoteUnits += quote;
      x.status = x.filledLots === x.sizeLots ? "filled" : "partially_filled";
      x.updatedAtMs = ts;
      const fill: DexFill = {
        tradeId,
        orderId: x.orderId,
        priceTicks: price,
        sizeLots: take,
        liquidity,
        feeUnits: 0n,
        feeToken: x.side === "buy" ? m.baseToken : m.quoteToken,
        timestampMs: ts,
        settlement: "settled",
        txHash: null,
      };
      x.fills.push(fill);
      if (x === r) orderEvent(r, fill);
    }
    const trade: DexTrade = {
      tradeId,
      symbol: m.symbol,
      priceTicks: price,
      sizeLots: take,
      takerSide: o.side,
      timestampMs: ts,
      makerOrderId: r.orderId,
      takerOrderId: o.orderId,
    };
    const list = trades.get(m.symbol) ?? [];
    list.unshift(trade);
    trades.set(m.symbol, list.slice(0, 1000));
    emit({ kind: "trade", trade });
    orderEvent(o, o.fills[o.fills.length - 1]);
  }

  const placing = new Map<string, Promise<DexOrderWithFills>>();

  function cancelOne(o: Resting, reason: DexStatusReason): void {
    run({ kind: "cancel", ts: now(), orderId: o.orderId, account: engineAccount(o.account) }, null, reason);
  }

  let renounceMode: MemoryDexService["renouncementMode"] = "ok";
  return {
    placeCalls,
    approvalSubmissions,
    renouncementSubmissions,
    get renouncementMode() {
      return renounceMode;
    },
    set renouncementMode(v) {
      renounceMode = v;
    },
    agentExpiry: (trader, agent) => agents.get(`${trader.toLowerCase()}:${agent.toLowerCase()}`) ?? 0n,
    settlementDomain: SETTLEMENT_DOMAIN,
    // the double charges no fee (its fills carry fee 0)
    getFees: () => ({ makerFeeBps: 0n, takerFeeBps: 0n }),
    credit(account, token, units) {
      bal(account, token).onChain += units;
    },
    orderCount: () => orders.size,
    skipNextBookSequence() {
      skipSequence = true;
    },
    tick() {
      run({ kind: "tick", ts: now() }, null);
    },
    listMarkets: () => TEST_MARKETS,
    async placeOrder(req) {
      placeCalls.push(req);
      const known = orders.get(req.orderId);
      if (known) return snapshotOf(known);
      const inFlight = placing.get(req.orderId);
      if (inFlight) return inFlight;
      const p = place(req);
      placing.set(req.orderId, p);
      try {
        return await p;
      } finally {
        placing.delete(req.orderId);
      }
    },
    async cancelOrder(req: CancelOrderRequest) {
      const o = orders.get(req.orderId);
      if (!o || o.account.toLowerCase() !== req.account.toLowerCase())
        throw new DexServiceError("ORDER_NOT_FOUND", "order not found");
      if (!DEX_OPEN_STATUSES.includes(o.status))
        throw new DexServiceError("ORDER_NOT_OPEN", "order is not open", { status: o.status });
      cancelOne(o, req.reason);
      return snapshotOf(o);
    },
    async cancelOrdersOfApiKey(apiKeyId, account, reason) {
      const ids: string[] = [];
      for (const o of orders.values()) {
        if (
          o.apiKeyId === apiKeyId &&
          o.account.toLowerCase() === account.toLowerCase() &&
          DEX_OPEN_STATUSES.includes(o.status)
        ) {
          cancelOne(o, reason);
          ids.push(o.orderId);
        }
      }
      return ids;
    },
    async getOrder(id) {
      const o = orders.get(id);
      return o ? snapshotOf(o) : null;
    },
    async findOrderByClientOrderId(account, clientOrderId) {
      const hit = byClientId.get(`${account.toLowerCase()}\n${clientOrderId}`);
      const o = hit && orders.get(hit.orderId);
      return o ? { order: snapshotOf(o), requestHash: hit.requestHash } : null;
    },
    async listOrders(q: DexOrderQuery) {
      return [...orders.values()]
        .filter(
          (o) =>
            o.account.toLowerCase() === q.account.toLowerCase() &&
            (!q.statuses || q.statuses.includes(o.status)) &&
            (!q.symbol || o.symbol === q.symbol) &&
            (!q.apiKeyId || o.apiKeyId === q.apiKeyId) &&
            (q.sinceMs === undefined || o.updatedAtMs >= q.sinceMs),
        )
        .sort((a, b) => b.createdAtMs - a.createdAtMs)
        .slice(0, q.limit)
        .map(snapshotOf);
    },
    async getBalances(account): Promise<DexBalance[]> {
      return Object.entries(TOKENS).map(([token, t]) => {
        const b = bal(account, token as Address);
        return {
          token: getAddress(token),
          asset: t.asset,
          decimals: t.decimals,
          onChainUnits: b.onChain,
          lockedUnits: b.locked,
          pendingWithdrawalUnits: 0n,
          availableUnits: b.onChain - b.locked,
        };
      });
    },
    async getOrderBook(symbol, depth): Promise<DexBookSnapshot | null> {
      const d = engine.getDepth(symbol, depth ?? Number.MAX_SAFE_INTEGER);
      if (!d) return null;
      const levels = (side: [number, number][]): DexLevel[] =>
        side.slice(0, depth).map(([p, lots]) => ({ priceTicks: BigInt(p), sizeLots: BigInt(lots) }));
      return {
        symbol,
        bids: levels(d.bids),
        asks: levels(d.asks),
        sequence: bookSequence.get(symbol)!,
        timestampMs: now(),
      };
    },
    async getRecentTrades(symbol, limit) {
      return (trades.get(symbol) ?? []).slice(0, limit);
    },
    async getMarketStats(symbol): Promise<DexMarketStats | null> {
      if (!markets.has(symbol)) return null;
      const list = trades.get(symbol) ?? [];
      const since = now() - 86_400_000;
      return {
        symbol,
        lastPriceTicks: list[0]?.priceTicks ?? null,
        volume24hLots: list.filter((t) => t.timestampMs >= since).reduce((s, t) => s + t.sizeLots, 0n),
        open24hPriceTicks: list.filter((t) => t.timestampMs >= since).at(-1)?.priceTicks ?? null,
        timestampMs: now(),
      };
    },
    async prepareAgentApproval(trader, agent, expiry): Promise<Eip712TypedData> {
      approvalNonce += 1n;
      return {
        domain: { ...SETTLEMENT_DOMAIN },
        types: AGENT_APPROVAL_TYPES,
        primaryType: "AgentApproval",
        message: { trader, agent, expiry, nonce: approvalNonce, deadline: BigInt(Math.floor(now() / 1000) + 3600) },
      };
    },
    async submitAgentApproval(a: AgentApproval, signature: Hex) {
      const ok = await verifyTypedData({
        address: a.trader,
        domain: SETTLEMENT_DOMAIN,
        types: AGENT_APPROVAL_TYPES,
        primaryType: "AgentApproval",
        message: a,
        signature,
      });
      if (!ok)
        throw new DexServiceError("INVALID_SIGNATURE", "agent approval signature does not recover to the trader");
      approvalSubmissions.push(a);
      agents.set(`${a.trader.toLowerCase()}:${a.agent.toLowerCase()}`, a.expiry);
    },
    async submitAgentRenouncement(r: AgentRenouncement, signature: Hex) {
      const k = `${r.trader.toLowerCase()}:${r.agent.toLowerCase()}`;
      if (!agents.get(k)) return { txHash: null, agentExpiry: 0n };
      if (renounceMode === "unavailable")
        throw new DexServiceError("SERVICE_UNAVAILABLE", "the agent renouncement could not be sent", {
          reason: "relayer_send_failed",
        });
      const ok = await verifyTypedData({
        address: r.agent,
        domain: SETTLEMENT_DOMAIN,
        types: AGENT_RENOUNCEMENT_TYPES,
        primaryType: "AgentRenouncement",
        message: r,
        signature,
      });
      // like the contract: the agent's signature, its nonce used once
      if (renounceMode === "refused" || !ok || renouncedNonces.has(`${r.agent.toLowerCase()}:${r.nonce}`)) {
        throw new DexServiceError("INVALID_SIGNATURE", "the contract refuses this agent renouncement");
      }
      renouncedNonces.add(`${r.agent.toLowerCase()}:${r.nonce}`);
      renouncementSubmissions.push(r);
      agents.delete(k);
      return { txHash: `0x${renouncementSubmissions.length.toString(16).padStart(64, "0")}` as Hex, agentExpiry: 0n };
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
