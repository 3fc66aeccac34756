// Subscribe to a market's order book over the WebSocket API: one snapshot, then updates (a level's new
// total size; 0 removes it), each with a sequence that steps by one (a gap means: resubscribe).
//   npx tsx examples/subscribe-book.ts
// Env: DEX_WS_URL (default ws://127.0.0.1:8080/ws, what `npm start` serves), SYMBOL (WETH-USD), DEPTH (10),
// UPDATES (how many updates to print before leaving; default: never leave). Prints one JSON line per message.
import WebSocket from "ws";

const WS_URL = process.env.DEX_WS_URL ?? "ws://127.0.0.1:8080/ws";
const symbol = process.env.SYMBOL ?? "WETH-USD";
const depth = Number(process.env.DEPTH ?? 10);
const updates = process.env.UPDATES === undefined ? Infinity : Number(process.env.UPDATES);

const ws = new WebSocket(WS_URL);
let seen = 0;
let sequence: number | null = null;
ws.on("open", () => ws.send(JSON.stringify({ type: "subscribe", channel: "orderbook", symbol, depth })));
ws.on("message", (data) => {
  const msg = JSON.parse(data.toString());
  if (msg.type !== "orderbook_snapshot" && msg.type !== "orderbook_update") return; // acks, heartbeats
  if (msg.type === "orderbook_update" && sequence !== null && msg.sequence !== sequence + 1) throw new Error(`sequence gap: ${sequence} -> ${msg.sequence}`);
  sequence = msg.sequence;
  console.log(JSON.stringify({ type: msg.type, sequence: msg.sequence, bids: msg.bids, asks: msg.asks }));
  if (msg.type === "orderbook_update" && ++seen >= updates) ws.close();
  if (msg.type === "orderbook_snapshot" && updates === 0) ws.close();
});
ws.on("error", (err) => {
  console.error(err);
  process.exit(1);
});
