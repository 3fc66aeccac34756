// GET /health on its own port (config.ports.health, default 9090): the status of every part of the
// stack, 200 when all are up, 503 otherwise. Its own port because the API surfaces own theirs.
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { RunningStack } from "./start-stack";

export interface HealthServer {
  readonly url: string;
  close(): Promise<void>;
}

export async function startHealthServer(options: { host: string; port: number; stack: Pick<RunningStack, "health"> }): Promise<HealthServer> {
  const server = http.createServer((req, res) => {
    if (req.method !== "GET" || (req.url !== "/health" && req.url !== "/health/")) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { code: "NOT_FOUND", message: "only GET /health is served here", details: {} } }));
      return;
    }
    options.stack.health().then(
      (report) => {
        res.writeHead(report.status === "ok" ? 200 : 503, { "content-type": "application/json" });
        res.end(JSON.stringify(report));
      },
      (e: unknown) => {
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { code: "INTERNAL_ERROR", message: String(e), details: {} } }));
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host}:${port}/health`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
