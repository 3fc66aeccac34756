import type { Logger } from "pino";
import type { ApiKeyStore } from "../../auth/api-keys";
import type { Authenticator } from "../../auth/authenticate";
import type { DexApiConfig } from "../config";
import type { createOrderPlacer } from "../place-order";
import type { DexRateLimiters } from "../rate-limits";
import type { DexService } from "../../../pipeline/service";
import { errorResponse } from "../schemas";

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
  400: { description: invalid, schema: errorResponse },
  401: { description: "authentication failed", schema: errorResponse },
  403: { description: forbidden, schema: errorResponse },
  429: { description: "rate limited", schema: errorResponse },
});
