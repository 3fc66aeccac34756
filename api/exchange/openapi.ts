// Long file: one route table of every exchange API path, kept whole so that the document and the served app
// are compared in one place.
// OpenAPI 3.1 document of the exchange API (spec 4.A, 4.D's SSE, 9's legacy paths), served at GET
// /v1/openapi.json. Built as api/dex/openapi.ts builds the DEX's: request parameters and bodies from the very
// zod schemas the routes validate with, responses from api/exchange/response-schemas.ts, all through
// z.toJSONSchema (JSON Schema 2020-12 = OpenAPI 3.1's dialect). EXCHANGE_ROUTES is the list of every route
// the exchange API serves (openapi.test.ts walks the assembled app and checks both directions).
import { z, type ZodType } from "zod";
import { errorResponse } from "../dex/schemas";
import { assetListQuery } from "./assets/router";
import { advanceClockBody, transactionListQuery, transferBody } from "./funding/router";
import { CANDLE_INTERVALS } from "./market/candles";
import { CHART_RANGE_IDS } from "./market/figures";
import { STALE_HEADER } from "./market/market-data";
import { bookQuery, chartQuery, tradesQuery } from "./market/router";
import { investorProfileBody, orderCreateBody, orderListQuery, orderUpdateBody } from "./orders/router";
import * as R from "./response-schemas";
import { kycBody, selfCertifyBody, verificationBody } from "./routes/sandbox";

/** public: no token (public tier, 100/min per IP); tokens: identity token + tenant token (spec 5.1);
 *  identity: the identity token alone (tenant-token issuance, the SSE stream) */
export type ExchangeRouteAuth = "public" | "tokens" | "identity";

interface Answer {
  description: string;
  schema?: ZodType;
  /** default application/json */
  contentType?: string;
}

export interface ExchangeRouteSpec {
  method: "get" | "post" | "patch" | "delete";
  /** OpenAPI path ({id} parameters), from the server's root */
  path: string;
  summary: string;
  auth: ExchangeRouteAuth;
  params?: Record<string, { description: string; pattern?: string }>;
  query?: ZodType;
  body?: ZodType;
  ok: number;
  answer: Answer;
  /** error statuses this route can answer beside the shared ones (400 / 401 / 429 / 500), with their codes */
  errors?: Record<number, string>;
  /** a legacy path (spec 9): the canonical path it answers as */
  legacyOf?: string;
  /** served only when EXCHANGE_MODE=sandbox (404 ROUTE_NOT_FOUND in production) */
  sandbox?: boolean;
}

const noQuery = z.object({}).strict();
const assetId = { id: { description: "asset id (its symbol, case-sensitive)", pattern: "^[A-Za-z0-9._-]{1,64}$" } };
const legacyAssetQuery = (canonical: z.ZodObject) =>
  canonical.extend({ assetId: z.string().max(64).optional().describe("the asset, when the path does not name it") });
const V = "/v1";
const STALE_503 =
  "SERVICE_UNAVAILABLE (the indexer is not answering and this process has no earlier answer to give, marked stale)";
/** Routes whose figures come from the indexer's candles: while it does not answer they give the last known
 *  figures with the X-Market-Data-Stale header. */
const CANDLE_PATHS = new Set([
  `${V}/assets`,
  `${V}/assets/{id}`,
  `${V}/assets/{id}/quote`,
  `${V}/assets/{id}/chart`,
  `${V}/exchange-explorers`,
  `${V}/stock-summaries`,
  `${V}/exchange-assets/{id}`,
  `${V}/asset-chats`,
  `${V}/asset-chats/{id}`,
]);
const staleHeader = {
  [STALE_HEADER]: {
    schema: { type: "string", format: "date-time" },
    description:
      "present only when the indexer is not answering: the figures are the last known ones, given by the indexer at this time (ISO 8601)",
  },
};

type Method = ExchangeRouteSpec["method"];
type Rest = Partial<Omit<ExchangeRouteSpec, "method" | "path" | "summary" | "auth" | "answer">>;

/** The rows of the table for routes of `auth`: "method path" (below /v1 unless it starts with /api), its
 *  summary, its success answer as [description, schema, content type] (status 200 unless `rest` says), and
 *  the rest. */
