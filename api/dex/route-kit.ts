// What every DEX REST route is made of: a declaration (path, auth, zod schemas, responses) that both
// registers the Express handler and feeds the OpenAPI document, plus the auth + rate-limit middleware.
import type { NextFunction, Request, RequestHandler, Response } from "express";
import type { ZodType } from "zod";
import { ApiError, validationError } from "../errors";
import { authorize, type AcceptedSchemes, type AuthContext, type Authenticator } from "../auth/authenticate";
import type { ApiKeyPermission } from "../auth/api-keys";
import type { DexRateLimiters } from "./rate-limits";
import { errorResponse } from "./schemas";

export type HttpMethod = "get" | "post" | "delete";
export type RouteAuth = "public" | "key_or_wallet" | "hmac_only" | "wallet_only" | "order";

export interface RouteSpec {
  method: HttpMethod;
  /** OpenAPI form: /v1/orders/{order_id} */
  path: string;
  summary: string;
  auth: RouteAuth;
  params?: ZodType;
  query?: ZodType;
  body?: ZodType;
  /** `headers`: response headers beside the rate-limit ones (name -> description and JSON Schema) */
  responses: Record<
    number,
    {
      description: string;
      schema?: ZodType;
      headers?: Record<string, { description: string; schema: Record<string, unknown> }>;
    }
  >;
}

export interface Route {
  spec: RouteSpec;
  handlers: RequestHandler[];
}

/** A refusal's OpenAPI answer: its description, answered with the error body. */
export const refusalAnswer = (description: string) => ({ description, schema: errorResponse });

/** Refusals by status as OpenAPI answers. */
export const refusalAnswers = (refusals: Readonly<Record<number, string>>) =>
  Object.fromEntries(Object.entries(refusals).map(([code, description]) => [code, refusalAnswer(description)]));

/** A route's declaration in short: its answers by status, the success one as [description, schema] and
 *  each refusal as its description (answered with the error body). */
export type Declaration<P, Q, B> = Pick<RouteSpec, "summary" | "auth"> & {
  params?: ZodType<P>;
  query?: ZodType<Q>;
  body?: ZodType<B>;
  answers: Readonly<Record<number, string | readonly [string, ZodType]>>;
};

/** What a declared route's handler gets: its inputs parsed by the declaration's own schemas. */
export interface RouteInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  req: Request;
  res: Response;
}

/** A route from its "method path", the guard it runs first and its declaration: the handler gets the path
 *  parameters, the query and the JSON body parsed (in that order) by the schemas the OpenAPI document
 *  shows, and what it returns is answered as JSON with the declared success status. */
export function declare<P = unknown, Q = unknown, B = unknown>(
  route: `${HttpMethod} /${string}`,
  guard: RequestHandler,
  d: Declaration<P, Q, B>,
  handle: (input: RouteInput<P, Q, B>) => unknown,
): Route {
  const [method, path] = route.split(" ") as [HttpMethod, string];
  const answers = Object.entries(d.answers);
  const success = answers.filter(([, a]) => typeof a !== "string");
  if (success.length !== 1) throw new Error(`${route}: declare exactly one success answer`);
  const status = Number(success[0]![0]);
  const responses = Object.fromEntries(
    answers.map(([code, a]) => [code, typeof a === "string" ? refusalAnswer(a) : { description: a[0], schema: a[1] }]),
  );
  const { summary, auth, params, query, body } = d;
  return {
    spec: { method, path, summary, auth, params, query, body, responses },
    handlers: [
      guard,
      async (req, res) => {
        const input = {
          params: params ? parseWith(params, req.params, "params") : (undefined as P),
          query: query ? parseWith(query, req.query, "query") : (undefined as Q),
          body: body ? parseWith(body, jsonBody(req), "body") : (undefined as B),
          req,
          res,
        };
        res.status(status).json(await handle(input));
      },
    ],
  };
}

export const expressPath = (openApiPath: string) => openApiPath.replace(/\{(\w+)\}/g, ":$1");

export function parseWith<T>(schema: ZodType<T>, value: unknown, where: string): T {
  const r = schema.safeParse(value ?? {});
  if (!r.success) throw validationError(r.error, where);
  return r.data;
}

/** The request body: raw bytes (kept for signatures) parsed as JSON; malformed JSON is INVALID_REQUEST. */
export function jsonBody(req: Request): unknown {
  const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
  if (raw.length === 0) throw new ApiError("INVALID_REQUEST", "a JSON body is required", { reason: "missing_body" });
  try {
    return JSON.parse(raw.toString("utf8"));
  } catch {
    throw new ApiError("INVALID_REQUEST", "the body is not valid JSON", { reason: "malformed_json" });
  }
}

/** Runs an Express middleware inside another and resolves when it called next (rejects on next(err)). */
export function runMiddleware(mw: RequestHandler, req: Request, res: Response): Promise<void> {
  return new Promise((resolve, reject) => {
    const r = mw(req, res, (err?: unknown) => (err ? reject(err) : resolve()));
    if (r && typeof (r as Promise<void>).catch === "function") (r as Promise<void>).catch(reject);
  });
}

export type LimitKind = "market" | "account" | "order" | "cancel";

/** Authenticates with the accepted schemes, checks the permission and the key's IP allowlist, then
 *  applies the rate limits of the scheme used (signed scheme: spec 8 signed-key limits; otherwise the
 *  private limit, plus 10 orders/s for placement). Sets res.locals.auth. */
export function requireAuth(
  deps: { auth: Authenticator; limiters: DexRateLimiters },
  accept: AcceptedSchemes,
  permission: ApiKeyPermission | null,
  kind: LimitKind,
): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    const ctx = await deps.auth.authenticate(req, accept);
    res.locals.auth = ctx;
    await applyAuthLimits(deps.limiters, ctx, kind, req, res);
    authorize(ctx, permission, req.ip);
    next();
  };
}

export async function applyAuthLimits(
  l: DexRateLimiters,
  ctx: AuthContext,
  kind: LimitKind,
  req: Request,
  res: Response,
): Promise<void> {
  if (ctx.scheme === "hmac") {
    const signed = {
      market: l.signedMarketData,
      account: l.signedAccount,
      order: l.signedOrders,
      cancel: l.signedCancels,
    }[kind];
    await runMiddleware(signed, req, res);
    return;
  }
  await runMiddleware(l.private, req, res);
  if (kind === "order") await runMiddleware(l.orders, req, res);
}

export const authOf = (res: Response): AuthContext => res.locals.auth as AuthContext;
