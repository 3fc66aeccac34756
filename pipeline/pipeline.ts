// The live pipeline as one component: matcher service + chain follower + batcher, started in the order
// that makes a crash harmless: replay the journal, read the chain's history, resume the batcher from the
// contract's nextBatchId and hand it every trade after the last settled one, then go live.
import { join } from "node:path";
import { createPublicClient, defineChain, http, type Address, type Hex, type PublicClient } from "viem";
import { createBatcher, type Batcher, type SettledBatch } from "./settle/batcher";
import { batchTxsFromChain, type SettledBatchRecord } from "./settle/batch-confirmations";
import { createContractWallets } from "./intake/contract-signature";
import { createChainFollower, type ChainFollower, type SettlementEvent } from "./follow/chain-follower";
import { createResaleFollower, createSellRestriction, readResaleMarkets } from "./follow/resale-follower";
import { MatcherService, type ServiceEvent, type SnapshotPart } from "./match/matcher-service";
import type { MarketSpec } from "./markets";
import { createOrderDigester, getDomainSeparator } from "./intake/order-digest";
import type { SignerCache } from "./intake/known-signers";
import { getSettlementDomain } from "./order";
import { createSettleSender, SETTLE_GAS_CAP, settleGasWanted } from "./settle/settle-sender";
import {
  createChainAvailability,
  type ChainAvailabilityHealth,
  type SupervisedChain,
} from "./settle/chain-availability";
import { systemClock, type Clock } from "../runtime/clock";
import { settlementAbi } from "../sdk/abi";
import type { Replication } from "./replication/replication";

/** The matcher treats an order as expired this long before its signed expiry, so that a trade matched
 *  just before the deadline still settles (batches land in well under a second; 10 s leaves room for
 *  retries while the node restarts). */
export const DEFAULT_EXPIRY_MARGIN_MS = 10_000;
/** Load shedding threshold: one full batch in flight plus one forming (so batches stay full); the latency
 *  it bounds is this over the chain's settle rate (measured in docs/decisions.md "Pipeline"). */
export const DEFAULT_MAX_BACKLOG_TRADES = 200;

export interface PipelineOptions {
  rpcUrl: string;
  chainId: number;
  settlement: Address;
  /** the block the Settlement contract was deployed in: history is read from here */
  fromBlock: bigint;
  markets: MarketSpec[];
  operatorKey: Hex;
  /** the settle lane of this matcher partition (Settlement: batch ids from lane << 56, its own sequence);
   *  default 0, the one-matcher deployment */
  settleLane?: number;
  /** journal and batch store live here */
  dataDir: string;
  maxTrades?: number;
  maxDelayMs?: number;
  /** settle batches sent and not yet confirmed, at most (default 2) */
  maxInFlight?: number;
  /** threads recovering order signers off the matching thread (default 1; 0 = inline) */
  recoverThreads?: number;
  /** matched-but-unsettled trades above which new orders are shed (SERVICE_UNAVAILABLE); 0 = no limit */
  maxBacklogTrades?: number;
  /** the signers the API and the DEX service established for orders this intake then need not recover
   *  (the composition root's one cache, shared with them); absent = every signature is recovered */
  knownSigners?: SignerCache;
  expiryMarginMs?: number;
  pollMs?: number;
  fsync?: boolean;
  logger?: { info(o: object, m?: string): void; warn(o: object, m?: string): void; error(o: object, m?: string): void };
  /** the pipeline's one clock: the matcher service (and through it the DEX service) and the settle stage
   *  read time through it (default: the system clock) */
  clock?: Clock;
  /** the home chain's supervisor (npm start's chain layer): while it reports the chain down, new orders are
   *  refused (CHAIN_UNAVAILABLE) and health says so; without it, only the settle sender's failures tell */
  homeChain?: SupervisedChain;
  onSettled?(b: SettledBatch): void;
  /** subscribed before the journal replays, so they see every event since the journal's snapshot */
  listeners?: ((e: ServiceEvent) => void)[];
  /** state those listeners build, kept in the matcher journal's snapshots (by name): restored from the
   *  newest snapshot, then the records after it replay through the listeners */
  snapshotParts?: Record<string, SnapshotPart>;
  /** a matcher journal snapshot after this many records (default DEFAULT_SNAPSHOT_EVERY: none) and one at
   *  stop; 0 = never, not even at stop (the default when `listeners` are given without `snapshotParts`) */
  snapshotEvery?: number;
  /** the replicated order log (ORDER_LOG_URL): the journal and the batch store on JetStream, the start
   *  waiting as a hot standby until this process holds the partition's lease; when it loses the lease the
   *  service halts (SERVICE_UNAVAILABLE) and `onDeposed` is called */
  replication?: Replication;
  onDeposed?(reason: string): void;
}

