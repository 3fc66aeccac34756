// Scale-out settings read from the environment (by config/index.ts only): which markets this process's
// pipeline owns (a matcher partition), which partitions an API process routes to, the venue's NATS cluster that
// carries the partitions' order logs, calls and events, and the extra operator accounts provisioning grants
// OPERATOR_ROLE to.
//
//   PIPELINE_MARKETS=WETH-USD,WBTC-USD      markets the pipeline owns (unset: all deployed markets)
//   PARTITION_INDEX=0                        0..31: this partition's API-key nonce range, settle lane, streams and
//                                            subjects (distinct per partition; its leader and standbys share it)
//   DEX_PARTITIONS=WETH-USD,WBTC-USD=0;AAPL-USD=1   an API process's markets by partition index (needs ORDER_LOG_URL)
//   EXTRA_OPERATOR_ADDRESSES=0xabc...,0xdef...   granted OPERATOR_ROLE at provisioning (each partition's operator)
//   ORDER_LOG_URL=nats://10.0.0.7:4222,nats://10.0.0.8:4222   the venue's NATS cluster: a pipeline keeps its
//                                            journal and batch store on its JetStream (replicated order log, leader +
//                                            standbys) and, while it leads, serves its markets there; an API process
//                                            reaches the partitions there. Unset: local files under DATA_DIR and
//                                            the pipeline in the API's process (npm start's default)
//   ORDER_LOG_REPLICAS=3, ORDER_LOG_LEASE_MS=2000   the streams' replicas and the leader's lease
import { z } from "zod";
import type { Address } from "viem";
import { commaList } from "./base";

/** Most partitions one deployment may have: each owns 2^58 API-key nonces of every account. */
export const MAX_PARTITIONS = 32;

export interface PartitionRoute {
  /** the market symbols this partition owns */
  readonly symbols: readonly string[];
  /** its PARTITION_INDEX (its subjects on the venue's NATS cluster) */
  readonly index: number;
}

export interface PartitionConfig {
  /** markets this process's pipeline owns; null = every deployed market */
  readonly pipelineMarkets: readonly string[] | null;
  readonly index: number;
  /** the partitions this process's DEX API routes to; empty = the in-process pipeline */
  readonly routes: readonly PartitionRoute[];
  readonly extraOperators: readonly Address[];
  /** the replicated order log; null = the local journal */
  readonly orderLog: {
    readonly servers: readonly string[];
    readonly replicas: number;
    readonly leaseMs: number;
  } | null;
}

const symbol = z.string().regex(/^[A-Z0-9]{1,20}-[A-Z0-9]{1,20}$/, "a market symbol such as WETH-USD");
const symbolList = z.string().transform(commaList).pipe(z.array(symbol).min(1));

const partitionIndex = z.coerce
  .number()
  .int()
  .min(0)
  .max(MAX_PARTITIONS - 1);

const schema = z.object({
  PIPELINE_MARKETS: symbolList.optional(),
  PARTITION_INDEX: partitionIndex.default(0),
  DEX_PARTITIONS: z.string().optional(),
  EXTRA_OPERATOR_ADDRESSES: z
    .string()
    .transform(commaList)
    .pipe(
      z.array(
        z
          .string()
          .regex(/^0x[0-9a-fA-F]{40}$/, "an address (0x + 40 hex)")
          .transform((a) => a as Address),
      ),
    )
    .optional(),
  ORDER_LOG_URL: z
    .string()
    .transform(commaList)
    .pipe(
      z.array(z.string().regex(/^(nats|tls):\/\/[^\s/]+$/, "a NATS server URL such as nats://10.0.0.7:4222")).min(1),
    )
    .optional(),
  ORDER_LOG_REPLICAS: z.coerce.number().int().min(1).max(5).default(3),
  ORDER_LOG_LEASE_MS: z.coerce.number().int().min(500).max(60_000).default(2_000),
});

/** `SYM,SYM=index;SYM=index` -> routes; throws an Error naming what is wrong. */
export function parseDexPartitions(raw: string): PartitionRoute[] {
  const routes: PartitionRoute[] = [];
  const seen = new Set<string>();
  for (const part of raw
    .split(";")
    .map((p) => p.trim())
    .filter((p) => p.length > 0)) {
    const eq = part.lastIndexOf("=");
    if (eq <= 0) throw new Error(`DEX_PARTITIONS: "${part}" is not SYMBOL[,SYMBOL]=INDEX`);
    const symbols = symbolList.safeParse(part.slice(0, eq));
    if (!symbols.success)
      throw new Error(`DEX_PARTITIONS: "${part.slice(0, eq)}" is not a comma list of market symbols`);
    const index = partitionIndex.safeParse(part.slice(eq + 1).trim());
    if (!index.success)
      throw new Error(`DEX_PARTITIONS: "${part.slice(eq + 1)}" is not a partition index (0-${MAX_PARTITIONS - 1})`);
    if (routes.some((r) => r.index === index.data))
      throw new Error(`DEX_PARTITIONS: partition ${index.data} is named twice (list its markets once)`);
    for (const s of symbols.data) {
      if (seen.has(s))
        throw new Error(`DEX_PARTITIONS: market ${s} is routed to two partitions (one writer per market)`);
      seen.add(s);
    }
    routes.push({ symbols: symbols.data, index: index.data });
  }
  if (routes.length === 0) throw new Error("DEX_PARTITIONS: no partition");
  if (routes.length > MAX_PARTITIONS) throw new Error(`DEX_PARTITIONS: at most ${MAX_PARTITIONS} partitions`);
  return routes;
}

/** Parses the scale-out variables of `env` (empty = unset); throws an Error listing what is wrong. */
export function parsePartitionConfig(env: Record<string, string | undefined>): PartitionConfig {
  const present = Object.fromEntries(
    Object.keys(schema.shape)
      .filter((k) => env[k] !== undefined && env[k] !== "")
      .map((k) => [k, env[k]]),
  );
  const parsed = schema.safeParse(present);
  if (!parsed.success)
    throw new Error(parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("\n  "));
  const e = parsed.data;
  const routes = e.DEX_PARTITIONS === undefined ? [] : parseDexPartitions(e.DEX_PARTITIONS);
  if (routes.length > 0 && !e.ORDER_LOG_URL)
    throw new Error("DEX_PARTITIONS needs ORDER_LOG_URL (the NATS cluster the partitions serve on)");
  return {
    pipelineMarkets: e.PIPELINE_MARKETS ?? null,
    index: e.PARTITION_INDEX,
    routes,
    extraOperators: e.EXTRA_OPERATOR_ADDRESSES ?? [],
    orderLog: e.ORDER_LOG_URL
      ? { servers: e.ORDER_LOG_URL, replicas: e.ORDER_LOG_REPLICAS, leaseMs: e.ORDER_LOG_LEASE_MS }
      : null,
  };
}
