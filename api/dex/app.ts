// createDexRestApp: the DEX REST API ({dex_base_url} = .../v1) as an Express 5 app with explicit deps.
import { drainable } from "../../runtime/http-drain";
import express, { type Express, type NextFunction, type Request, type RequestHandler, type Response } from "express";
import { createServer, IncomingMessage, ServerResponse, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "pino";
import type { ApiKeyStore } from "../auth/api-keys";
import { createAuthenticator, type Authenticator } from "../auth/authenticate";
import { ApiError, createErrorHandler } from "../errors";
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
  const specs = [...routes.map((r) => r.spec), OPENAPI_ROUTE];
  const app = express() as DexRestApp;
  app.dexRoutes = specs;
  app.set("trust proxy", deps.config.trustProxy as boolean | number | string | string[]);
  app.set("x-powered-by", false);
  app.set("etag", false);
  for (const m of requestMiddleware(deps, limiters)) app.use(m);
  // POST /v1/orders, the hot path, is the router's first route (no other route matches its method and path, so
  // the order changes no answer): the router tries it right after the four middlewares above
  for (const r of hotRouteFirst(routes)) app[r.spec.method](expressPath(r.spec.path), ...r.handlers);
  const openapi = buildOpenApiDocument(specs);
  app.get(OPENAPI_ROUTE.path, limiters.public, (_req, res) => {
    res.json(openapi);
  });
  app.use((req: Request) => {
    throw new ApiError("ROUTE_NOT_FOUND", `no route ${req.method} ${req.path}`);
  });
  app.use(createErrorHandler(deps.logger));
  return app;
}

const OPENAPI_ROUTE = {
  method: "get",
  path: "/v1/openapi.json",
  summary: "This document",
  auth: "public",
  responses: { 200: { description: "OpenAPI 3.1" } },
} as RouteSpec;

/** What runs before every route, in order: 1. the per-IP guard (its headers are on every response, even a
 *  404, 413 or 401); 2. a body that is not JSON refused before anything reads it (415); 3. the body as raw
 *  bytes (signatures cover the exact bytes), size-limited; 4. one debug line per request (nothing registered
 *  per request when debug is off). */
function requestMiddleware(deps: DexRestDeps, limiters: RouteContext["limiters"]): RequestHandler[] {
  const jsonOnly = jsonBodiesOnly(
    (contentType) =>
      new ApiError("UNSUPPORTED_MEDIA_TYPE", JSON_ONLY_MESSAGE, {
        content_type: contentType,
        accepted: ["application/json"],
      }),
  );
  const rawBody = express.raw({ type: () => true, limit: deps.config.bodyLimitBytes });
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
  return [limiters.ip, jsonOnly, rawBody, logRequest];
}

function hotRouteFirst(routes: readonly Route[]): Route[] {
  const isPlace = (r: Route) => r.spec.method === "post" && r.spec.path === "/v1/orders";
  return [...routes.filter(isPlace), ...routes.filter((r) => !isPlace(r))];
}

/** The server's request (response) class: a subclass of node's whose prototype inherits the request
 *  (response) prototype express made for the app, and then becomes the app's own (`app.request`,
 *  `app.response`), given to node:http's IncomingMessage / ServerResponse options. Every request is born with
 *  the prototype express's app.handle sets on it, so its Object.setPrototypeOf changes nothing (no new object
 *  map per request), and a class constructor keeps node's construction on V8's fast path (a plain function
 *  whose `prototype` is express's object does not: docs/decisions/pipeline.md "REST order entry"). */
function ownPrototype<T extends typeof IncomingMessage | typeof ServerResponse>(
  base: T,
  app: Express,
  key: "request" | "response",
): T {
  const Born = class extends (base as typeof IncomingMessage) {};
  Object.setPrototypeOf(Born.prototype, app[key]);
  (app as unknown as Record<typeof key, object>)[key] = Born.prototype;
  return Born as unknown as T;
}

/** The request and response classes of an app's servers, made once per app (a second server shares them). */
const bornClasses = new WeakMap<
  Express,
  { IncomingMessage: typeof IncomingMessage; ServerResponse: typeof ServerResponse }
>();
function serverClassesOf(app: Express) {
  let classes = bornClasses.get(app);
  if (!classes) {
    classes = {
      IncomingMessage: ownPrototype(IncomingMessage, app, "request"),
      ServerResponse: ownPrototype(ServerResponse, app, "response"),
    };
    bornClasses.set(app, classes);
  }
  return classes;
}

/** Listens on host:port (0 = a free port); close() drains it (answers what it received) and closes its sockets. */
export async function listenDexRest(
  app: Express,
  port: number,
  host = "127.0.0.1",
): Promise<{ server: Server; url: string; close: () => Promise<void> }> {
  const server = createServer(serverClassesOf(app), app);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  // close() drains: no new connection, every request received is answered (runtime/http-drain.ts)
  const { drain } = drainable(server);
  return { server, url: `http://${host}:${bound}/v1`, close: drain };
}
