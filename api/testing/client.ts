// A DEX API client for the end-to-end tests and the API bench: plain HTTP over real sockets, the
// wallet (EIP-191) and HMAC request schemes, API keys created through the API (with the wallet's
// on-chain agent approval), and wallet-signed EIP-712 orders for the real Settlement domain.
import type { PrivateKeyAccount } from "viem";
import type { MarketSpec } from "../../pipeline/service";
import { lotsToSizeText, ticksToPriceText } from "../dex/units";
import {
  call,
  createKey,
  hmacHeaders,
  keyHeaders,
  walletHeaders,
  type Harness,
  type Res,
  type TestKey,
} from "./harness";
import { signSpecOrder } from "../../pipeline/testing/orders";
import { signedOrderToWire } from "../dex/order-intent";

export { hmacHeaders, keyHeaders, walletHeaders, type Res, type TestKey };

/** `origin` is the REST listener without /v1, e.g. http://127.0.0.1:3001 */
export function api(
  origin: string,
  method: string,
  path: string,
  opts: { body?: string | object; headers?: Record<string, string> } = {},
): Promise<Res> {
  // The harness's client only uses `origin` to reach the API: it is plain HTTP.
  return call({ origin } as Harness, method, path, opts);
}

/** POST /v1/api-keys (wallet scheme) then, when `approve`, the wallet signs the returned AgentApproval
 *  and POSTs it to /v1/api-keys/{id}/agent-approval, which submits it on chain. */
export function createApiKey(
  origin: string,
  owner: PrivateKeyAccount,
  body: Record<string, unknown> = { permissions: ["read", "trade"] },
  approve = true,
): Promise<TestKey> {
  // The harness helper only uses `origin` to reach the API: it is plain HTTP.
  return createKey({ origin } as Harness, owner, body, approve);
}

export interface SignedOrderSpec {
  side: "buy" | "sell";
  priceTicks: bigint;
  sizeLots: bigint;
  nonce: bigint;
  clientOrderId?: string;
  timeInForce?: string;
  expirySec?: bigint;
}

/** A wallet-signed POST /v1/orders body for the deployed Settlement contract. */
export async function signedOrderBody(
  w: PrivateKeyAccount,
  m: MarketSpec,
  chainId: number,
  settlement: `0x${string}`,
  s: SignedOrderSpec,
): Promise<Record<string, unknown>> {
  const flags = s.timeInForce === "post_only" ? 1 : 0;
  const { order, signature } = await signSpecOrder(w, w.address, { chainId, settlement }, m, { ...s, flags });
  return {
    ...specFields(m, s),
    ...(s.clientOrderId ? { client_order_id: s.clientOrderId } : {}),
    order: signedOrderToWire(order),
    signature,
  };
}

/** An API-key POST /v1/orders body (spec 4.B fields + client_order_id). */
export function keyOrderBody(
  m: MarketSpec,
  s: { side: "buy" | "sell"; priceTicks: bigint; sizeLots: bigint; clientOrderId: string; timeInForce?: string },
): Record<string, unknown> {
  return { ...specFields(m, s), client_order_id: s.clientOrderId };
}

/** The spec 4.B fields of a limit order (symbol, side, type, price, size, time_in_force) from ticks and lots. */
function specFields(
  m: MarketSpec,
  s: { side: "buy" | "sell"; priceTicks: bigint; sizeLots: bigint; timeInForce?: string },
): Record<string, unknown> {
  return {
    symbol: m.symbol,
    side: s.side,
    type: "limit",
    price: Number(ticksToPriceText(m, s.priceTicks)),
    size: Number(lotsToSizeText(m, s.sizeLots)),
    time_in_force: s.timeInForce ?? "gtc",
  };
}
