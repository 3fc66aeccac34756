// A matcher partition on the replicated order log (ORDER_LOG_URL): its NATS connection, its leadership
// (the lease), and the two journals it keeps on JetStream: the matcher's commands (stream ORDERS_P<n>) and the
// settle lane's batch compositions (BATCHES_P<n>). startPipeline opens both through openLog/openStore: the
// matcher journal's open follows the log as a hot standby until this process holds the lease.
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/nats-core";
import type { OpenRecordLog, RecordLogOptions } from "../../matcher/journal";
import { startLeadership, type Leadership } from "./lease";
import { openStreamLog } from "./stream-log";
import { metrics, onScrape } from "../../runtime/metrics";

/** The lease's length (ms) by default: a standby takes over this long after the leader's last renewal. */
export const DEFAULT_LEASE_MS = 2_000;
export const DEFAULT_REPLICAS = 3;
/** The venue's one KV bucket of partition leases. */
export const LEASE_BUCKET = "partition_leases";

export interface ReplicationOptions {
  /** NATS server URLs (any of the cluster's nodes; the client learns the rest) */
  servers: string[];
  /** the partition's index (PARTITION_INDEX): streams ORDERS_P<n>, BATCHES_P<n>, lease key p<n> */
  partition: number;
  replicas?: number;
  leaseMs?: number;
  logger?: { info(o: object, m?: string): void; warn(o: object, m?: string): void };
}

export interface Replication {
  readonly nc: NatsConnection;
  readonly leadership: Leadership;
  readonly openLog: OpenRecordLog;
  readonly openStore: OpenRecordLog;
  /** stream sequence the matcher journal has applied, and the stream's head at the last look */
  health(): {
    role: "standby" | "leader" | "deposed";
    term: string;
    appliedSeq: number;
    leaseMs: number;
    reason?: string;
  };
  close(): Promise<void>;
}

export async function startReplication(opts: ReplicationOptions): Promise<Replication> {
  const replicas = opts.replicas ?? DEFAULT_REPLICAS;
  const leaseMs = opts.leaseMs ?? DEFAULT_LEASE_MS;
  const nc = await connect({
    servers: opts.servers,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    name: `partition-${opts.partition}-${process.pid}`,
  });
  // the lease on a connection of its own: its renewals never queue behind a large append
  const leaseNc = await connect({
    servers: opts.servers,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    name: `partition-${opts.partition}-${process.pid}-lease`,
  });
  const leadership = await startLeadership({
    nc: leaseNc,
    bucket: LEASE_BUCKET,
    key: `p${opts.partition}`,
    leaseMs,
    replicas,
    log: opts.logger,
  });
  let appliedSeq = 0;
  const stopMetrics = replicationMetrics(nc, opts.partition, leadership, () => appliedSeq);
  const open =
    (stream: string, track: boolean): OpenRecordLog =>
    <C, M = unknown, S = unknown>(o: RecordLogOptions<C, M, S>) =>
      openStreamLog<C, M, S>({
        restore: o.restore,
        replay: o.replay,
        state: o.state,
        fsync: o.fsync,
        nc,
        stream,
        replicas,
        leadership,
        logger: opts.logger,
        onApplied: track ? (seq) => (appliedSeq = seq) : undefined,
      });
  return {
    nc,
    leadership,
    openLog: open(`ORDERS_P${opts.partition}`, true),
    openStore: open(`BATCHES_P${opts.partition}`, false),
    health() {
      const role = leadership.deposedReason ? "deposed" : leadership.valid() ? "leader" : "standby";
      return {
        role,
        term: leadership.term,
        appliedSeq,
        leaseMs,
        ...(leadership.deposedReason ? { reason: leadership.deposedReason } : {}),
      };
    },
    async close() {
      stopMetrics();
      await leadership.release();
      await nc.close().catch(() => undefined);
      await leaseNc.close().catch(() => undefined);
    },
  };
}

/**
 * dex_leader_changes_total: each time this process takes the partition's lease (summed over a partition's
 * processes: every election, the first included). dex_replication_lag_entries, read at scrape: the order
 * log's head minus the last entry this process applied (0 while it leads: it wrote them).
 */
function replicationMetrics(
  nc: NatsConnection,
  partition: number,
  leadership: Leadership,
  applied: () => number,
): () => void {
  const labels = { partition: String(partition), node: leadership.term };
  void leadership.acquired.then(() => metrics.leaderChanges.inc({ partition: labels.partition }));
  return onScrape(async () => {
    if (leadership.valid()) return void metrics.replicationLag.set(labels, 0);
    const info = await (await jetstreamManager(nc)).streams.info(`ORDERS_P${partition}`);
    metrics.replicationLag.set(labels, Math.max(0, info.state.last_seq - applied()));
  });
}
