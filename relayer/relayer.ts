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
import { createRelayerStore, type TransferPatch, type TransferRow } from "./store";
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
  store: ReturnType<typeof createRelayerStore>;
}

export function createRelayer(deps: CreateRelayerDeps): Relayer {
  const given = Object.fromEntries(Object.entries(deps.config ?? {}).filter(([, v]) => v !== undefined));
  const config: RelayerConfig = {
    relayerId: `relayer-${randomUUID().slice(0, 8)}`,
    ...DEFAULT_RELAYER_CONFIG,
    ...given,
  };
  const abis = deps.abis ?? BRIDGE_ABIS;
  const store = createRelayerStore(deps.db);
  const d = deps.deployments;
  const log = deps.logger;
  let running = false;
  let wake: (() => void) | undefined;
  const wakeUp = () => wake?.();
  const inflight = new Set<Promise<void>>();
  const inflightKeys = new Set<string>();

  const follow = (kind: "deposit" | "withdrawal", client: ChainClients, chainId: number) =>
    createFollower({
      kind,
      deployment: d,
      client: client.publicClient,
      store,
      confirmations: bridgeConfirmationsFor(config.confirmations, chainId),
      maxBlockRange: config.maxBlockRange,
      logger: log,
      onNew: wakeUp,
    });
  const followers = [
    follow("deposit", deps.homeClient, d.home.chainId),
    follow("withdrawal", deps.remoteClient, d.remote.chainId),
  ];
  const processor = createProcessor({
    config,
    logger: log,
    store,
    deployment: d,
    abis,
    home: {
      publicClient: deps.homeClient.publicClient,
      submitter: createSubmitter(deps.homeClient, { clock: deps.clock }),
    },
    remote: {
      publicClient: deps.remoteClient.publicClient,
      submitter: createSubmitter(deps.remoteClient, { clock: deps.clock }),
    },
    signer: deps.coordinator,
    hsm: deps.hsm,
    onProgress: deps.onProgress,
    afterSubmit: deps.afterSubmit,
    clock: deps.clock,
  });

  const keyOf = (r: Pick<TransferRow, "kind" | "nonce">) => `${r.kind}:${r.nonce}`;
  function run(row: TransferRow): Promise<void> {
    const key = keyOf(row);
    inflightKeys.add(key);
    const p = processor.process(row).finally(() => {
      inflight.delete(p);
      inflightKeys.delete(key);
      wakeUp();
    });
    inflight.add(p);
    return p;
  }

  async function claimRound(): Promise<Promise<void>[]> {
    const free = config.concurrency - inflight.size;
    if (free <= 0) return [];
    const rows = await store.claimDue(d.bridge, config.relayerId, config.leaseMs, free);
    return rows.map(run);
  }

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        wake = undefined;
        resolve();
      }, ms);
      wake = () => {
        clearTimeout(t);
        wake = undefined;
        resolve();
      };
    });

  async function followLoop(i: number) {
    let failures = 0;
    while (running) {
      try {
        await followers[i].poll();
        failures = 0;
      } catch (err) {
        if (failures++ % 50 === 0)
          log.warn({ err: String(err), chainId: followers[i].chainId }, "cannot read the chain; retrying");
      }
      await new Promise((r) => setTimeout(r, config.pollIntervalMs * (failures ? 10 : 1)));
    }
  }

  async function workLoop() {
    while (running) {
      try {
        await claimRound();
      } catch (err) {
        log.warn({ err: String(err) }, "cannot claim transfers; retrying");
      }
      // woken at once by a follower's new rows or a finished transfer; otherwise only retries and due
      // releases are waiting, so the database is not asked more often than claimIntervalMs
      await sleep(config.claimIntervalMs);
    }
  }

  let loops: Promise<void>[] = [];
  return {
    id: config.relayerId,
    bridge: d.bridge,
    store,
    start() {
      if (running) return;
      running = true;
      // a restarted relayer (same id) owns nothing in flight: its old leases are free at once
      const freed = deps.db.query(
        "UPDATE bridge_relayer_transfers SET lease_owner = NULL, lease_until = NULL WHERE bridge = $1 AND lease_owner = $2",
        [d.bridge, config.relayerId],
      );
      loops = [freed.then(() => workLoop()), followLoop(0), followLoop(1)];
      log.info({ relayer: config.relayerId, bridge: d.bridge }, "relayer started");
    },
    async stop() {
      running = false;
      wakeUp();
      await Promise.all(loops);
      await Promise.allSettled([...inflight]);
    },
    async tick() {
      await Promise.all(followers.map((f) => f.poll()));
      await Promise.all(await claimRound());
    },
    async processNow(kind, nonce) {
      if (!inflightKeys.has(`${kind}:${nonce}`)) {
        // make it due now, then claim it like any worker would (the lease still protects it)
        await deps.db.query(
          "UPDATE bridge_relayer_transfers SET next_attempt_at = now() WHERE bridge = $1 AND kind = $2 AND nonce = $3 AND (lease_until IS NULL OR lease_until < now())",
          [d.bridge, kind, nonce.toString()],
        );
        await Promise.all(await claimRound());
      }
      return store.get(d.bridge, kind, nonce);
    },
  };
}