export interface Reconciliation {
  state: "pending" | "ok" | "mismatch" | "inconclusive";
  checked: number;
  mismatches: { account: string; token: string; projected: string; onChain: string }[];
}

export interface Pipeline {
  readonly service: MatcherService;
  readonly batcher: Batcher;
  readonly client: PublicClient;
  /** what the start recovered: journal records and every trade the journal holds, in seq order; the
   *  batches the chain had settled, with their transactions (fills' settlement after a restart) */
  readonly recovered: {
    records: number;
    trades: readonly import("./settle/batcher").SettleableTrade[];
    lastSettledSeq: number;
    settledBatches: readonly SettledBatchRecord[];
    startMs: Readonly<Record<string, number>>;
  };
  /** settled batches, as they land (fills' settlement status, benches) */
  subscribeSettled(fn: (b: SettledBatch) => void): () => void;
  /** resolves once chain events up to the current head are applied (tests: after a deposit) */
  syncChain(): Promise<void>;
  health(): {
    matcher: ReturnType<MatcherService["health"]>;
    batcher: ReturnType<Batcher["health"]>;
    chainBlock: string;
    reconciliation: Reconciliation;
    chain: ChainAvailabilityHealth;
    replication?: ReturnType<Replication["health"]>;
  };
  /** Compares the ledger's projected balances with the contract's balanceOf once nothing is waiting for
   *  settlement (run once at start; callable again). */
  reconcile(): Promise<Reconciliation>;
  stop(): Promise<void>;
}

