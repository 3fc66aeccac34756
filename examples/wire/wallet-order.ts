// A wallet-signed order by hand (no SDK, no API key): the signature over the contract's EIP-712 `Order`
// is the authorization. Everything signed comes from GET /v1/markets.
//   npx tsx examples/wire/wallet-order.ts
// Env: DEX_API_URL, PRIVATE_KEY (default: the integrator wallet), SYMBOL (WETH-USD), SIDE (buy), PRICE
// (default: the live book's best price on that side), SIZE (0.01). Prints the placed order as one JSON line.
import { parseUnits, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { exitWith, setting } from "../env";

const API = setting("DEX_API_URL");
const account = privateKeyToAccount(setting("PRIVATE_KEY") as Hex);
const symbol = process.env.SYMBOL ?? "WETH-USD";
const side = (process.env.SIDE ?? "buy") as "buy" | "sell";

async function get(path: string): Promise<any> {
  const r = await fetch(API + path);
  if (!r.ok) throw new Error(`${r.status} ${await r.text()}`);
  return r.json();
}

async function main() {
  const { markets, eip712 } = await get("/v1/markets");
  const m = markets.find((x: { symbol: string }) => x.symbol === symbol);
  const book = await get(`/v1/orderbook/${symbol}?depth=1`);
  const best = (side === "buy" ? book.bids : book.asks)[0] ?? (side === "buy" ? book.asks : book.bids)[0];
  const price = process.env.PRICE ?? String(best?.price ?? "");
  if (!price) throw new Error(`the ${symbol} book is empty: set PRICE`);
  const size = process.env.SIZE ?? "0.01";
  // the contract's Order, camelCase, integers: price x 10^price_exponent, size x 10^amount_exponent
  const order = {
    trader: account.address,
    baseToken: m.signed_order.base_token,
    quoteToken: m.signed_order.quote_token,
    side: side === "buy" ? 0 : 1,
    price: parseUnits(price, m.signed_order.price_exponent),
    amount: parseUnits(size, m.signed_order.amount_exponent),
    expiry: BigInt(Math.floor(Date.now() / 1000) + 3600), // Unix s
    nonce: BigInt(Date.now()) * 1000n, // any number this wallet never used
    flags: 0, // eip712.flags.post_only for a post-only order
  };
  // the domain (name, version, chainId, verifyingContract) and types exactly as GET /v1/markets gives them
  const signature = await account.signTypedData({
    domain: eip712.domain,
    types: eip712.types,
    primaryType: eip712.primary_type,
    message: order,
  });
  // the body: the spec's fields, and beside them the signed struct in snake_case with integers as strings
  const body = {
    symbol,
    side,
    type: "limit",
    price: Number(price),
    size: Number(size),
    order: {
      trader: order.trader,
      base_token: order.baseToken,
      quote_token: order.quoteToken,
      side: order.side,
      price: order.price.toString(),
      amount: order.amount.toString(),
      expiry: order.expiry.toString(),
      nonce: order.nonce.toString(),
      flags: order.flags,
    },
    signature,
  };
  const r = await fetch(`${API}/v1/orders`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const placed = await r.json();
  if (!r.ok) throw new Error(`${r.status} ${JSON.stringify(placed)}`);
  console.log(JSON.stringify(placed));
}

main().catch(exitWith);
