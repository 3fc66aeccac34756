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

const publicRoutes: ExchangeRouteSpec[] = [
  {
    method: "get",
    path: `${V}/openapi.json`,
    summary: "this document",
    auth: "public",
    query: undefined,
    ok: 200,
    answer: { description: "the OpenAPI 3.1 document" },
  },
  {
    method: "get",
    path: `${V}/navigation`,
    summary: "rails and their categories (spec 2.1)",
    auth: "public",
    query: noQuery,
    ok: 200,
    answer: { description: "navigation", schema: R.navigationResponse },
  },
  {
    method: "get",
    path: `${V}/assets`,
    summary: "list assets: filters, ranked search, cursor pages",
    auth: "public",
    query: assetListQuery,
    ok: 200,
    answer: { description: "a page of asset summaries", schema: R.assetListResponse },
  },
  {
    method: "get",
    path: `${V}/assets/{id}`,
    summary: "asset detail with marketData.perDay",
    auth: "public",
    params: assetId,
    query: noQuery,
    ok: 200,
    answer: { description: "asset detail", schema: R.assetDetailResponse },
    errors: { 404: "ASSET_NOT_FOUND" },
  },
  {
    method: "get",
    path: `${V}/assets/{id}/image`,
    summary: "the asset's image",
    auth: "public",
    params: assetId,
    ok: 200,
    answer: { description: "SVG image", contentType: "image/svg+xml" },
    errors: { 404: "ASSET_NOT_FOUND" },
  },
  {
    method: "get",
    path: `${V}/assets/{id}/quote`,
    summary: "quote (spec 2.4) from the settled trades' daily candles",
    auth: "public",
    params: assetId,
    query: noQuery,
    ok: 200,
    answer: { description: "quote", schema: R.quoteResponse },
    errors: { 404: "ASSET_NOT_FOUND", 503: STALE_503 },
  },
  {
    method: "get",
    path: `${V}/assets/{id}/chart`,
    summary:
      "chart candles (spec 2.5, 8: every range at every interval, capped at the range's maximum points, the latest kept)",
    auth: "public",
    params: assetId,
    query: chartQuery,
    ok: 200,
    answer: { description: "candles", schema: R.chartResponse },
    errors: { 404: "ASSET_NOT_FOUND", 503: STALE_503 },
  },
  {
    method: "get",
    path: `${V}/assets/{id}/book`,
    summary: "order book (spec 2.6), live from the matcher",
    auth: "public",
    params: assetId,
    query: bookQuery,
    ok: 200,
    answer: { description: "book", schema: R.bookResponse },
    errors: { 404: "ASSET_NOT_FOUND" },
  },
  {
    method: "get",
    path: `${V}/assets/{id}/trades`,
    summary: "recent trades (spec 2.7), as matched",
    auth: "public",
    params: assetId,
    query: tradesQuery,
    ok: 200,
    answer: { description: "trades", schema: R.tradesResponse },
    errors: { 404: "ASSET_NOT_FOUND" },
  },
  // spec 9's legacy paths: each answers exactly as its canonical path
  {
    method: "get",
    path: `${V}/exchange-explorers`,
    summary: "legacy: GET /v1/assets",
    auth: "public",
    query: assetListQuery,
    ok: 200,
    answer: { description: "as GET /v1/assets", schema: R.assetListResponse },
    legacyOf: `${V}/assets`,
  },
  {
    method: "get",
    path: `${V}/stock-summaries`,
    summary: "legacy: GET /v1/assets?category=stocks",
    auth: "public",
    query: assetListQuery,
    ok: 200,
    answer: { description: "as GET /v1/assets?category=stocks", schema: R.assetListResponse },
    legacyOf: `${V}/assets`,
  },
  {
    method: "get",
    path: `${V}/exchange-assets/{id}`,
    summary: "legacy: GET /v1/assets/{id}",
    auth: "public",
    params: assetId,
    query: noQuery,
    ok: 200,
    answer: { description: "as GET /v1/assets/{id}", schema: R.assetDetailResponse },
    errors: { 404: "ASSET_NOT_FOUND" },
    legacyOf: `${V}/assets/{id}`,
  },
  {
    method: "get",
    path: `${V}/exchange-orderbook`,
    summary: "legacy: GET /v1/assets/{assetId}/book",
    auth: "public",
    query: legacyAssetQuery(bookQuery),
    ok: 200,
    answer: { description: "as GET /v1/assets/{id}/book", schema: R.bookResponse },
    errors: { 404: "ASSET_NOT_FOUND" },
    legacyOf: `${V}/assets/{id}/book`,
  },
  {
    method: "get",
    path: `${V}/exchange-orderbook/{id}`,
    summary: "legacy: GET /v1/assets/{id}/book",
    auth: "public",
    params: assetId,
    query: bookQuery,
    ok: 200,
    answer: { description: "as GET /v1/assets/{id}/book", schema: R.bookResponse },
    errors: { 404: "ASSET_NOT_FOUND" },
    legacyOf: `${V}/assets/{id}/book`,
  },
  {
    method: "get",
    path: `${V}/asset-chats`,
    summary: "legacy: GET /v1/assets/{assetId}/chart",
    auth: "public",
    query: legacyAssetQuery(
      z.object({ range: z.enum(CHART_RANGE_IDS).optional(), interval: z.enum(CANDLE_INTERVALS).optional() }).strict(),
    ),
    ok: 200,
    answer: { description: "as GET /v1/assets/{id}/chart", schema: R.chartResponse },
    errors: { 404: "ASSET_NOT_FOUND", 503: STALE_503 },
    legacyOf: `${V}/assets/{id}/chart`,
  },
  {
    method: "get",
    path: `${V}/asset-chats/{id}`,
    summary: "legacy: GET /v1/assets/{id}/chart",
    auth: "public",
    params: assetId,
    query: chartQuery,
    ok: 200,
    answer: { description: "as GET /v1/assets/{id}/chart", schema: R.chartResponse },
    errors: { 404: "ASSET_NOT_FOUND", 503: STALE_503 },
    legacyOf: `${V}/assets/{id}/chart`,
  },
];

