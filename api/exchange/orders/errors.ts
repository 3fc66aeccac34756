// The order and portfolio endpoints' refusals (spec 7 codes, plus the ones the spec leaves open, recorded in
// docs/decisions/api.md "Exchange orders"), as data for the one HTTP error mapper (api/errors.ts).
import { surfaceErrorClass } from "../../errors";

// FORBIDDEN: KYC not approved, details {reason: "kyc_required", kycStatus}; ORDER_NOT_OPEN: cancel or update of
// an order that is not PENDING, details {status}
export const OrderApiError = surfaceErrorClass(
  "OrderApiError",
  [
    "INVALID_REQUEST",
    "UNAUTHORIZED",
    "FORBIDDEN",
    "INVALID_ORDER_TYPE",
    "INSUFFICIENT_BALANCE",
    "ORDER_NOT_FOUND",
    "ORDER_NOT_OPEN",
    "RATE_LIMIT_EXCEEDED",
    "SERVICE_UNAVAILABLE",
    "ROUTE_NOT_FOUND",
  ],
  {
    ASSET_NOT_FOUND: { http: 404 },
    /** listed but not tokenized, or its book is not running: details {assetId} (the spec names no code) */
    ASSET_NOT_TRADEABLE: { http: 400 },
    ACCREDITATION_REQUIRED: { http: 400 },
    RESALE_RESTRICTED: { http: 400 },
  },
);
export type OrderApiError = InstanceType<typeof OrderApiError>;
