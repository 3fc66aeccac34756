// The hot tail: the recent settled trades the hot front has read from the chain, by block, in chain order
// ((blockNumber, logIndex)); only blocks with trades are kept. Bounded: the follower stops reading ahead
// when it holds `maxTrades`, and blocks Ponder has indexed are trimmed. No I/O here.
import { CANDLE_INTERVALS, type CandleInterval, type CandleValues, applyTrade, bucketStartMs } from "../lib/candles";
import type { Hex } from "../lib/trades";
import type { tradeJson } from "../src/api/json";

export type TradeJson = ReturnType<typeof tradeJson>;

export interface TailTrade {
  /** the row exactly as Ponder's GET /trades serves it */
  json: TradeJson;
  pair: string;
  blockNumber: number;
  price: bigint;
  baseAmount: bigint;
  quoteAmount: bigint;
  /** block timestamp, seconds */
  timestamp: bigint;
}

export interface TailBlock {
  number: number;
  hash: Hex;
  trades: TailTrade[];
}

export class HotTail {
  /** ascending block numbers, each with at least one trade */
  private blocks: TailBlock[] = [];
  private count = 0;
  /** the last block read (its hash when known: a block whose hash changed is a reorg) */
  cursor: { number: number; hash?: Hex };

  /** `start`: blocks up to it are Ponder's (read from `start + 1` on) */
  constructor(start: number) {
    this.cursor = { number: start };
  }

  get tradeCount(): number {
    return this.count;
  }

  get blockCount(): number {
    return this.blocks.length;
  }

  /** Appends the blocks read up to `to` (all above the cursor, ascending) and moves the cursor there. */
  append(blocks: readonly TailBlock[], to: { number: number; hash: Hex }): void {
    let last = this.cursor.number;
    for (const b of blocks) {
      if (b.number <= last || b.number > to.number)
        throw new Error(`tail: block ${b.number} out of order (after ${last}, up to ${to.number})`);
      last = b.number;
      if (b.trades.length === 0) continue;
      this.blocks.push(b);
      this.count += b.trades.length;
    }
    this.cursor = { number: to.number, hash: to.hash };
  }

  /** Drops the blocks up to `blockNumber` (Ponder has them). */
  trimThrough(blockNumber: number): void {
    let n = 0;
    while (n < this.blocks.length && this.blocks[n].number <= blockNumber) {
      this.count -= this.blocks[n].trades.length;
      n++;
    }
    if (n > 0) this.blocks.splice(0, n);
  }

  /** A reorg or a node that went back: every block above `blockNumber` goes, reading resumes after it. */
  resetTo(blockNumber: number): void {
    this.blocks = this.blocks.filter((b) => b.number <= blockNumber);
    this.count = this.blocks.reduce((s, b) => s + b.trades.length, 0);
    this.cursor = { number: blockNumber };
  }

  /** First index of a block with number >= n. */
  private firstFrom(n: number): number {
    let lo = 0;
    let hi = this.blocks.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.blocks[mid].number < n) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * Trades of blocks above `above` (and from `fromBlock` on), of `pair` when given: ascending, the first
   * `limit`; or descending (newest first), the last `limit`.
   */
  select(q: { above: number; pair?: string; fromBlock?: number; order: "asc" | "desc"; limit: number }): TailTrade[] {
    const start = this.firstFrom(Math.max(q.above + 1, q.fromBlock ?? 0));
    const out: TailTrade[] = [];
    if (q.order === "asc") {
      for (let i = start; i < this.blocks.length && out.length < q.limit; i++) {
        for (const t of this.blocks[i].trades) {
          if (q.pair !== undefined && t.pair !== q.pair) continue;
          out.push(t);
          if (out.length === q.limit) break;
        }
      }
    } else {
      for (let i = this.blocks.length - 1; i >= start && out.length < q.limit; i--) {
        const trades = this.blocks[i].trades;
        for (let j = trades.length - 1; j >= 0; j--) {
          if (q.pair !== undefined && trades[j].pair !== q.pair) continue;
          out.push(trades[j]);
          if (out.length === q.limit) break;
        }
      }
    }
    return out;
  }
}

/** The tail's candles of one interval (bucket start ms -> values), the same rules as Ponder's. */
export function tailCandles(trades: readonly TailTrade[], interval: CandleInterval): Map<bigint, CandleValues> {
  if (!(interval in CANDLE_INTERVALS)) throw new Error(`unknown interval ${interval}`);
  const out = new Map<bigint, CandleValues>();
  for (const t of trades) {
    const start = bucketStartMs(t.timestamp, interval);
    out.set(start, applyTrade(out.get(start), t));
  }
  return out;
}
