// DexService (pipeline/service.ts) over the live pipeline: the API's orders are signed orders in the
// matcher; their status, fills and settlement state are kept by the DEX state (pipeline/dex/state.ts) from
// the service's events (replayed from the journal on start, so they survive a restart), books come from the
// engine, balances from the ledger and the contract. The concepts live in pipeline/dex/: the orders
// (orders.ts), the agent's signature of an API-key order (api-key-order.ts), the agents on chain
// (agent-approvals.ts) and the market data (market-data.ts); this file composes them.
import type { Address, Hex } from "viem";
import {
  createAgentRelayer,
  type AgentRelayer,
  type AgentRelayerBudget,
  type FundingMinimum,
} from "./settle/agent-relayer";
import { createApiKeyNonces } from "./intake/api-nonces";
import type { SignerCache } from "./intake/known-signers";
import type { NonceLane } from "../runtime/nonces";
import type { DexService } from "./service";
import { getDomainSeparator, getSettlementDomain } from "../sdk/eip712";
import { createOrderDigester } from "../runtime/order-digest";
import type { MarketSpec } from "./markets";
import type { Pipeline } from "./pipeline";
import type { DexState } from "./dex/state";
import { DexOrders, withFills } from "./dex/orders";
import { ApiKeyOrderSigner } from "./dex/api-key-order";
import { AgentApprovals } from "./dex/agent-approvals";
import { DexMarketData } from "./dex/market-data";

export { DexState, type DexStateOptions } from "./dex/state";
export { clientKey } from "./dex/order-records";

export interface DexServiceDeps {
  pipeline: Pipeline;
  state: DexState;
  chainId: number;
  settlement: Address;
  rpcUrl: string;
  /** submits approveAgentWithSig (anyone may): the agent relayer's key, holding no contract role; not
   *  the operator, whose nonce the batcher keeps, and never the deployer / admin */
  submitterKey: Hex;
  /** that key's nonce lane on this chain, shared with the account's other senders (the stack's); default:
   *  the relayer's own */
  submitterNonces?: NonceLane;
  /** the relayer's daily gas budget (default 0.1 ETH a day, 0.001 ETH per wallet) */
  approvalBudget?: AgentRelayerBudget;
  /** token symbol by address, for balances */
  assets: Record<string, { symbol: string; decimals: number }>;
  /** this matcher partition's API-key nonce range (api-nonces.ts partitionNonceRange); default: from 2^63 */
  apiKeyNonceRange?: { start: bigint; end: bigint };
  /** where an agent's signatures are remembered for the intake (the pipeline's knownSigners); absent = none */
  knownSigners?: SignerCache;
}

/** Who may spend the agent relayer's budget (docs/decisions/security.md): a wallet holding, in Settlement,
 *  one whole unit (10^decimals) of a token of a listed market (a dollar of the quote token, one unit of an asset). */
export function relayerFundingMinimums(
  markets: readonly MarketSpec[],
  assets: DexServiceDeps["assets"],
): FundingMinimum[] {
  const tokens = new Map<string, Address>();
  for (const m of markets) for (const t of [m.baseToken, m.quoteToken]) tokens.set(t.toLowerCase(), t);
  return [...tokens.values()].map((token) => ({
    token,
    minUnits: 10n ** BigInt(assets[token.toLowerCase()]?.decimals ?? 18),
  }));
}

export function createDexService(deps: DexServiceDeps): DexService {
  const { pipeline: p, state } = deps;
  const svc = p.service;
  /** the pipeline's one clock (the matcher service's) */
  const clock = svc.clock;
  const domain = getSettlementDomain(deps.chainId, deps.settlement);
  const markets = (): MarketSpec[] => svc.marketList();
  const orders = new DexOrders({
    service: svc,
    state,
    marketOf: (symbol) => markets().find((m) => m.symbol === symbol),
    apiKeyOrders: new ApiKeyOrderSigner({
      service: svc,
      clock,
      domain,
      digest: createOrderDigester(getDomainSeparator(domain)),
      /** dense per account from 2^63 (api-nonces.ts), read from the service's nonce state after its replay */
      nonces: createApiKeyNonces(svc, deps.apiKeyNonceRange),
      knownSigners: deps.knownSigners,
    }),
  });
  const agents = agentApprovalsOf(deps, domain, markets);
  const data = new DexMarketData({
    pipeline: p,
    service: svc,
    state,
    clock,
    settlement: deps.settlement,
    assets: deps.assets,
    markets,
  });

  p.subscribeSettled(state.onSettled);
  // the fills the journal replay rebuilt (pending) of batches settled before this start
  // (a test's stand-in pipeline may have recovered nothing)
  state.settledBefore(p.recovered?.settledBatches ?? [], p.recovered?.lastSettledSeq ?? -1);

  return {
    settlementDomain: domain,
    getFees: () => svc.fees(),
    listMarkets: () => markets().map((m) => ({ ...m })),
    placeOrder: (req) => orders.place(req),
    placementRefusal: () => orders.refusal(),
    cancelOrder: (req) => orders.cancel(req),
    cancelOrdersOfApiKey: (apiKeyId, account, reason) => orders.cancelOfApiKey(apiKeyId, account, reason),
    async getOrder(orderId) {
      const r = state.orderById(orderId);
      return r ? withFills(r) : null;
    },
    async findOrderByClientOrderId(account, clientOrderId) {
      const hit = state.findByClientOrderId(account, clientOrderId);
      return hit ? { order: withFills(hit.order), requestHash: hit.requestHash } : null;
    },
    listOrders: async (q) => state.listOrders(q).map(withFills),
    getBalances: (account) => data.balances(account),
    getOrderBook: async (symbol, depth) => data.orderBook(symbol, depth),
    getRecentTrades: async (symbol, limit) => data.recentTrades(symbol, limit),
    getMarketStats: async (symbol) => data.stats(symbol),
    prepareAgentApproval: (trader, agent, expiry) => agents.prepare(trader, agent, expiry),
    submitAgentApproval: (approval, signature: Hex) => agents.submitApproval(approval, signature),
    submitAgentRenouncement: (renouncement, signature: Hex) => agents.submitRenouncement(renouncement, signature),
    subscribe(listener) {
      state.listeners.add(listener);
      return () => state.listeners.delete(listener);
    },
  };
}

/** The agents on chain, over one agent relayer (one nonce manager, one budget) for the service's lifetime,
 *  made when first needed. */
function agentApprovalsOf(
  deps: DexServiceDeps,
  domain: ReturnType<typeof getSettlementDomain>,
  markets: () => MarketSpec[],
): AgentApprovals {
  const p = deps.pipeline;
  let agentRelayer: AgentRelayer | null = null;
  return new AgentApprovals({
    pipeline: p,
    settlement: deps.settlement,
    domain,
    clock: p.service.clock,
    relayer: () =>
      (agentRelayer ??= createAgentRelayer({
        client: p.client,
        chainId: deps.chainId,
        rpcUrl: deps.rpcUrl,
        settlement: deps.settlement,
        relayerKey: deps.submitterKey,
        nonces: deps.submitterNonces,
        budget: deps.approvalBudget ?? { dailyWei: 10n ** 17n, perOwnerDailyWei: 10n ** 15n },
        fundingMinimums: () => relayerFundingMinimums(markets(), deps.assets),
      })),
  });
}
