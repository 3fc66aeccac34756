// The order and portfolio endpoints' refusals (spec 7 codes, plus the ones the spec leaves open, recorded in
// docs/decisions/api.md "Exchange orders"), as data for the one HTTP error mapper (api/errors.ts).
import { ApiError, API_ERROR_RULES, type ApiErrorRule } from "../../errors";

const ORDER_RULES = {
  INVALID_REQUEST: API_ERROR_RULES.INVALID_REQUEST,
  UNAUTHORIZED: API_ERROR_RULES.UNAUTHORIZED,
  /** KYC not approved: details {reason: "kyc_required", kycStatus} */
  FORBIDDEN: API_ERROR_RULES.FORBIDDEN,
  ASSET_NOT_FOUND: { http: 404 },
  /** listed but not tokenized, or its book is not running: details {assetId} (the spec names no code) */
  ASSET_NOT_TRADEABLE: { http: 400 },
  INVALID_ORDER_TYPE: API_ERROR_RULES.INVALID_ORDER_TYPE,
  ACCREDITATION_REQUIRED: { http: 400 },
  INSUFFICIENT_BALANCE: API_ERROR_RULES.INSUFFICIENT_BALANCE,
  RESALE_RESTRICTED: { http: 400 },
  ORDER_NOT_FOUND: API_ERROR_RULES.ORDER_NOT_FOUND,
  /** cancel or update of an order that is not PENDING: details {status} */
  ORDER_NOT_OPEN: API_ERROR_RULES.ORDER_NOT_OPEN,
  RATE_LIMIT_EXCEEDED: API_ERROR_RULES.RATE_LIMIT_EXCEEDED,
  SERVICE_UNAVAILABLE: API_ERROR_RULES.SERVICE_UNAVAILABLE,
  ROUTE_NOT_FOUND: API_ERROR_RULES.ROUTE_NOT_FOUND,
} as const satisfies Record<string, ApiErrorRule>;

export type OrderErrorCode = keyof typeof ORDER_RULES;

export class OrderApiError extends ApiError<OrderErrorCode> {
  static override readonly rules: Readonly<Record<string, ApiErrorRule>> = ORDER_RULES;
  constructor(code: OrderErrorCode, message: string, details: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super(code, message, details, options);
    this.name = "OrderApiError";
  }
}
