// The API's logger: pino with every secret-bearing path redacted, so a secret can never reach a log even
// when a whole request or key record is logged by mistake.
import pino, { type DestinationStream, type Logger } from "pino";

export const REDACT_PATHS = [
  "req.headers['x-api-secret']",
  "req.headers['x-signature']",
  "req.headers['x-wallet-signature']",
  "req.headers.authorization",
  "headers['x-api-secret']",
  "headers['x-signature']",
  "*.api_secret",
  "*.apiSecret",
  "*.secret",
  "*.privateKey",
  "*.private_key",
  "*.signature",
  "api_secret",
  "apiSecret",
  "secret",
  "privateKey",
];

export function createApiLogger(options: { level?: string; destination?: DestinationStream } = {}): Logger {
  return pino(
    { level: options.level ?? "info", redact: { paths: REDACT_PATHS, censor: "[redacted]" } },
    options.destination,
  );
}
