// A WebSocket book that keeps itself consistent: subscribes to one market's `orderbook` channel, applies the
// snapshot and each update to an OrderBook (sequence and checksum checked), and on a gap or a checksum that
// differs resubscribes for a fresh snapshot (`resyncs` counts them); after a dropped connection it
// reconnects with a growing delay (0.5 s doubling to 10 s) and subscribes again. The same steps as the web
// app's feed (web/src/feed.ts). Works with the browser's WebSocket or the `ws` package (node 20's default).
import { MAX_STREAM_BOOK_DEPTH, OrderBook, type ApplyResult, type BookMessage } from "./book";

/** The part of a WebSocket (browser or `ws`) the feed uses. */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(): void;
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: unknown) => void) | null;
  onerror: ((ev: unknown) => void) | null;
}
export type WebSocketConstructor = new (url: string) => WebSocketLike;

export interface BookFeedOptions {
  /** the DEX WebSocket, e.g. ws://127.0.0.1:8080/ws */
  url: string;
  symbol: string;
  /** levels per side, 1 to MAX_STREAM_BOOK_DEPTH (100; default 20). For a deeper one-off snapshot use REST
   *  or gRPC (up to 1,000 levels). */
  depth?: number;
  /** default: the global WebSocket, else the `ws` package */
  WebSocket?: WebSocketConstructor;
  /** after each applied snapshot or update (the book is consistent then) */
  onBook?: (book: OrderBook) => void;
  /** a gap or checksum difference: the feed resubscribes */
  onResync?: (reason: Exclude<ApplyResult, "ok" | "stale">) => void;
  /** an `error` message from the server (a BookFeedError), or a socket error */
  onError?: (err: Error) => void;
}

/** The server's `error` message (spec error body: code, message, details), as the feed received it. */
export class BookFeedError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details: unknown,
  ) {
    super(`${code}: ${message}`);
    this.name = "BookFeedError";
  }
}

const OPEN = 1;

export class BookFeed {
  readonly book: OrderBook;
  readonly depth: number;
  resyncs = 0;
  private ws: WebSocketLike | null = null;
  private closed = false;
  private retryMs = 500;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  /** the server's last refusal since the last snapshot: `until()` rejects with it */
  private failure: Error | null = null;
  private waiters: { pred: (b: OrderBook) => boolean; resolve: (b: OrderBook) => void; reject: (e: Error) => void }[] =
    [];

  private constructor(
    private readonly opts: BookFeedOptions,
    private readonly Ctor: WebSocketConstructor,
  ) {
    this.depth = opts.depth ?? 20;
    this.book = new OrderBook(this.depth);
  }

  /** Connects and subscribes; resolves once the socket is open (the snapshot follows: `await feed.until()`).
   *  Rejects when the first connection fails (later drops reconnect by themselves), and with a RangeError
   *  for a depth the server refuses (outside 1 to MAX_STREAM_BOOK_DEPTH). */
  static async open(opts: BookFeedOptions): Promise<BookFeed> {
    const depth = opts.depth ?? 20;
    if (!Number.isInteger(depth) || depth < 1 || depth > MAX_STREAM_BOOK_DEPTH) {
      throw new RangeError(
        `BookFeed: depth must be an integer from 1 to ${MAX_STREAM_BOOK_DEPTH} (got ${depth}); REST and gRPC snapshots go to 1,000`,
      );
    }
    const Ctor =
      opts.WebSocket ??
      (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket ??
      ((await import("ws")).default as unknown as WebSocketConstructor);
    const feed = new BookFeed(opts, Ctor);
    await feed.connect(true);
    return feed;
  }

  /** Resolves with the book once it holds a snapshot and satisfies `pred` (default: any synced book).
   *  Rejects with the server's BookFeedError (code, message, details) when the server refuses the
   *  subscription, and when the feed is closed first. */
  until(pred: (book: OrderBook) => boolean = () => true): Promise<OrderBook> {
    if (this.book.synced && pred(this.book)) return Promise.resolve(this.book);
    if (this.failure) return Promise.reject(this.failure);
    if (this.closed) return Promise.reject(new Error("BookFeed: closed"));
    return new Promise((resolve, reject) => this.waiters.push({ pred, resolve, reject }));
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.retryTimer);
    this.ws?.close();
    this.fail(new Error("BookFeed: closed"));
  }

  private fail(err: Error): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w.reject(err);
  }

  private connect(first = false): Promise<void> {
    return new Promise((resolve, reject) => {
      const ws = new this.Ctor(this.opts.url);
      this.ws = ws;
      let opened = false;
      ws.onopen = () => {
        opened = true;
        this.retryMs = 500;
        this.send({ type: "subscribe", channel: "orderbook", symbol: this.opts.symbol, depth: this.depth });
        resolve();
      };
      ws.onmessage = (ev) => this.onMessage(String(ev.data));
      ws.onerror = (ev) =>
        this.opts.onError?.(
          new Error(`WebSocket error: ${(ev as { message?: string }).message ?? "connection failed"}`),
        );
      ws.onclose = () => {
        if (this.ws !== ws) return;
        this.ws = null;
        this.book.reset();
        if (first && !opened) {
          this.closed = true;
          reject(new Error(`BookFeed: could not connect to ${this.opts.url}`));
          return;
        }
        if (this.closed) return;
        this.retryTimer = setTimeout(() => void this.connect(), this.retryMs);
        this.retryMs = Math.min(this.retryMs * 2, 10_000);
      };
    });
  }

  private send(msg: unknown): void {
    if (this.ws?.readyState === OPEN) this.ws.send(JSON.stringify(msg));
  }

  private onMessage(text: string): void {
    let msg: {
      type?: string;
      symbol?: string;
      depth?: number;
      error?: { code?: string; message?: string; details?: unknown };
    };
    try {
      msg = JSON.parse(text);
    } catch {
      return;
    }
    if (msg.type === "error") {
      const err = new BookFeedError(msg.error?.code ?? "ERROR", msg.error?.message ?? "", msg.error?.details);
      this.failure = err;
      this.opts.onError?.(err);
      this.fail(err);
      return;
    }
    if (msg.type !== "orderbook_snapshot" && msg.type !== "orderbook_update") return; // acks, heartbeats
    if (msg.symbol !== this.opts.symbol || msg.depth !== this.depth) return;
    if (msg.type === "orderbook_update" && !this.book.synced) return; // waiting for the snapshot
    const r = this.book.apply(msg as BookMessage);
    if (r === "stale") return;
    if (r !== "ok") {
      this.resyncs += 1;
      this.opts.onResync?.(r);
      this.send({ type: "unsubscribe", channel: "orderbook", symbol: this.opts.symbol, depth: this.depth });
      this.send({ type: "subscribe", channel: "orderbook", symbol: this.opts.symbol, depth: this.depth });
      return;
    }
    this.failure = null;
    this.opts.onBook?.(this.book);
    this.waiters = this.waiters.filter((w) => (w.pred(this.book) ? (w.resolve(this.book), false) : true));
  }
}
