// Errors of the pipeline. Intake rejections carry a spec code (section 7) and details; chain errors say
// whether a retry can help (STYLE.md rule 6). All extend the one base, runtime/errors.ts AppError.
import { AppError } from "../runtime/errors";

export type IntakeCode =
  | "INVALID_SYMBOL"
  | "INVALID_ORDER_TYPE"
  | "INVALID_ORDER"
  | "INVALID_SIGNATURE"
  | "INVALID_NONCE"
  | "ORDER_EXPIRED"
  | "INSUFFICIENT_BALANCE"
  | "ORDER_NOT_FOUND"
  | "UNAUTHORIZED"
  | "SERVICE_UNAVAILABLE"
  /** the home chain cannot settle now (its node is down or restarting): details {chainId, retry_after (s)} */
  | "CHAIN_UNAVAILABLE";

/** An intake refusal; retryable only when the pipeline is not taking orders (SERVICE_UNAVAILABLE,
 *  CHAIN_UNAVAILABLE). */
export class PipelineError extends AppError<IntakeCode> {
  constructor(code: IntakeCode, message: string, details: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super(code, message, {
      ...options,
      details,
      retryable: code === "SERVICE_UNAVAILABLE" || code === "CHAIN_UNAVAILABLE",
    });
    this.name = "PipelineError";
  }
}

/** A chain call that may succeed if tried again (network, node restarting, nonce race). */
export class RetryableChainError extends AppError<"CHAIN_RETRYABLE"> {
  constructor(message: string, options?: { cause?: unknown }) {
    super("CHAIN_RETRYABLE", message, { ...options, retryable: true });
    this.name = "RetryableChainError";
  }
}

/** A chain call that will fail the same way again (a revert): the batcher halts on it. */
export class FatalChainError extends AppError<"CHAIN_FATAL"> {
  constructor(
    message: string,
    readonly revertName?: string,
    readonly revertArgs?: readonly unknown[],
    options?: { cause?: unknown },
  ) {
    super("CHAIN_FATAL", message, { ...options, retryable: false });
    this.name = "FatalChainError";
  }
}
