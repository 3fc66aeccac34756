// One error type and the one HTTP error mapper of the APIs: the DEX's REST, WebSocket and gRPC surfaces
// and the bridge API (api/bridge/errors.ts adds its codes as data). Handlers throw ApiError (or let a
// DexServiceError / validation error through); `toHttpError` turns any thrown value into the spec's body
// {error:{code,message,details}} and its status (docs/decisions.md "DEX API"). Unknown errors are
// INTERNAL_ERROR with a generic message: their text, stack and cause go to the log, never to a client.
import { metrics } from "../runtime/metrics";
import { status as GrpcStatus } from "@grpc/grpc-js";
import type { ErrorRequestHandler } from "express";
import type { Logger } from "pino";
import { ZodError } from "zod";
import { DexServiceError } from "../pipeline/service";
import { AppError } from "../runtime/errors";
import { formatDecimal } from "../sdk/decimal";

/** What a code means on each surface: its HTTP status, its gRPC status, and whether the same request can
 *  succeed later (the client may retry: the rate limit, a service down). */
export interface ApiErrorRule {
  readonly http: number;
  readonly grpc?: GrpcStatus;
  readonly retryable?: boolean;
}

const DEX_ERROR_RULES = {
  INVALID_REQUEST: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT },
  INVALID_SYMBOL: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT },
  INVALID_ORDER_TYPE: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT },
  INSUFFICIENT_BALANCE: { http: 400, grpc: GrpcStatus.FAILED_PRECONDITION },
  UNAUTHORIZED: { http: 401, grpc: GrpcStatus.UNAUTHENTICATED },
  FORBIDDEN: { http: 403, grpc: GrpcStatus.PERMISSION_DENIED },
  ORDER_NOT_FOUND: { http: 404, grpc: GrpcStatus.NOT_FOUND },
  API_KEY_NOT_FOUND: { http: 404, grpc: GrpcStatus.NOT_FOUND },
  ROUTE_NOT_FOUND: { http: 404, grpc: GrpcStatus.UNIMPLEMENTED },
  ORDER_NOT_OPEN: { http: 409, grpc: GrpcStatus.FAILED_PRECONDITION },
  DUPLICATE_CLIENT_ORDER_ID: { http: 409, grpc: GrpcStatus.ALREADY_EXISTS },
  AGENT_ALREADY_APPROVED: { http: 409, grpc: GrpcStatus.ALREADY_EXISTS },
  PAYLOAD_TOO_LARGE: { http: 413, grpc: GrpcStatus.INVALID_ARGUMENT },
  // a request body that is not application/json (api/json-only.ts): refused before anything reads it
  UNSUPPORTED_MEDIA_TYPE: { http: 415, grpc: GrpcStatus.INVALID_ARGUMENT },
  RATE_LIMIT_EXCEEDED: { http: 429, grpc: GrpcStatus.RESOURCE_EXHAUSTED, retryable: true },
  INTERNAL_ERROR: { http: 500, grpc: GrpcStatus.INTERNAL },
  SERVICE_UNAVAILABLE: { http: 503, grpc: GrpcStatus.UNAVAILABLE, retryable: true },
  /** the home chain cannot settle now (its node is restarting): details {chainId, retry_after}, Retry-After */
  CHAIN_UNAVAILABLE: { http: 503, grpc: GrpcStatus.UNAVAILABLE, retryable: true },
} as const satisfies Record<string, ApiErrorRule>;
export type ApiErrorCode = keyof typeof DEX_ERROR_RULES;
/** The codes of the DEX API (and the ones every HTTP API shares), with their rules. */
export const API_ERROR_RULES: Readonly<Record<ApiErrorCode, ApiErrorRule>> = DEX_ERROR_RULES;

/** The codes every HTTP surface answers, whatever its own: the shared middleware's refusals (bad or
 *  unreadable input, authentication, an unknown route, a body too large or not JSON, the rate limit) and
 *  the server's own failures. */
