// The live order book of one market as the DEX WebSocket sends it (api/ws/channels.ts): one
// `orderbook_snapshot`, then `orderbook_update`s of the changed levels (size 0 removes a level), each with
// the book's `sequence` (the number REST and gRPC answer for the same book), the `prev_sequence` of the
// subscription's message before it, and the CRC32 checksum of the best min(depth, 10) levels
// (api/ws/checksum.ts). An update whose sequence we already hold is stale (skip it: this lines a REST
// snapshot up with the stream); one whose prev_sequence is past ours means one was missed; a gap or a
// checksum that differs from ours means our copy is wrong: resubscribe (a fresh snapshot).
// Pure (no socket, no node built-in): the same logic as web/src/book.ts; book-feed.ts drives it over a socket.

export type WsLevel = [price: number, size: number];

/** The deepest `orderbook` subscription the WebSocket accepts (levels per side); REST and gRPC answer up to
 *  1,000 levels in one snapshot. */
export const MAX_STREAM_BOOK_DEPTH = 100;

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** CRC32 (IEEE, unsigned) of the UTF-8 bytes of `text` (node's zlib.crc32, in any runtime). */
export function crc32(text: string): number {
  const bytes = new TextEncoder().encode(text);
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** The server's book checksum: CRC32 of "bid1price:bid1size:ask1price:ask1size:..." over the best `levels`. */
export function bookChecksum(bids: readonly WsLevel[], asks: readonly WsLevel[], levels = 10): number {
  const parts: string[] = [];
  for (let i = 0; i < levels; i++) {
    if (i < bids.length) parts.push(`${bids[i]![0]}:${bids[i]![1]}`);
    if (i < asks.length) parts.push(`${asks[i]![0]}:${asks[i]![1]}`);
  }
  return crc32(parts.join(":"));
}

export interface BookMessage {
  type: "orderbook_snapshot" | "orderbook_update";
  symbol: string;
  depth: number;
  bids: WsLevel[];
  asks: WsLevel[];
  sequence: number;
  /** updates only: the sequence of the subscription's previous message */
  prev_sequence?: number;
  checksum: number;
}

/** "gap" (an update is missing) or "checksum" (our levels differ from the server's): the book was reset.
 *  "stale": an update the book already holds (sequence not past ours), skipped; the book is unchanged. */
export type ApplyResult = "ok" | "stale" | "gap" | "checksum";

/** Where an update stands against a book at `held` (null: no snapshot yet). */
export function updateStanding(
  held: number | null,
  update: { sequence: number; prev_sequence?: number },
): "apply" | "stale" | "gap" {
  if (held === null) return "gap";
  if (update.sequence <= held) return "stale";
  return (update.prev_sequence ?? update.sequence - 1) <= held ? "apply" : "gap";
}

export class OrderBook {
  bids = new Map<number, number>();
  asks = new Map<number, number>();
  sequence: number | null = null;

  /** `depth`: the subscription's depth; the checksum covers min(depth, 10) levels, as the server computes it */
  constructor(
    readonly depth: number,
    private readonly checksumLevels = Math.min(depth, 10),
  ) {}

  /** holds a snapshot and every update since */
  get synced(): boolean {
    return this.sequence !== null;
  }

  reset(): void {
    this.bids.clear();
    this.asks.clear();
    this.sequence = null;
  }

  /** Applies a snapshot (from the WebSocket, or a REST / gRPC book of the same depth with its sequence) or
   *  an update. "gap" / "checksum": the book is reset, resubscribe. "stale": skipped. */
  apply(msg: BookMessage): ApplyResult {
    if (msg.type === "orderbook_snapshot") {
      this.bids = new Map(msg.bids);
      this.asks = new Map(msg.asks);
      this.sequence = msg.sequence;
    } else {
      const standing = updateStanding(this.sequence, msg);
      if (standing === "stale") return "stale";
      if (standing === "gap") {
        this.reset();
        return "gap";
      }
      for (const [p, s] of msg.bids) s === 0 ? this.bids.delete(p) : this.bids.set(p, s);
      for (const [p, s] of msg.asks) s === 0 ? this.asks.delete(p) : this.asks.set(p, s);
      this.sequence = msg.sequence;
    }
    if (bookChecksum(this.levels("bid"), this.levels("ask"), this.checksumLevels) !== msg.checksum) {
      this.reset();
      return "checksum";
    }
    return "ok";
  }

  /** Levels best first: bids descending, asks ascending. */
  levels(side: "bid" | "ask"): WsLevel[] {
    const m = side === "bid" ? this.bids : this.asks;
    return [...m.entries()].sort((a, b) => (side === "bid" ? b[0] - a[0] : a[0] - b[0]));
  }

  best(side: "bid" | "ask"): number | null {
    const l = this.levels(side);
    return l.length ? l[0]![0] : null;
  }
}
