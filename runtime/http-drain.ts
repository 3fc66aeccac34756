// A stop that drains an HTTP server: it stops accepting connections, answers every request it has already
// received (each answer then closes its connection), and only then closes what is left. A request that
// arrives on a kept-alive connection while it drains is still answered. (docs/decisions/stack.md "Stop".)
import type { Server } from "node:http";
import net from "node:net";

/** How long a drain waits for the answers under way before it closes every connection. */
export const DRAIN_DEADLINE_MS = 10_000;
/** A drain lasts at least this long after the last request began, for requests already on their way. */
const QUIET_MS = 150;

export interface Drainable {
  /** Stops accepting, answers what was received, closes; idempotent (every call gets the same promise). */
  drain(): Promise<void>;
}

/** Counts the server's requests under way from now on; `drain()` as above. Call once, before it serves. */
export function drainable(server: Server, deadlineMs = DRAIN_DEADLINE_MS): Drainable {
  let inFlight = 0;
  let lastStartMs = 0;
  let draining = false;
  server.on("request", (_req, res) => {
    inFlight++;
    lastStartMs = performance.now();
    // while draining, each answer ends its connection, so that the client opens its next one elsewhere
    if (draining && !res.headersSent) res.setHeader("connection", "close");
    res.once("close", () => inFlight--);
  });
  let drained: Promise<void> | undefined;
  return {
    drain() {
      drained ??= (async () => {
        draining = true;
        // net.Server's close: it stops listening but, unlike http.Server's, leaves the idle kept-alive
        // connections open (one may hold a request not read yet); they are closed below once all is answered
        const closed = new Promise<void>((resolve) =>
          server.listening ? net.Server.prototype.close.call(server, () => resolve()) : resolve(),
        );
        const deadline = performance.now() + deadlineMs;
        while (performance.now() < deadline && (inFlight > 0 || performance.now() - lastStartMs < QUIET_MS)) {
          await new Promise((r) => setTimeout(r, 10));
        }
        server.closeAllConnections();
        await closed;
      })();
      return drained;
    },
  };
}