export const HTTP_SURFACE_CODES = [
  "INVALID_REQUEST",
  "UNAUTHORIZED",
  "ROUTE_NOT_FOUND",
  "PAYLOAD_TOO_LARGE",
  "UNSUPPORTED_MEDIA_TYPE",
  "RATE_LIMIT_EXCEEDED",
  "INTERNAL_ERROR",
  "SERVICE_UNAVAILABLE",
] as const satisfies readonly ApiErrorCode[];

/** One surface's rule table: the shared codes it answers (their rules from API_ERROR_RULES) and its own. */
function surfaceErrorRules<S extends ApiErrorCode, O extends Record<string, ApiErrorRule>>(
  shared: readonly S[],
  own: O,
): Readonly<Record<S | Extract<keyof O, string>, ApiErrorRule>> {
  return { ...(Object.fromEntries(shared.map((c) => [c, API_ERROR_RULES[c]])) as Record<S, ApiErrorRule>), ...own };
}

export interface ErrorBody<C extends string = ApiErrorCode> {
  error: { code: C; message: string; details: Record<string, unknown> };
}

/** An error an API answers on purpose. Its status, gRPC status and `retryable` come from its class's
 *  rule table (`rules`): the DEX's here; a subclass for another API (BridgeApiError) brings its own. */
export class ApiError<C extends string = ApiErrorCode> extends AppError<C> {
  static readonly rules: Readonly<Record<string, ApiErrorRule>> = API_ERROR_RULES;
  readonly status: number;
  /** seconds: answered as the Retry-After header by the HTTP error handler (CHAIN_UNAVAILABLE) */
  retryAfterS?: number;

  constructor(code: C, message: string, details: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    const rule = ruleOf(new.target, code);
    super(code, message, { ...options, details, retryable: rule.retryable ?? false });
    this.name = "ApiError";
    this.status = rule.http;
  }

  get grpcStatus(): GrpcStatus {
    return ruleOf(this.constructor as typeof ApiError, this.code).grpc ?? GrpcStatus.UNKNOWN;
  }

  toBody(): ErrorBody<C> {
    return { error: { code: this.code, message: this.message, details: this.details } };
  }
}

/** One surface's error class, made from its rule table (the `shared` codes it answers with their rules from
 *  API_ERROR_RULES, plus its `own`): `new Cls(code, message, details?, options?)` is an ApiError of that
 *  surface's codes whose statuses come from the table, named `name` in logs. */
export function surfaceErrorClass<S extends ApiErrorCode, O extends Record<string, ApiErrorRule>>(
  name: string,
  shared: readonly S[],
  own: O,
) {
  type C = S | Extract<keyof O, string>;
  const rules = surfaceErrorRules(shared, own);
  return class SurfaceApiError extends ApiError<C> {
    static override readonly rules: Readonly<Record<string, ApiErrorRule>> = rules;
    constructor(code: C, message: string, details: Record<string, unknown> = {}, options?: { cause?: unknown }) {
      super(code, message, details, options);
      this.name = name;
    }
  };
}

const INTERNAL_RULE: ApiErrorRule = DEX_ERROR_RULES.INTERNAL_ERROR;
const ruleOf = (cls: typeof ApiError, code: string): ApiErrorRule =>
  Object.hasOwn(cls.rules, code) ? cls.rules[code] : INTERNAL_RULE;

