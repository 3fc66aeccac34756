// The DexService an API process serves when the markets are partitioned across matcher processes
// (DEX_PARTITIONS): each market has one owner (one writer: one sequence, one journal, one settle lane).
// Placements and market reads go to the market's owner; an order is looked up on every partition (order ids
// are the API's UUIDs, unique across partitions); account reads are merged; events are fanned in. A partition
// that is down answers SERVICE_UNAVAILABLE for its markets; merged reads that would be incomplete without it
// answer SERVICE_UNAVAILABLE too (docs/decisions/pipeline.md "Partitions").
import type { Address } from "viem";
import {
  DexServiceError,
  type DexBalance,
  type DexEvent,
  type DexOrderWithFills,
  type DexService,
  type MarketSpec,
} from "../service";
import { connectPartition, type PartitionClient } from "./client";

export interface RoutedDexServiceOptions {
  routes: readonly { symbols: readonly string[]; url: string }[];
  secret: string;
  /** how long the start waits for every partition's first answer (default 60 s) */
  readyTimeoutMs?: number;
  callTimeoutMs?: number;
  logger?: { warn(o: object, m?: string): void; info(o: object, m?: string): void };
}

export interface RoutedDexService extends DexService {
  readonly partitions: readonly PartitionClient[];
  close(): void;
}

const newestFirst = (a: DexOrderWithFills, b: DexOrderWithFills) =>
  b.createdAtMs - a.createdAtMs || b.updatedAtMs - a.updatedAtMs;

/** Connects to every partition and checks them (each owns exactly its routed markets, one Settlement
 *  contract, distinct nonce indexes) before it resolves. */
