// Follow a market's order book over the WebSocket API with the SDK's BookFeed, a book that keeps itself
// consistent: one snapshot, then updates (a level's new total size; 0 removes it) carrying the book's
// sequence (the one REST and gRPC answer) and the previous update's (prev_sequence), and a CRC32 checksum of
// the best levels that must equal ours; a gap or a differing checksum makes it
// resubscribe for a fresh snapshot (counted in `resyncs`), a dropped connection reconnects.
//   npx tsx examples/subscribe-book.ts
// Env: DEX_WS_URL (default ws://127.0.0.1:8080/ws, what `npm start` serves), SYMBOL (WETH-USD), DEPTH (10),
// UPDATES (how many book changes to print after the first book before leaving; default: never leave).
// Prints one JSON line per consistent book: {sequence, bids, asks, resyncs} (levels best first).
import { BookFeed } from "@onchain-exchange/sdk";
import { exitWith, setting } from "./env";

const WS_URL = setting("DEX_WS_URL");
const symbol = process.env.SYMBOL ?? "WETH-USD";
const depth = Number(process.env.DEPTH ?? 10);
const updates = process.env.UPDATES === undefined ? Infinity : Number(process.env.UPDATES);

async function main() {
  let printed = 0;
  const feed = await BookFeed.open({
    url: WS_URL,
    symbol,
    depth,
    onBook(book) {
      console.log(
        JSON.stringify({
          sequence: book.sequence,
          bids: book.levels("bid"),
          asks: book.levels("ask"),
          resyncs: feed.resyncs,
        }),
      );
      if (printed++ >= updates) feed.close();
    },
    onError(err) {
      console.error(err.message);
      process.exitCode = 1;
      feed.close();
    },
  });
}

main().catch(exitWith);
