// One error type for the signer cluster. `code` is what callers branch on; `retryable` says whether the
// same request can succeed later (a node down, an event not yet final) or never will (no such deposit).
import { AppError } from "../runtime/errors";

export type MpcErrorCode =
  | "INVALID_REQUEST"
  | "NOT_FOUND"
  | "NO_KEY"
  | "EPOCH_MISMATCH"
  | "NODE_NOT_CONFIGURED"
  | "CHAIN_UNAVAILABLE"
  | "CHAIN_ID_MISMATCH"
  | "UNKNOWN_SOURCE_CHAIN"
  | "SOURCE_EVENT_NOT_FOUND"
  | "SOURCE_EVENT_NOT_FINAL"
  | "SOURCE_EVENT_AMBIGUOUS"
  | "SOURCE_EVENT_MISMATCH"
  | "COMMITMENT_UNKNOWN"
  | "COMMITMENT_ALREADY_USED"
  | "COMMITMENT_MISMATCH"
  | "COMMITMENT_LIMIT"
  | "SIGNING_PACKAGE_INVALID"
  | "DKG_SESSION_UNKNOWN"
  | "DKG_EPOCH_STALE"
  | "DKG_ROUND_INVALID"
  | "DKG_FAILED"
  | "HSM_KIND_UNSUPPORTED"
  | "HSM_AMOUNT_BELOW_THRESHOLD"
  | "SIGNING_QUORUM_UNAVAILABLE"
  | "SIGNING_FAILED"
  | "SIGNER_UNREACHABLE"
  | "INTERNAL_ERROR";

const STATUS: Record<MpcErrorCode, number> = {
  INVALID_REQUEST: 400,
  NOT_FOUND: 404,
  NO_KEY: 409,
  EPOCH_MISMATCH: 409,
  NODE_NOT_CONFIGURED: 503,
  CHAIN_UNAVAILABLE: 503,
  CHAIN_ID_MISMATCH: 500,
  UNKNOWN_SOURCE_CHAIN: 422,
  SOURCE_EVENT_NOT_FOUND: 422,
  SOURCE_EVENT_NOT_FINAL: 409,
  SOURCE_EVENT_AMBIGUOUS: 422,
  SOURCE_EVENT_MISMATCH: 422,
  COMMITMENT_UNKNOWN: 409,
  COMMITMENT_ALREADY_USED: 409,
  COMMITMENT_MISMATCH: 422,
  COMMITMENT_LIMIT: 503,
  SIGNING_PACKAGE_INVALID: 422,
  DKG_SESSION_UNKNOWN: 409,
  DKG_EPOCH_STALE: 409,
  DKG_ROUND_INVALID: 409,
  DKG_FAILED: 422,
  HSM_KIND_UNSUPPORTED: 422,
  HSM_AMOUNT_BELOW_THRESHOLD: 422,
  SIGNING_QUORUM_UNAVAILABLE: 503,
  SIGNING_FAILED: 502,
  SIGNER_UNREACHABLE: 503,
  INTERNAL_ERROR: 500,
};

const RETRYABLE = new Set<MpcErrorCode>([
  "NODE_NOT_CONFIGURED",
  "CHAIN_UNAVAILABLE",
  "SOURCE_EVENT_NOT_FINAL",
  "EPOCH_MISMATCH",
  "COMMITMENT_LIMIT",
  "SIGNING_QUORUM_UNAVAILABLE",
  "SIGNER_UNREACHABLE",
]);

export class MpcError extends AppError<MpcErrorCode> {
  /** the HTTP status a node answers it with (the nodes' own protocol, not a public API) */
  readonly status: number;

  constructor(
    code: MpcErrorCode,
    message: string,
    details: Record<string, unknown> = {},
    options?: { cause?: unknown },
  ) {
    super(code, message, { ...options, details, retryable: RETRYABLE.has(code) });
    this.name = "MpcError";
    this.status = STATUS[code];
  }

  toBody() {
    return {
      error: { code: this.code, message: this.message, details: { ...this.details, retryable: this.retryable } },
    };
  }
}

export const isMpcError = (e: unknown): e is MpcError => e instanceof MpcError;

/** Rebuilds the error a node sent back over HTTP, so callers branch on the same codes locally. */
export function mpcErrorFromBody(body: unknown, fallback: string): MpcError {
  const err = (body as { error?: { code?: string; message?: string; details?: Record<string, unknown> } })?.error;
  if (err?.code && err.code in STATUS)
    return new MpcError(err.code as MpcErrorCode, err.message ?? fallback, err.details ?? {});
  return new MpcError("INTERNAL_ERROR", fallback, { body });
}
