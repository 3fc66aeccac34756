// The client side of the DEX API's tests: wallets, the three ways of authenticating a request (wallet
// EIP-191 headers, HMAC headers, API key headers) and wallet-signed EIP-712 order bodies.
import type { Hex, PrivateKeyAccount } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { walletSigningText } from "../auth/authenticate";
import { signRequest } from "../auth/hmac";
import { signedOrderToWire } from "../dex/order-intent";
import { ORDER_TYPES, SETTLEMENT_DOMAIN, TEST_MARKETS } from "./memory-dex-service";

export const newWallet = (): PrivateKeyAccount => privateKeyToAccount(generatePrivateKey());

/** The host a request to `target` (an origin such as http://127.0.0.1:3001, or a bare host) carries. */
export const hostOf = (target: string | { origin: string }): string => {
  const t = typeof target === "string" ? target : target.origin;
  return /^[a-z]+:\/\//i.test(t) ? new URL(t).host : t;
};

/** Wallet-scheme headers: EIP-191 signature of timestamp + METHOD + host + path + body, for the server
 *  `target` (an origin, a harness, or a bare host). */
export async function walletHeaders(
  w: PrivateKeyAccount,
  target: string | { origin: string },
  method: string,
  path: string,
  body = "",
  ts = Date.now(),
): Promise<Record<string, string>> {
  const raw = walletSigningText(String(ts), method, hostOf(target), path, body);
  const signature = await w.signMessage({ message: { raw } });
  return { "X-Wallet-Address": w.address, "X-Wallet-Timestamp": String(ts), "X-Wallet-Signature": signature };
}

export function hmacHeaders(
  apiKey: string,
  secret: string,
  method: string,
  path: string,
  body = "",
  ts = Date.now(),
): Record<string, string> {
  return {
    "X-API-KEY": apiKey,
    "X-TIMESTAMP": String(ts),
    "X-SIGNATURE": signRequest(secret, String(ts), method, path, body),
  };
}

export interface TestKey {
  id: string;
  apiKey: string;
  secret: string;
  owner: PrivateKeyAccount;
}

export const keyHeaders = (k: TestKey) => ({ "X-API-Key": k.apiKey, "X-API-Secret": k.secret });

export const WETH_USD = TEST_MARKETS[0];

/** A wallet-signed POST /v1/orders body: the spec fields plus the EIP-712 order and its signature. */
export async function signedOrderBody(
  w: PrivateKeyAccount,
  f: {
    side: "buy" | "sell";
    price: number;
    size: number;
    type?: string;
    time_in_force?: string;
    client_order_id?: string;
    nonce?: bigint;
    flags?: number;
    domain?: { name: string; version: string; chainId: number; verifyingContract: Hex };
  },
): Promise<Record<string, unknown>> {
  const m = WETH_USD;
  const priceTicks = BigInt(Math.round(f.price * 100));
  const sizeLots = BigInt(Math.round(f.size * 10_000));
  const order = {
    trader: w.address,
    baseToken: m.baseToken,
    quoteToken: m.quoteToken,
    side: f.side === "buy" ? 0 : 1,
    price: priceTicks * m.tickSize,
    amount: sizeLots * m.lotSize,
    expiry: BigInt(Math.floor(Date.now() / 1000) + 3600),
    nonce: f.nonce ?? BigInt(Math.floor(Math.random() * 1e12)),
    flags: f.flags ?? (f.time_in_force === "post_only" ? 1 : 0),
  } as const;
  const signature: Hex = await w.signTypedData({
    domain: f.domain ?? SETTLEMENT_DOMAIN,
    types: ORDER_TYPES,
    primaryType: "Order",
    message: order,
  });
  return {
    symbol: "WETH-USD",
    side: f.side,
    type: f.type ?? "limit",
    price: f.price,
    size: f.size,
    time_in_force: f.time_in_force ?? "gtc",
    ...(f.client_order_id ? { client_order_id: f.client_order_id } : {}),
    order: signedOrderToWire(order),
    signature,
  };
}