/** The service's refusals in the API's codes. */
function fromServiceError(e: DexServiceError): ApiError {
  const d = e.details;
  switch (e.code) {
    case "INSUFFICIENT_BALANCE":
      return new ApiError("INSUFFICIENT_BALANCE", e.message, insufficientDetails(d), { cause: e });
    case "INVALID_SIGNATURE":
      return new ApiError("UNAUTHORIZED", e.message, { reason: "invalid_order_signature", ...plain(d) }, { cause: e });
    case "AGENT_NOT_APPROVED":
      return new ApiError("FORBIDDEN", e.message, { reason: "agent_not_approved", ...plain(d) }, { cause: e });
    case "INVALID_NONCE":
      return new ApiError("INVALID_REQUEST", e.message, { reason: "invalid_nonce", ...plain(d) }, { cause: e });
    case "ORDER_EXPIRED":
      return new ApiError("INVALID_REQUEST", e.message, { reason: "order_expired", ...plain(d) }, { cause: e });
    case "CHAIN_UNAVAILABLE": {
      const error = new ApiError("CHAIN_UNAVAILABLE", e.message, plain(d), { cause: e });
      if (typeof d.retry_after === "number") error.retryAfterS = d.retry_after;
      return error;
    }
    default:
      // A code the API does not know (the service may grow new refusals, e.g. INVALID_ORDER) is a
      // client-side refusal: INVALID_REQUEST, with the service's code as the reason.
      if (Object.hasOwn(API_ERROR_RULES, e.code))
        return new ApiError(e.code as ApiErrorCode, e.message, plain(d), { cause: e });
      return new ApiError(
        "INVALID_REQUEST",
        e.message,
        { reason: String(e.code).toLowerCase(), ...plain(d) },
        { cause: e },
      );
  }
}

/** Spec 7: details.required and details.available are numbers (token units); the exact base units go
 *  beside them as decimal strings because they can exceed 2^53. */
function insufficientDetails(d: Record<string, unknown>): Record<string, unknown> {
  const units = (v: unknown): bigint | null =>
    typeof v === "bigint"
      ? v
      : typeof v === "string" && /^-?\d+$/.test(v)
        ? BigInt(v)
        : typeof v === "number" && Number.isSafeInteger(v)
          ? BigInt(v)
          : null;
  const req = units(d.requiredUnits);
  const avail = units(d.availableUnits);
  const decimals = typeof d.decimals === "number" ? d.decimals : null;
  // token-unit numbers: given by the service, or computed from the exact units and the token's decimals
  const num = (given: unknown, u: bigint | null) =>
    typeof given === "number" ? given : u !== null && decimals !== null ? Number(formatDecimal(u, decimals)) : null;
  return {
    token: d.token ?? null,
    required: num(d.required, req),
    available: num(d.available, avail),
    required_units: req?.toString() ?? null,
    available_units: avail?.toString() ?? null,
  };
}

/** JSON-safe copy: bigints become decimal strings. */
export function plain(d: Record<string, unknown>): Record<string, unknown> {
  return JSON.parse(JSON.stringify(d, (_k, v) => (typeof v === "bigint" ? v.toString() : v)));
}

/** What an error of express's body parser (http-errors) looks like. */
export interface HttpParserError {
  type?: string;
  status?: number;
  statusCode?: number;
  expose?: boolean;
}

/** How one HTTP API answers what its handlers did not throw on purpose. The DEX and the bridge answered a
 *  few of these differently before they shared this mapper; the differences are kept as data so that no
 *  answer changes. */
export interface HttpErrorRules {
  /** at most this many validation issues are listed in details.issues */
  readonly maxIssues: number;
  /** a request express could not read (other than a too-large body): the API's answer, or null for
   *  INTERNAL_ERROR */
  readonly unreadableRequest: (e: HttpParserError, err: unknown) => ApiError<string> | null;
  /** the log line of a 5xx answer */
  readonly logMessage: string;
}

/** The DEX REST API's: 20 issues at most; any exposed 4xx of express is INVALID_REQUEST "malformed request". */
export const DEX_HTTP_ERRORS: HttpErrorRules = malformedRequestRules(ApiError, "request failed");

/** 20 issues at most; any exposed 4xx of express is INVALID_REQUEST "malformed request", an error of `cls`
 *  (the DEX's answer, shared by the surfaces that answer like it). */
export function malformedRequestRules(
  cls: new (
    code: "INVALID_REQUEST",
    message: string,
    details: Record<string, unknown>,
    options: { cause?: unknown },
  ) => ApiError<string>,
  logMessage: string,
): HttpErrorRules {
  return {
    maxIssues: 20,
    unreadableRequest: (e, err) => {
      const status = e.status ?? e.statusCode;
      return typeof status === "number" && status >= 400 && status < 500 && e.expose
        ? new cls("INVALID_REQUEST", "malformed request", { reason: e.type ?? "bad_request" }, { cause: err })
        : null;
    },
    logMessage,
  };
}

