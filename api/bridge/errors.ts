// The bridge API's codes and its answers to what express and zod throw, as data for the one HTTP error
// mapper (api/errors.ts): every failure leaves as the spec's body {error:{code,message,details}} with its
// status; validation errors name the fields; nothing else (no stack trace, no driver message) ever
// reaches a client.
import type { ErrorRequestHandler } from "express";
import type { Logger } from "pino";
import { HTTP_SURFACE_CODES, surfaceErrorClass, createErrorHandler, type HttpErrorRules } from "../errors";

/** The bridge's own codes beside the shared ones of api/errors.ts. */
export const BridgeApiError = surfaceErrorClass("BridgeApiError", [...HTTP_SURFACE_CODES, "FORBIDDEN"], {
  TENANT_NOT_FOUND: { http: 404 },
  TRANSFER_NOT_FOUND: { http: 404 },
  TRANSFER_MISMATCH: { http: 409 },
  TRANSFER_ALREADY_LINKED: { http: 409 },
  // the deposit is not mined yet or the release's challenge period is running: try again later
  TRANSFER_NOT_READY: { http: 409, retryable: true },
});
export type BridgeApiError = InstanceType<typeof BridgeApiError>;

/** The bridge's answers where the DEX's differ: every validation issue is listed, and only a body that is
 *  not JSON (or another 400 of the body parser) is INVALID_REQUEST "body is not valid JSON". */
export const BRIDGE_HTTP_ERRORS: HttpErrorRules = {
  maxIssues: Infinity,
  unreadableRequest: (e) =>
    e.type === "entity.parse.failed" || (e.status === 400 && e.type)
      ? new BridgeApiError("INVALID_REQUEST", "body is not valid JSON")
      : null,
  logMessage: "bridge API request failed",
};

export function bridgeErrorHandler(logger: Logger): ErrorRequestHandler {
  return createErrorHandler(logger, BRIDGE_HTTP_ERRORS);
}
