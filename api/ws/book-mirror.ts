// The WebSocket server's copy of every book (all levels, integers), kept from the service's snapshot
// plus its book events in sequence order. A gap in the service's sequence triggers a reload.
import type { DexBookEvent, DexLevel, DexService } from "../../pipeline/service";

export class BookMirror {
  readonly bids = new Map<bigint, bigint>();
  readonly asks = new Map<bigint, bigint>();
  sequence = -1;
  private loading: Promise<void> | null = null;
  private buffered: DexBookEvent[] = [];

  constructor(
    readonly symbol: string,
    private readonly service: DexService,
    private readonly onChange: (m: BookMirror) => void,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** Loads the full book; events that arrive meanwhile are buffered and applied after it. */
  load(): Promise<void> {
    if (this.loading) return this.loading;
    this.loading = (async () => {
      try {
        const snap = await this.service.getOrderBook(this.symbol);
        if (!snap) throw new Error(`no book for ${this.symbol}`);
        this.bids.clear();
        this.asks.clear();
        for (const l of snap.bids) this.bids.set(l.priceTicks, l.sizeLots);
        for (const l of snap.asks) this.asks.set(l.priceTicks, l.sizeLots);
        this.sequence = snap.sequence;
      } finally {
        this.loading = null;
      }
      const pending = this.buffered;
      this.buffered = [];
      let gap = false;
      for (const e of pending) gap = this.applyInOrder(e) || gap;
      this.onChange(this);
      if (gap) void this.load().catch(this.onError);
    })();
    return this.loading;
  }

  /** Applies one service event (buffered while loading). */
  apply(e: DexBookEvent): void {
    if (this.loading) {
      this.buffered.push(e);
      return;
    }
    if (this.applyInOrder(e)) {
      void this.load().catch(this.onError);
      return;
    }
    this.onChange(this);
  }

  /** true when a gap was found (the event was not applied) */
  private applyInOrder(e: DexBookEvent): boolean {
    if (e.sequence <= this.sequence) return false; // already in the snapshot
    if (e.sequence !== this.sequence + 1) return true;
    setLevels(this.bids, e.bids);
    setLevels(this.asks, e.asks);
    this.sequence = e.sequence;
    return false;
  }

  /** Best `depth` levels: bids descending, asks ascending. */
  top(depth: number): { bids: DexLevel[]; asks: DexLevel[] } {
    return { bids: best(this.bids, depth, true), asks: best(this.asks, depth, false) };
  }
}

function setLevels(side: Map<bigint, bigint>, levels: readonly DexLevel[]): void {
  for (const l of levels) {
    if (l.sizeLots === 0n) side.delete(l.priceTicks);
    else side.set(l.priceTicks, l.sizeLots);
  }
}

function best(side: Map<bigint, bigint>, depth: number, descending: boolean): DexLevel[] {
  const prices = [...side.keys()].sort((a, b) => (a === b ? 0 : a < b !== descending ? -1 : 1));
  return prices.slice(0, depth).map((p) => ({ priceTicks: p, sizeLots: side.get(p)! }));
}
