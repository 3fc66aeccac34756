// Sign an order with a wallet (viem, or ethers with SIGNER=ethers) and place it: no API key, the EIP-712
// signature is the authorization. Everything the wallet signs comes from GET /v1/markets: the EIP-712 domain
// (chain id, Settlement contract), the Order type, the market's tokens and the exponents that turn a price
// and a size into the signed integers (the SDK's signWalletOrder does that exactly, never through floats).
//   npx tsx examples/place-signed-order.ts
// Env: DEX_API_URL (default http://127.0.0.1:3001), PRIVATE_KEY (default: demo trader #4), SIGNER (viem |
// ethers), SYMBOL (WETH-USD), SIDE (buy), PRICE (1500), SIZE (0.01). Prints the placed order as one JSON line.
import { createDexClient, fromEthers, fromViem, ok, signWalletOrder } from "@onchain-exchange/sdk";
import { Wallet } from "ethers";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";

const API = process.env.DEX_API_URL ?? "http://127.0.0.1:3001";
const key = (process.env.PRIVATE_KEY ?? "0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a") as Hex;
const signer = process.env.SIGNER === "ethers" ? fromEthers(new Wallet(key)) : fromViem(privateKeyToAccount(key));

async function main() {
  const dex = createDexClient({ baseUrl: API });
  const markets = await ok(dex.GET("/v1/markets"));
  const body = await signWalletOrder(signer, markets, {
    symbol: process.env.SYMBOL ?? "WETH-USD",
    side: (process.env.SIDE ?? "buy") as "buy" | "sell",
    price: process.env.PRICE ?? "1500",
    size: process.env.SIZE ?? "0.01",
    // timeInForce: "post_only" or type: "limit_maker" sets the signed POST_ONLY flag
  });
  const placed = await ok(dex.POST("/v1/orders", { body }));
  console.log(JSON.stringify(placed));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
