// The indexer's public HTTP front (the "hot front"): GET /trades and GET /candles answered from Ponder's
// rows merged with the hot tail (trades read from the chain that Ponder has not indexed yet), everything
// else passed to Ponder unchanged. It runs in its own small process at normal priority, so that Ponder,
// saturated under SCHED_IDLE, cannot starve the feed (see docs/decisions/indexer.md).
import http from "node:http";
import { metrics, metricsText, registry } from "../../runtime/metrics";
import {
  type CandlesQuery,
  TRADES_THROUGH_HEADER,
  type TradesQuery,
  candlesQuery,
  errorBody,
  invalidQueryBody,
  tradesQuery,
} from "../lib/queries";
import { type CandleJson, mergeCandles, mergeTrades } from "./merge";
import type { HotTail, TradeJson } from "./tail";

export interface Snapshot {
  status: number;
  body: unknown;
  /** TRADES_THROUGH_HEADER of the answer (-1 when absent: no row of Ponder's is then trusted to cover anything) */
  through: number;
  at: number;
}

/**
 * Ponder's answers to the front's reads, with a short memory: a read that Ponder does not answer within
 * `budgetMs` (it runs at idle priority and may be starved) is served from the last answer to the same
 * read, if younger than `maxStaleMs`, merged with the tail above ITS `through`, which is exact: the tail
 * keeps every trade above the lowest `through` any kept answer or pending read may use (`trimFloor`).
 */
export class PonderReads {
  /** the highest `through` seen: Ponder's rows cover every trade up to it */
  latestThrough = -1;
  private cache = new Map<string, Snapshot>();
  private inflight = new Map<string, { promise: Promise<Snapshot>; floor: number }>();

  constructor(
    private readonly ponderUrl: string,
    private readonly budgetMs: number,
    private readonly maxStaleMs: number,
    private readonly maxEntries = 64,
  ) {}

  private fetch(pathAndQuery: string): Promise<Snapshot> {
    const pending = this.inflight.get(pathAndQuery);
    if (pending) return pending.promise;
    const promise = (async () => {
      const res = await fetch(`${this.ponderUrl}${pathAndQuery}`, { signal: AbortSignal.timeout(60_000) });
      const body = await res.json();
      const header = res.headers.get(TRADES_THROUGH_HEADER);
      const through = header !== null && /^-?\d+$/.test(header) ? Number(header) : -1;
      const snap: Snapshot = { status: res.status, body, through, at: Date.now() };
      if (res.status === 200 && header !== null) {
        this.latestThrough = Math.max(this.latestThrough, through);
        this.cache.delete(pathAndQuery);
        this.cache.set(pathAndQuery, snap);
        if (this.cache.size > this.maxEntries) this.cache.delete(this.cache.keys().next().value!);
      }
      return snap;
    })().finally(() => this.inflight.delete(pathAndQuery));
    // an answer started now covers at least what Ponder had already shown
    this.inflight.set(pathAndQuery, { promise, floor: this.latestThrough });
    return promise;
  }

  /** Ponder's answer to `pathAndQuery`, fresh if it comes within the budget, else the kept one. */
  async read(pathAndQuery: string): Promise<Snapshot> {
    const fresh = this.fetch(pathAndQuery);
    const kept = this.cache.get(pathAndQuery);
    if (!kept || Date.now() - kept.at > this.maxStaleMs) return fresh;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<"late">((r) => (timer = setTimeout(() => r("late"), this.budgetMs)));
    try {
      const first = await Promise.race([fresh.catch(() => "late" as const), late]);
      return first === "late" ? kept : first;
    } finally {
      clearTimeout(timer);
      fresh.catch(() => undefined); // a late failure is the next read's concern
    }
  }

  /** Blocks up to here may leave the tail: no kept answer or pending read needs them. */
  trimFloor(): number {
    const now = Date.now();
    let floor = this.latestThrough;
    for (const [k, s] of this.cache) {
      if (now - s.at > this.maxStaleMs) this.cache.delete(k);
      else floor = Math.min(floor, s.through);
    }
    for (const p of this.inflight.values()) floor = Math.min(floor, p.floor);
    return floor;
  }
}

export interface FrontOptions {
  ponderUrl: string;
  tail: HotTail;
  reads: PonderReads;
  /** extra fields of GET /feed (the follower's state) */
  feedStatus?: () => Record<string, unknown>;
  /** a read that failed (answered 503) */
  onError?: (error: unknown) => void;
}

function firstValues(params: URLSearchParams): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of params) if (!(k in out)) out[k] = v;
  return out;
}

function send(res: http.ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  // a 503 says when to try again (Ponder catching up, restarting)
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    ...(status === 503 ? { "retry-after": "1" } : {}),
  });
  res.end(text);
}

const unavailable = () => errorBody("SERVICE_UNAVAILABLE", "the indexer is not answering", {});

