// The exchange API's typed client (spec 4.A; http://127.0.0.1:3000 under `npm start`): openapi-fetch over the
// types generated from its OpenAPI document (sdk/openapi/exchange-api.ts, `npm run gen:sdk`). Authenticated
// calls carry two headers (spec 5.1): `Authorization: Bearer <identity token>` (the identity provider's
// access token) and `tenant-authorization: <tenant token>` (POST /v1/auth/tenant-token answers it);
// `exchangeTenantToken` gets the latter.
//   const ex = createExchangeClient({ baseUrl, accessToken, tenantToken: await exchangeTenantToken(baseUrl, accessToken) });
//   const account = await ok(ex.GET("/v1/account"));
import createClient, { type Client } from "openapi-fetch";
import type { paths } from "./openapi/exchange-api";
import { ok } from "./rest";

export type { paths as ExchangePaths } from "./openapi/exchange-api";
export type ExchangeClient = Client<paths>;

/** Where the trading web app receives the identity provider's authorization code (OIDC code flow): its
 *  redirect URI is the web app's origin plus this path. */
export const WEB_CALLBACK_PATH = "/auth/callback";

export interface ExchangeClientOptions {
  /** the API's origin, e.g. http://127.0.0.1:3000 (paths start with /v1) */
  baseUrl: string;
  /** the identity provider's access token (sent as Authorization: Bearer) */
  accessToken?: string;
  /** the exchange's tenant token for that identity (sent as tenant-authorization) */
  tenantToken?: string;
  fetch?: typeof fetch;
}

/** A typed client of the exchange API. */
export function createExchangeClient(opts: ExchangeClientOptions): ExchangeClient {
  const headers: Record<string, string> = {};
  if (opts.accessToken) headers.authorization = `Bearer ${opts.accessToken}`;
  if (opts.tenantToken) headers["tenant-authorization"] = opts.tenantToken;
  return createClient<paths>({ baseUrl: opts.baseUrl.replace(/\/+$/, ""), fetch: opts.fetch, headers });
}

/** POST /v1/auth/tenant-token with the identity token: the tenant token (expires with the identity token). */
export async function exchangeTenantToken(
  baseUrl: string,
  accessToken: string,
  fetchImpl?: typeof fetch,
): Promise<string> {
  const { token } = await ok(
    createExchangeClient({ baseUrl, accessToken, fetch: fetchImpl }).POST("/v1/auth/tenant-token"),
  );
  return token;
}
