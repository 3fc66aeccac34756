// The one DexService of a stack process, for every component that trades or serves the markets (the DEX API,
// the exchange API, the simulated market): with DEX_PARTITIONS, one RoutedDexService over the matcher
// partitions (pipeline/partition/routed.ts, on the NATS cluster of ORDER_LOG_URL), built by the first component
// that asks and shared by the others (one NATS connection per process, one subscription to the events), closed when the last of them stops; without
// it, the pipeline's DexService in this process (the "pipeline" component, started before them).
import type { DexService, SignerCache } from "../../pipeline/service";
import { createRoutedDexService, type RoutedDexService } from "../../pipeline/partition/routed";
import type { PipelineHandle } from "./components/pipeline";
import type { StackContext } from "./types";

export interface DexServiceLease {
  readonly service: DexService;
  /** the router over the partitions (DEX_PARTITIONS), for health details; null with the in-process pipeline */
  readonly routed: RoutedDexService | null;
  /** the in-process pipeline's signer cache (null with the partitions: their intake is in another process) */
  readonly knownSigners: SignerCache | null;
  /** the component is done with it (idempotent): the last release closes the router */
  release(): void;
}

interface Shared {
  routed: Promise<RoutedDexService>;
  users: number;
}

/** one router per stack (a test process may run several stacks): keyed by the stack's map of started components */
const shared = new WeakMap<object, Shared>();

/**
 * The process's DexService for `component`, or null when there is none (no DEX_PARTITIONS and no pipeline
 * started before it). With DEX_PARTITIONS the first call connects to every partition (and rejects when one
 * does not answer or owns other markets than routed to it); the later calls share that router.
 */
export async function acquireDexService(ctx: StackContext, component: string): Promise<DexServiceLease | null> {
  const routes = ctx.config.partition.routes;
  if (routes.length === 0) {
    const pipeline = ctx.started.get("pipeline") as PipelineHandle | undefined;
    return pipeline?.dexService
      ? { service: pipeline.dexService, routed: null, knownSigners: pipeline.knownSigners, release: () => {} }
      : null;
  }
  let s = shared.get(ctx.started);
  if (!s) {
    s = {
      routed: createRoutedDexService({
        routes,
        servers: ctx.config.partition.orderLog!.servers,
        logger: ctx.logger.child({ component: "partitions" }),
      }),
      users: 0,
    };
    shared.set(ctx.started, s);
  }
  const entry = s;
  const routed = await entry.routed;
  entry.users++;
  let released = false;
  ctx.logger.debug({ component, users: entry.users }, "partitions: router shared");
  return {
    service: routed,
    routed,
    knownSigners: null,
    release() {
      if (released) return;
      released = true;
      if (--entry.users > 0) return;
      if (shared.get(ctx.started) === entry) shared.delete(ctx.started);
      routed.close();
    },
  };
}
