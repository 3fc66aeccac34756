// REST with an API key, by hand (no SDK): the signed scheme (HMAC) and the key + secret scheme.
//   API_KEY=… API_SECRET=… npx tsx examples/wire/rest-hmac.ts
// Env: DEX_API_URL, API_KEY and API_SECRET (from examples/create-api-key.ts: the key's agent must be
// approved to trade), SYMBOL (WETH-USD), PRICE (default: the live book's best bid), SIZE (0.01).
// Prints one JSON line: the order placed (HMAC), the open orders read (HMAC, with a query), the cancel
// (key + secret).
import { createHmac } from "node:crypto";
import { exitWith, setting } from "../env";

const API = setting("DEX_API_URL");
const KEY = process.env.API_KEY ?? "";
const SECRET = process.env.API_SECRET ?? "";
const symbol = process.env.SYMBOL ?? "WETH-USD";

/** The signed scheme: X-SIGNATURE = lower-case hex HMAC-SHA256(secret, timestamp + METHOD + target + body),
 *  target = the path as sent, with /v1 and the query string; body = the exact bytes sent ("" when none);
 *  timestamp = Unix ms, at most 5 s from the server's clock (GET /v1/time), each signature accepted once. */
async function signed(method: string, target: string, body?: unknown) {
  const text = body === undefined ? "" : JSON.stringify(body);
  const timestamp = String(Date.now());
  const signature = createHmac("sha256", SECRET)
    .update(timestamp + method + target + text)
    .digest("hex");
  const headers: Record<string, string> = { "X-API-KEY": KEY, "X-TIMESTAMP": timestamp, "X-SIGNATURE": signature };
  if (text) headers["Content-Type"] = "application/json";
  return answer(await fetch(API + target, { method, headers, body: text || undefined }));
}

/** The key + secret scheme: both headers on every request (simpler; the secret travels each time). */
async function withSecret(method: string, target: string) {
  return answer(await fetch(API + target, { method, headers: { "X-API-Key": KEY, "X-API-Secret": SECRET } }));
}

// the JSON as the API sends it (a script: no types of its own)
async function answer(r: Response): Promise<any> {
  const body = await r.json();
  if (!r.ok) throw new Error(`${r.status} ${JSON.stringify(body)}`);
  return body;
}

async function main() {
  if (!KEY || !SECRET) throw new Error("set API_KEY and API_SECRET (examples/create-api-key.ts prints them)");
  const book = await answer(await fetch(`${API}/v1/orderbook/${symbol}?depth=1`));
  const price = Number(process.env.PRICE ?? book.bids[0]?.price ?? book.asks[0]?.price);
  if (!Number.isFinite(price)) throw new Error(`the ${symbol} book is empty: set PRICE`);
  const placed = await signed("POST", "/v1/orders", {
    symbol,
    side: "buy",
    type: "limit",
    price,
    size: Number(process.env.SIZE ?? 0.01),
    time_in_force: "post_only",
  });
  const open = await signed("GET", `/v1/orders?symbol=${symbol}&status=open`);
  const cancelled = await withSecret("DELETE", `/v1/orders/${placed.order_id}`);
  console.log(JSON.stringify({ placed, open: open.orders.map((o: { order_id: string }) => o.order_id), cancelled }));
}

main().catch(exitWith);
