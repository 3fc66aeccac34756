// The DexService an API process serves when the markets are partitioned across matcher processes
// (DEX_PARTITIONS over the venue's NATS cluster, ORDER_LOG_URL): each market has one owner (one writer: one
// sequence, one journal, one settle lane), reached at whichever process leads it now. Placements and market
// reads go to the market's owner; an order is looked up on every partition (order ids are the API's UUIDs,
// unique across partitions); account reads are merged; events come in on per-market subjects. A partition
// without a leader answers SERVICE_UNAVAILABLE for its markets; merged reads that would be incomplete without
// it answer SERVICE_UNAVAILABLE too (docs/decisions/pipeline.md "Partitions").
import { connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/nats-core";
import type { Address } from "viem";
import {
  DexServiceError,
  type DexBalance,
  type DexEvent,
  type DexOrderWithFills,
  type DexService,
  type MarketSpec,
} from "../service";
import { linkPartition, SignDesk, type PartitionHello, type PartitionLink } from "./link";
import { ALL_EVENTS, decodeWire, eventSchema, eventSymbol } from "./wire";

export interface RoutedDexServiceOptions {
  /** each partition's index and the markets it owns */
  routes: readonly { symbols: readonly string[]; index: number }[];
  /** the venue's NATS servers */
  servers: readonly string[];
  /** how long the start waits for every partition's first answer (default 60 s) */
  readyTimeoutMs?: number;
  /** link.ts LinkOptions: a call's wait, a retried call's attempt and deadline */
  callTimeoutMs?: number;
  attemptMs?: number;
  callDeadlineMs?: number;
  logger?: { warn(o: object, m?: string): void; info(o: object, m?: string): void };
}

export interface RoutedDexService extends DexService {
  readonly partitions: readonly PartitionLink[];
  close(): void;
}

const newestFirst = (a: DexOrderWithFills, b: DexOrderWithFills) =>
  b.createdAtMs - a.createdAtMs || b.updatedAtMs - a.updatedAtMs;

/** Each partition owns exactly its routed markets, and all settle on one Settlement contract. */
function checkPartitions(o: RoutedDexServiceOptions, hellos: PartitionHello[]): void {
  const d0 = hellos[0].domain;
  hellos.forEach((h, i) => {
    const routed = [...o.routes[i].symbols].sort().join(",");
    const owned = h.markets
      .map((m) => m.symbol)
      .sort()
      .join(",");
    if (routed !== owned)
      throw new Error(
        `DEX_PARTITIONS routes ${routed} to partition ${h.index}, which owns ${owned} (PIPELINE_MARKETS)`,
      );
    if (
      h.domain.chainId !== d0.chainId ||
      h.domain.verifyingContract.toLowerCase() !== d0.verifyingContract.toLowerCase()
    )
      throw new Error(
        `partition ${h.index} settles on another contract (${h.domain.chainId}:${h.domain.verifyingContract})`,
      );
  });
}

/** Connects to the venue's NATS cluster, links every partition and checks them before it resolves. */
export async function createRoutedDexService(o: RoutedDexServiceOptions): Promise<RoutedDexService> {
  const nc = await connect({ servers: [...o.servers], maxReconnectAttempts: -1, reconnectTimeWait: 250 });
  const desk = new SignDesk(nc);
  const links = o.routes.map((r) =>
    linkPartition({
      nc,
      index: r.index,
      desk,
      callTimeoutMs: o.callTimeoutMs,
      attemptMs: o.attemptMs,
      callDeadlineMs: o.callDeadlineMs,
    }),
  );
  const close = () => {
    for (const l of links) l.close();
    desk.close();
    void nc.close().catch(() => undefined);
  };
  try {
    checkPartitions(o, await Promise.all(links.map((l) => l.ready(o.readyTimeoutMs ?? 60_000))));
  } catch (e) {
    close();
    throw e;
  }
  return new RoutedDex(o, nc, links, close);
}

class RoutedDex implements RoutedDexService {
  private readonly owner = new Map<string, PartitionLink>();
  /** the one partition that sends agent approvals and renouncements (the agent relayer's one nonce lane) */
  private readonly relayer: PartitionLink;
  private readonly listeners = new Set<(e: DexEvent) => void>();
  readonly settlementDomain: DexService["settlementDomain"];

  constructor(
    o: RoutedDexServiceOptions,
    nc: NatsConnection,
    readonly partitions: readonly PartitionLink[],
    readonly close: () => void,
  ) {
    o.routes.forEach((r, i) => r.symbols.forEach((s) => this.owner.set(s, partitions[i])));
    this.relayer = partitions[0];
    this.settlementDomain = partitions[0].hello!.domain;
    // every market's events; each API process serves every market
    nc.subscribe(ALL_EVENTS, {
      callback: (_e, msg) => {
        if (this.listeners.size === 0) return;
        let event: DexEvent;
        try {
          const parsed = eventSchema.safeParse(decodeWire(msg.string()));
          if (!parsed.success || !this.owner.has(eventSymbol(parsed.data as DexEvent))) return;
          event = parsed.data as DexEvent;
        } catch {
          return;
        }
        for (const l of this.listeners) {
          try {
            l(event);
          } catch {
            /* the listener's problem */
          }
        }
      },
    });
  }

  private ownerOf(symbol: string): PartitionLink | undefined {
    return this.owner.get(symbol);
  }
  private mustOwn(symbol: string): PartitionLink {
    const c = this.ownerOf(symbol);
    if (!c) throw new DexServiceError("INVALID_SYMBOL", `trading pair not supported: ${symbol}`, { symbol });
    return c;
  }
  /** every partition's answer, or SERVICE_UNAVAILABLE when one cannot answer (a merged answer would be partial) */
  private all<T>(f: (c: PartitionLink) => Promise<T>): Promise<T[]> {
    return Promise.all(this.partitions.map(f));
  }
  /** after an agent approval or renouncement sent through one partition, the others see it before this resolves */
  private async syncOthers(): Promise<void> {
    await Promise.allSettled(this.partitions.filter((c) => c !== this.relayer).map((c) => c.call("syncChain", {})));
  }

  listMarkets(): readonly MarketSpec[] {
    // markets as last told, a partition without a leader included: its markets answer SERVICE_UNAVAILABLE
    return this.partitions.flatMap((c) => (c.hello?.markets ?? []).map((m) => ({ ...m })));
  }
  getFees() {
    return (this.partitions.find((c) => c.up) ?? this.partitions[0]).hello!.fees;
  }

  async placeOrder(req: Parameters<DexService["placeOrder"]>[0]) {
    const c = this.mustOwn(req.symbol);
    if (req.kind === "signed") return c.call("placeOrder", req);
    const { agent, ...rest } = req;
    return c.call("placeOrder", { ...rest, agentAddress: agent.address }, agent);
  }

  async cancelOrder(req: Parameters<DexService["cancelOrder"]>[0]) {
    // only the owner knows the order: the others answer ORDER_NOT_FOUND
    const settled = await Promise.allSettled(
      this.partitions.map((c) =>
        c.call("cancelOrder", { orderId: req.orderId, account: req.account, reason: req.reason }),
      ),
    );
    for (const s of settled) if (s.status === "fulfilled") return s.value;
    const errors = settled.map((s) => (s as PromiseRejectedResult).reason as unknown);
    throw errors.find((e) => !(e instanceof DexServiceError && e.code === "ORDER_NOT_FOUND")) ?? errors[0];
  }

  async cancelOrdersOfApiKey(apiKeyId: string, account: Address, reason: string) {
    return (await this.all((c) => c.call("cancelOrdersOfApiKey", { apiKeyId, account, reason }))).flat();
  }

  /** the one non-null answer of the partitions (an order lives on one); null when none has it and all answered */
  async getOrder(orderId: string) {
    const settled = await Promise.allSettled(this.partitions.map((c) => c.call("getOrder", { orderId })));
    for (const s of settled) if (s.status === "fulfilled" && s.value !== null) return s.value;
    const failed = settled.find((s) => s.status === "rejected");
    if (failed) throw (failed as PromiseRejectedResult).reason;
    return null;
  }

  async findOrderByClientOrderId(account: Address, clientOrderId: string) {
    const settled = await Promise.allSettled(
      this.partitions.map((c) => c.call("findOrderByClientOrderId", { account, clientOrderId })),
    );
    const hits = settled.flatMap((s) => (s.status === "fulfilled" && s.value ? [s.value] : []));
    // the first placement wins (one per account is the API's rule; two partitions could only race on it)
    if (hits.length > 0) return hits.sort((a, b) => a.order.createdAtMs - b.order.createdAtMs)[0];
    const failed = settled.find((s) => s.status === "rejected");
    // unknown here may be known on the partition that did not answer: a retried placement must not place twice
    if (failed) throw (failed as PromiseRejectedResult).reason;
    return null;
  }

  async listOrders(q: Parameters<DexService["listOrders"]>[0]) {
    const params = { ...q, statuses: q.statuses ? [...q.statuses] : undefined };
    if (q.symbol !== undefined) {
      const c = this.ownerOf(q.symbol);
      return c ? c.call("listOrders", params) : [];
    }
    const lists = await this.all((c) => c.call("listOrders", params));
    return lists.flat().sort(newestFirst).slice(0, q.limit);
  }

  async getBalances(account: Address): Promise<DexBalance[]> {
    // the chain's balance once, the locks of every partition summed, pending withdrawals once (every
    // partition follows the same chain events)
    const lists = await this.all((c) => c.call("getBalances", { account }));
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
  }

  async getOrderBook(symbol: string, depth?: number) {
    const c = this.ownerOf(symbol);
    return c ? c.call("getOrderBook", depth === undefined ? { symbol } : { symbol, depth }) : null;
  }
  async getRecentTrades(symbol: string, limit: number) {
    const c = this.ownerOf(symbol);
    return c ? c.call("getRecentTrades", { symbol, limit }) : [];
  }
  async getMarketStats(symbol: string) {
    const c = this.ownerOf(symbol);
    return c ? c.call("getMarketStats", { symbol }) : null;
  }

  async prepareAgentApproval(trader: Address, agent: Address, expiry: bigint) {
    return this.relayer.call("prepareAgentApproval", { trader, agent, expiry });
  }
  async submitAgentApproval(...[approval, signature]: Parameters<DexService["submitAgentApproval"]>) {
    await this.relayer.call("submitAgentApproval", { approval, signature });
    await this.syncOthers();
  }
  async submitAgentRenouncement(...[renouncement, signature]: Parameters<DexService["submitAgentRenouncement"]>) {
    const r = await this.relayer.call("submitAgentRenouncement", { renouncement, signature });
    await this.syncOthers();
    return r;
  }

  subscribe(listener: (e: DexEvent) => void) {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }
}
