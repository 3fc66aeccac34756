// createRelayer: follows BridgeDeposited (home) and BridgeBurned (remote), records them in SQL, and runs
// up to `concurrency` transfers at once through the processor. Several relayers (or a restarted one) can
// share the database: rows are claimed with a lease (FOR UPDATE SKIP LOCKED), and the minter refuses a
// second mint of a deposit anyway, which the processor records as "already done".
import { randomUUID } from "node:crypto";
import { bridgeConfirmationsFor } from "../config/bridge";
import type { Db } from "../db";
import type { Clock } from "../runtime/clock";
import { BRIDGE_ABIS, type BridgeAbis } from "../sdk/bridge-abi";
import { createFollower } from "./follower";
import { createProcessor, type ProcessorLogger } from "./processor";
import {
  createRelayerStore,
  type RelayerStore,
  type TransferKind,
  type TransferPatch,
  type TransferRow,
} from "./store";
import { createSubmitter } from "./submitter";
import {
  DEFAULT_RELAYER_CONFIG,
  type BridgeSigner,
  type ChainClients,
  type HsmCosigner,
  type RelayerConfig,
  type RelayerDeployment,
} from "./types";

export interface RelayerLogger extends ProcessorLogger {
  error(obj: object, msg?: string): void;
}

export interface CreateRelayerDeps {
  config?: Partial<RelayerConfig>;
  logger: RelayerLogger;
  db: Db;
  homeClient: ChainClients;
  remoteClient: ChainClients;
  /** the signing side: createFrostSigner(coordinator) (native) or createCustodySigner(...) */
  coordinator: BridgeSigner;
  hsm?: HsmCosigner;
  deployments: RelayerDeployment;
  abis?: BridgeAbis;
  onProgress?: (row: TransferRow, patch: TransferPatch) => void;
  afterSubmit?: (row: TransferRow, step: "mint" | "queueRelease" | "executeRelease") => void;
  /** what the processor and submitters read time through (default: the system clock) */
  clock?: Clock;
}

export interface Relayer {
  readonly id: string;
  readonly bridge: string;
  start(): void;
  stop(): Promise<void>;
  /** one follower pass on both chains and one round of claims, awaited (tests, `complete`) */
  tick(): Promise<void>;
  /** runs the transfer now if it is due (e.g. a release whose challenge period is over) */
  processNow(kind: "deposit" | "withdrawal", nonce: bigint): Promise<TransferRow | undefined>;
  store: RelayerStore;
}

type Processor = ReturnType<typeof createProcessor>;
type Follower = ReturnType<typeof createFollower>;

export function createRelayer(deps: CreateRelayerDeps): Relayer {
  const config = relayerConfig(deps.config);
  const store = createRelayerStore(deps.db);
  const d = deps.deployments;
  const workers = new TransferWorkers(config, d.bridge, store, buildProcessor(deps, config, store), deps.logger);
  const follow = (kind: "deposit" | "withdrawal", client: ChainClients, chainId: number) =>
    createFollower({
      kind,
      deployment: d,
      client: client.publicClient,
      store,
      confirmations: bridgeConfirmationsFor(config.confirmations, chainId),
      maxBlockRange: config.maxBlockRange,
      logger: deps.logger,
      onNew: workers.wakeUp,
    });
  const followers = [
    follow("deposit", deps.homeClient, d.home.chainId),
    follow("withdrawal", deps.remoteClient, d.remote.chainId),
  ];

  let loops: Promise<void>[] = [];
  return {
    id: config.relayerId,
    bridge: d.bridge,
    store,
    start() {
      if (workers.running) return;
      workers.running = true;
      const freed = store.releaseLeasesOf(d.bridge, config.relayerId);
      loops = [
        freed.then(() => workers.workLoop()),
        ...followers.map((f) => followLoop(f, () => workers.running, config.pollIntervalMs, deps.logger)),
      ];
      deps.logger.info({ relayer: config.relayerId, bridge: d.bridge }, "relayer started");
    },
    async stop() {
      workers.running = false;
      workers.wakeUp();
      await Promise.all(loops);
      await workers.settled();
    },
    async tick() {
      await Promise.all(followers.map((f) => f.poll()));
      await Promise.all(await workers.claimRound());
    },
    async processNow(kind, nonce) {
      if (!workers.isInflight(kind, nonce)) {
        // make it due now, then claim it like any worker would (the lease still protects it)
        await store.makeDue(d.bridge, kind, nonce);
        await Promise.all(await workers.claimRound());
      }
      return store.get(d.bridge, kind, nonce);
    },
  };
}

