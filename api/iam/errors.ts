// The identity provider's codes for its own JSON endpoints (POST /api/otp, the sandbox endpoints): the
// spec's body {error:{code,message,details}} through the one HTTP error mapper (api/errors.ts). The OAuth
// and OIDC endpoints that oidc-provider serves (token, authorization, JWKS, discovery) answer the OAuth
// error body {error, error_description} that RFC 6749 5.2 mandates instead (docs/decisions/api.md, "Identity").
import type { ErrorRequestHandler } from "express";
import type { Logger } from "pino";
import {
  HTTP_SURFACE_CODES,
  surfaceErrorClass,
  createErrorHandler,
  malformedRequestRules,
  type HttpErrorRules,
} from "../errors";

export const IamApiError = surfaceErrorClass("IamApiError", HTTP_SURFACE_CODES, {
  ORGANIZATION_NOT_FOUND: { http: 404 },
  /** the sandbox's placement of a user in an organization: the phone already belongs to a user */
  PHONE_ALREADY_REGISTERED: { http: 409 },
});
export type IamApiError = InstanceType<typeof IamApiError>;

export const IAM_HTTP_ERRORS: HttpErrorRules = malformedRequestRules(IamApiError, "IAM request failed");

export function iamErrorHandler(logger: Logger): ErrorRequestHandler {
  return createErrorHandler(logger, IAM_HTTP_ERRORS);
}