async function trades(q: TradesQuery, o: FrontOptions): Promise<[number, unknown]> {
  const { tail, reads } = o;
  const fromBlock = q.fromBlock === undefined ? undefined : Number(q.fromBlock);
  // above everything Ponder has shown: the tail alone answers (a client following new trades)
  if (fromBlock !== undefined && fromBlock > reads.latestThrough) {
    return [
      200,
      {
        trades: tail
          .select({ above: reads.latestThrough, pair: q.pair, fromBlock, order: "asc", limit: q.limit })
          .map((t) => t.json),
      },
    ];
  }
  if (fromBlock === undefined) {
    const newest = tail.select({ above: reads.latestThrough, pair: q.pair, order: "desc", limit: q.limit });
    if (newest.length === q.limit) return [200, { trades: newest.map((t) => t.json) }];
  }
  const params = new URLSearchParams({ limit: String(q.limit) });
  if (q.pair !== undefined) params.set("pair", q.pair);
  if (q.fromBlock !== undefined) params.set("fromBlock", q.fromBlock.toString());
  const snap = await reads.read(`/trades?${params}`);
  if (snap.status !== 200) return [snap.status, snap.body];
  return [200, { trades: mergeTrades(q, (snap.body as { trades: TradeJson[] }).trades, snap.through, tail) }];
}

async function candles(q: CandlesQuery, o: FrontOptions): Promise<[number, unknown]> {
  const params = new URLSearchParams({ pair: q.pair, interval: q.interval, limit: String(q.limit), order: q.order });
  if (q.from !== undefined) params.set("from", q.from.toString());
  if (q.to !== undefined) params.set("to", q.to.toString());
  const snap = await o.reads.read(`/candles?${params}`);
  if (snap.status !== 200) return [snap.status, snap.body];
  const stored = (snap.body as { candles: CandleJson[] }).candles;
  return [200, { pair: q.pair, interval: q.interval, candles: mergeCandles(q, stored, snap.through, o.tail) }];
}

/** Passes the request to Ponder as it came and its answer back as it comes. */
function proxy(req: http.IncomingMessage, res: http.ServerResponse, upstream: URL, agent: http.Agent) {
  const out = http.request(
    {
      host: upstream.hostname,
      port: upstream.port,
      method: req.method,
      path: req.url,
      headers: { ...req.headers, host: upstream.host },
      agent,
    },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  out.on("error", () => {
    if (!res.headersSent) send(res, 503, unavailable());
    else res.destroy();
  });
  req.pipe(out);
}

export function createFront(o: FrontOptions): http.Server {
  const upstream = new URL(o.ponderUrl);
  const agent = new http.Agent({ keepAlive: true });
  return http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://front");
    const route = req.method === "GET" ? url.pathname : undefined;
    if (route === "/metrics") {
      frontMetrics(o, upstream).then(
        (text) => {
          res.writeHead(200, { "content-type": registry.contentType });
          res.end(text);
        },
        () => send(res, 503, unavailable()),
      );
      return;
    }
    if (route !== "/trades" && route !== "/candles" && route !== "/feed") return proxy(req, res, upstream, agent);
    const handle = async (): Promise<[number, unknown]> => {
      if (route === "/feed") {
        return [
          200,
          {
            cursorBlock: o.tail.cursor.number,
            tailBlocks: o.tail.blockCount,
            tailTrades: o.tail.tradeCount,
            ponderTradesThroughBlock: o.reads.latestThrough,
            cpuSeconds: process.cpuUsage().user / 1e6 + process.cpuUsage().system / 1e6,
            ...o.feedStatus?.(),
          },
        ];
      }
      const query = firstValues(url.searchParams);
      if (route === "/trades") {
        const q = tradesQuery.safeParse(query);
        return q.success ? trades(q.data, o) : [400, invalidQueryBody(q.error)];
      }
      const q = candlesQuery.safeParse(query);
      return q.success ? candles(q.data, o) : [400, invalidQueryBody(q.error)];
    };
    handle().then(
      ([status, body]) => send(res, status, body),
      (error) => {
        o.onError?.(error);
        send(res, 503, unavailable());
      },
    );
  });
}

/** GET /metrics on the front: its own process's metrics (runtime/metrics.ts: dex_indexer_lag_blocks set from
 *  Ponder's /status against the head the front follows), followed by Ponder's own `ponder_*` families
 *  (Ponder's process metrics are left out: the front's carry the same names). */
async function frontMetrics(o: FrontOptions, upstream: URL): Promise<string> {
  const get = async (path: string) => {
    const r = await fetch(new URL(path, upstream), { signal: AbortSignal.timeout(PONDER_METRICS_WAIT_MS) });
    return r.ok ? r.text() : "";
  };
  const [status, ponder] = await Promise.all([get("/status").catch(() => ""), get("/metrics").catch(() => "")]);
  try {
    const block = (JSON.parse(status) as Record<string, { block?: { number?: number } }>).home?.block?.number;
    if (typeof block === "number") metrics.indexerLag.set({ chain: "home" }, Math.max(0, o.tail.cursor.number - block));
  } catch {
    // Ponder not answering: the gauge keeps its last value
  }
  const own = await metricsText();
  const families = ponder.split(/\n(?=# HELP )/).filter((f) => /^# HELP ponder_/.test(f));
  return families.length > 0 ? `${own}\n${families.join("\n").trimEnd()}\n` : own;
}
const PONDER_METRICS_WAIT_MS = 500;
