// bench:e2e's view of the indexer: when each trade first shows up through its API (GET /trades, polled every
// 100 ms), and the CPU its processes spent.
import { postgresCpuS } from "./settings";

export interface IndexerCpu {
  cpuS: number;
  batches: number;
  postgresS: number;
  frontS: number;
}

/** The indexer's own CPU and settle batches indexed (Ponder's /metrics), its hot front's and its Postgres's. */
export async function indexerCpu(indexerUrl: string, hotFront: boolean, postgresPid?: number): Promise<IndexerCpu> {
  const m = await (await fetch(`${indexerUrl}/metrics`)).text();
  const num = (re: RegExp) => Number(re.exec(m)?.[1] ?? NaN);
  // the hot front's own process (GET /feed), when it runs
  const front = hotFront ? ((await (await fetch(`${indexerUrl}/feed`)).json()) as { cpuSeconds: number }) : undefined;
  return {
    cpuS: num(/^process_cpu_seconds_total (\S+)$/m),
    batches: num(/^ponder_indexing_completed_events\{event="Settlement:BatchSettled"\} (\S+)$/m) || 0,
    postgresS: postgresPid !== undefined ? postgresCpuS(postgresPid) : 0,
    frontS: front?.cpuSeconds ?? 0,
  };
}

/** The key a trade is known by: its (maker, taker) order hashes. */
export const tradeKey = (t: { makerHash: string; takerHash: string }) =>
  `${t.makerHash.toLowerCase()}:${t.takerHash.toLowerCase()}`;

/** Follows the indexer's new trades (fromBlock: that block on, oldest first) and notes when each first shows up. */
export class VisibilityPoller {
  readonly seenAt = new Map<string, number>();
  private polling = false;
  private fromBlock = 0n;
  private loop: Promise<void> = Promise.resolve();

  constructor(private readonly indexerUrl: string) {}

  start(): void {
    this.polling = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.polling = false;
    await this.loop;
  }

  /** Waits until every key is seen, for at most `timeoutMs`. */
  async waitFor(keys: string[], timeoutMs: number): Promise<void> {
    const end = Date.now() + timeoutMs;
    while (Date.now() < end && keys.some((k) => !this.seenAt.has(k))) await new Promise((r) => setTimeout(r, 100));
  }

  private async run(): Promise<void> {
    while (this.polling) {
      try {
        const r = (await (
          await fetch(`${this.indexerUrl}/trades?pair=WETH-USD&limit=1000&fromBlock=${this.fromBlock}`)
        ).json()) as { trades: { makerOrderHash: string; takerOrderHash: string; blockNumber: string }[] };
        const now = Date.now();
        for (const t of r.trades) {
          const k = tradeKey({ makerHash: t.makerOrderHash, takerHash: t.takerOrderHash });
          if (!this.seenAt.has(k)) this.seenAt.set(k, now);
        }
        // that block again: it may still be filling
        if (r.trades.length > 0) this.fromBlock = BigInt(r.trades[r.trades.length - 1].blockNumber);
      } catch {
        /* the indexer is busy; next poll */
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
