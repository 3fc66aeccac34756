// Wallet-signed DEX orders posted to a DEX API: one poster per API, market and deployment, so that a test names only
// the wallet and the order.
import type { PrivateKeyAccount } from "viem";
import type { MarketSpec } from "../../pipeline/service";
import { api, signedOrderBody, type SignedOrderSpec } from "../../api/testing/client";

/** `post(wallet, spec)`: signs the order of `m` for `settlement` on chain `chainId` and POSTs it to `origin`/v1/orders. */
export const signedOrderPoster =
  (origin: string, m: MarketSpec, chainId: number, settlement: `0x${string}`) =>
  async (w: PrivateKeyAccount, spec: SignedOrderSpec) =>
    api(origin, "POST", "/v1/orders", { body: await signedOrderBody(w, m, chainId, settlement, spec) });
