// The one error base of every service (viem's BaseError is the model). Each error the services throw on
// purpose is an AppError subclass: `code` is what callers branch on (a stable string, never the message),
// `details` the facts a caller or a log needs (JSON-safe where an API answers it), `cause` the standard
// ES2022 cause (the lower-level error, kept for logs, never sent to a client), and `retryable` whether the
// same call can succeed later (a node down, a lease taken) or never will (a revert, a bad request).
// Subclasses keep their own name, so `instanceof` and `err.name` still tell them apart; what an error
// looks like on the wire is the API's business (api/errors.ts), not the error's.

export interface AppErrorOptions {
  /** facts about the failure; `{}` when omitted */
  details?: Record<string, unknown>;
  /** the lower-level error (ES2022 `Error.cause`); set only when given */
  cause?: unknown;
  /** whether the same call can succeed later; false when omitted */
  retryable?: boolean;
}

export class AppError<Code extends string = string> extends Error {
  readonly code: Code;
  readonly details: Record<string, unknown>;
  readonly retryable: boolean;

  constructor(code: Code, message: string, options: AppErrorOptions = {}) {
    // like `new Error(message, options)`: an error given no cause has no own `cause` property
    super(message, "cause" in options ? { cause: options.cause } : undefined);
    this.name = "AppError";
    this.code = code;
    this.details = options.details ?? {};
    this.retryable = options.retryable ?? false;
  }
}

export const isAppError = (err: unknown): err is AppError => err instanceof AppError;