const route =
  (auth: ExchangeRouteAuth) =>
  (
    at: `${Method} /${string}`,
    summary: string,
    [description, schema, contentType]: [string, ZodType?, string?],
    rest: Rest = {},
  ): ExchangeRouteSpec => {
    const [method, path] = at.split(" ") as [Method, string];
    const answer = { description, ...(schema ? { schema } : {}), ...(contentType ? { contentType } : {}) };
    return { method, path: path.startsWith("/api/") ? path : `${V}${path}`, summary, auth, ok: 200, answer, ...rest };
  };
const pub = route("public");
const tok = route("tokens");
const identityOnly = route("identity");

/** A legacy path of spec 9 (a GET): answers exactly as GET /v1`as` (its summary may name it `named`). */
function legacy(
  path: `/${string}`,
  as: string,
  schema: ZodType,
  rest: Rest & { named?: string; auth?: ExchangeRouteAuth } = {},
): ExchangeRouteSpec {
  const { named = as, auth = "public", ...more } = rest;
  const legacyOf = `${V}${as.split("?")[0]}`;
  return route(auth)(`get ${path}`, `legacy: GET ${V}${named}`, [`as GET ${V}${as}`, schema], { ...more, legacyOf });
}

const NO_ASSET = { 404: "ASSET_NOT_FOUND" };
const STALE_CANDLES = { ...NO_ASSET, 503: STALE_503 };
/** A route of one asset, named by the path's {id}. */
const ofAsset = { params: assetId, errors: NO_ASSET };

const assetRoutes: ExchangeRouteSpec[] = [
  pub("get /openapi.json", "this document", ["the OpenAPI 3.1 document"]),
  pub("get /navigation", "rails and their categories (spec 2.1)", ["navigation", R.navigationResponse], {
    query: noQuery,
  }),
  pub(
    "get /assets",
    "list assets: filters, ranked search, cursor pages",
    ["a page of asset summaries", R.assetListResponse],
    { query: assetListQuery },
  ),
  pub("get /assets/{id}", "asset detail with marketData.perDay", ["asset detail", R.assetDetailResponse], {
    ...ofAsset,
    query: noQuery,
  }),
  pub("get /assets/{id}/image", "the asset's image", ["SVG image", undefined, "image/svg+xml"], ofAsset),
  pub("get /assets/{id}/quote", "quote (spec 2.4) from the settled trades' daily candles", ["quote", R.quoteResponse], {
    ...ofAsset,
    query: noQuery,
    errors: STALE_CANDLES,
  }),
  pub(
    "get /assets/{id}/chart",
    "chart candles (spec 2.5, 8: every range at every interval, capped at the range's maximum points, the latest kept)",
    ["candles", R.chartResponse],
    { ...ofAsset, query: chartQuery, errors: STALE_CANDLES },
  ),
  pub("get /assets/{id}/book", "order book (spec 2.6), live from the matcher", ["book", R.bookResponse], {
    ...ofAsset,
    query: bookQuery,
  }),
  pub("get /assets/{id}/trades", "recent trades (spec 2.7), as matched", ["trades", R.tradesResponse], {
    ...ofAsset,
    query: tradesQuery,
  }),
];

// spec 9's legacy paths: each answers exactly as its canonical path
const legacyAssetRoutes: ExchangeRouteSpec[] = [
  legacy("/exchange-explorers", "/assets", R.assetListResponse, { query: assetListQuery }),
  legacy("/stock-summaries", "/assets?category=stocks", R.assetListResponse, { query: assetListQuery }),
  legacy("/exchange-assets/{id}", "/assets/{id}", R.assetDetailResponse, { ...ofAsset, query: noQuery }),
  legacy("/exchange-orderbook", "/assets/{id}/book", R.bookResponse, {
    named: "/assets/{assetId}/book",
    query: legacyAssetQuery(bookQuery),
    errors: NO_ASSET,
  }),
  legacy("/exchange-orderbook/{id}", "/assets/{id}/book", R.bookResponse, { ...ofAsset, query: bookQuery }),
  legacy("/asset-chats", "/assets/{id}/chart", R.chartResponse, {
    named: "/assets/{assetId}/chart",
    query: legacyAssetQuery(
      z.object({ range: z.enum(CHART_RANGE_IDS).optional(), interval: z.enum(CANDLE_INTERVALS).optional() }).strict(),
    ),
    errors: STALE_CANDLES,
  }),
  legacy("/asset-chats/{id}", "/assets/{id}/chart", R.chartResponse, {
    ...ofAsset,
    query: chartQuery,
    errors: STALE_CANDLES,
  }),
];

