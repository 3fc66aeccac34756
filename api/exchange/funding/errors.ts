// The funding endpoints' refusals, as data for the one HTTP error mapper (api/errors.ts): the spec's body
// {error:{code,message,details}}. The spec names no code for a funding limit; these are recorded in
// docs/decisions/api.md ("Custody and funding").
import { surfaceErrorClass } from "../../errors";

export const FundingApiError = surfaceErrorClass(
  "FundingApiError",
  ["INVALID_REQUEST", "INSUFFICIENT_BALANCE", "ROUTE_NOT_FOUND", "SERVICE_UNAVAILABLE"],
  {
    /** below the method's minimum: details {method, minimum, requested} */
    AMOUNT_BELOW_MINIMUM: { http: 400 },
    /** the method's daily maximum would be passed: details {method, direction, day, limit, used, requested} */
    FUNDING_LIMIT_EXCEEDED: { http: 400 },
    /** an id that does not exist or is another account's */
    TRANSACTION_NOT_FOUND: { http: 404 },
  },
);
export type FundingApiError = InstanceType<typeof FundingApiError>;
