// The WebSocket order book by hand (no SDK), lined up with a REST snapshot, every update's checksum checked.
//   npx tsx examples/wire/ws-book-sync.ts
// Env: DEX_API_URL, DEX_WS_URL, SYMBOL (WETH-USD), DEPTH (20, at most 100 on the WebSocket), UPDATES (how
// many updates to apply before leaving; default 5). Prints {synced, sequence} once the REST snapshot is
// held, then one JSON line per update applied.
//
// One sequence per book: REST GET /v1/orderbook, gRPC GetOrderBook and every WebSocket `orderbook` message
// carry the book's `sequence`; each update also carries `prev_sequence`, the sequence of the message its
// subscription sent before it. Book sync:
//   1. subscribe, and buffer the updates;
//   2. take a REST snapshot of the same depth (sequence S);
//   3. skip each update with sequence <= S (already in the snapshot); apply the others in order, each only
//      when its prev_sequence <= the sequence you hold (else an update was missed: start again at 2);
//   4. after each update the CRC32 of "bid1price:bid1size:ask1price:ask1size:..." over the best
//      min(depth, 10) levels must equal its `checksum` (else start again at 2).
// (The subscription's own `orderbook_snapshot` is a snapshot too: use it in place of step 2 if you like.)
import { crc32 } from "node:zlib";
import WebSocket from "ws";
import { exitWith, setting } from "../env";

const API = setting("DEX_API_URL");
const WS_URL = setting("DEX_WS_URL");
const symbol = process.env.SYMBOL ?? "WETH-USD";
const depth = Number(process.env.DEPTH ?? 20);
const wanted = Number(process.env.UPDATES ?? 5);

type Level = [price: number, size: number];
interface Update {
  type: "orderbook_update";
  symbol: string;
  depth: number;
  bids: Level[];
  asks: Level[];
  sequence: number;
  prev_sequence: number;
  checksum: number;
}

const book = { bids: new Map<number, number>(), asks: new Map<number, number>(), sequence: -1 };

function checksum(): number {
  const bids = [...book.bids].sort((a, b) => b[0] - a[0]);
  const asks = [...book.asks].sort((a, b) => a[0] - b[0]);
  const parts: string[] = [];
  for (let i = 0; i < Math.min(depth, 10); i++) {
    if (bids[i]) parts.push(`${bids[i]![0]}:${bids[i]![1]}`);
    if (asks[i]) parts.push(`${asks[i]![0]}:${asks[i]![1]}`);
  }
  return crc32(parts.join(":"));
}

async function restSnapshot(): Promise<void> {
  const r = await fetch(`${API}/v1/orderbook/${symbol}?depth=${depth}`);
  const snap = (await r.json()) as {
    bids: { price: number; size: number }[];
    asks: { price: number; size: number }[];
    sequence: number;
  };
  if (!r.ok) throw new Error(`${r.status} ${JSON.stringify(snap)}`);
  book.bids = new Map(snap.bids.map((l: { price: number; size: number }) => [l.price, l.size]));
  book.asks = new Map(snap.asks.map((l: { price: number; size: number }) => [l.price, l.size]));
  book.sequence = snap.sequence;
}

/** Applies one update; false when the book must be fetched again (a missed update or a checksum that differs). */
function apply(u: Update): boolean | "skipped" {
  if (u.sequence <= book.sequence) return "skipped";
  if (u.prev_sequence > book.sequence) return false;
  for (const [p, s] of u.bids) s === 0 ? book.bids.delete(p) : book.bids.set(p, s);
  for (const [p, s] of u.asks) s === 0 ? book.asks.delete(p) : book.asks.set(p, s);
  book.sequence = u.sequence;
  return checksum() === u.checksum;
}

async function main() {
  const ws = new WebSocket(WS_URL);
  const buffered: Update[] = [];
  let synced = false;
  let applied = 0;
  let resyncs = 0;
  const drain = async (): Promise<void> => {
    while (synced && buffered.length > 0) {
      const u = buffered.shift()!;
      const ok = apply(u);
      if (ok === "skipped") continue;
      if (!ok) {
        resyncs++;
        synced = false;
        await restSnapshot();
        synced = true;
        continue;
      }
      console.log(
        JSON.stringify({
          sequence: book.sequence,
          best_bid: Math.max(...book.bids.keys()),
          best_ask: Math.min(...book.asks.keys()),
          resyncs,
        }),
      );
      if (++applied >= wanted) return ws.close();
    }
  };
  ws.on("message", (data) => {
    const m = JSON.parse(String(data));
    if (m.type === "error") exitWith(new Error(`${m.error.code}: ${m.error.message}`));
    if (m.type === "orderbook_update" && m.symbol === symbol && m.depth === depth) {
      buffered.push(m);
      void drain().catch(exitWith);
    }
    if (m.type === "subscribed" && m.channel === "orderbook") {
      // step 2, once subscribed: the REST snapshot, then what the stream buffered meanwhile
      void restSnapshot()
        .then(() => (console.log(JSON.stringify({ synced: true, sequence: book.sequence })), (synced = true), drain()))
        .catch(exitWith);
    }
  });
  ws.on("open", () => ws.send(JSON.stringify({ type: "subscribe", channel: "orderbook", symbol, depth })));
  await new Promise<void>((resolve, reject) => (ws.on("close", () => resolve()), ws.on("error", reject)));
}

main().catch(exitWith);