const orderId = { id: { description: "the order's id, ord_<32 hex>" } };
const accountRoutes: ExchangeRouteSpec[] = [
  identityOnly("post /auth/tenant-token", "issue a tenant token for the identity token's organization (spec 5.1)", [
    "tenant token",
    R.tenantTokenResponse,
  ]),
  tok("get /account", "the caller's account (spec 2.12)", ["account", R.accountResponse]),
  legacy("/custody-account-info", "/account", R.accountResponse, { auth: "tokens" }),
  tok("get /accounts/{accountId}", "an account of the caller's organization", ["account", R.accountResponse], {
    params: { accountId: { description: "account id" } },
    errors: { 404: "ACCOUNT_NOT_FOUND (also another organization's)" },
  }),
];

const orderRoutes: ExchangeRouteSpec[] = [
  tok(
    "post /orders",
    "place an order (10 per second per user)",
    [
      "the order as placed and matched in this call: a limit order that rests is PENDING; a market order (IOC) answers EXECUTED (or CANCELLED when nothing filled), as does a limit order that ended at once (docs/decisions/api.md)",
      R.orderResponse,
    ],
    {
      query: noQuery,
      body: orderCreateBody,
      ok: 201,
      errors: {
        400: "INVALID_REQUEST, INVALID_ORDER_TYPE, ASSET_NOT_TRADEABLE, ACCREDITATION_REQUIRED (also the Reg CF limit), INSUFFICIENT_BALANCE {required, available}, RESALE_RESTRICTED",
        403: "FORBIDDEN (kyc_required)",
        404: "ASSET_NOT_FOUND",
        503: "SERVICE_UNAVAILABLE (the pipeline sheds load; Retry-After)",
      },
    },
  ),
  tok("get /orders", "the caller's orders, newest first", ["orders", R.orderListResponse], {
    query: orderListQuery,
  }),
  tok("get /orders/{id}", "one order with its fills' figures", ["order", R.orderResponse], {
    params: orderId,
    query: noQuery,
    errors: { 404: "ORDER_NOT_FOUND (also another user's)" },
  }),
  tok(
    "patch /orders/{id}",
    "update a PENDING limit order (cancel-replace: a new orderId, `replaces`)",
    ["the new order", R.orderResponse],
    {
      params: orderId,
      query: noQuery,
      body: orderUpdateBody,
      errors: {
        400: "as POST /v1/orders; INVALID_ORDER_TYPE for a market order",
        404: "ORDER_NOT_FOUND",
        409: "ORDER_NOT_OPEN {status}",
      },
    },
  ),
  tok("delete /orders/{id}", "cancel a PENDING order", ["cancelled", R.orderCancelResponse], {
    params: orderId,
    query: noQuery,
    errors: { 404: "ORDER_NOT_FOUND", 409: "ORDER_NOT_OPEN {status}" },
  }),
  tok(
    "get /portfolio",
    "holdings with current price and unrealized P&L (spec 2.9)",
    ["holdings", R.portfolioResponse],
    { query: noQuery },
  ),
  tok(
    "get /exchange-portfolio",
    "holdings with their FIFO lots (spec 2.10)",
    ["holdings with lots", R.exchangePortfolioResponse],
    { query: noQuery },
  ),
];

const fundingRoutes: ExchangeRouteSpec[] = [
  tok("post /deposits", "deposit dollars (ach, wire, instant)", ["the deposit", R.fundingTransactionResponse], {
    body: transferBody,
    ok: 201,
    errors: { 400: "INVALID_REQUEST, AMOUNT_BELOW_MINIMUM, FUNDING_LIMIT_EXCEEDED", 503: "SERVICE_UNAVAILABLE" },
  }),
  tok("post /withdrawals", "withdraw dollars (ach, wire, instant)", ["the withdrawal", R.fundingTransactionResponse], {
    body: transferBody,
    ok: 201,
    errors: {
      400: "INVALID_REQUEST, AMOUNT_BELOW_MINIMUM, FUNDING_LIMIT_EXCEEDED, INSUFFICIENT_BALANCE",
      503: "SERVICE_UNAVAILABLE",
    },
  }),
  tok(
    "get /transactions",
    "deposits, withdrawals and trades, newest first (spec 2.11)",
    ["transactions", R.transactionListResponse],
    { query: transactionListQuery },
  ),
  legacy("/custody-transactions", "/transactions", R.transactionListResponse, {
    auth: "tokens",
    query: transactionListQuery,
  }),
  tok("get /transactions/{id}", "one transaction", ["transaction", R.transactionResponse], {
    params: { id: { description: "a funding transaction's uuid or a trade's trd_<sequence>_<buy|sell>" } },
    errors: { 404: "TRANSACTION_NOT_FOUND" },
  }),
];

