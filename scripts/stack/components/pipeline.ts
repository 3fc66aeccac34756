// The pipeline as a stack component (`npm start`): matcher service + batcher on the home chain, with its
// journal and batch store under <dataDir>/pipeline. Later components (the DEX API) reach it through
// `ctx.started.get("pipeline")` as a PipelineHandle.
import path from "node:path";
import type { Address } from "viem";
import type { Logger } from "pino";
import { SignerCache, type DexService } from "../../../pipeline/service";
import { createDexService, DexState } from "../../../pipeline/dex-service";
import { openDexHistory } from "../../../pipeline/dex-history";
import type { Component, ComponentHandle, StackContext } from "../types";
import { marketsFromTokens } from "../../../pipeline/markets";
import { assetMarketGrids } from "../../../api/exchange/assets/catalogue";
import { startPipeline, type Pipeline } from "../../../pipeline/pipeline";
import { startReplication, type Replication } from "../../../pipeline/replication/replication";
import { watchPipelineMetrics } from "../../../pipeline/metrics";
import { systemClock } from "../../../runtime/clock";
import { partitionNonceRange } from "../../../pipeline/intake/api-nonces";
import { servePartition, type PartitionServer } from "../../../pipeline/partition/serve";
import { provisionExtraOperators } from "../operators";
import { MATCHER_RESERVE_ORDERS, MATCHER_V8_FLAGS, missingMatcherFlags } from "../../../matcher/deployment";

export interface PipelineHandle extends ComponentHandle {
  readonly pipeline: Pipeline;
  /** the DexService the DEX API (REST, WebSocket, gRPC) serves */
  readonly dexService: DexService;
  /** the signers established for orders in this process (the DEX API's recovery, the agents' signatures),
   *  which the intake then need not recover: one cache, handed to the pipeline, its DexService and the API */
  readonly knownSigners: SignerCache;
}

/** The home chain's Settlement and the books this process owns: the exchange's books and, when the exchange
 *  API deployed them, one `SYMBOL-USD` book per asset token; a matcher partition owns PIPELINE_MARKETS only. */
function ownedMarkets(ctx: StackContext) {
  const home = ctx.deployments.home;
  const settlement = home.contracts.Settlement as Address | undefined;
  if (!settlement) throw new Error("pipeline: no Settlement in the deployments");
  const deployed = marketsFromTokens(home.tokens, assetMarketGrids());
  // one writer per market; default: every market
  const owned = ctx.config.partition.pipelineMarkets;
  const unknown = owned?.filter((s) => !deployed.some((m) => m.symbol === s)) ?? [];
  if (unknown.length > 0)
    throw new Error(
      `PIPELINE_MARKETS names ${unknown.join(", ")}, not deployed (deployed: ${deployed.map((m) => m.symbol).join(", ")})`,
    );
  return {
    settlement,
    partitioned: owned !== null,
    markets: owned ? deployed.filter((m) => owned.includes(m.symbol)) : deployed,
  };
}

type OwnedMarkets = ReturnType<typeof ownedMarkets>;

/** What the pipeline's start made, for its DexService and its handle. */
interface PipelineParts {
  readonly ctx: StackContext;
  readonly log: Logger;
  readonly owned: OwnedMarkets;
  readonly dexState: DexState;
  readonly replication?: Replication;
  readonly knownSigners: SignerCache;
  readonly missingFlags: readonly string[];
  /** the partition server, once it serves (a deposed leader closes it) */
  server: PartitionServer | null;
}

/** The matcher service and batcher over the journal (and, with ORDER_LOG_URL, the replicated order log). */
function openPipeline(parts: PipelineParts): Promise<Pipeline> {
  const { ctx, log, owned } = parts;
  return startPipeline({
    knownSigners: parts.knownSigners,
    replication: parts.replication,
    // deposed: the service refuses orders (SERVICE_UNAVAILABLE), answers no caller, and health fails; restart it
    // to stand by again
    onDeposed: (reason) => {
      log.error({ reason }, "partition leadership lost: this process writes nothing more");
      void parts.server?.close();
    },
    listeners: [parts.dexState.onServiceEvent],
    // the DEX service's live orders and fills live in the matcher journal's snapshots beside the matcher's state
    snapshotParts: { dex: parts.dexState },
    rpcUrl: ctx.chains.home.rpcUrl,
    chainId: ctx.config.chains.home.chainId,
    settlement: owned.settlement,
    fromBlock: BigInt(ctx.deployments.home.startBlock),
    markets: owned.markets,
    operatorKey: ctx.config.keys.operator.privateKey,
    // one settle lane per partition (PARTITION_INDEX): its batch ids never race another partition's
    settleLane: ctx.config.partition.index,
    dataDir: path.join(ctx.config.dataDir, "pipeline"),
    maxTrades: ctx.config.batcher.maxTrades,
    maxDelayMs: ctx.config.batcher.maxDelayMs,
    maxInFlight: ctx.config.batcher.maxInFlight,
    ...(process.env.PIPELINE_RECOVER_THREADS ? { recoverThreads: Number(process.env.PIPELINE_RECOVER_THREADS) } : {}),
    ...(process.env.PIPELINE_MAX_BACKLOG_TRADES
      ? { maxBacklogTrades: Number(process.env.PIPELINE_MAX_BACKLOG_TRADES) }
      : {}),
    logger: log,
    clock: systemClock,
    // its supervisor's down/up: orders are refused (CHAIN_UNAVAILABLE) the moment the node dies
    homeChain: ctx.chains.home,
  });
}

