// The web app's live book: the SDK's OrderBook (sdk/book.ts: a snapshot, then updates, each with a
// sequence that steps by one and the CRC32 checksum of the best levels; a gap or a checksum that differs
// from ours resets it and the caller resubscribes), with the depth rows the page shows. Pure: no DOM, no
// socket (tested in node).
import { numberToDecimalString, parseExactDecimal } from "../../sdk/decimal";
import { OrderBook } from "../../sdk/book";

export { bookChecksum, crc32, type ApplyResult, type BookMessage, type WsLevel } from "../../sdk/book";

/** One displayed level with the running total from the best price outward (exact decimals as text). */
export interface DepthRow {
  price: string;
  size: string;
  total: string;
}

export class LiveBook extends OrderBook {
  /** The levels with cumulative sizes, summed exactly (decimal text, never float addition). */
  depthRows(side: "bid" | "ask"): DepthRow[] {
    let total = { digits: 0n, scale: 0 };
    return this.levels(side).map(([p, s]) => {
      total = addExact(total, parseExactDecimal(s) ?? { digits: 0n, scale: 0 });
      return { price: numberToDecimalString(p) ?? "", size: numberToDecimalString(s) ?? "", total: exactText(total) };
    });
  }
}

type Exact = { digits: bigint; scale: number };
function addExact(a: Exact, b: Exact): Exact {
  const scale = Math.max(a.scale, b.scale);
  return { digits: a.digits * 10n ** BigInt(scale - a.scale) + b.digits * 10n ** BigInt(scale - b.scale), scale };
}
function exactText(x: Exact): string {
  if (x.scale === 0) return x.digits.toString();
  const s = x.digits.toString().padStart(x.scale + 1, "0");
  const frac = s.slice(-x.scale).replace(/0+$/, "");
  return s.slice(0, -x.scale) + (frac ? `.${frac}` : "");
}
