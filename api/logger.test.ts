import { test } from "node:test";
import assert from "node:assert/strict";
import { createApiLogger } from "./logger";

test("secrets are redacted from logs, whatever object carries them", () => {
  const lines: string[] = [];
  const log = createApiLogger({ level: "info", destination: { write: (s: string) => void lines.push(s) } });
  const secret = "5ec2e7".repeat(10);
  log.info({ req: { headers: { "x-api-secret": secret, "x-signature": secret } } }, "request");
  log.info({ key: { api_secret: secret, privateKey: secret }, apiSecret: secret }, "key");
  log.info({ body: { signature: secret } }, "order");
  const text = lines.join("");
  assert.equal(lines.length, 3);
  assert.ok(!text.includes(secret), text);
  assert.ok(text.includes("[redacted]"));
});
