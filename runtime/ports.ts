// A free TCP port, for listeners whose URL must be known before they start (a child process told its
// port, a stack's config). Asks the OS for one (listen on port 0) and closes it at once: another process
// may take it in between, which callers that can should avoid by listening on port 0 themselves.
import { createServer } from "node:net";

export function freePort(host = "127.0.0.1"): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, host, () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
