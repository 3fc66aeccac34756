// Sign an order with a wallet (viem, or ethers with SIGNER=ethers) and place it: no API key, the EIP-712
// signature is the authorization. Everything the wallet signs comes from GET /v1/markets: the EIP-712 domain
// (chain id, Settlement contract), the Order type, the market's tokens and the exponents that turn a price
// and a size into the signed integers (the SDK's signWalletOrder does that exactly, never through floats).
//   npx tsx examples/place-signed-order.ts
// Env: DEX_API_URL (default http://127.0.0.1:3001), PRIVATE_KEY (default: the integrator wallet,
// examples/env.ts), SIGNER (viem | ethers), SYMBOL (WETH-USD), SIDE (buy), PRICE (default: the live book's
// best price on the order's side, so the order joins the book; the other side's best when that side is
// empty), SIZE (0.01). Prints the placed order as one JSON line.
import { createDexClient, fromEthers, fromViem, ok, signWalletOrder } from "@onchain-exchange/sdk";
import { Wallet } from "ethers";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { exitWith, setting } from "./env";

const API = setting("DEX_API_URL");
const key = setting("PRIVATE_KEY") as Hex;
const signer = process.env.SIGNER === "ethers" ? fromEthers(new Wallet(key)) : fromViem(privateKeyToAccount(key));

type Dex = ReturnType<typeof createDexClient>;

/** The live book's best price on `side` (a buy joins the best bid, a sell the best ask), else the other side's. */
async function livePrice(dex: Dex, symbol: string, side: "buy" | "sell"): Promise<string> {
  const book = await ok(dex.GET("/v1/orderbook/{symbol}", { params: { path: { symbol }, query: { depth: 1 } } }));
  const [own, other] = side === "buy" ? [book.bids, book.asks] : [book.asks, book.bids];
  const best = own[0] ?? other[0];
  if (!best) throw new Error(`the ${symbol} book is empty: set PRICE`);
  return String(best.price);
}

async function main() {
  const dex = createDexClient({ baseUrl: API });
  const markets = await ok(dex.GET("/v1/markets"));
  const symbol = process.env.SYMBOL ?? "WETH-USD";
  const side = (process.env.SIDE ?? "buy") as "buy" | "sell";
  const body = await signWalletOrder(signer, markets, {
    symbol,
    side,
    price: process.env.PRICE ?? (await livePrice(dex, symbol, side)),
    size: process.env.SIZE ?? "0.01",
    // timeInForce: "post_only" or type: "limit_maker" sets the signed POST_ONLY flag
  });
  const placed = await ok(dex.POST("/v1/orders", { body }));
  console.log(JSON.stringify(placed));
}

main().catch(exitWith);
