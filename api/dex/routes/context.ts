import type { Logger } from "pino";
import type { ApiKeyStore } from "../../auth/api-keys";
import type { Authenticator } from "../../auth/authenticate";
import type { DexApiConfig } from "../config";
import type { createOrderPlacer } from "../place-order";
import type { DexRateLimiters } from "../rate-limits";
import type { DexService } from "../../../pipeline/service";

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
