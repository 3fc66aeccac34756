// One error type and one mapper for every DEX surface (REST, WebSocket, gRPC). Handlers throw ApiError
// (or let a DexServiceError / validation error through); the edge turns it into the spec's body
// {error:{code,message,details}} with the status decided in docs/decisions.md "DEX API".
import { status as GrpcStatus } from "@grpc/grpc-js";
import type { ErrorRequestHandler } from "express";
import type { Logger } from "pino";
import { ZodError } from "zod";
import { DexServiceError } from "../pipeline/service";

export const API_ERROR_STATUS = {
  INVALID_REQUEST: 400,
  INVALID_SYMBOL: 400,
  INVALID_ORDER_TYPE: 400,
  INSUFFICIENT_BALANCE: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  ORDER_NOT_FOUND: 404,
  API_KEY_NOT_FOUND: 404,
  ROUTE_NOT_FOUND: 404,
  ORDER_NOT_OPEN: 409,
  DUPLICATE_CLIENT_ORDER_ID: 409,
  AGENT_ALREADY_APPROVED: 409,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMIT_EXCEEDED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
} as const;
export type ApiErrorCode = keyof typeof API_ERROR_STATUS;

const GRPC_STATUS: Record<ApiErrorCode, GrpcStatus> = {
  INVALID_REQUEST: GrpcStatus.INVALID_ARGUMENT,
  INVALID_SYMBOL: GrpcStatus.INVALID_ARGUMENT,
  INVALID_ORDER_TYPE: GrpcStatus.INVALID_ARGUMENT,
  INSUFFICIENT_BALANCE: GrpcStatus.FAILED_PRECONDITION,
  UNAUTHORIZED: GrpcStatus.UNAUTHENTICATED,
  FORBIDDEN: GrpcStatus.PERMISSION_DENIED,
  ORDER_NOT_FOUND: GrpcStatus.NOT_FOUND,
  API_KEY_NOT_FOUND: GrpcStatus.NOT_FOUND,
  ROUTE_NOT_FOUND: GrpcStatus.UNIMPLEMENTED,
  ORDER_NOT_OPEN: GrpcStatus.FAILED_PRECONDITION,
  DUPLICATE_CLIENT_ORDER_ID: GrpcStatus.ALREADY_EXISTS,
  AGENT_ALREADY_APPROVED: GrpcStatus.ALREADY_EXISTS,
  PAYLOAD_TOO_LARGE: GrpcStatus.INVALID_ARGUMENT,
  RATE_LIMIT_EXCEEDED: GrpcStatus.RESOURCE_EXHAUSTED,
  INTERNAL_ERROR: GrpcStatus.INTERNAL,
  SERVICE_UNAVAILABLE: GrpcStatus.UNAVAILABLE,
};

export interface ErrorBody {
  error: { code: ApiErrorCode; message: string; details: Record<string, unknown> };
}

export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ApiErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "ApiError";
    this.status = API_ERROR_STATUS[code];
  }

  get grpcStatus(): GrpcStatus {
    return GRPC_STATUS[this.code];
  }

  toBody(): ErrorBody {
    return { error: { code: this.code, message: this.message, details: this.details } };
  }
}

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
    default:
      // A code the API does not know (the service may grow new refusals, e.g. INVALID_ORDER) is a
      // client-side refusal: INVALID_REQUEST, with the service's code as the reason.
      if (e.code in API_ERROR_STATUS) return new ApiError(e.code as ApiErrorCode, e.message, plain(d), { cause: e });
      return new ApiError("INVALID_REQUEST", e.message, { reason: String(e.code).toLowerCase(), ...plain(d) }, { cause: e });
  }
}

/** Spec 7: details.required and details.available are numbers (token units); the exact base units go
 *  beside them as decimal strings because they can exceed 2^53. */
function insufficientDetails(d: Record<string, unknown>): Record<string, unknown> {
  const units = (v: unknown): bigint | null =>
    typeof v === "bigint" ? v : typeof v === "string" && /^-?\d+$/.test(v) ? BigInt(v) : typeof v === "number" && Number.isSafeInteger(v) ? BigInt(v) : null;
  const req = units(d.requiredUnits);
  const avail = units(d.availableUnits);
  const decimals = typeof d.decimals === "number" ? d.decimals : null;
  // token-unit numbers: given by the service, or computed from the exact units and the token's decimals
  const num = (given: unknown, u: bigint | null) =>
    typeof given === "number" ? given : u !== null && decimals !== null ? Number(formatUnits(u, decimals)) : null;
  return {
    token: d.token ?? null,
    required: num(d.required, req),
    available: num(d.available, avail),
    required_units: req?.toString() ?? null,
    available_units: avail?.toString() ?? null,
  };
}

function formatUnits(v: bigint, decimals: number): string {
  const neg = v < 0n;
  const abs = neg ? -v : v;
  const base = 10n ** BigInt(decimals);
  const frac = decimals > 0 ? (abs % base).toString().padStart(decimals, "0").replace(/0+$/, "") : "";
  return (neg ? "-" : "") + (abs / base).toString() + (frac ? "." + frac : "");
}

/** JSON-safe copy: bigints become decimal strings. */
export function plain(d: Record<string, unknown>): Record<string, unknown> {
  return JSON.parse(JSON.stringify(d, (_k, v) => (typeof v === "bigint" ? v.toString() : v)));
}

/** Any thrown value -> ApiError. Unknown errors become INTERNAL_ERROR (their text is never sent). */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof DexServiceError) return fromServiceError(err);
  if (err instanceof ZodError) return validationError(err);
  const e = err as { type?: string; status?: number; statusCode?: number; expose?: boolean } | undefined;
  if (e?.type === "entity.too.large") return new ApiError("PAYLOAD_TOO_LARGE", "request body too large");
  const status = e?.status ?? e?.statusCode;
  if (typeof status === "number" && status >= 400 && status < 500 && e?.expose) {
    return new ApiError("INVALID_REQUEST", "malformed request", { reason: e.type ?? "bad_request" }, { cause: err });
  }
  return new ApiError("INTERNAL_ERROR", "internal error", {}, { cause: err });
}

export function validationError(err: ZodError, where?: string): ApiError {
  const issues = err.issues.slice(0, 20).map((i) => ({
    path: [...(where ? [where] : []), ...i.path.map(String)].join("."),
    message: i.message,
  }));
  return new ApiError("INVALID_REQUEST", "request failed validation", { issues }, { cause: err });
}

/** The one Express error handler (Express 5 routes async rejections here too). */
export function createErrorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const apiError = toApiError(err);
    if (apiError.status >= 500) {
      logger.error({ err: apiError.cause ?? err, method: req.method, path: req.path }, "request failed");
    }
    if (res.headersSent) return;
    res.status(apiError.status).json(apiError.toBody());
  };
}
