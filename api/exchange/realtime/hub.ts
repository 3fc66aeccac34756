// The real-time hub of the exchange API (spec 4.D, 6.1, 6.4): one stream of events, each with an id that
// increases across the process, fanned out by topic to SSE sessions and legacy WebSocket connections.
// - `quote:<assetId>` and `book:<assetId>`: built from the pipeline's book and trade events (the DexService
//   port). Events of a book are coalesced: a burst of matcher events gives one book and one quote event per
//   `coalesceMs`, each the full current state (top `bookDepth` levels; last, bid, ask, 24 h volume).
// - `user:<issuer>|<orgId>|<userId>`: a user's own order-status and settlement events (publishToUser, the
//   hook the exchange orders call); every connection of the user receives them, no subscription needed.
// Each topic keeps its newest `replayPerTopic` events so that a client resuming with Last-Event-ID receives
// every event after that id (docs/decisions/api.md "Real time"); past the buffer it is told (`gap`) and
// receives what the buffer still holds, whose newest event is the topic's current state.
import type { DexEvent, DexMarketStats, DexService, MarketSpec } from "../../../pipeline/service";
import { bookSymbolOf, CATALOGUE, type CatalogueAsset } from "../assets/catalogue";
import { priceNumber, sizeNumber } from "../market/figures";
import type { BookView } from "../market/market-data";

export type RealtimeEventName = "quote" | "book" | "order" | "settlement";

export interface RealtimeEvent {
  /** increases by one per event across the hub; ids of a restarted hub start above the last one's */
  id: number;
  event: RealtimeEventName;
  topic: string;
  data: Record<string, unknown>;
}

/** Numbers on every field, never null (docs/decisions/api.md "Numbers, never null"): before any trade `last` is
 *  the asset's reference price (priceSource "reference", as the REST quote); an empty side's bid or ask is 0
 *  (every resting price is at least one tick above 0). */
export interface QuoteData {
  assetId: string;
  last: number;
  bid: number;
  ask: number;
  volume: number;
  priceSource: "trades" | "reference";
  timestamp: string;
}

/** A quote event's bid or ask when that side of the book is empty. */
export const EMPTY_SIDE_PRICE = 0;

/** A book event's data: the book as GET /v1/assets/{id}/book answers it. */
export type BookData = BookView;

/** What a connection (SSE session or WebSocket) gives the hub. */
export interface Subscriber {
  send(event: RealtimeEvent): void;
}

/** The owner of private events: the identity's issuer, organization and user. */
export interface RealtimeUser {
  issuer: string;
  orgId: string;
  userId: string;
}

export interface Gap {
  topic: string;
  /** the id the client resumed after */
  after: number;
}

export interface RealtimeHubOptions {
  /** undefined: no market (nothing tradeable; quote/book topics never emit) */
  dex: DexService | undefined;
  catalogue?: readonly CatalogueAsset[];
  /** events kept per topic for Last-Event-ID (default 512) */
  replayPerTopic?: number;
  /** levels per side in a book event (default 20) */
  bookDepth?: number;
  /** at most one book and one quote event per asset per this many ms (default 50) */
  coalesceMs?: number;
  now?: () => number;
}

export const DEFAULT_REPLAY_PER_TOPIC = 512;
export const DEFAULT_BOOK_DEPTH = 20;
export const DEFAULT_COALESCE_MS = 50;

export const userTopic = (u: RealtimeUser): string => `user:${u.issuer}|${u.orgId}|${u.userId}`;

interface TopicBuffer {
  events: RealtimeEvent[];
  /** the highest id dropped from this topic's buffer (0: none) */
  evictedUpTo: number;
}

interface SymbolState {
  asset: CatalogueAsset;
  dirty: boolean;
  flushing: boolean;
  timer: NodeJS.Timeout | null;
  lastBook: string | null;
  lastQuote: string | null;
}

export type RealtimeHub = ReturnType<typeof createRealtimeHub>;