export async function createRoutedDexService(o: RoutedDexServiceOptions): Promise<RoutedDexService> {
  const clients = o.routes.map((r) =>
    connectPartition({ url: r.url, secret: o.secret, callTimeoutMs: o.callTimeoutMs, logger: o.logger }),
  );
  const owner = new Map<string, PartitionClient>();
  o.routes.forEach((r, i) => r.symbols.forEach((s) => owner.set(s, clients[i])));
  try {
    const hellos = await Promise.all(clients.map((c) => c.ready(o.readyTimeoutMs ?? 60_000)));
    const indexes = new Set<number>();
    hellos.forEach((h, i) => {
      const routed = [...o.routes[i].symbols].sort().join(",");
      const owned = h.markets
        .map((m) => m.symbol)
        .sort()
        .join(",");
      if (routed !== owned)
        throw new Error(
          `DEX_PARTITIONS routes ${routed} to ${o.routes[i].url}, which owns ${owned} (PIPELINE_MARKETS)`,
        );
      const d0 = hellos[0].domain;
      if (
        h.domain.chainId !== d0.chainId ||
        h.domain.verifyingContract.toLowerCase() !== d0.verifyingContract.toLowerCase()
      ) {
        throw new Error(
          `partition ${o.routes[i].url} settles on another contract (${h.domain.chainId}:${h.domain.verifyingContract})`,
        );
      }
      if (indexes.has(h.index))
        throw new Error(`two partitions have PARTITION_INDEX ${h.index}: their API-key nonces would collide`);
      indexes.add(h.index);
    });
  } catch (e) {
    for (const c of clients) c.close();
    throw e;
  }
  const domain = clients[0].hello!.domain;
  /** the one partition that sends agent approvals and renouncements (the agent relayer's one nonce lane) */
  const relayerPartition = clients[0];

  const ownerOf = (symbol: string): PartitionClient | undefined => owner.get(symbol);
  const mustOwn = (symbol: string): PartitionClient => {
    const c = ownerOf(symbol);
    if (!c) throw new DexServiceError("INVALID_SYMBOL", `trading pair not supported: ${symbol}`, { symbol });
    return c;
  };
  /** every partition's answer, or SERVICE_UNAVAILABLE when one cannot answer (a merged answer would be partial) */
  const all = async <T>(f: (c: PartitionClient) => Promise<T>): Promise<T[]> => Promise.all(clients.map(f));
  /** the one non-null answer of the partitions (an order lives on one); null when none has it and all answered */
  async function findOne<T>(f: (c: PartitionClient) => Promise<T | null>): Promise<T | null> {
    const settled = await Promise.allSettled(clients.map(f));
    for (const s of settled) if (s.status === "fulfilled" && s.value !== null) return s.value;
    const failed = settled.find((s) => s.status === "rejected");
    if (failed) throw (failed as PromiseRejectedResult).reason;
    return null;
  }
  /** after an agent approval or renouncement sent through one partition, the others see it before this resolves */
  const syncOthers = async () => {
    await Promise.allSettled(clients.filter((c) => c !== relayerPartition).map((c) => c.call("syncChain", {})));
  };

  return {
    partitions: clients,
    settlementDomain: domain,
    listMarkets(): readonly MarketSpec[] {
      // markets as last told, a partition that is down included: its markets answer SERVICE_UNAVAILABLE, not "unknown"
      return clients.flatMap((c) => (c.hello?.markets ?? []).map((m) => ({ ...m })));
    },
    getFees() {
      return (clients.find((c) => c.up) ?? clients[0]).hello!.fees;
    },

    async placeOrder(req) {
      const c = mustOwn(req.symbol);
      if (req.kind === "signed") return c.call("placeOrder", req);
      const { agent, ...rest } = req;
      return c.call("placeOrder", { ...rest, agentAddress: agent.address }, agent);
    },

    async cancelOrder(req) {
      // only the owner knows the order: the others answer ORDER_NOT_FOUND
      const settled = await Promise.allSettled(
        clients.map((c) => c.call("cancelOrder", { orderId: req.orderId, account: req.account, reason: req.reason })),
      );
      for (const s of settled) if (s.status === "fulfilled") return s.value;
      const errors = settled.map((s) => (s as PromiseRejectedResult).reason as unknown);
      throw errors.find((e) => !(e instanceof DexServiceError && e.code === "ORDER_NOT_FOUND")) ?? errors[0];
    },

    async cancelOrdersOfApiKey(apiKeyId, account, reason) {
      return (await all((c) => c.call("cancelOrdersOfApiKey", { apiKeyId, account, reason }))).flat();
    },

    getOrder(orderId) {
      return findOne((c) => c.call("getOrder", { orderId }));
    },

    async findOrderByClientOrderId(account, clientOrderId) {
      const settled = await Promise.allSettled(
        clients.map((c) => c.call("findOrderByClientOrderId", { account, clientOrderId })),
      );
      const hits = settled.flatMap((s) => (s.status === "fulfilled" && s.value ? [s.value] : []));
      // the first placement wins (one per account is the API's rule; two partitions could only race on it)
      if (hits.length > 0) return hits.sort((a, b) => a.order.createdAtMs - b.order.createdAtMs)[0];
      const failed = settled.find((s) => s.status === "rejected");
      // unknown here may be known on the partition that did not answer: a retried placement must not place twice
      if (failed) throw (failed as PromiseRejectedResult).reason;
      return null;
    },

    async listOrders(q) {
      if (q.symbol !== undefined) {
        const c = ownerOf(q.symbol);
        return c ? c.call("listOrders", { ...q, statuses: q.statuses ? [...q.statuses] : undefined }) : [];
      }
      const lists = await all((c) =>
        c.call("listOrders", { ...q, statuses: q.statuses ? [...q.statuses] : undefined }),
      );
      return lists.flat().sort(newestFirst).slice(0, q.limit);
    },

    async getBalances(account: Address): Promise<DexBalance[]> {
      // the chain's balance once, the locks of every partition summed, pending withdrawals once (every
      // partition follows the same chain events)
      const lists = await all((c) => c.call("getBalances", { account }));
      const byToken = new Map<string, DexBalance>();
      for (const list of lists)
        for (const b of list) {
          const k = b.token.toLowerCase();
          const seen = byToken.get(k);
          if (!seen) byToken.set(k, { ...b });
          else {
            seen.lockedUnits += b.lockedUnits;
            if (b.pendingWithdrawalUnits > seen.pendingWithdrawalUnits)
              seen.pendingWithdrawalUnits = b.pendingWithdrawalUnits;
          }
        }
      return [...byToken.values()].map((b) => {
        const avail = b.onChainUnits - b.lockedUnits - b.pendingWithdrawalUnits;
        return { ...b, availableUnits: avail < 0n ? 0n : avail };
      });
    },

    async getOrderBook(symbol, depth) {
      const c = ownerOf(symbol);
      return c ? c.call("getOrderBook", depth === undefined ? { symbol } : { symbol, depth }) : null;
    },
    async getRecentTrades(symbol, limit) {
      const c = ownerOf(symbol);
      return c ? c.call("getRecentTrades", { symbol, limit }) : [];
    },
    async getMarketStats(symbol) {
      const c = ownerOf(symbol);
      return c ? c.call("getMarketStats", { symbol }) : null;
    },

    async prepareAgentApproval(trader, agent, expiry) {
      return relayerPartition.call("prepareAgentApproval", { trader, agent, expiry });
    },
    async submitAgentApproval(approval, signature) {
      await relayerPartition.call("submitAgentApproval", { approval, signature });
      await syncOthers();
    },
    async submitAgentRenouncement(renouncement, signature) {
      const r = await relayerPartition.call("submitAgentRenouncement", { renouncement, signature });
      await syncOthers();
      return r;
    },

    subscribe(listener: (e: DexEvent) => void) {
      const offs = clients.map((c) => c.onEvent(listener));
      return () => offs.forEach((off) => off());
    },
    close() {
      for (const c of clients) c.close();
    },
  };
}
