// The stack's health port (config.ports.health, default 9090), its own port because the API surfaces own
// theirs:
// - GET /health: the status of every part of the stack, 200 when all are up, 503 (with Retry-After) while
//   any is not, naming the parts it waits for (`waitingFor`). The report is refreshed in the background
//   every REFRESH_MS, so a request is answered at once from the latest one, however slow a part is to answer
//   under load (docs/decisions/stack.md "Health").
// - GET /metrics: the process's Prometheus metrics (runtime/metrics.ts).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { metricsResponse } from "../../runtime/metrics";
import type { HealthReport, RunningStack } from "./start-stack";

export interface HealthServer {
  readonly url: string;
  close(): Promise<void>;
}

/** How often the report is taken again (a part's own checks time out within this). */
const REFRESH_MS = 1_000;
/** A request that arrives before the first report waits this long for it, then is told the stack is starting. */
const FIRST_REPORT_WAIT_MS = 80;
/** How long the server's start waits for its first report. */
const FIRST_REPORT_DEADLINE_MS = 5_000;
/** Retry-After of a 503, seconds. */
const RETRY_AFTER_S = 2;

export interface ServedHealthReport extends HealthReport {
  /** the parts that are not up yet (empty when status is ok) */
  waitingFor: string[];
  /** when the report was taken (ISO 8601) */
  checkedAt: string;
}

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const headers: http.OutgoingHttpHeaders = { "content-type": "application/json" };
  if (status === 503) headers["retry-after"] = String(RETRY_AFTER_S);
  res.writeHead(status, headers);
  res.end(JSON.stringify(body));
}

export async function startHealthServer(options: {
  host: string;
  port: number;
  stack: Pick<RunningStack, "health">;
}): Promise<HealthServer> {
  let latest: ServedHealthReport | undefined;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let firstReport: () => void = () => undefined;
  const first = new Promise<void>((resolve) => (firstReport = resolve));
  const refresh = async () => {
    try {
      const report = await options.stack.health();
      latest = {
        ...report,
        waitingFor: report.components.filter((c) => !c.ok).map((c) => c.name),
        checkedAt: new Date().toISOString(),
      };
    } catch (e) {
      latest = {
        status: "degraded",
        components: [],
        waitingFor: ["health check"],
        checkedAt: new Date().toISOString(),
        error: String(e),
      } as ServedHealthReport;
    }
    firstReport();
    if (!closed) timer = setTimeout(() => void refresh(), REFRESH_MS);
  };
  void refresh();

  const server = http.createServer((req, res) => {
    if (metricsResponse(req, res)) return;
    if (req.method !== "GET" || (req.url !== "/health" && req.url !== "/health/")) {
      send(res, 404, {
        error: { code: "NOT_FOUND", message: "GET /health and GET /metrics are served here", details: {} },
      });
      return;
    }
    const answer = () => {
      if (!latest) send(res, 503, { status: "starting", components: [], waitingFor: ["first health check"] });
      else send(res, latest.status === "ok" ? 200 : 503, latest);
    };
    if (latest) answer();
    else void Promise.race([first, new Promise((r) => setTimeout(r, FIRST_REPORT_WAIT_MS))]).then(answer);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  // the first report is taken before this resolves (a caller's first request gets it), within reason
  await Promise.race([first, new Promise((r) => setTimeout(r, FIRST_REPORT_DEADLINE_MS).unref())]);
  return {
    url: `http://${options.host}:${port}/health`,
    async close() {
      closed = true;
      clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