/** Sandbox only (spec 5.5): what a test account may set about itself. */
function sandbox(
  path: `/${string}`,
  summary: string,
  answer: [string, ZodType],
  body: ZodType,
  errors?: Rest["errors"],
) {
  return tok(`post /sandbox${path}`, `sandbox: ${summary}`, answer, { body, sandbox: true, errors });
}

const sandboxRoutes: ExchangeRouteSpec[] = [
  sandbox("/kyc", "set the KYC / KYB status", ["the account", R.accountResponse], kycBody, {
    404: "ACCOUNT_NOT_FOUND",
  }),
  sandbox(
    "/accreditation/506b",
    "self-certify as a 506(b) accredited investor",
    ["the account", R.accountResponse],
    selfCertifyBody,
    { 404: "ACCOUNT_NOT_FOUND" },
  ),
  sandbox(
    "/accreditation/506c",
    "a simulated third-party 506(c) verification outcome",
    ["the account", R.accountResponse],
    verificationBody,
    { 404: "ACCOUNT_NOT_FOUND" },
  ),
  sandbox(
    "/investor-profile",
    "annual income, net worth (Reg CF limit) and US person (Reg S)",
    ["the profile", R.investorProfileResponse],
    investorProfileBody,
  ),
  sandbox(
    "/funding/advance-clock",
    "move this account's clock forward (its funding dates, resale holds and Reg CF window; no other account's)",
    ["this account's clock now", R.advanceClockResponse],
    advanceClockBody,
  ),
];

// spec 4.D / 6.1 (unversioned)
const realtimeRoute = identityOnly(
  "get /api/realtime",
  "SSE: quote and book events of the subscribed assets, and the caller's order and settlement events; resume with Last-Event-ID",
  [
    "an event stream (events quote, book, order, settlement, gap; comment heartbeats every 15 s); the data of quote and book events: components.schemas QuoteEvent and BookEvent",
    undefined,
    "text/event-stream",
  ],
  {
    query: z.object({
      subscribe: z
        .string()
        .optional()
        .describe("comma-separated quote:<assetId>, book:<assetId> (at most 50 distinct)"),
      lastEventId: z.string().optional().describe("for clients that cannot set the Last-Event-ID header"),
    }),
    errors: { 404: "ASSET_NOT_FOUND (an unknown asset in subscribe)" },
  },
);

/** Every route the exchange API serves (the orders, portfolio and market data routes need the pipeline). */
export const EXCHANGE_ROUTES: readonly ExchangeRouteSpec[] = [
  ...assetRoutes,
  ...legacyAssetRoutes,
  ...accountRoutes,
  ...orderRoutes,
  ...fundingRoutes,
  ...sandboxRoutes,
  realtimeRoute,
];

const toSchema = (s: ZodType, io: "input" | "output") => {
  const { $schema: _drop, ...rest } = z.toJSONSchema(s, { io, unrepresentable: "any" }) as Record<string, unknown>;
  return rest;
};

const rateLimitHeaders = {
  "X-RateLimit-Limit": { schema: { type: "integer" }, description: "requests allowed in the window" },
  "X-RateLimit-Remaining": { schema: { type: "integer" }, description: "requests left in the window" },
  "X-RateLimit-Reset": { schema: { type: "integer" }, description: "Unix time (s) the window resets" },
};

const SECURITY: Record<ExchangeRouteAuth, Record<string, string[]>[]> = {
  public: [],
  tokens: [{ identityToken: [], tenantToken: [] }],
  identity: [{ identityToken: [] }],
};

function parameters(s: ExchangeRouteSpec) {
  const out: Record<string, unknown>[] = [];
  for (const [name, p] of Object.entries(s.params ?? {}))
    out.push({
      name,
      in: "path",
      required: true,
      description: p.description,
      schema: { type: "string", ...(p.pattern ? { pattern: p.pattern } : {}) },
    });
  if (s.query) {
    const js = toSchema(s.query, "input") as {
      properties?: Record<string, Record<string, unknown>>;
      required?: string[];
    };
    for (const [name, prop] of Object.entries(js.properties ?? {})) {
      out.push({
        name,
        in: "query",
        required: (js.required ?? []).includes(name),
        schema: prop,
        ...(typeof prop.description === "string" ? { description: prop.description } : {}),
      });
    }
  }
  return out;
}

