// Sign an order with a viem wallet and place it: no API key, the EIP-712 signature is the authorization.
// Everything the wallet signs comes from GET /v1/markets: the EIP-712 domain (chain id, Settlement
// contract), the Order type, the market's tokens and the exponents that turn a price and a size into the
// signed integers.
//   npx tsx examples/place-signed-order.ts
// Env: DEX_API_URL (default http://127.0.0.1:3001), PRIVATE_KEY (default: demo trader #4), SYMBOL
// (WETH-USD), SIDE (buy), PRICE (1500), SIZE (0.01). Prints the placed order as one JSON line.
import { parseUnits, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";

const API = process.env.DEX_API_URL ?? "http://127.0.0.1:3001";
const wallet = privateKeyToAccount((process.env.PRIVATE_KEY ?? "0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a") as Hex);
const symbol = process.env.SYMBOL ?? "WETH-USD";
const side = (process.env.SIDE ?? "buy") as "buy" | "sell";
const price = process.env.PRICE ?? "1500";
const size = process.env.SIZE ?? "0.01";

async function main() {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- its shape: GET /v1/openapi.json
  const info: any = await (await fetch(`${API}/v1/markets`)).json();
  const market = info.markets.find((m: { symbol: string }) => m.symbol === symbol);
  if (!market) throw new Error(`no market ${symbol}`);

  const order = {
    trader: wallet.address,
    baseToken: market.signed_order.base_token,
    quoteToken: market.signed_order.quote_token,
    side: side === "buy" ? 0 : 1,
    price: parseUnits(price, market.signed_order.price_exponent),
    amount: parseUnits(size, market.signed_order.amount_exponent),
    expiry: BigInt(Math.floor(Date.now() / 1000) + 24 * 3600),
    // a number the wallet never used before (the contract keeps a bitmap of used nonces per trader)
    nonce: BigInt(Date.now()),
    flags: 0, // info.eip712.flags.post_only for a post-only order
  };
  const signature = await wallet.signTypedData({ domain: info.eip712.domain, types: info.eip712.types, primaryType: info.eip712.primary_type, message: order });

  const body = {
    symbol,
    side,
    type: "limit",
    price,
    size,
    time_in_force: "gtc",
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
  const res = await fetch(`${API}/v1/orders`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const placed = await res.json();
  if (res.status !== 201) throw new Error(`POST /v1/orders: ${res.status} ${JSON.stringify(placed)}`);
  console.log(JSON.stringify(placed));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