/** Any thrown value -> ApiError. Unknown errors become INTERNAL_ERROR (their text is never sent). */
export function toApiError(err: unknown): ApiError;
export function toApiError(err: unknown, rules: HttpErrorRules): ApiError<string>;
export function toApiError(err: unknown, rules: HttpErrorRules = DEX_HTTP_ERRORS): ApiError<string> {
  if (err instanceof ApiError) return err;
  if (err instanceof DexServiceError) return fromServiceError(err);
  if (err instanceof ZodError) return validationError(err, undefined, rules.maxIssues);
  const e = (err ?? {}) as HttpParserError;
  if (e.type === "entity.too.large") return new ApiError("PAYLOAD_TOO_LARGE", "request body too large");
  return rules.unreadableRequest(e, err) ?? new ApiError("INTERNAL_ERROR", "internal error", {}, { cause: err });
}

/** The one HTTP error mapper: any thrown value -> the status and the body {error:{code,message,details}}
 *  an HTTP API answers (`error` is the ApiError it was mapped to, for the log). */
export function toHttpError(
  err: unknown,
  rules: HttpErrorRules = DEX_HTTP_ERRORS,
): { status: number; body: ErrorBody<string>; error: ApiError<string> } {
  const error = toApiError(err, rules);
  if (error.status === 503) {
    // every 503 says when to try again: the refusal's own delay (the settlement backlog's retryAfterMs,
    // a chain's retry_after), else DEFAULT_RETRY_AFTER_S
    if (error.retryAfterS === undefined) {
      const ms = error.details.retryAfterMs;
      error.retryAfterS =
        typeof ms === "number" && Number.isFinite(ms) ? Math.max(1, Math.ceil(ms / 1000)) : DEFAULT_RETRY_AFTER_S;
    }
    metrics.http503.inc({
      surface: rules.logMessage.replace(/\s*request failed$/, "").toLowerCase() || "dex api",
      code: error.code,
    });
  }
  return { status: error.status, body: error.toBody(), error };
}

/** Retry-After of a 503 whose refusal names no delay, seconds. */
export const DEFAULT_RETRY_AFTER_S = 1;

export function validationError(err: ZodError, where?: string, maxIssues = DEX_HTTP_ERRORS.maxIssues): ApiError {
  const issues = err.issues.slice(0, maxIssues).map((i) => ({
    path: [...(where ? [where] : []), ...i.path.map(String)].join("."),
    message: i.message,
  }));
  return new ApiError("INVALID_REQUEST", "request failed validation", { issues }, { cause: err });
}

/** Logs an answer the server is responsible for (5xx). A retryable refusal (CHAIN_UNAVAILABLE, the
 *  settlement backlog's SERVICE_UNAVAILABLE: the service is working as designed, the client retries) is a
 *  warn line with its code and message, no stack; any other 5xx an error line with the cause and its stack. */
export function logServerError(
  logger: Pick<Logger, "warn" | "error">,
  error: ApiError<string>,
  err: unknown,
  fields: Record<string, unknown>,
  message: string,
): void {
  if (error.status < 500) return;
  if (error.retryable)
    logger.warn(
      {
        ...fields,
        code: error.code,
        reason: error.message,
        ...(error.retryAfterS !== undefined ? { retryAfterS: error.retryAfterS } : {}),
      },
      message,
    );
  else logger.error({ ...fields, err: error.cause ?? err }, message);
}

/** The one Express error handler (Express 5 routes async rejections here too), for the DEX REST API by
 *  default and for the bridge API with its rules. */
export function createErrorHandler(logger: Logger, rules: HttpErrorRules = DEX_HTTP_ERRORS): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const { status, body, error } = toHttpError(err, rules);
    if (status >= 500) logServerError(logger, error, err, { method: req.method, path: req.path }, rules.logMessage);
    if (res.headersSent) return;
    if (error.retryAfterS !== undefined) res.setHeader("Retry-After", String(error.retryAfterS));
    res.status(status).json(body);
  };
}
