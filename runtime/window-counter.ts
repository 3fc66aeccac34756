// A fixed-window rate counter per name, counted synchronously.
/** A fixed-window counter per name, counted synchronously: express-rate-limit's MemoryStore answers
 *  `increment` with its live record after an await, so calls that arrive together (orders pipelined on one
 *  connection, concurrent gRPC calls) would all read the count after the last of them: every one refused
 *  once the burst passes the limit. */
export class WindowCounter {
  private readonly windows = new Map<string, { hits: number; resetAt: number }>();
  constructor(
    private readonly windowMs: number,
    private readonly now: () => number,
  ) {}
  /** counts one hit; its number in the current window and when that window ends */
  hit(name: string): { hits: number; resetAt: number } {
    const t = this.now();
    let w = this.windows.get(name);
    if (!w || w.resetAt <= t) {
      if (this.windows.size >= 10_000) for (const [k, v] of this.windows) if (v.resetAt <= t) this.windows.delete(k);
      w = { hits: 0, resetAt: t + this.windowMs };
      this.windows.set(name, w);
    }
    w.hits += 1;
    return { hits: w.hits, resetAt: w.resetAt };
  }
}
