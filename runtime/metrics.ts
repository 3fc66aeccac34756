// The process's Prometheus metrics (prom-client): one registry per process, every metric name defined here
// once, served at GET /metrics on the process's health port (`metricsResponse`). The metric names and
// what fills each are listed in docs/metrics.md; ops/grafana/exchange.json charts them.
//
// The order path pays no allocation for its metrics: orders and match latency are counted in cells made
// once (HotCounter, HotHistogram) and turned into prom-client's text only when /metrics is scraped.
// Everything off the order path (settle batches, bridge transfers, lags) uses prom-client's own metrics.
import type { IncomingMessage, ServerResponse } from "node:http";
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

export const registry = new Registry();
collectDefaultMetrics({ register: registry });

interface CounterCell {
  readonly labels: Record<string, string>;
  value: number;
}

/** A counter of up to two label values, each combination's cell made once: `inc(a, b)` allocates nothing
 *  after a combination's first count. */
export class HotCounter {
  readonly type = "counter";
  readonly aggregator = "sum";
  private readonly cells = new Map<string, Map<string, CounterCell>>();
  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly [string] | readonly [string, string],
  ) {
    registry.registerMetric(this as never);
  }

  inc(a: string, b = ""): void {
    let inner = this.cells.get(a);
    if (inner === undefined) this.cells.set(a, (inner = new Map()));
    let cell = inner.get(b);
    if (cell === undefined) {
      const labels: Record<string, string> = { [this.labelNames[0]]: a };
      if (this.labelNames.length === 2) labels[this.labelNames[1]!] = b;
      inner.set(b, (cell = { labels, value: 0 }));
    }
    cell.value++;
  }

  /** The count of one combination (0 before its first). */
  value(a: string, b = ""): number {
    return this.cells.get(a)?.get(b)?.value ?? 0;
  }

  get() {
    const values = [...this.cells.values()].flatMap((inner) =>
      [...inner.values()].map((c) => ({ labels: c.labels, value: c.value })),
    );
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  reset(): void {
    this.cells.clear();
  }
}

/** A histogram without labels whose buckets are a fixed array: `observe` allocates nothing. */
export class HotHistogram {
  readonly type = "histogram";
  readonly aggregator = "sum";
  private readonly counts: Float64Array;
  private sum = 0;
  private count = 0;
  constructor(
    readonly name: string,
    readonly help: string,
    private readonly upperBounds: readonly number[],
  ) {
    this.counts = new Float64Array(upperBounds.length);
    registry.registerMetric(this as never);
  }

  observe(v: number): void {
    this.sum += v;
    this.count++;
    const b = this.upperBounds;
    for (let i = 0; i < b.length; i++) {
      if (v <= b[i]!) {
        this.counts[i]!++;
        return;
      }
    }
  }

  get() {
    let cumulative = 0;
    const values: { labels: Record<string, string | number>; value: number; metricName: string }[] =
      this.upperBounds.map((le, i) => {
        cumulative += this.counts[i]!;
        return { labels: { le }, value: cumulative, metricName: `${this.name}_bucket` };
      });
    values.push({ labels: { le: "+Inf" }, value: this.count, metricName: `${this.name}_bucket` });
    values.push({ labels: {}, value: this.sum, metricName: `${this.name}_sum` });
    values.push({ labels: {}, value: this.count, metricName: `${this.name}_count` });
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  reset(): void {
    this.counts.fill(0);
    this.sum = 0;
    this.count = 0;
  }
}

/** Callbacks run at each scrape, before the metrics are read: they set gauges from state that is already
 *  kept (book depth, backlog, lags). Each returns a function that removes it. */
const collectors = new Set<() => void | Promise<void>>();
export function onScrape(fn: () => void | Promise<void>): () => void {
  collectors.add(fn);
  return () => collectors.delete(fn);
}

/** Where an order came in (the `entry` label). */
export type OrderEntry = "rest" | "websocket" | "grpc" | "exchange" | "simulator" | "partition";

const LATENCY_BUCKETS_S = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];
const SLOW_BUCKETS_S = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

const gauge = (name: string, help: string, labelNames: string[] = []) =>
  new Gauge({ name, help, labelNames, registers: [registry] });