export function createRealtimeHub(opts: RealtimeHubOptions) {
  const now = opts.now ?? Date.now;
  const catalogue = opts.catalogue ?? CATALOGUE;
  const log = new TopicLog(opts.replayPerTopic ?? DEFAULT_REPLAY_PER_TOPIC, now());
  const feed = new MarketFeed({
    dex: opts.dex,
    catalogue,
    bookDepth: opts.bookDepth ?? DEFAULT_BOOK_DEPTH,
    coalesceMs: opts.coalesceMs ?? DEFAULT_COALESCE_MS,
    now,
    publish: (topic, event, data) => log.publish(topic, event, data),
  });
  const assetIds = new Set(catalogue.map((a) => a.id));

  return {
    /** the id the hub started at (ids of this run are >= it) */
    firstId: log.firstId,
    lastId: () => log.lastId,
    /** A topic a client may subscribe to: quote:<id> / book:<id> of a catalogue asset. */
    isMarketTopic(topic: string): boolean {
      const m = /^(quote|book):(.+)$/.exec(topic);
      return m !== null && assetIds.has(m[2]);
    },

    /**
     * Registers `sub` for `topics` and returns, in id order, what it must be sent first: with `afterId`
     * (Last-Event-ID), every buffered event of those topics after it, and the topics whose events after it
     * are no longer all buffered (gaps); without, each topic's newest event (its current state). Atomic
     * with respect to publish: nothing is sent twice or lost between the replay and the live events.
     */
    subscribe(sub: Subscriber, topics: readonly string[], afterId?: number): { replay: RealtimeEvent[]; gaps: Gap[] } {
      const { replay, gaps, unbuffered } = log.subscribe(sub, topics, afterId);
      // a market topic with nothing yet: its state is published once read (to every subscriber)
      for (const topic of unbuffered) {
        const m = /^(?:quote|book):(.+)$/.exec(topic);
        if (m) feed.readNow(m[1]);
      }
      return { replay, gaps };
    },

    unsubscribe: (sub: Subscriber, topics?: readonly string[]): void => log.unsubscribe(sub, topics),

    /** Publishes an order-status (`order`) or settlement confirmation (`settlement`) event to every connection
     *  of `user` (the exchange orders call this). Returns the event. */
    publishToUser(user: RealtimeUser, event: "order" | "settlement", data: Record<string, unknown>): RealtimeEvent {
      return log.publish(userTopic(user), event, data);
    },

    /** Subscribers of a topic now (tests, metrics). */
    subscriberCount: (topic: string): number => log.subscriberCount(topic),

    close(): void {
      feed.close();
      log.clearSubscribers();
    },
  };
}

/** The stream of events: ids, each topic's replay buffer and its subscribers. */
class TopicLog {
  readonly firstId: number;
  lastId: number;
  private readonly buffers = new Map<string, TopicBuffer>();
  private readonly subscribers = new Map<string, Set<Subscriber>>();

  constructor(
    private readonly replayPerTopic: number,
    nowMs: number,
  ) {
    // ids start at the boot time in microseconds: above every id a previous run of the hub gave out (at most a
    // million events per second), so a client resuming across a restart is told of the gap, never mis-replayed
    this.firstId = nowMs * 1000;
    this.lastId = this.firstId - 1;
  }

  publish(topic: string, event: RealtimeEventName, data: Record<string, unknown>): RealtimeEvent {
    const e: RealtimeEvent = { id: ++this.lastId, event, topic, data };
    let b = this.buffers.get(topic);
    if (!b) this.buffers.set(topic, (b = { events: [], evictedUpTo: 0 }));
    b.events.push(e);
    if (b.events.length > this.replayPerTopic)
      b.evictedUpTo = b.events.splice(0, b.events.length - this.replayPerTopic).at(-1)!.id;
    for (const s of this.subscribers.get(topic) ?? []) {
      try {
        s.send(e);
      } catch {
        // a connection's failure is its own (it closes itself); the others still receive the event
      }
    }
    return e;
  }

  /** The hub's subscribe, plus the topics that have no event yet. */
  subscribe(
    sub: Subscriber,
    topics: readonly string[],
    afterId?: number,
  ): { replay: RealtimeEvent[]; gaps: Gap[]; unbuffered: string[] } {
    const { firstId, lastId } = this;
    const replay: RealtimeEvent[] = [];
    const gaps: Gap[] = [];
    const unbuffered: string[] = [];
    for (const topic of topics) {
      let set = this.subscribers.get(topic);
      if (!set) this.subscribers.set(topic, (set = new Set()));
      set.add(sub);
      const b = this.buffers.get(topic);
      if (!b) unbuffered.push(topic);
      if (afterId === undefined) {
        const newest = b?.events.at(-1);
        if (newest) replay.push(newest);
      } else {
        if ((b && b.evictedUpTo > afterId) || afterId < firstId - 1 || afterId > lastId)
          gaps.push({ topic, after: afterId });
        const resumeAfter = afterId > lastId ? firstId - 1 : afterId;
        for (const e of b?.events ?? []) if (e.id > resumeAfter) replay.push(e);
      }
    }
    replay.sort((a, b) => a.id - b.id);
    return { replay, gaps, unbuffered };
  }

  unsubscribe(sub: Subscriber, topics?: readonly string[]): void {
    for (const topic of topics ?? [...this.subscribers.keys()]) {
      const set = this.subscribers.get(topic);
      if (!set) continue;
      set.delete(sub);
      if (set.size === 0) this.subscribers.delete(topic);
    }
  }

  subscriberCount(topic: string): number {
    return this.subscribers.get(topic)?.size ?? 0;
  }

