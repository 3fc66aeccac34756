// The bridge API's one error type and mapper: every failure leaves as the spec's body
// {error:{code,message,details}} with its status; validation errors name the fields; nothing else
// (no stack trace, no driver message) ever reaches a client.
import type { ErrorRequestHandler } from "express";
import type { Logger } from "pino";
import { ZodError } from "zod";

export const BRIDGE_ERROR_STATUS = {
  INVALID_REQUEST: 400,
  FORBIDDEN: 403,
  TENANT_NOT_FOUND: 404,
  TRANSFER_NOT_FOUND: 404,
  ROUTE_NOT_FOUND: 404,
  TRANSFER_MISMATCH: 409,
  TRANSFER_ALREADY_LINKED: 409,
  TRANSFER_NOT_READY: 409,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMIT_EXCEEDED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
} as const;
export type BridgeErrorCode = keyof typeof BRIDGE_ERROR_STATUS;

export class BridgeApiError extends Error {
  readonly status: number;
  constructor(readonly code: BridgeErrorCode, message: string, readonly details: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "BridgeApiError";
    this.status = BRIDGE_ERROR_STATUS[code];
  }
  toBody() {
    return { error: { code: this.code, message: this.message, details: this.details } };
  }
}

export function toBridgeApiError(err: unknown): BridgeApiError {
  if (err instanceof BridgeApiError) return err;
  if (err instanceof ZodError)
    return new BridgeApiError("INVALID_REQUEST", "request failed validation", {
      issues: err.issues.map((i) => ({ path: i.path.join("."), message: i.message })),
    });
  const e = err as { type?: string; status?: number };
  if (e?.type === "entity.too.large") return new BridgeApiError("PAYLOAD_TOO_LARGE", "request body too large");
  if (e?.type === "entity.parse.failed" || (e?.status === 400 && e?.type)) return new BridgeApiError("INVALID_REQUEST", "body is not valid JSON");
  return new BridgeApiError("INTERNAL_ERROR", "internal error", {}, { cause: err });
}

export function bridgeErrorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const e = toBridgeApiError(err);
    if (e.status >= 500) logger.error({ err: (e.cause as Error)?.stack ?? String(e.cause ?? e), path: req.path }, "bridge API request failed");
    res.status(e.status).json(e.toBody());
  };
}