export async function startPipeline(opts: PipelineOptions): Promise<Pipeline> {
  const abi = settlementAbi;
  const chain = defineChain({
    id: opts.chainId,
    name: `chain-${opts.chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [opts.rpcUrl] } },
  });
  const client = createPublicClient({
    chain,
    transport: http(opts.rpcUrl, { retryCount: 3 }),
    pollingInterval: 20,
  }) as PublicClient;
  const log = opts.logger;
  const clock = opts.clock ?? systemClock;
  // where the start's time goes (bench:restart prints it)
  const startMs: Record<string, number> = {};
  let mark = performance.now();
  const lap = (name: string) => {
    const now = performance.now();
    startMs[name] = Math.round(now - mark);
    mark = now;
  };
  // the chain's history is read (not applied) while the journal replays: its round trips overlap that work
  const follower: ChainFollower = createChainFollower({
    client,
    address: opts.settlement,
    abi,
    fromBlock: opts.fromBlock,
    eventNames: [
      "Deposited",
      "WithdrawalRequested",
      "WithdrawalCancelled",
      "WithdrawalExecuted",
      "OrderCancelled",
      "OrdersCancelledBelow",
      "AgentApproved",
      "AgentRevoked",
      "FeesUpdated",
    ],
    pollMs: opts.pollMs ?? 200,
    onEvent,
    onError: (e) => log?.warn({ err: String(e) }, "chain follower: poll failed"),
  });
  follower.prefetch();
  const [makerFeeBps, takerFeeBps] = (await client.readContract({
    address: opts.settlement,
    abi,
    functionName: "fees",
  })) as [number, number];
  const digest = createOrderDigester(getDomainSeparator(getSettlementDomain(opts.chainId, opts.settlement)));
  // the restricted markets: the resale rule at the match (pipeline/match/resale.ts), on the registries' facts
  const resaleMarkets = await readResaleMarkets(client, opts.settlement, opts.markets);

  const settledListeners = new Set<(b: SettledBatch) => void>();
  const contractWallets = createContractWallets(client);
  const service = new MatcherService({
    journalDir: join(opts.dataDir, "matcher"),
    openLog: opts.replication?.openLog,
    // listeners whose state is not in the snapshots must see every event since the first command: no snapshots then
    snapshotEvery: opts.snapshotEvery ?? (opts.listeners?.length && !opts.snapshotParts ? 0 : undefined),
    snapshotParts: opts.snapshotParts,
    markets: opts.markets,
    digest,
    fees: { makerFeeBps: BigInt(makerFeeBps), takerFeeBps: BigInt(takerFeeBps) },
    expiryMarginMs: opts.expiryMarginMs ?? DEFAULT_EXPIRY_MARGIN_MS,
    fsync: opts.fsync,
    logger: log,
    recoverThreads: opts.recoverThreads ?? 1,
    knownSigners: opts.knownSigners,
    clock,
    // the same gas stipend and the same reading of the answer as Settlement (pipeline/intake/contract-signature.ts)
    isValidContractSignature: contractWallets.isValidSignature,
    resaleExemptions: resaleMarkets.exemptions,
    sellRestriction: createSellRestriction(client, resaleMarkets),
  });
  const resaleFollowers = resaleMarkets.registries.map((registry) =>
    createResaleFollower({
      client,
      registry,
      fromBlock: opts.fromBlock,
      pollMs: opts.pollMs ?? 200,
      submit: (u) => service.resaleFacts(u),
      onError: (e) => log?.warn({ err: String(e), registry }, "eligibility registry follower: poll failed"),
    }),
  );
  for (const l of opts.listeners ?? []) service.subscribe(l);
  lap("fees");
  // replicated: a standby stays in here, applying its leader's records, until it holds the lease
  const replay = await service.open();
  lap("journal");
  opts.replication?.leadership.onDeposed((reason) => {
    service.halt(`deposed: ${reason}`);
    opts.onDeposed?.(reason);
  });

  // chain history first (silently: the ledger is only complete at the head), then withdrawals checked once
  const pendingSeen = new Set<string>();
  async function onEvent(e: SettlementEvent, live: boolean): Promise<void> {
    const a = e.args as Record<string, never>;
    switch (e.name) {
      case "Deposited":
        service.deposited(a.trader, a.token, a.amount);
        break;
      case "WithdrawalRequested":
        if (live) await service.withdrawalRequested(a.trader, a.token, a.amount);
        else {
          service.ledger.withdrawalRequested(a.trader, a.token, a.amount);
          pendingSeen.add(`${a.trader}:${a.token}`);
        }
        break;
      case "WithdrawalCancelled":
        service.withdrawalCancelled(a.trader, a.token);
        break;
      case "WithdrawalExecuted":
        service.withdrawalExecuted(a.trader, a.token, a.amount);
        break;
      case "OrderCancelled":
        await service.nonceCancelledOnChain(a.trader, a.nonce);
        break;
      case "OrdersCancelledBelow":
        await service.minNonceRaised(a.trader, a.minNonce);
        break;
      case "AgentApproved":
        service.agentApproved(a.trader, a.agent, BigInt(a.expiry));
        break;
      case "AgentRevoked":
        await service.agentRevoked(a.trader, a.agent);
        break;
      case "FeesUpdated":
        service.setFees({ makerFeeBps: BigInt(a.makerFeeBps), takerFeeBps: BigInt(a.takerFeeBps) });
        break;
      default:
        break;
    }
  }
  await follower.catchUp();
  for (const f of resaleFollowers) await f.catchUp();
  lap("chainEvents");
  for (const k of pendingSeen) {
    const [trader, token] = k.split(":");
    await service.cancelUnfunded(trader, token);
  }

  // the settle sender budgets the ERC-1271 stipend for contract wallets' orders: learn which of the traders
  // the journal brought back (open orders, trades still to settle) are contracts before anything is sent
  const replayedTraders = new Set<Address>([...service.orders.values()].map((o) => o.signed.order.trader));
  for (const t of service.replayedTrades)
    for (const h of [t.makerHash, t.takerHash]) {
      const so = service.signedOrder(h);
      if (so) replayedTraders.add(so.order.trader);
    }
  await Promise.all(
    [...replayedTraders].map((t) =>
      contractWallets.learn(t).catch((e) => log?.warn({ err: String(e), trader: t }, "code lookup failed")),
    ),
  );
  lap("wallets");
  const availability = createChainAvailability({ chainId: opts.chainId, clock, supervisor: opts.homeChain });
  const batcher = createBatcher({
    sender: availability.watch(
      createSettleSender({
        rpcUrl: opts.rpcUrl,
        chainId: opts.chainId,
        settlement: opts.settlement,
        operatorKey: opts.operatorKey,
        lane: opts.settleLane ?? 0,
        isContractWallet: contractWallets.isContract,
        clock,
      }),
    ),
    storeDir: join(opts.dataDir, "batcher"),
    openStore: opts.replication?.openStore,
    firstBatchId: BigInt(opts.settleLane ?? 0) << 56n,
    findBatchTxs: batchTxsFromChain(client, opts.settlement, opts.fromBlock),
    signedOrder: service.signedOrder,
    fitsGasCap(trades) {
      const orders = new Set<string>();
      let walletOrders = 0;
      for (const t of trades)
        for (const h of [t.makerHash, t.takerHash]) {
          const key = h.toLowerCase();
          if (orders.has(key)) continue;
          orders.add(key);
          const so = service.signedOrder(h);
          if (so && contractWallets.isContract(so.order.trader)) walletOrders += 1;
        }
      return settleGasWanted(orders.size, trades.length, walletOrders) <= SETTLE_GAS_CAP;
    },
    maxTrades: opts.maxTrades ?? 100,
    maxDelayMs: opts.maxDelayMs ?? 20,
    maxInFlight: opts.maxInFlight ?? 2,
    fsync: opts.fsync,
    logger: log,
    clock,
    onSettled: (b) => {
      service.tradesSettled(b.trades);
      opts.onSettled?.(b);
      for (const l of settledListeners) {
        try {
          l(b);
        } catch {
          /* the listener's problem */
        }
      }
    },
    onHalt: (reason) => service.halt(reason),
    // a revert one order causes: journal the decision, cancel the order, drop its trades (never a halt)
    onRejected: (orders) => service.rejectForSettlement(orders),
    isDropped: (seq) => service.droppedSeqs.has(seq),
  });
  // the home chain is back: the batcher's retry goes now, not at the end of its backoff (up to 5 s)
  availability.onUp(() => batcher.retryNow());
  const { lastSettledSeq, settled: settledBatches } = await batcher.start();
  service.settledUpTo(lastSettledSeq);
  lap("batcher");
  // a crash between a journaled rejection and its cancels: finish them now
  await service.cancelRejectedOpen();
  const recoveredTrades = service.replayedTrades;
  for (const t of recoveredTrades) if (t.seq > lastSettledSeq) batcher.push(t);
  service.replayedTrades = [];
  service.setTradeSink((t) => batcher.push(t));
  const maxBacklog = opts.maxBacklogTrades ?? DEFAULT_MAX_BACKLOG_TRADES;
  service.setSettlementGate(availability.refusal);
  if (maxBacklog > 0)
    service.setBacklogLimit(
      () => batcher.health().queuedTrades,
      maxBacklog,
      () => batcher.confirmIntervalMs(),
    );
  lap("resume");
  log?.info(
    { journalRecords: replay.records, replayedTrades: replay.trades, lastSettledSeq, startMs },
    "pipeline recovered",
  );

  follower.start();
  for (const f of resaleFollowers) f.start();
  let reconciliation: Reconciliation = { state: "pending", checked: 0, mismatches: [] };
  let lastTradeSeq = -1;
  service.subscribe((e) => {
    if (e.kind === "trade") lastTradeSeq = e.trade.seq;
  });
  async function reconcile(): Promise<Reconciliation> {
    await batcher.drain();
    const seqBefore = lastTradeSeq;
    if (batcher.health().queuedTrades !== 0)
      return (reconciliation = { state: "inconclusive", checked: 0, mismatches: [] });
    const entries = service.ledger.entries();
    const mismatches: Reconciliation["mismatches"] = [];
    for (const { account, token, projected } of entries) {
      const onChain = (await client.readContract({
        address: opts.settlement,
        abi,
        functionName: "balanceOf",
        args: [account as Address, token as Address],
      })) as bigint;
      if (onChain !== projected)
        mismatches.push({ account, token, projected: projected.toString(), onChain: onChain.toString() });
    }
    // a trade matched meanwhile moves the projection ahead of the chain: no verdict then
    if (lastTradeSeq !== seqBefore || batcher.health().queuedTrades !== 0)
      return (reconciliation = { state: "inconclusive", checked: entries.length, mismatches: [] });
    reconciliation = { state: mismatches.length ? "mismatch" : "ok", checked: entries.length, mismatches };
    if (mismatches.length) log?.error({ mismatches }, "reconciliation: projected balances differ from the chain");
    return reconciliation;
  }
  void reconcile().catch((e) => log?.warn({ err: String(e) }, "reconciliation failed"));
  const sweeper = setInterval(() => {
    service.sweepExpired().catch((e) => log?.error({ err: String(e) }, "expiry sweep failed"));
  }, 250);

  return {
    service,
    batcher,
    client,
    recovered: { records: replay.records, trades: recoveredTrades, lastSettledSeq, settledBatches, startMs },
    subscribeSettled(fn) {
      settledListeners.add(fn);
      return () => settledListeners.delete(fn);
    },
    async syncChain() {
      const head = await client.getBlockNumber({ cacheTime: 0 });
      while (follower.lastBlock < head) await new Promise((r) => setTimeout(r, 10));
    },
    health() {
      return {
        matcher: service.health(),
        batcher: batcher.health(),
        chainBlock: follower.lastBlock.toString(),
        reconciliation,
        chain: availability.health(),
        ...(opts.replication ? { replication: opts.replication.health() } : {}),
      };
    },
    reconcile,
    async stop() {
      clearInterval(sweeper);
      availability.close();
      await follower.stop();
      for (const f of resaleFollowers) await f.stop();
      await batcher.stop();
      await service.close();
    },
  };
}