/** The defaults under what the caller gave (an explicit `undefined` keeps the default). */
function relayerConfig(partial: Partial<RelayerConfig> | undefined): RelayerConfig {
  const given = Object.fromEntries(Object.entries(partial ?? {}).filter(([, v]) => v !== undefined));
  return { relayerId: `relayer-${randomUUID().slice(0, 8)}`, ...DEFAULT_RELAYER_CONFIG, ...given };
}

function buildProcessor(deps: CreateRelayerDeps, config: RelayerConfig, store: RelayerStore): Processor {
  const side = (client: ChainClients) => ({
    publicClient: client.publicClient,
    submitter: createSubmitter(client, { clock: deps.clock }),
  });
  return createProcessor({
    config,
    logger: deps.logger,
    store,
    deployment: deps.deployments,
    abis: deps.abis ?? BRIDGE_ABIS,
    home: side(deps.homeClient),
    remote: side(deps.remoteClient),
    signer: deps.coordinator,
    hsm: deps.hsm,
    onProgress: deps.onProgress,
    afterSubmit: deps.afterSubmit,
    clock: deps.clock,
  });
}

/** Polls one follower until the relayer stops; a chain that cannot be read is retried 10x slower. */
async function followLoop(follower: Follower, running: () => boolean, pollIntervalMs: number, log: RelayerLogger) {
  let failures = 0;
  while (running()) {
    try {
      await follower.poll();
      failures = 0;
    } catch (err) {
      if (failures++ % 50 === 0)
        log.warn({ err: String(err), chainId: follower.chainId }, "cannot read the chain; retrying");
    }
    await new Promise((r) => setTimeout(r, pollIntervalMs * (failures ? 10 : 1)));
  }
}

/** Up to `concurrency` transfers in flight, claimed from SQL whenever a slot is free or something woke it. */
class TransferWorkers {
  running = false;
  private wake: (() => void) | undefined;
  private readonly inflight = new Set<Promise<void>>();
  private readonly inflightKeys = new Set<string>();

  constructor(
    private readonly config: RelayerConfig,
    private readonly bridge: string,
    private readonly store: RelayerStore,
    private readonly processor: Processor,
    private readonly log: RelayerLogger,
  ) {}

  /** ends the work loop's wait at once (new rows, a finished transfer, stop) */
  readonly wakeUp = () => this.wake?.();

  isInflight(kind: TransferKind, nonce: bigint): boolean {
    return this.inflightKeys.has(`${kind}:${nonce}`);
  }

  async claimRound(): Promise<Promise<void>[]> {
    const free = this.config.concurrency - this.inflight.size;
    if (free <= 0) return [];
    const rows = await this.store.claimDue(this.bridge, this.config.relayerId, this.config.leaseMs, free);
    return rows.map((row) => this.run(row));
  }

  async workLoop() {
    while (this.running) {
      try {
        await this.claimRound();
      } catch (err) {
        this.log.warn({ err: String(err) }, "cannot claim transfers; retrying");
      }
      // woken at once by a follower's new rows or a finished transfer; otherwise only retries and due
      // releases are waiting, so the database is not asked more often than claimIntervalMs
      await this.sleep(this.config.claimIntervalMs);
    }
  }

  async settled(): Promise<void> {
    await Promise.allSettled([...this.inflight]);
  }

  private run(row: TransferRow): Promise<void> {
    const key = `${row.kind}:${row.nonce}`;
    this.inflightKeys.add(key);
    const p = this.processor.process(row).finally(() => {
      this.inflight.delete(p);
      this.inflightKeys.delete(key);
      this.wakeUp();
    });
    this.inflight.add(p);
    return p;
  }

  private sleep(ms: number) {
    return new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        this.wake = undefined;
        resolve();
      }, ms);
      this.wake = () => {
        clearTimeout(t);
        this.wake = undefined;
        resolve();
      };
    });
  }
}
