// createDexRestApp: the DEX REST API ({dex_base_url} = .../v1) as an Express 5 app with explicit deps.
import { drainable } from "../../runtime/http-drain";
import express, {
  type ErrorRequestHandler,
  type Express,
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
} from "express";
import { createServer, IncomingMessage, ServerResponse, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "pino";
import type { ApiKeyStore } from "../auth/api-keys";
import { createAuthenticator, type Authenticator } from "../auth/authenticate";
import { ApiError, createErrorHandler, toHttpError } from "../errors";
import { JSON_ONLY_MESSAGE, jsonBodiesOnly } from "../json-only";
import type { DexApiConfig } from "./config";
import { buildOpenApiDocument } from "./openapi";
import { createOrderPlacer, type OrderPlacer } from "./place-order";
import { createRateLimiters } from "./rate-limits";
import { expressPath, type Route, type RouteSpec } from "./route-kit";
import { accountRoutes } from "./routes/account";
import type { RouteContext } from "./routes/context";
import { marketRoutes } from "./routes/market";
import { orderRoutes } from "./routes/orders";
import type { DexService } from "../../pipeline/service";

export interface DexRestDeps {
  config: DexApiConfig;
  logger: Logger;
  service: DexService;
  /** share one with the gRPC server (one in-flight registry of client order ids); created when omitted */
  placeOrder?: OrderPlacer;
  keys: ApiKeyStore;
  /** share one with the WebSocket and gRPC servers (one replay cache); created when omitted */
  auth?: Authenticator;
  now?: () => number;
}

export interface DexRestApp extends Express {
  /** the route declarations (the OpenAPI document is built from them) */
  dexRoutes: readonly RouteSpec[];
}

export function createDexAuthenticator(deps: {
  config: DexApiConfig;
  keys: ApiKeyStore;
  now?: () => number;
}): Authenticator {
  return createAuthenticator({
    keys: deps.keys,
    hmacWindowMs: deps.config.hmacWindowMs,
    walletWindowMs: deps.config.walletAuthWindowMs,
    walletHosts: deps.config.walletAuthHosts,
    now: deps.now,
  });
}

export function createDexRestApp(deps: DexRestDeps): DexRestApp {
  const now = deps.now ?? Date.now;
  const auth = deps.auth ?? createDexAuthenticator({ config: deps.config, keys: deps.keys, now });
  const limiters = createRateLimiters(deps.config.rateLimits);
  const ctx: RouteContext = {
    config: deps.config,
    logger: deps.logger,
    service: deps.service,
    keys: deps.keys,
    auth,
    limiters,
    now,
    placeOrder:
      deps.placeOrder ??
      createOrderPlacer({
        service: deps.service,
        keys: deps.keys,
        now,
        exchangeOnlySymbols: deps.config.exchangeOnlySymbols,
      }),
  };
  const routes: Route[] = [...marketRoutes(ctx), ...orderRoutes(ctx), ...accountRoutes(ctx)];
  const specs = [
    ...routes.map((r) => r.spec),
    {
      method: "get",
      path: "/v1/openapi.json",
      summary: "This document",
      auth: "public",
      responses: { 200: { description: "OpenAPI 3.1" } },
    } as RouteSpec,
  ];
  const openapi = buildOpenApiDocument(specs);

  const rawBody = express.raw({ type: () => true, limit: deps.config.bodyLimitBytes });
  const jsonOnly = jsonBodiesOnly(
    (contentType) =>
      new ApiError("UNSUPPORTED_MEDIA_TYPE", JSON_ONLY_MESSAGE, {
        content_type: contentType,
        accepted: ["application/json"],
      }),
  );
  const logRequest = (req: Request, res: Response, next: NextFunction) => {
    if (!deps.logger.isLevelEnabled("debug")) return next();
    const started = performance.now();
    res.on("finish", () => {
      deps.logger.debug(
        { method: req.method, path: req.path, status: res.statusCode, ms: Math.round(performance.now() - started) },
        "request",
      );
    });
    next();
  };
  const notFound = (req: Request) => {
    throw new ApiError("ROUTE_NOT_FOUND", `no route ${req.method} ${req.path}`);
  };
  const errorHandler = createErrorHandler(deps.logger);

  const app = express() as DexRestApp;
  app.dexRoutes = specs;
  app.set("trust proxy", deps.config.trustProxy as boolean | number | string | string[]);
  app.set("x-powered-by", false);
  app.set("etag", false);
  // 1. the per-IP guard: its headers are on every response, even a 404, 413 or 401
  app.use(limiters.ip);
  // 2. a body that is not JSON is refused before anything reads it (415)
  app.use(jsonOnly);
  // 3. the body as raw bytes (signatures cover the exact bytes), size-limited
  app.use(rawBody);
  // 4. one debug line per request (nothing registered per request when debug is off)
  app.use(logRequest);
  for (const r of routes) app[r.spec.method](expressPath(r.spec.path), ...r.handlers);
  app.get("/v1/openapi.json", limiters.public, (_req, res) => {
    res.json(openapi);
  });
  app.use(notFound);
  app.use(errorHandler);

  // POST /v1/orders (without a query string) skips the router: the same middleware functions as above, in
  // the same order, called one after the other (the router's per-layer matching was ~10 % of the API's CPU
  // per order under bench:e2e; docs/decisions/pipeline.md). Everything else goes through express.
  const placeRoute = routes.find((r) => r.spec.method === "post" && r.spec.path === "/v1/orders");
  if (placeRoute) {
    const chain: RequestHandler[] = [limiters.ip, jsonOnly, rawBody, logRequest, ...placeRoute.handlers, notFound];
    // express's own dispatch (app.handle: untyped, but what the app function calls for every request)
    const withHandle = app as unknown as {
      handle: (req: IncomingMessage, res: ServerResponse, callback?: NextFunction) => void;
    };
    const routed = withHandle.handle.bind(app);
    const handle = (req: IncomingMessage, res: ServerResponse, callback?: NextFunction): void => {
      if (callback !== undefined || req.method !== "POST" || req.url !== "/v1/orders")
        return routed(req, res, callback);
      runChain(app, chain, errorHandler, req, res);
    };
    withHandle.handle = handle;
  }
  return app;
}

/** What express's app.handle and router do for a request that reaches a route, without the router: the app's
 *  request and response prototypes, res.locals, then each handler with express's rules (a thrown error or a
 *  rejected promise goes to the error handler, next(err) too). */
function runChain(
  app: Express,
  chain: readonly RequestHandler[],
  onError: ErrorRequestHandler,
  rawReq: IncomingMessage,
  rawRes: ServerResponse,
): void {
  const req = rawReq as Request;
  const res = rawRes as Response;
  req.res = res;
  res.req = req;
  // born with them when the server was made by listenDexRest (no prototype change per request)
  if (!Object.prototype.isPrototypeOf.call(app.request, req)) Object.setPrototypeOf(req, app.request);
  if (!Object.prototype.isPrototypeOf.call(app.response, res)) Object.setPrototypeOf(res, app.response);
  if (!res.locals) res.locals = Object.create(null);
  req.originalUrl = req.originalUrl || req.url;
  req.baseUrl = "";
  req.params = {};
  let i = 0;
  let failed = false;
  const fail = (err: unknown) => {
    if (failed) return;
    failed = true;
    // the error handler answers every error itself; should it fail, the answer is the spec's INTERNAL_ERROR
    const last = (e: unknown) => {
      if (res.headersSent) return void res.destroy();
      const { status, body } = toHttpError(e);
      res.status(status).json(body);
    };
    try {
      onError(err, req, res, (e?: unknown) => last(e ?? err));
    } catch (e) {
      last(e);
    }
  };
  const next: NextFunction = (err?: unknown) => {
    if (err !== undefined && err !== null && err !== "route" && err !== "router") return fail(err);
    const fn = chain[i++];
    if (fn === undefined || failed) return;
    try {
      const ret = fn(req, res, next) as unknown;
      if (ret instanceof Promise) ret.then(undefined, (e: unknown) => fail(e || new Error("Rejected promise")));
    } catch (e) {
      fail(e);
    }
  };
  next();
}

/** A class of the server's requests (or responses) whose instances inherit the app's request (response)
 *  prototype from birth: express then sees its own methods on them, and a request of the direct path (POST
 *  /v1/orders) needs no Object.setPrototypeOf (a map change per request; express's router still does it). */
function bornWith<T extends typeof IncomingMessage | typeof ServerResponse>(base: T, proto: object): T {
  const born = class extends (base as typeof IncomingMessage) {};
  Object.setPrototypeOf(born.prototype, proto);
  return born as unknown as T;
}

/** Listens on host:port (0 = a free port); close() drains it (answers what it received) and closes its sockets. */
export async function listenDexRest(
  app: Express,
  port: number,
  host = "127.0.0.1",
): Promise<{ server: Server; url: string; close: () => Promise<void> }> {
  const server = createServer(
    { IncomingMessage: bornWith(IncomingMessage, app.request), ServerResponse: bornWith(ServerResponse, app.response) },
    app,
  );
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  // close() drains: no new connection, every request received is answered (runtime/http-drain.ts)
  const { drain } = drainable(server);
  return { server, url: `http://${host}:${bound}/v1`, close: drain };
}
