// The configuration's one error: bad or missing settings, found at start.
export class ConfigError extends Error {
  readonly code = "CONFIG_INVALID";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ConfigError";
  }
}
