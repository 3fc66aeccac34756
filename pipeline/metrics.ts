// The pipeline's metrics (runtime/metrics.ts): book depth, the settlement backlog and the home chain's
// head lag are read from the pipeline's own state when /metrics is scraped; settled batches are counted as
// they land. Nothing here runs per order.
import { metrics, onScrape } from "../runtime/metrics";
import type { Pipeline } from "./pipeline";

/** Fills the pipeline's metrics until the returned function is called. `chain` names the chain label. */
export function watchPipelineMetrics(pipeline: Pipeline, chain = "home"): () => void {
  const unsubscribe = pipeline.subscribeSettled((b) => {
    metrics.settleBatches.inc();
    metrics.settleBatchSize.observe(b.trades.length);
    metrics.settleBatchGas.observe(Number(b.gasUsed));
    const formedAtMs = b.stages?.launchedAtMs ?? b.trades[0]?.matchedAtMs;
    if (formedAtMs !== undefined) metrics.settleBatchLatency.observe(Math.max(0, b.settledAtMs - formedAtMs) / 1000);
  });
  const removeScrape = onScrape(async () => {
    const depth = new Map<string, number>();
    for (const m of pipeline.service.marketList()) {
      depth.set(`${m.symbol}\0buy`, 0);
      depth.set(`${m.symbol}\0sell`, 0);
    }
    for (const o of pipeline.service.orders.values()) {
      const k = `${o.market.symbol}\0${o.side}`;
      depth.set(k, (depth.get(k) ?? 0) + 1);
    }
    for (const [k, n] of depth) {
      const [market, side] = k.split("\0") as [string, string];
      metrics.bookDepth.set({ market, side }, n);
    }
    const h = pipeline.health();
    metrics.settlementBacklog.set(h.batcher.queuedTrades);
    const head = await pipeline.client.getBlockNumber({ cacheTime: 0 });
    metrics.chainHeadLag.set({ chain }, Math.max(0, Number(head - BigInt(h.chainBlock))));
  });
  return () => {
    unsubscribe();
    removeScrape();
  };
}
