// The DEX and bridge APIs read JSON only: a request that carries a body whose Content-Type is not
// application/json (text/plain, a form, none at all) is refused with 415 UNSUPPORTED_MEDIA_TYPE before any
// handler, parser or authenticator sees it, so it changes nothing. A browser may send text/plain across
// origins without a preflight; refusing it keeps a page from placing orders or initiating transfers with a
// "simple" request. A request without a body (GET, DELETE, an empty POST) is not concerned.
import type { NextFunction, Request, RequestHandler, Response } from "express";
import type { ApiError } from "./errors";

/** Whether the request carries body bytes, from its headers (the body is not read here). */
function hasBody(req: Request): boolean {
  if (req.headers["transfer-encoding"] !== undefined) return true;
  const length = Number(req.headers["content-length"]);
  return Number.isFinite(length) && length > 0;
}

/** application/json, with any parameters (`; charset=utf-8`), in any case. */
export function isJsonContentType(contentType: string | undefined): boolean {
  return typeof contentType === "string" && /^\s*application\/json\s*(;|$)/i.test(contentType);
}

export const JSON_ONLY_MESSAGE = "a request body must be JSON, sent with Content-Type: application/json";

/** The middleware; `refuse` builds the API's own UNSUPPORTED_MEDIA_TYPE (ApiError for the DEX,
 *  BridgeApiError for the bridge) from the Content-Type received (null when none was sent). */
export function jsonBodiesOnly(refuse: (contentType: string | null) => ApiError<string>): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    if (!hasBody(req) || isJsonContentType(req.headers["content-type"])) return next();
    next(refuse(req.headers["content-type"] ?? null));
  };
}
