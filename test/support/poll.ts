// Waiting in e2e tests: poll a read until it answers.
import { setTimeout as sleep } from "node:timers/promises";

/** Calls `fn` every `everyMs` until it returns something other than undefined; throws after `timeoutMs`. */
export async function poll<T>(
  what: string,
  fn: () => Promise<T | undefined>,
  timeoutMs = 60_000,
  everyMs = 100,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}