const orderId = { id: { description: "the order's id, ord_<32 hex>" } };
const tokenRoutes: ExchangeRouteSpec[] = [
  {
    method: "post",
    path: `${V}/auth/tenant-token`,
    summary: "issue a tenant token for the identity token's organization (spec 5.1)",
    auth: "identity",
    ok: 200,
    answer: { description: "tenant token", schema: R.tenantTokenResponse },
  },
  {
    method: "get",
    path: `${V}/account`,
    summary: "the caller's account (spec 2.12)",
    auth: "tokens",
    ok: 200,
    answer: { description: "account", schema: R.accountResponse },
  },
  {
    method: "get",
    path: `${V}/custody-account-info`,
    summary: "legacy: GET /v1/account",
    auth: "tokens",
    ok: 200,
    answer: { description: "as GET /v1/account", schema: R.accountResponse },
    legacyOf: `${V}/account`,
  },
  {
    method: "get",
    path: `${V}/accounts/{accountId}`,
    summary: "an account of the caller's organization",
    auth: "tokens",
    params: { accountId: { description: "account id" } },
    ok: 200,
    answer: { description: "account", schema: R.accountResponse },
    errors: { 404: "ACCOUNT_NOT_FOUND (also another organization's)" },
  },
  {
    method: "post",
    path: `${V}/orders`,
    summary: "place an order (10 per second per user)",
    auth: "tokens",
    query: noQuery,
    body: orderCreateBody,
    ok: 201,
    answer: {
      description:
        "the order as placed and matched in this call: a limit order that rests is PENDING; a market order (IOC) answers EXECUTED (or CANCELLED when nothing filled), as does a limit order that ended at once (docs/decisions/api.md)",
      schema: R.orderResponse,
    },
    errors: {
      400: "INVALID_REQUEST, INVALID_ORDER_TYPE, ASSET_NOT_TRADEABLE, ACCREDITATION_REQUIRED (also the Reg CF limit), INSUFFICIENT_BALANCE {required, available}, RESALE_RESTRICTED",
      403: "FORBIDDEN (kyc_required)",
      404: "ASSET_NOT_FOUND",
      503: "SERVICE_UNAVAILABLE (the pipeline sheds load; Retry-After)",
    },
  },
  {
    method: "get",
    path: `${V}/orders`,
    summary: "the caller's orders, newest first",
    auth: "tokens",
    query: orderListQuery,
    ok: 200,
    answer: { description: "orders", schema: R.orderListResponse },
  },
  {
    method: "get",
    path: `${V}/orders/{id}`,
    summary: "one order with its fills' figures",
    auth: "tokens",
    params: orderId,
    query: noQuery,
    ok: 200,
    answer: { description: "order", schema: R.orderResponse },
    errors: { 404: "ORDER_NOT_FOUND (also another user's)" },
  },
  {
    method: "patch",
    path: `${V}/orders/{id}`,
    summary: "update a PENDING limit order (cancel-replace: a new orderId, `replaces`)",
    auth: "tokens",
    params: orderId,
    query: noQuery,
    body: orderUpdateBody,
    ok: 200,
    answer: { description: "the new order", schema: R.orderResponse },
    errors: {
      400: "as POST /v1/orders; INVALID_ORDER_TYPE for a market order",
      404: "ORDER_NOT_FOUND",
      409: "ORDER_NOT_OPEN {status}",
    },
  },
  {
    method: "delete",
    path: `${V}/orders/{id}`,
    summary: "cancel a PENDING order",
    auth: "tokens",
    params: orderId,
    query: noQuery,
    ok: 200,
    answer: { description: "cancelled", schema: R.orderCancelResponse },
    errors: { 404: "ORDER_NOT_FOUND", 409: "ORDER_NOT_OPEN {status}" },
  },
  {
    method: "get",
    path: `${V}/portfolio`,
    summary: "holdings with current price and unrealized P&L (spec 2.9)",
    auth: "tokens",
    query: noQuery,
    ok: 200,
    answer: { description: "holdings", schema: R.portfolioResponse },
  },
  {
    method: "get",
    path: `${V}/exchange-portfolio`,
    summary: "holdings with their FIFO lots (spec 2.10)",
    auth: "tokens",
    query: noQuery,
    ok: 200,
    answer: { description: "holdings with lots", schema: R.exchangePortfolioResponse },
  },
  {
    method: "post",
    path: `${V}/deposits`,
    summary: "deposit dollars (ach, wire, instant)",
    auth: "tokens",
    body: transferBody,
    ok: 201,
    answer: { description: "the deposit", schema: R.fundingTransactionResponse },
    errors: { 400: "INVALID_REQUEST, AMOUNT_BELOW_MINIMUM, FUNDING_LIMIT_EXCEEDED", 503: "SERVICE_UNAVAILABLE" },
  },
  {
    method: "post",
    path: `${V}/withdrawals`,
    summary: "withdraw dollars (ach, wire, instant)",
    auth: "tokens",
    body: transferBody,
    ok: 201,
    answer: { description: "the withdrawal", schema: R.fundingTransactionResponse },
    errors: {
      400: "INVALID_REQUEST, AMOUNT_BELOW_MINIMUM, FUNDING_LIMIT_EXCEEDED, INSUFFICIENT_BALANCE",
      503: "SERVICE_UNAVAILABLE",
    },
  },
  {
    method: "get",
    path: `${V}/transactions`,
    summary: "deposits, withdrawals and trades, newest first (spec 2.11)",
    auth: "tokens",
    query: transactionListQuery,
    ok: 200,
    answer: { description: "transactions", schema: R.transactionListResponse },
  },
  {
    method: "get",
    path: `${V}/custody-transactions`,
    summary: "legacy: GET /v1/transactions",
    auth: "tokens",
    query: transactionListQuery,
    ok: 200,
    answer: { description: "as GET /v1/transactions", schema: R.transactionListResponse },
    legacyOf: `${V}/transactions`,
  },
  {
    method: "get",
    path: `${V}/transactions/{id}`,
    summary: "one transaction",
    auth: "tokens",
    params: { id: { description: "a funding transaction's uuid or a trade's trd_<sequence>_<buy|sell>" } },
    ok: 200,
    answer: { description: "transaction", schema: R.transactionResponse },
    errors: { 404: "TRANSACTION_NOT_FOUND" },
  },
  // sandbox (spec 5.5)
  {
    method: "post",
    path: `${V}/sandbox/kyc`,
    summary: "sandbox: set the KYC / KYB status",
    auth: "tokens",
    body: kycBody,
    ok: 200,
    answer: { description: "the account", schema: R.accountResponse },
    errors: { 404: "ACCOUNT_NOT_FOUND" },
    sandbox: true,
  },
  {
    method: "post",
    path: `${V}/sandbox/accreditation/506b`,
    summary: "sandbox: self-certify as a 506(b) accredited investor",
    auth: "tokens",
    body: selfCertifyBody,
    ok: 200,
    answer: { description: "the account", schema: R.accountResponse },
    errors: { 404: "ACCOUNT_NOT_FOUND" },
    sandbox: true,
  },
  {
    method: "post",
    path: `${V}/sandbox/accreditation/506c`,
    summary: "sandbox: a simulated third-party 506(c) verification outcome",
    auth: "tokens",
    body: verificationBody,
    ok: 200,
    answer: { description: "the account", schema: R.accountResponse },
    errors: { 404: "ACCOUNT_NOT_FOUND" },
    sandbox: true,
  },
  {
    method: "post",
    path: `${V}/sandbox/investor-profile`,
    summary: "sandbox: annual income, net worth (Reg CF limit) and US person (Reg S)",
    auth: "tokens",
    body: investorProfileBody,
    ok: 200,
    answer: { description: "the profile", schema: R.investorProfileResponse },
    sandbox: true,
  },
  {
    method: "post",
    path: `${V}/sandbox/funding/advance-clock`,
    summary:
      "sandbox: move this account's clock forward (its funding dates, resale holds and Reg CF window; no other account's)",
    auth: "tokens",
    body: advanceClockBody,
    ok: 200,
    answer: { description: "this account's clock now", schema: R.advanceClockResponse },
    sandbox: true,
  },
  // spec 4.D / 6.1 (unversioned)
  {
    method: "get",
    path: "/api/realtime",
    summary:
      "SSE: quote and book events of the subscribed assets, and the caller's order and settlement events; resume with Last-Event-ID",
    auth: "identity",
    query: z.object({
      subscribe: z
        .string()
        .optional()
        .describe("comma-separated quote:<assetId>, book:<assetId> (at most 50 distinct)"),
      lastEventId: z.string().optional().describe("for clients that cannot set the Last-Event-ID header"),
    }),
    ok: 200,
    answer: {
      description:
        "an event stream (events quote, book, order, settlement, gap; comment heartbeats every 15 s); the data of quote and book events: components.schemas QuoteEvent and BookEvent",
      contentType: "text/event-stream",
    },
    errors: { 404: "ASSET_NOT_FOUND (an unknown asset in subscribe)" },
  },
];

/** Every route the exchange API serves (the orders, portfolio and market data routes need the pipeline). */
export const EXCHANGE_ROUTES: readonly ExchangeRouteSpec[] = [...publicRoutes, ...tokenRoutes];

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
