// A reference consumer of the orderbook channel: applies the snapshot and then each update, checks that
// every update's prev_sequence is the sequence it holds (sdk/book.ts updateStanding) and that the checksum
// matches. On a gap or a checksum
// mismatch it reports `out_of_sync` and the caller resubscribes (a fresh snapshot).
import { updateStanding } from "../../sdk/book";
import { bookChecksum, type WsLevel } from "./checksum";

export type BookMessage =
  | {
      type: "orderbook_snapshot";
      symbol: string;
      bids: WsLevel[];
      asks: WsLevel[];
      sequence: number;
      checksum: number;
      depth: number;
    }
  | {
      type: "orderbook_update";
      symbol: string;
      bids: WsLevel[];
      asks: WsLevel[];
      sequence: number;
      prev_sequence: number;
      checksum: number;
      depth: number;
    };

export type ApplyResult = "ok" | "gap" | "checksum_mismatch" | "no_snapshot";

export class ClientBook {
  bids = new Map<number, number>();
  asks = new Map<number, number>();
  sequence: number | null = null;

  constructor(readonly checksumLevels = 10) {}

  apply(msg: BookMessage): ApplyResult {
    if (msg.type === "orderbook_snapshot") {
      this.bids = new Map(msg.bids);
      this.asks = new Map(msg.asks);
      this.sequence = msg.sequence;
    } else {
      if (this.sequence === null) return "no_snapshot";
      if (updateStanding(this.sequence, msg) !== "apply") {
        this.sequence = null;
        return "gap";
      }
      for (const [p, s] of msg.bids) s === 0 ? this.bids.delete(p) : this.bids.set(p, s);
      for (const [p, s] of msg.asks) s === 0 ? this.asks.delete(p) : this.asks.set(p, s);
      this.sequence = msg.sequence;
    }
    const { bids, asks } = this.levels();
    if (bookChecksum(bids, asks, Math.min(msg.depth, this.checksumLevels)) !== msg.checksum) {
      this.sequence = null;
      return "checksum_mismatch";
    }
    return "ok";
  }

  /** bids descending, asks ascending */
  levels(): { bids: WsLevel[]; asks: WsLevel[] } {
    return {
      bids: [...this.bids].sort((a, b) => b[0] - a[0]),
      asks: [...this.asks].sort((a, b) => a[0] - b[0]),
    };
  }
}
