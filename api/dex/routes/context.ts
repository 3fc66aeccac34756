import type { Logger } from "pino";
import type { ApiKeyStore } from "../../auth/api-keys";
import type { Authenticator } from "../../auth/authenticate";
import type { DexApiConfig } from "../config";
import type { createOrderPlacer } from "../place-order";
import type { DexRateLimiters } from "../rate-limits";
import type { DexService } from "../../../pipeline/service";
import type { ApiKeyPermission } from "../../auth/api-keys";
import { declare, requireAuth, type Declaration, type LimitKind, type Route, type RouteInput } from "../route-kit";

/** What the route modules share, built once by createDexRestApp. */
export interface RouteContext {
  config: DexApiConfig;
  logger: Logger;
  service: DexService;
  keys: ApiKeyStore;
  auth: Authenticator;
  limiters: DexRateLimiters;
  placeOrder: ReturnType<typeof createOrderPlacer>;
  now: () => number;
}

/** A private route's schemes: an API key (plain or signed) or a wallet signature. */
export const ANY_SCHEME = { apiKey: true, hmac: true, wallet: true };

/** The refusals every private route may answer, with the router's words for its 400 and 403. */
export const privateRefusals = (invalid: string, forbidden: string) => ({
  400: invalid,
  401: "authentication failed",
  403: forbidden,
  429: "rate limited",
});

const SCHEMES = { key_or_wallet: ANY_SCHEME, hmac_only: { hmac: true }, wallet_only: { wallet: true } };

/** A DEX route guarded as its declared auth says: the public limit, or the accepted schemes with the API
 *  key permission and the limit kind of `access` (default: no permission, the account limit). */
export function dexRoute<P = unknown, Q = unknown, B = unknown>(
  c: RouteContext,
  route: `${"get" | "post" | "delete"} /${string}`,
  d: Declaration<P, Q, B> & { auth: Exclude<Declaration<P, Q, B>["auth"], "order">; access?: Access },
  handle: (input: RouteInput<P, Q, B>) => unknown,
): Route {
  const [permission, kind] = d.access ?? [null, "account"];
  const guard = d.auth === "public" ? c.limiters.public : requireAuth(c, SCHEMES[d.auth], permission, kind);
  return declare(route, guard, d, handle);
}

type Access = readonly [ApiKeyPermission | null, LimitKind];
