// The DEX WebSocket for one market at a time: its book (sequence and checksum checked, a fresh snapshot
// after a gap or a wrong checksum) and its trades (a per-symbol sequence; a gap reloads them over REST).
// Reconnects with a growing delay after a drop and subscribes again.
import { LiveBook, type BookMessage } from "./book";

export interface FeedTrade {
  trade_id: string;
  price: number;
  size: number;
  side: "buy" | "sell";
  timestamp: number;
}

export interface FeedEvents {
  onBook(book: LiveBook): void;
  onTrade(t: FeedTrade): void;
  /** the trade stream skipped a sequence number: reload recent trades */
  onTradeGap(): void;
  onStatus(status: { state: "connecting" | "live" | "resyncing" | "down"; detail: string; resyncs: number }): void;
}

export const BOOK_DEPTH = 20;

export class Feed {
  private ws: WebSocket | null = null;
  private symbol: string | null = null;
  private book = new LiveBook(BOOK_DEPTH);
  private tradeSeq: number | null = null;
  private retryMs = 500;
  private closed = false;
  resyncs = 0;

  constructor(
    private readonly url: string,
    private readonly events: FeedEvents,
  ) {
    this.connect();
  }

  private connect(): void {
    if (this.closed) return;
    this.events.onStatus({ state: "connecting", detail: "connecting to the live feed", resyncs: this.resyncs });
    const ws = new WebSocket(this.url);
    this.ws = ws;
    ws.onopen = () => {
      this.retryMs = 500;
      if (this.symbol) this.subscribe(this.symbol);
    };
    ws.onmessage = (ev) => this.onMessage(String(ev.data));
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.book.reset();
      this.events.onBook(this.book);
      if (this.closed) return;
      this.events.onStatus({
        state: "down",
        detail: `feed disconnected; retrying in ${Math.round(this.retryMs / 100) / 10} s`,
        resyncs: this.resyncs,
      });
      setTimeout(() => this.connect(), this.retryMs);
      this.retryMs = Math.min(this.retryMs * 2, 10_000);
    };
  }

  private send(msg: unknown): void {
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(msg));
  }

  private subscribe(symbol: string): void {
    this.book = new LiveBook(BOOK_DEPTH);
    this.tradeSeq = null;
    this.send({ type: "subscribe", channel: "orderbook", symbol, depth: BOOK_DEPTH });
    this.send({ type: "subscribe", channel: "trades", symbol });
  }

  /** Follows `symbol` (leaves the previous market). */
  select(symbol: string): void {
    if (this.symbol === symbol) return;
    if (this.symbol) {
      this.send({ type: "unsubscribe", channel: "orderbook", symbol: this.symbol, depth: BOOK_DEPTH });
      this.send({ type: "unsubscribe", channel: "trades", symbol: this.symbol });
    }
    this.symbol = symbol;
    this.book = new LiveBook(BOOK_DEPTH);
    this.events.onBook(this.book);
    this.subscribe(symbol);
  }

  close(): void {
    this.closed = true;
    this.ws?.close();
  }

  private resync(why: string): void {
    if (!this.symbol) return;
    this.resyncs += 1;
    this.events.onStatus({ state: "resyncing", detail: `${why}: reloading the book`, resyncs: this.resyncs });
    this.send({ type: "unsubscribe", channel: "orderbook", symbol: this.symbol, depth: BOOK_DEPTH });
    this.send({ type: "subscribe", channel: "orderbook", symbol: this.symbol, depth: BOOK_DEPTH });
  }

  private onMessage(text: string): void {
    let msg: { type?: string; symbol?: string; sequence?: number } & Record<string, unknown>;
    try {
      msg = JSON.parse(text);
    } catch {
      return;
    }
    if (msg.symbol !== undefined && msg.symbol !== this.symbol) return; // a market we just left
    if (msg.type === "orderbook_snapshot" || msg.type === "orderbook_update") {
      const m = msg as unknown as BookMessage;
      if (m.depth !== BOOK_DEPTH) return;
      if (msg.type === "orderbook_update" && !this.book.synced) return; // waiting for the snapshot
      const r = this.book.apply(m);
      if (r === "stale") return;
      if (r === "ok") {
        this.events.onStatus({
          state: "live",
          detail: `live · book sequence ${m.sequence}, checksum verified`,
          resyncs: this.resyncs,
        });
        this.events.onBook(this.book);
      } else {
        this.events.onBook(this.book);
        this.resync(r === "gap" ? "a book update was missed" : "the book checksum differed");
      }
    } else if (msg.type === "subscribed" && (msg as { channel?: string }).channel === "trades") {
      this.tradeSeq = typeof msg.sequence === "number" ? msg.sequence : null;
    } else if (msg.type === "trade") {
      const seq = msg.sequence as number;
      if (this.tradeSeq !== null && seq !== this.tradeSeq + 1) this.events.onTradeGap();
      this.tradeSeq = seq;
      this.events.onTrade(msg as unknown as FeedTrade);
    } else if (msg.type === "error") {
      const e = (msg as { error?: { message?: string } }).error;
      this.events.onStatus({
        state: "resyncing",
        detail: `feed error: ${e?.message ?? "unknown"}`,
        resyncs: this.resyncs,
      });
    }
  }
}
