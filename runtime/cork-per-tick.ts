// The frames of one tick leave their socket in one write: the socket is corked at the first frame of a tick and
// uncorked when the tick ends (Node counts corks, so ws's own cork/uncork around each frame nests inside). Used by
// the DEX API's WebSocket: a journal group commit's answers, and the events they
// caused, come out in one tick: one system call instead of one per frame (each frame's writev was ~17 % of an API
// process's CPU under bench:e2e with BENCH_API_PROCESSES=1, ~5 % of the stack under ws-key; docs/measurements.md). A burst past FLUSH_CORKED_BYTES is written at once,
// so what a slow peer has not taken stays measurable (the server's maxBufferedBytes).
import type { Duplex } from "node:stream";

export const FLUSH_CORKED_BYTES = 64 * 1024;

/** Returns the function to call before each frame written to `socket` (a no-op without a socket). */
export function corkPerTick(socket: Duplex | undefined | null): () => void {
  if (!socket) return () => undefined;
  let corked = false;
  const uncork = () => {
    corked = false;
    socket.uncork();
  };
  return () => {
    if (!corked) {
      socket.cork();
      corked = true;
      process.nextTick(uncork);
    } else if (socket.writableLength >= FLUSH_CORKED_BYTES) {
      socket.uncork();
      socket.cork();
    }
  };
}
