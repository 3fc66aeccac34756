// The identity provider's codes for its own JSON endpoints (POST /api/otp, the sandbox endpoints): the
// spec's body {error:{code,message,details}} through the one HTTP error mapper (api/errors.ts). The OAuth
// and OIDC endpoints that oidc-provider serves (token, authorization, JWKS, discovery) answer the OAuth
// error body {error, error_description} that RFC 6749 5.2 mandates instead (docs/decisions/api.md, "Identity").
import type { ErrorRequestHandler } from "express";
import type { Logger } from "pino";
import { surfaceErrorRules, ApiError, createErrorHandler, type ApiErrorRule, type HttpErrorRules } from "../errors";

const IAM_ONLY_RULES = {
  ORGANIZATION_NOT_FOUND: { http: 404 },
  /** the sandbox's placement of a user in an organization: the phone already belongs to a user */
  PHONE_ALREADY_REGISTERED: { http: 409 },
} as const satisfies Record<string, ApiErrorRule>;

const SHARED_CODES = [
  "INVALID_REQUEST",
  "UNAUTHORIZED",
  "ROUTE_NOT_FOUND",
  "PAYLOAD_TOO_LARGE",
  "UNSUPPORTED_MEDIA_TYPE",
  "RATE_LIMIT_EXCEEDED",
  "INTERNAL_ERROR",
  "SERVICE_UNAVAILABLE",
] as const;

export type IamErrorCode = (typeof SHARED_CODES)[number] | keyof typeof IAM_ONLY_RULES;

export const IAM_ERROR_RULES = surfaceErrorRules(SHARED_CODES, IAM_ONLY_RULES);

export class IamApiError extends ApiError<IamErrorCode> {
  static override readonly rules: Readonly<Record<string, ApiErrorRule>> = IAM_ERROR_RULES;
  constructor(
    code: IamErrorCode,
    message: string,
    details: Record<string, unknown> = {},
    options?: { cause?: unknown },
  ) {
    super(code, message, details, options);
    this.name = "IamApiError";
  }
}

export const IAM_HTTP_ERRORS: HttpErrorRules = {
  maxIssues: 20,
  unreadableRequest: (e, err) => {
    const status = e.status ?? e.statusCode;
    return typeof status === "number" && status >= 400 && status < 500 && e.expose
      ? new IamApiError("INVALID_REQUEST", "malformed request", { reason: e.type ?? "bad_request" }, { cause: err })
      : null;
  },
  logMessage: "IAM request failed",
};

export function iamErrorHandler(logger: Logger): ErrorRequestHandler {
  return createErrorHandler(logger, IAM_HTTP_ERRORS);
}
