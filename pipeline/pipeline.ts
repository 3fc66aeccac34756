// The live pipeline as one component: matcher service + chain follower + batcher, started in the order
// that makes a crash harmless: replay the journal, read the chain's history, resume the batcher from the
// contract's nextBatchId and hand it every trade after the last settled one, then go live.
import { join } from "node:path";
import { createPublicClient, defineChain, http, type Address, type Hex, type PublicClient } from "viem";
import type { Batcher, SettleableTrade, SettledBatch } from "./settle/batcher";
import type { SettledBatchRecord } from "./settle/batch-confirmations";
import { createContractWallets } from "./intake/contract-signature";
import { createChainFollower, type ChainFollower, type ChainFollowerDeps } from "./follow/chain-follower";
import { createResaleFollower, createSellRestriction, readResaleMarkets } from "./follow/resale-follower";
import { MatcherService, type ServiceEvent, type SnapshotPart } from "./match/matcher-service";
import type { MarketSpec } from "./markets";
import { createOrderDigester, getDomainSeparator } from "../runtime/order-digest";
import type { SignerCache } from "./intake/known-signers";
import { getSettlementDomain } from "./order";
import {
  createChainAvailability,
  type ChainAvailabilityHealth,
  type SupervisedChain,
} from "./settle/chain-availability";
import { systemClock, type Clock } from "../runtime/clock";
import { settlementAbi } from "../sdk/abi";
import type { Replication } from "./replication/replication";
import { applySettlementEvent, cancelUnfundedAfterHistory, FOLLOWED_SETTLEMENT_EVENTS } from "./start/chain-events";
import { Reconciler } from "./start/reconcile";
import { createSettleStage, learnReplayedWallets } from "./start/settle-stage";

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
    trades: readonly SettleableTrade[];
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
  const client = createPublicClient({
    chain: defineChain({
      id: opts.chainId,
      name: `chain-${opts.chainId}`,
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      rpcUrls: { default: { http: [opts.rpcUrl] } },
    }),
    transport: http(opts.rpcUrl, { retryCount: 3 }),
    pollingInterval: 20,
  }) as PublicClient;
  const log = opts.logger;
  const clock = opts.clock ?? systemClock;
  const lap = startLaps();
  // chain history first (silently: the ledger is only complete at the head), then withdrawals checked once
  const pendingSeen = new Set<string>();
  // the chain's history is read (not applied) while the journal replays: its round trips overlap that work
  const follower = settlementFollower(opts, client, (e, live) => applySettlementEvent(service, e, live, pendingSeen));
  follower.prefetch();
  const contractWallets = createContractWallets(client);
  const { service, resaleFollowers } = await createMatcher(opts, client, contractWallets, clock);
  lap("fees");
  // replicated: a standby stays in here, applying its leader's records, until it holds the lease
  const replay = await service.open();
  lap("journal");
  opts.replication?.leadership.onDeposed((reason) => {
    service.halt(`deposed: ${reason}`);
    opts.onDeposed?.(reason);
  });
  await follower.catchUp();
  for (const f of resaleFollowers) await f.catchUp();
  lap("chainEvents");
  await cancelUnfundedAfterHistory(service, pendingSeen);
  await learnReplayedWallets(service, contractWallets, log);
  lap("wallets");
  const settledListeners = new Set<(b: SettledBatch) => void>();
  const availability = createChainAvailability({ chainId: opts.chainId, clock, supervisor: opts.homeChain });
  const batcher = createSettleStage({
    opts,
    client,
    service,
    contractWallets,
    availability,
    clock,
    onSettled: (b) => notifySettled(opts, settledListeners, b),
  });
  const resumed = await resumeSettlement(opts, service, batcher, availability);
  lap("resume");
  log?.info(
    {
      journalRecords: replay.records,
      replayedTrades: replay.trades,
      lastSettledSeq: resumed.lastSettledSeq,
      startMs: lap.startMs,
    },
    "pipeline recovered",
  );
  follower.start();
  for (const f of resaleFollowers) f.start();
  const reconciler = new Reconciler({ service, batcher, client, settlement: opts.settlement, logger: log });
  void reconciler.reconcile().catch((e) => log?.warn({ err: String(e) }, "reconciliation failed"));
  const sweeper = setInterval(() => {
    service.sweepExpired().catch((e) => log?.error({ err: String(e) }, "expiry sweep failed"));
  }, 250);

  return pipelineOf({
    opts,
    service,
    batcher,
    client,
    follower,
    availability,
    reconciler,
    resaleFollowers,
    settledListeners,
    sweeper,
    recovered: { records: replay.records, ...resumed, startMs: lap.startMs },
  });
}

