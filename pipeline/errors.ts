// Errors of the pipeline. Intake rejections carry a spec code (section 7) and details; chain errors say
// whether a retry can help (STYLE.md rule 6).
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
  | "SERVICE_UNAVAILABLE";

export class PipelineError extends Error {
  constructor(
    readonly code: IntakeCode,
    message: string,
    readonly details: Record<string, unknown> = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "PipelineError";
  }
}

/** A chain call that may succeed if tried again (network, node restarting, nonce race). */
export class RetryableChainError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "RetryableChainError";
  }
}

/** A chain call that will fail the same way again (a revert): the batcher halts on it. */
export class FatalChainError extends Error {
  constructor(
    message: string,
    readonly revertName?: string,
    readonly revertArgs?: readonly unknown[],
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "FatalChainError";
  }
}
