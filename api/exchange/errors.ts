// The exchange API's codes (spec 7) as data for the one HTTP error mapper (api/errors.ts): every failure
// leaves as {error:{code,message,details}} with its status. Another organization's id answers the same
// 404 as an id that does not exist, so ids do not leak.
import type { ErrorRequestHandler } from "express";
import type { Logger } from "pino";
import { HTTP_SURFACE_CODES, surfaceErrorClass, createErrorHandler, DEX_HTTP_ERRORS } from "../errors";

export const ExchangeApiError = surfaceErrorClass(
  "ExchangeApiError",
  [...HTTP_SURFACE_CODES, "FORBIDDEN", "INSUFFICIENT_BALANCE"],
  { ACCOUNT_NOT_FOUND: { http: 404 }, ACCREDITATION_REQUIRED: { http: 400 }, ASSET_NOT_FOUND: { http: 404 } },
);
export type ExchangeApiError = InstanceType<typeof ExchangeApiError>;

/** 401 UNAUTHORIZED with a reason a client can act on (never the verifier's internal text). */
export const unauthorized = (reason: string, message = "missing or invalid authentication", cause?: unknown) =>
  new ExchangeApiError("UNAUTHORIZED", message, { reason }, { cause });

/** The exchange API answers like the DEX REST API (20 issues at most, "malformed request"). */
export function exchangeErrorHandler(logger: Logger): ErrorRequestHandler {
  return createErrorHandler(logger, { ...DEX_HTTP_ERRORS, logMessage: "exchange API request failed" });
}