/** Every metric of the exchange's services. A process fills those of the parts it runs. */
export const metrics = {
  ordersAccepted: new HotCounter(
    "dex_orders_accepted_total",
    "Orders accepted, by entry (rest, websocket, grpc, exchange, simulator, partition)",
    ["entry"],
  ),
  ordersRefused: new HotCounter(
    "dex_orders_refused_total",
    "Orders refused, by entry and reason (the error code, or its details.reason)",
    ["entry", "reason"],
  ),
  matchLatency: new HotHistogram(
    "dex_match_latency_seconds",
    "Time the matcher took to take one order in (intake, match, journal), seconds",
    LATENCY_BUCKETS_S,
  ),
  bookDepth: gauge("dex_book_depth_orders", "Orders resting on a book, by market and side", ["market", "side"]),
  settleBatchSize: new Histogram({
    name: "dex_settle_batch_trades",
    help: "Trades in a settled batch",
    buckets: [1, 2, 5, 10, 20, 50, 100, 200, 500],
    registers: [registry],
  }),
  settleBatchGas: new Histogram({
    name: "dex_settle_batch_gas",
    help: "Gas used by a settled batch",
    buckets: [100_000, 250_000, 500_000, 1_000_000, 2_500_000, 5_000_000, 10_000_000, 20_000_000],
    registers: [registry],
  }),
  settleBatchLatency: new Histogram({
    name: "dex_settle_batch_seconds",
    help: "From a batch's forming to its confirmation, seconds",
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  }),
  settleBatches: new Counter({
    name: "dex_settle_batches_total",
    help: "Settle batches confirmed on chain",
    registers: [registry],
  }),
  settleReverts: new Counter({
    name: "dex_settle_reverts_total",
    help: "Settle transactions the chain reverted, by reason (the decoded error's name)",
    labelNames: ["reason"],
    registers: [registry],
  }),
  settlementBacklog: gauge("dex_settlement_backlog_trades", "Trades matched and not yet settled"),
  chainHeadLag: gauge(
    "dex_chain_head_lag_blocks",
    "Blocks between a chain's head and the last block the exchange's follower of that chain read, by chain",
    ["chain"],
  ),
  chainHeadAge: gauge("dex_chain_head_age_seconds", "Seconds since a chain's head block was made, by chain", ["chain"]),
  indexerLag: gauge(
    "dex_indexer_lag_blocks",
    "Blocks between a chain's head and the last block the indexer indexed, by chain",
    ["chain"],
  ),
  bridgeTransfers: new Counter({
    name: "dex_bridge_transfers_total",
    help: "Bridge transfers reaching a status (seen, minted/released, failed), by status",
    labelNames: ["status"],
    registers: [registry],
  }),
  bridgeTransferLatency: new Histogram({
    name: "dex_bridge_transfer_seconds",
    help: "From a bridge transfer's source event to its completion on the other chain, seconds",
    buckets: SLOW_BUCKETS_S,
    registers: [registry],
  }),
  signerNodeUp: gauge("dex_signer_node_up", "1 when a bridge signer node answers its health check, else 0, by node", [
    "node",
  ]),
  replicationLag: gauge(
    "dex_replication_lag_entries",
    "Order-log entries a standby is behind its partition's leader, by partition and node",
    ["partition", "node"],
  ),
  leaderChanges: new Counter({
    name: "dex_leader_changes_total",
    help: "Times a partition's leadership moved to another node, by partition",
    labelNames: ["partition"],
    registers: [registry],
  }),
  partitionCallRetries: new Counter({
    name: "dex_partition_call_retries_total",
    help: "Calls an API process sent again to a matcher partition whose answer did not come in time, by method",
    labelNames: ["method"],
    registers: [registry],
  }),
  http503: new Counter({
    name: "dex_http_503_total",
    help: "Answers 503 (each with a Retry-After), by surface and code",
    labelNames: ["surface", "code"],
    registers: [registry],
  }),
} as const;

/** Every metric name defined above (the dashboard test checks its queries against these). */
export const METRIC_NAMES: readonly string[] = Object.values(metrics).map((m) => (m as { name: string }).name);

/** The reason label of a refusal: the error's details.reason when it has one, else its code. */
export function refusalReason(e: unknown): string {
  const err = e as { code?: unknown; details?: { reason?: unknown } } | null;
  const reason = err?.details?.reason;
  if (typeof reason === "string") return reason;
  return typeof err?.code === "string" ? err.code : "internal";
}

const SCRAPE_WAIT_MS = 1_000;

/** The registry's text, after every scrape callback ran (one failing does not hide the others). */
export async function metricsText(): Promise<string> {
  // a collector that waits on a slow node is left behind after SCRAPE_WAIT_MS: its gauges keep their last values
  await Promise.all(
    [...collectors].map((fn) => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise((r) => (timer = setTimeout(r, SCRAPE_WAIT_MS)));
      return Promise.race([
        Promise.resolve()
          .then(fn)
          .catch(() => undefined),
        late,
      ]).finally(() => clearTimeout(timer));
    }),
  );
  return registry.metrics();
}

/** Answers GET /metrics on a node http server; returns false (and answers nothing) for any other path. */
export function metricsResponse(req: IncomingMessage, res: ServerResponse): boolean {
  if (req.method !== "GET" || (req.url !== "/metrics" && req.url !== "/metrics/")) return false;
  metricsText().then(
    (text) => {
      res.writeHead(200, { "content-type": registry.contentType });
      res.end(text);
    },
    () => {
      res.writeHead(500, { "content-type": "application/json" });
      res.end(
        JSON.stringify({ error: { code: "INTERNAL_ERROR", message: "metrics could not be collected", details: {} } }),
      );
    },
  );
  return true;
}
