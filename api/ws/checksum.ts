// The book checksum of every orderbook message (like OKX's): CRC32 (unsigned) of the text
// "bid1price:bid1size:ask1price:ask1size:bid2price:..." over the best min(depth, 10) levels per side,
// each number written as it appears in the JSON message (JavaScript's shortest round-trip form); a side
// that runs out of levels contributes nothing further. A client that computes the same value over its
// own book knows it holds exactly the server's top levels.
import { crc32 } from "node:zlib";

export type WsLevel = [price: number, size: number];

export function bookChecksum(bids: readonly WsLevel[], asks: readonly WsLevel[], levels = 10): number {
  const parts: string[] = [];
  for (let i = 0; i < levels; i++) {
    if (i < bids.length) parts.push(`${bids[i][0]}:${bids[i][1]}`);
    if (i < asks.length) parts.push(`${asks[i][0]}:${asks[i][1]}`);
  }
  return crc32(parts.join(":")) >>> 0;
}
