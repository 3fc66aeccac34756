// The configuration's one error: bad or missing settings, found at start.
import { AppError } from "../runtime/errors";

export class ConfigError extends AppError<"CONFIG_INVALID"> {
  constructor(message: string, options?: { cause?: unknown }) {
    super("CONFIG_INVALID", message, { ...options });
    this.name = "ConfigError";
  }
}
