// createExchangeApp: the exchange API (spec 4.A, {base_url} = .../v1) as an Express 5 app with explicit
// deps: the two-token authentication of spec 5.1, accounts, the sandbox endpoints, and the routers other
// parts mount behind the same authentication (custody and funding: createFundingRouter).
import express, { type Express, type Request, type Response, type Router } from "express";
import type { Logger } from "pino";
import { clientIp, createLimiter } from "../dex/rate-limits";
import { ApiError } from "../errors";
import { JSON_ONLY_MESSAGE, jsonBodiesOnly } from "../json-only";
import type { AccountStore } from "./accounts";
import { identityOf, requireIdentity, requireTenant, type AccountCustody, type AuthDeps } from "./authenticate";
import type { ExchangeApiConfig } from "./config";
import { exchangeErrorHandler, ExchangeApiError } from "./errors";
import type { IdentityVerifier } from "./identity-tokens";
import { buildExchangeOpenApiDocument } from "./openapi";
import { accountRouter, type OpenBuyHolds } from "./routes/account";
import { sandboxRouter } from "./routes/sandbox";
import type { TenantTokens } from "./tenant-tokens";

export interface ExchangeAppDeps {
  config: ExchangeApiConfig;
  logger: Logger;
  identity: IdentityVerifier;
  tenants: TenantTokens;
  accounts: AccountStore;
  custody: AccountCustody;
  /** decimals of the cash token (demo USD: 6) */
  cashDecimals: number;
  /** routers mounted at /v1 behind both tokens (res.locals.principal set), after the API's own routes */
  authenticatedRouters?: readonly Router[];
  /** cash held by the account's open buy orders (api/exchange/orders): GET /v1/account's buyingPower */
  openBuyHolds?: OpenBuyHolds;
  /** routers mounted at /v1 without tokens (market data, api/exchange/market/public.ts), before any route
   *  that asks for them; each brings its own rate limit */
  publicRouters?: readonly Router[];
  /** routers mounted at the root, outside /v1, with their own authentication (the real-time paths) */
  rootRouters?: readonly Router[];
}

export function createExchangeApp(deps: ExchangeAppDeps): Express {
  const { config } = deps;
  const minute = 60_000;
  const ipLimit = createLimiter("ip", minute, config.rateLimits.ipPerMinute, clientIp);
  const userLimit = createLimiter("user", minute, config.rateLimits.authenticatedPerMinute, (_req, res) => {
    const i = identityOf(res);
    return `${i.issuer}|${i.sub}`;
  });
  const authDeps: AuthDeps = {
    identity: deps.identity,
    tenants: deps.tenants,
    accounts: deps.accounts,
    custody: deps.custody,
    initialKyc: config.mode === "sandbox" ? "approved" : "not_started",
    userLimit,
  };
  const tenant = requireTenant(authDeps);

  const app = express();
  app.set("trust proxy", config.trustProxy as boolean | number | string | string[]);
  app.set("x-powered-by", false);
  app.set("etag", false);
  // 1. the per-IP guard: its headers are on every response, even a 401, 404 or 413
  app.use(ipLimit);
  // 2. a body that is not JSON (a form, text) is refused before anything reads it (415)
  app.use(
    jsonBodiesOnly(
      (contentType) =>
        new ApiError("UNSUPPORTED_MEDIA_TYPE", JSON_ONLY_MESSAGE, {
          content_type: contentType,
          accepted: ["application/json"],
        }),
    ),
  );
  app.use(express.json({ limit: config.bodyLimitBytes, type: () => true, strict: true }));

  // the OpenAPI 3.1 document of every route (api/exchange/openapi.ts), public, built once
  const openApi = JSON.stringify(buildExchangeOpenApiDocument({ mode: config.mode }));
  app.get("/v1/openapi.json", (_req: Request, res: Response) => {
    res.type("application/json").send(openApi);
  });
  app.post("/v1/auth/tenant-token", requireIdentity(authDeps), async (_req: Request, res: Response) => {
    const { token } = await deps.tenants.issue(identityOf(res));
    res.json({ token });
  });
  for (const r of deps.rootRouters ?? []) app.use(r);
  for (const r of deps.publicRouters ?? []) app.use("/v1", r);
  const own = {
    accounts: deps.accounts,
    custody: deps.custody,
    cashDecimals: deps.cashDecimals,
    auth: tenant,
    openBuyHolds: deps.openBuyHolds,
  };
  app.use("/v1", accountRouter(own));
  if (config.mode === "sandbox") app.use("/v1", sandboxRouter(own));
  else
    app.all(/^\/v1\/sandbox(\/|$)/, (req: Request) => {
      throw new ExchangeApiError("ROUTE_NOT_FOUND", `no route ${req.method} ${req.path}`);
    });
  // other parts' routers: every path under /v1 not answered above asks for both tokens first
  for (const r of deps.authenticatedRouters ?? []) app.use("/v1", tenant, r);
  app.use((req: Request) => {
    throw new ExchangeApiError("ROUTE_NOT_FOUND", `no route ${req.method} ${req.path}`);
  });
  app.use(exchangeErrorHandler(deps.logger));
  return app;
}