export function buildExchangeOpenApiDocument(opts: { mode: "sandbox" | "production"; serverUrl?: string }) {
  const error = toSchema(errorResponse, "output");
  const errorAnswer: ErrorAnswer = (description) => ({
    description,
    headers: rateLimitHeaders,
    content: { "application/json": { schema: error } },
  });
  const paths: Record<string, Record<string, unknown>> = {};
  for (const s of EXCHANGE_ROUTES) {
    if (s.sandbox && opts.mode !== "sandbox") continue;
    (paths[s.path] ??= {})[s.method] = operationOf(s, errorAnswer);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Exchange API",
      version: "1.0.0",
      description:
        "Multi-asset exchange API (spec 4.A). Market data is public (100 requests/min per IP); everything else needs the identity token (Authorization: Bearer) and the tenant token (tenant-authorization). Errors: {error:{code,message,details}}. Numbers are dollars or asset units; exact base units as decimal strings beside them (*Units). The legacy WebSocket at /ws carries the same events as /api/realtime.",
    },
    servers: [{ url: opts.serverUrl ?? "/" }],
    paths,
    components: {
      schemas: { QuoteEvent: toSchema(R.quoteEvent, "output"), BookEvent: toSchema(R.bookEvent, "output") },
      securitySchemes: SECURITY_SCHEMES,
    },
  };
}

type ErrorAnswer = (description: string) => Record<string, unknown>;

const SECURITY_SCHEMES = {
  identityToken: {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
    description: "identity token of an accepted OIDC issuer (audience exchange-api)",
  },
  tenantToken: {
    type: "apiKey",
    in: "header",
    name: "tenant-authorization",
    description: "tenant token from POST /v1/auth/tenant-token",
  },
};

/** One route's operation: its id and tag from its path, its parameters, body and answers. */
function operationOf(s: ExchangeRouteSpec, errorAnswer: ErrorAnswer): Record<string, unknown> {
  const opId = `${s.method}${s.path.replace(/[{}]/g, "").replace(/[^A-Za-z0-9]+(.)?/g, (_m, ch: string | undefined) => (ch ? ch.toUpperCase() : ""))}`;
  const op: Record<string, unknown> = {
    summary: s.summary,
    operationId: opId,
    tags: [
      s.path.startsWith(`${V}/sandbox`)
        ? "sandbox"
        : s.auth === "public"
          ? "market data"
          : s.path === "/api/realtime"
            ? "real time"
            : "account and trading",
    ],
    security: SECURITY[s.auth],
    parameters: parameters(s),
    responses: responsesOf(s, errorAnswer),
    ...(s.legacyOf
      ? {
          deprecated: true,
          description: `Legacy path (spec 9), answers exactly as ${s.legacyOf}; not to be used in new code.`,
        }
      : {}),
  };
  if (s.body)
    op.requestBody = { required: true, content: { "application/json": { schema: toSchema(s.body, "input") } } };
  return op;
}

/** The success answer, then the errors every route can give, then the route's own. */
function responsesOf(s: ExchangeRouteSpec, errorAnswer: ErrorAnswer): Record<string, unknown> {
  const ok = {
    description: s.answer.description,
    headers: CANDLE_PATHS.has(s.path) ? { ...rateLimitHeaders, ...staleHeader } : rateLimitHeaders,
    ...(s.answer.schema
      ? { content: { [s.answer.contentType ?? "application/json"]: { schema: toSchema(s.answer.schema, "output") } } }
      : s.answer.contentType
        ? { content: { [s.answer.contentType]: { schema: { type: "string" } } } }
        : { content: { "application/json": { schema: { type: "object" } } } }),
  };
  const responses: Record<string, unknown> = {
    [s.ok]: ok,
    400: errorAnswer(
      s.errors?.[400] ?? "INVALID_REQUEST (validation: details.issues; unknown or repeated query parameters)",
    ),
    429: errorAnswer("RATE_LIMIT_EXCEEDED (Retry-After)"),
    500: errorAnswer("INTERNAL_ERROR (no detail is sent)"),
  };
  if (s.auth !== "public") responses[401] = errorAnswer("UNAUTHORIZED (details.reason)");
  for (const [code, text] of Object.entries(s.errors ?? {})) if (code !== "400") responses[code] = errorAnswer(text);
  if (s.body)
    responses[415] = errorAnswer("UNSUPPORTED_MEDIA_TYPE: the body is not sent as application/json; nothing is done");
  if (s.body) responses[413] = errorAnswer("PAYLOAD_TOO_LARGE");
  return responses;
}