  clearSubscribers(): void {
    this.subscribers.clear();
  }
}

interface MarketFeedOptions {
  dex: DexService | undefined;
  catalogue: readonly CatalogueAsset[];
  bookDepth: number;
  coalesceMs: number;
  now: () => number;
  publish(topic: string, event: RealtimeEventName, data: Record<string, unknown>): void;
}

/** The quote and book events of each market, read from the pipeline's port after its events, coalesced. */
class MarketFeed {
  private readonly bySymbol = new Map<string, SymbolState>();
  private readonly unsubscribeDex: (() => void) | undefined;
  private closed = false;

  constructor(private readonly o: MarketFeedOptions) {
    for (const asset of o.catalogue) {
      const symbol = bookSymbolOf(asset);
      if (symbol)
        this.bySymbol.set(symbol, {
          asset,
          dirty: false,
          flushing: false,
          timer: null,
          lastBook: null,
          lastQuote: null,
        });
    }
    this.unsubscribeDex = o.dex?.subscribe((ev: DexEvent) => {
      if (ev.kind === "book") this.schedule(ev.symbol);
      else if (ev.kind === "trade") this.schedule(ev.trade.symbol);
    });
  }

  /** Reads and publishes an asset's market state at once (its first subscriber found nothing buffered). */
  readNow(assetId: string): void {
    const symbol = bookSymbolOf(this.o.catalogue.find((a) => a.id === assetId) ?? { token: null });
    if (symbol) this.schedule(symbol, true);
  }

  close(): void {
    this.closed = true;
    this.unsubscribeDex?.();
    for (const st of this.bySymbol.values()) if (st.timer) clearTimeout(st.timer);
  }

  /** Runs one flush at a time per symbol; a change during a flush gives one more after it. */
  private schedule(symbol: string, immediate = false): void {
    const st = this.bySymbol.get(symbol);
    if (!st || this.closed) return;
    st.dirty = true;
    if (st.timer || st.flushing) return;
    st.timer = setTimeout(
      () => {
        st.timer = null;
        if (!st.dirty || this.closed) return;
        st.dirty = false;
        st.flushing = true;
        this.flush(symbol, st)
          .catch(() => {
            // the port could not answer now: the next event (or subscription) tries again
          })
          .finally(() => {
            st.flushing = false;
            if (st.dirty) this.schedule(symbol);
          });
      },
      immediate ? 0 : this.o.coalesceMs,
    );
    st.timer.unref?.();
  }

  /** Publishes the market's book and quote, each only when it changed since the last published. */
  private async flush(symbol: string, st: SymbolState): Promise<void> {
    const { dex } = this.o;
    const m = dex?.listMarkets().find((x) => x.symbol === symbol);
    if (!dex || !m) return;
    const [book, stats] = await Promise.all([dex.getOrderBook(symbol, this.o.bookDepth), dex.getMarketStats(symbol)]);
    if (!book || this.closed) return;
    const level = (l: { priceTicks: bigint; sizeLots: bigint }) => ({
      price: priceNumber(m, l.priceTicks * m.tickSize),
      size: sizeNumber(m, l.sizeLots * m.lotSize),
    });
    const bids = book.bids.map(level);
    const asks = book.asks.map(level);
    const levels = JSON.stringify([bids, asks]);
    const t = Math.max(book.timestampMs, stats?.timestampMs ?? 0);
    if (levels !== st.lastBook) {
      st.lastBook = levels;
      this.o.publish(`book:${st.asset.id}`, "book", {
        assetId: st.asset.id,
        bids,
        asks,
        timestamp: new Date(book.timestampMs).toISOString(),
      } satisfies BookData);
    }
    const quote = quoteOf(m, st.asset, stats, bids, asks);
    const q = JSON.stringify(quote);
    if (q !== st.lastQuote) {
      st.lastQuote = q;
      this.o.publish(`quote:${st.asset.id}`, "quote", {
        ...quote,
        timestamp: new Date(t || this.o.now()).toISOString(),
      } satisfies QuoteData);
    }
  }
}

type Level = { price: number; size: number };

function quoteOf(
  m: MarketSpec,
  asset: CatalogueAsset,
  stats: DexMarketStats | null,
  bids: Level[],
  asks: Level[],
): Omit<QuoteData, "timestamp"> {
  return {
    assetId: asset.id,
    last:
      stats?.lastPriceTicks == null ? Number(asset.referencePrice) : priceNumber(m, stats.lastPriceTicks * m.tickSize),
    bid: bids[0]?.price ?? EMPTY_SIDE_PRICE,
    ask: asks[0]?.price ?? EMPTY_SIDE_PRICE,
    volume: stats ? sizeNumber(m, stats.volume24hLots * m.lotSize) : 0,
    priceSource: stats?.lastPriceTicks == null ? "reference" : "trades",
  };
}