/** Where the start's time goes (bench:restart prints it): `lap(name)` records the time since the last lap. */
function startLaps(): ((name: string) => void) & { startMs: Record<string, number> } {
  const startMs: Record<string, number> = {};
  let mark = performance.now();
  const lap = (name: string) => {
    const now = performance.now();
    startMs[name] = Math.round(now - mark);
    mark = now;
  };
  return Object.assign(lap, { startMs });
}

/** The matcher service on the contract's fees, with the restricted markets' resale rule (pipeline/match/
 *  resale.ts) on their registries' facts, followed by one resale follower a registry. */
async function createMatcher(
  opts: PipelineOptions,
  client: PublicClient,
  contractWallets: ReturnType<typeof createContractWallets>,
  clock: Clock,
): Promise<{ service: MatcherService; resaleFollowers: ReturnType<typeof createResaleFollower>[] }> {
  const log = opts.logger;
  const [makerFeeBps, takerFeeBps] = (await client.readContract({
    address: opts.settlement,
    abi: settlementAbi,
    functionName: "fees",
  })) as [number, number];
  const digest = createOrderDigester(getDomainSeparator(getSettlementDomain(opts.chainId, opts.settlement)));
  const resaleMarkets = await readResaleMarkets(client, opts.settlement, opts.markets);
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
  return { service, resaleFollowers };
}

/** The batcher resumed from the contract's nextBatchId, every trade after the last settled one handed to
 *  it, then the matcher's trades, the home chain's availability and the backlog limit wired to it. */
async function resumeSettlement(
  opts: PipelineOptions,
  service: MatcherService,
  batcher: Batcher,
  availability: ReturnType<typeof createChainAvailability>,
): Promise<{
  trades: readonly SettleableTrade[];
  lastSettledSeq: number;
  settledBatches: readonly SettledBatchRecord[];
}> {
  // the home chain is back: the batcher's retry goes now, not at the end of its backoff (up to 5 s)
  availability.onUp(() => batcher.retryNow());
  const { lastSettledSeq, settled: settledBatches } = await batcher.start();
  service.settledUpTo(lastSettledSeq);
  // a crash between a journaled rejection and its cancels: finish them now
  await service.cancelRejectedOpen();
  const trades = service.replayedTrades;
  for (const t of trades) if (t.seq > lastSettledSeq) batcher.push(t);
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
  return { trades, lastSettledSeq, settledBatches };
}

/** The running pipeline's handle over its started parts. */
function pipelineOf(p: {
  opts: PipelineOptions;
  service: MatcherService;
  batcher: Batcher;
  client: PublicClient;
  follower: ChainFollower;
  availability: ReturnType<typeof createChainAvailability>;
  reconciler: Reconciler;
  resaleFollowers: ReturnType<typeof createResaleFollower>[];
  settledListeners: Set<(b: SettledBatch) => void>;
  sweeper: NodeJS.Timeout;
  recovered: Pipeline["recovered"];
}): Pipeline {
  const { service, batcher, client, follower } = p;
  return {
    service,
    batcher,
    client,
    recovered: p.recovered,
    subscribeSettled(fn) {
      p.settledListeners.add(fn);
      return () => p.settledListeners.delete(fn);
    },
    async syncChain() {
      const head = await client.getBlockNumber({ cacheTime: 0 });
      while (follower.lastBlock < head) await new Promise((r) => setTimeout(r, 10));
    },
    health: () => ({
      matcher: service.health(),
      batcher: batcher.health(),
      chainBlock: follower.lastBlock.toString(),
      reconciliation: p.reconciler.current,
      chain: p.availability.health(),
      ...(p.opts.replication ? { replication: p.opts.replication.health() } : {}),
    }),
    reconcile: p.reconciler.reconcile,
    async stop() {
      clearInterval(p.sweeper);
      p.availability.close();
      await follower.stop();
      for (const f of p.resaleFollowers) await f.stop();
      await batcher.stop();
      await service.close();
    },
  };
}

function settlementFollower(
  opts: PipelineOptions,
  client: PublicClient,
  onEvent: ChainFollowerDeps["onEvent"],
): ChainFollower {
  return createChainFollower({
    client,
    address: opts.settlement,
    abi: settlementAbi,
    fromBlock: opts.fromBlock,
    eventNames: FOLLOWED_SETTLEMENT_EVENTS,
    pollMs: opts.pollMs ?? 200,
    onEvent,
    onError: (e) => opts.logger?.warn({ err: String(e) }, "chain follower: poll failed"),
  });
}

/** A settled batch, after the matcher service has it: the caller's onSettled, then each subscriber. */
function notifySettled(
  opts: PipelineOptions,
  listeners: ReadonlySet<(b: SettledBatch) => void>,
  b: SettledBatch,
): void {
  opts.onSettled?.(b);
  for (const l of listeners) {
    try {
      l(b);
    } catch {
      /* the listener's problem */
    }
  }
}
