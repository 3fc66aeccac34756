// A pipeline refusal as the DexService's error: the port's code (an API-key order's bad signature is its
// agent not being approved), the details of an insufficient balance as integers.
import { PipelineError } from "../errors";
import { DexServiceError, type DexServiceErrorCode } from "../service";

const PIPELINE_TO_DEX: Record<string, DexServiceErrorCode> = {
  INVALID_SYMBOL: "INVALID_SYMBOL",
  INVALID_ORDER_TYPE: "INVALID_ORDER_TYPE",
  INVALID_ORDER: "INVALID_REQUEST",
  INVALID_SIGNATURE: "INVALID_SIGNATURE",
  INVALID_NONCE: "INVALID_NONCE",
  ORDER_EXPIRED: "ORDER_EXPIRED",
  INSUFFICIENT_BALANCE: "INSUFFICIENT_BALANCE",
  ORDER_NOT_FOUND: "ORDER_NOT_FOUND",
  SERVICE_UNAVAILABLE: "SERVICE_UNAVAILABLE",
  CHAIN_UNAVAILABLE: "CHAIN_UNAVAILABLE",
};

export function toDexError(e: unknown, apiKey: boolean): unknown {
  if (!(e instanceof PipelineError)) return e;
  let code = PIPELINE_TO_DEX[e.code] ?? "INVALID_REQUEST";
  if (apiKey && code === "INVALID_SIGNATURE") code = "AGENT_NOT_APPROVED";
  const details =
    e.code === "INSUFFICIENT_BALANCE"
      ? {
          token: e.details.token,
          requiredUnits: BigInt(String(e.details.requiredUnits)),
          availableUnits: BigInt(String(e.details.availableUnits)),
          required: e.details.required,
          available: e.details.available,
        }
      : e.details;
  return new DexServiceError(code, e.message, details, { cause: e });
}