/** The DexService over the pipeline (the DEX API's, the simulator's). */
function pipelineDexService(parts: PipelineParts, pipeline: Pipeline): DexService {
  const { ctx } = parts;
  const home = ctx.deployments.home;
  // the agent relayer's account on the home chain: its one nonce lane, for every sender of that account
  const relayerAddress = ctx.config.keys.agentRelayer.address;
  const relayerNonces = ctx.nonceLanes.lane(ctx.config.chains.home.chainId, relayerAddress, () =>
    pipeline.client.getTransactionCount({ address: relayerAddress, blockTag: "pending" }),
  );
  const assets = Object.fromEntries(
    Object.entries(home.tokens).map(([symbol, t]) => [t.address.toLowerCase(), { symbol, decimals: t.decimals }]),
  );
  return createDexService({
    pipeline,
    state: parts.dexState,
    chainId: ctx.config.chains.home.chainId,
    settlement: parts.owned.settlement,
    rpcUrl: ctx.chains.home.rpcUrl,
    // the agent relayer (no contract role, a gas budget): the deployer / admin key never reaches a serving component
    submitterKey: ctx.config.keys.agentRelayer.privateKey,
    submitterNonces: relayerNonces,
    assets,
    approvalBudget: {
      dailyWei: ctx.config.agentRelayer.dailyBudgetWei,
      perOwnerDailyWei: ctx.config.agentRelayer.perOwnerDailyBudgetWei,
    },
    apiKeyNonceRange: partitionNonceRange(ctx.config.partition.index),
    knownSigners: parts.knownSigners,
  });
}

/** The component's handle: stop in order, the banner's lines, health from the pipeline's own report. */
function pipelineHandle(parts: PipelineParts, pipeline: Pipeline, dexService: DexService): PipelineHandle {
  const stopMetrics = watchPipelineMetrics(pipeline);
  const { server, missingFlags } = parts;
  return {
    pipeline,
    dexService,
    knownSigners: parts.knownSigners,
    async stop() {
      stopMetrics();
      await parts.server?.close();
      // the journal's snapshot at stop holds the finished orders whose history write is still under way
      await pipeline.stop();
      await parts.dexState.close();
      await parts.replication?.close();
    },
    info: {
      ...(server ? { "partition transport": `NATS ${server.subject}` } : {}),
      ...Object.fromEntries(
        parts.owned.markets.map((m) => [
          `market ${m.symbol}`,
          `tick ${m.tickSize} price units, lot ${m.lotSize} base units`,
        ]),
      ),
      matcher: `reserve ${MATCHER_RESERVE_ORDERS} orders, V8 ${missingFlags.length === 0 ? MATCHER_V8_FLAGS.join(" ") : `flags missing: ${missingFlags.join(" ")}`}`,
    },
    async health() {
      const h = pipeline.health();
      // a partition's projection misses the trades other partitions settled for the same accounts: its start's
      // reconciliation may differ from the chain without anything being wrong (docs/decisions/pipeline.md "Partitions")
      const reconciled = parts.owned.partitioned || h.reconciliation.state !== "mismatch";
      const ok =
        h.matcher.state === "ok" &&
        h.batcher.state !== "halted" &&
        h.batcher.state !== "stopped" &&
        reconciled &&
        h.chain.state === "ok";
      return { ok, detail: JSON.stringify(h) };
    },
  };
}

export const pipelineComponent: Component = {
  name: "pipeline",
  serving: true,
  // EXTRA_OPERATOR_ADDRESSES: the other matcher partitions' settle operators get OPERATOR_ROLE (admin key: provisioning only)
  provision: provisionExtraOperators,
  async start(ctx: StackContext): Promise<PipelineHandle> {
    const owned = ownedMarkets(ctx);
    const log = ctx.logger.child({ component: "pipeline" });
    // the matcher runs as `npm run bench:matcher` measures it only with its V8 flags (package.json "start")
    const missingFlags = missingMatcherFlags();
    if (missingFlags.length > 0)
      log.warn(
        { missingFlags },
        "the matcher's process lacks the V8 flags it is benchmarked with (matcher/deployment.ts; `npm start` passes them)",
      );
    // finished orders leave memory (and the journal's snapshots) for an LMDB store beside the journal
    const dexState = new DexState({
      history: await openDexHistory(path.join(ctx.config.dataDir, "pipeline", "history")),
      logger: log,
    });
    // ORDER_LOG_URL: the journal and batch store on JetStream; the start waits here as a hot standby until
    // this process holds the partition's lease (docs/decisions/pipeline.md "Replicated order log")
    const ol = ctx.config.partition.orderLog;
    const replication = ol
      ? await startReplication({
          servers: [...ol.servers],
          partition: ctx.config.partition.index,
          replicas: ol.replicas,
          leaseMs: ol.leaseMs,
          logger: log,
        })
      : undefined;
    const parts: PipelineParts = {
      ctx,
      log,
      owned,
      dexState,
      replication,
      knownSigners: new SignerCache(),
      missingFlags,
      server: null,
    };
    let pipeline: Pipeline;
    try {
      pipeline = await openPipeline(parts);
    } catch (err) {
      await dexState.close();
      await replication?.close();
      throw err;
    }
    const dexService = pipelineDexService(parts, pipeline);
    // on the replicated order log, the leader serves its DexService to API processes (DEX_PARTITIONS) over NATS;
    // only while it holds the lease: a caller never gets an answer from a deposed or paused process
    if (replication)
      parts.server = servePartition({
        nc: replication.nc,
        service: dexService,
        index: ctx.config.partition.index,
        isLeader: () => replication.leadership.valid(),
        syncChain: () => pipeline.syncChain(),
        logger: log,
      });
    return pipelineHandle(parts, pipeline, dexService);
  },
};
