// A matcher partition's DexService served to API processes (protocol.ts): one WebSocket per API process at
// /partition, authenticated at the upgrade by the shared secret (`Authorization: Bearer <PARTITION_SECRET>`,
// compared in constant time; anything else is refused with 401 before a frame is exchanged).
import { metrics, metricsResponse, refusalReason } from "../../runtime/metrics";
import http from "node:http";
import { createHash, timingSafeEqual } from "node:crypto";
import type { AddressInfo } from "node:net";
import { WebSocketServer, type WebSocket } from "ws";
import { toAccount } from "viem/accounts";
import type { Address, Hex, LocalAccount } from "viem";
import { DexServiceError, type DexService, type PlaceOrderRequest } from "../service";
import { clientFrameSchema, decodeFrame, encodeFrame, METHODS, PARTITION_PATH, type MethodName } from "./protocol";
import { corkPerTick } from "../../runtime/cork-per-tick";

export interface PartitionServerOptions {
  service: DexService;
  /** this partition's index (its API-key nonce range); told to callers, which refuse two partitions with one index */
  index: number;
  secret: string;
  host: string;
  /** 0 = any free port */
  port: number;
  /** the pipeline's `syncChain` (its chain follower reaches the head) */
  syncChain?: () => Promise<void>;
  logger?: { warn(o: object, m?: string): void; info(o: object, m?: string): void };
  /** how long an API-key placement waits for the caller's signature (default 15 s) */
  signTimeoutMs?: number;
  /** a connection whose unsent events exceed this many bytes is closed (the caller reconnects) */
  maxBufferedBytes?: number;
}

export interface PartitionServer {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

const digest = (s: string) => createHash("sha256").update(s).digest();

/** Constant time in the secret's length: both sides are hashed first. */
export function secretMatches(given: string | undefined, secret: string): boolean {
  if (given === undefined) return false;
  return timingSafeEqual(digest(given), digest(secret));
}

function bearer(req: http.IncomingMessage): string | undefined {
  const h = req.headers.authorization;
  return h?.startsWith("Bearer ") ? h.slice("Bearer ".length) : undefined;
}

function errorBody(e: unknown): { code: string; message: string; details: Record<string, unknown> } {
  if (e instanceof DexServiceError)
    return { code: e.code, message: e.message, details: (e.details ?? {}) as Record<string, unknown> };
  // anything else is the partition's fault: the API answers it as it would an in-process failure
  return { code: "INTERNAL", message: "the partition failed to answer", details: {} };
}

export async function startPartitionServer(o: PartitionServerOptions): Promise<PartitionServer> {
  if (o.secret.length === 0) throw new Error("partition server: a secret is required");
  const signTimeoutMs = o.signTimeoutMs ?? 15_000;
  const maxBuffered = o.maxBufferedBytes ?? 64 * 1024 * 1024;
  const svc = o.service;
  const httpServer = http.createServer((req, res) => {
    // no plain HTTP surface but liveness
    if (req.url === "/health" && req.method === "GET") {
      res.writeHead(200, { "content-type": "text/plain" }).end("ok");
      return;
    }
    // the partition process's metrics (runtime/metrics.ts), beside its liveness
    if (metricsResponse(req, res)) return;
    res.writeHead(secretMatches(bearer(req), o.secret) ? 404 : 401).end();
  });
  const wss = new WebSocketServer({ noServer: true, maxPayload: 4 * 1024 * 1024 });
  httpServer.on("upgrade", (req, socket, head) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (url.pathname !== PARTITION_PATH || !secretMatches(bearer(req), o.secret)) {
      socket.end("HTTP/1.1 401 Unauthorized\r\nconnection: close\r\ncontent-length: 0\r\n\r\n");
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      corkers.set(ws, corkPerTick(socket));
      serve(ws);
    });
  });

  let metaText = "";
  const meta = () => ({ markets: svc.listMarkets(), fees: svc.getFees() });
  const connections = new Set<WebSocket>();
  /** per connection: its socket corked for the rest of the tick before a frame (runtime/cork-per-tick.ts) */
  const corkers = new WeakMap<WebSocket, () => void>();
  // the fees follow the chain and the markets may change: callers hear of a change within a second
  const metaTimer = setInterval(() => {
    const m = meta();
    const text = encodeFrame(m);
    if (text === metaText) return;
    metaText = text;
    for (const ws of connections) send(ws, { t: "meta", ...m });
  }, 1000);
  metaTimer.unref();

  function send(ws: WebSocket, frame: unknown): void {
    sendText(ws, encodeFrame(frame));
  }

  function sendText(ws: WebSocket, text: string): void {
    if (ws.readyState !== ws.OPEN) return;
    if (ws.bufferedAmount > maxBuffered) {
      o.logger?.warn(
        { buffered: ws.bufferedAmount },
        "partition: a caller is too slow for the event stream; closing its connection",
      );
      ws.terminate();
      return;
    }
    corkers.get(ws)?.();
    ws.send(text);
  }

  /** the greeted connections: each event of the partition is encoded once for all of them */
  const listening = new Set<WebSocket>();
  const unsubscribe = svc.subscribe((event) => {
    if (listening.size === 0) return;
    const text = encodeFrame({ t: "event", event });
    for (const ws of listening) sendText(ws, text);
  });

  function serve(ws: WebSocket): void {
    connections.add(ws);
    let nextSign = 0;
    const signs = new Map<number, { resolve(sig: Hex): void; reject(e: Error): void; timer: NodeJS.Timeout }>();
    const m = meta();
    metaText = encodeFrame(m);
    send(ws, { t: "hello", index: o.index, domain: svc.settlementDomain, ...m });
    // events from now on, then answered calls: both go out on this one connection in order
    listening.add(ws);

    /** The caller's agent signs the order the service built (its agent key stays in the API process). */
    const remoteAgent = (address: Address, call: number): LocalAccount =>
      toAccount({
        address,
        async signMessage() {
          throw new Error("partition: a remote agent signs orders only");
        },
        async signTransaction() {
          throw new Error("partition: a remote agent signs orders only");
        },
        signTypedData(typedData) {
          return new Promise<Hex>((resolve, reject) => {
            const id = nextSign++;
            const timer = setTimeout(() => {
              signs.delete(id);
              reject(new DexServiceError("SERVICE_UNAVAILABLE", "the API process did not sign the order in time"));
            }, signTimeoutMs);
            signs.set(id, { resolve, reject, timer });
            send(ws, { t: "sign", id, call, typedData });
          });
        },
      }) as LocalAccount;

    async function call(id: number, method: string, raw: unknown): Promise<unknown> {
      if (!Object.hasOwn(METHODS, method)) throw new DexServiceError("INVALID_REQUEST", `unknown method ${method}`);
      const parsed = METHODS[method as MethodName].params.safeParse(raw);
      if (!parsed.success)
        throw new DexServiceError("INVALID_REQUEST", `bad params of ${method}`, {
          issues: parsed.error.issues.slice(0, 5).map((i) => `${i.path.join(".")}: ${i.message}`),
        });
      const p = parsed.data as never as Record<string, never>;
      switch (method as MethodName) {
        case "placeOrder": {
          const w = parsed.data as import("zod").infer<(typeof METHODS)["placeOrder"]["params"]>;
          const req: PlaceOrderRequest =
            w.kind === "signed"
              ? w
              : (() => {
                  const { agentAddress, ...rest } = w;
                  return { ...rest, agent: remoteAgent(agentAddress, id) };
                })();
          try {
            const placed = await svc.placeOrder(req);
            metrics.ordersAccepted.inc("partition");
            return placed;
          } catch (e) {
            metrics.ordersRefused.inc("partition", refusalReason(e));
            throw e;
          }
        }
        case "cancelOrder":
          return svc.cancelOrder(p as never);
        case "cancelOrdersOfApiKey":
          return svc.cancelOrdersOfApiKey(p.apiKeyId, p.account, p.reason);
        case "getOrder":
          return svc.getOrder(p.orderId);
        case "findOrderByClientOrderId":
          return svc.findOrderByClientOrderId(p.account, p.clientOrderId);
        case "listOrders":
          return svc.listOrders(p as never);
        case "getBalances":
          return svc.getBalances(p.account);
        case "getOrderBook":
          return svc.getOrderBook(p.symbol, (p as { depth?: number }).depth);
        case "getRecentTrades":
          return svc.getRecentTrades(p.symbol, p.limit);
        case "getMarketStats":
          return svc.getMarketStats(p.symbol);
        case "prepareAgentApproval":
          return svc.prepareAgentApproval(p.trader, p.agent, p.expiry);
        case "submitAgentApproval":
          await svc.submitAgentApproval(p.approval, p.signature);
          return null;
        case "submitAgentRenouncement":
          return svc.submitAgentRenouncement(p.renouncement, p.signature);
        case "syncChain":
          await o.syncChain?.();
          return null;
      }
    }

    ws.on("message", (data) => {
      let frame;
      try {
        frame = clientFrameSchema.parse(decodeFrame(String(data)));
      } catch {
        ws.close(1008, "bad frame");
        return;
      }
      if (frame.t === "call") {
        const { id, method, params } = frame;
        call(id, method, params).then(
          (result) => send(ws, { t: "result", id, result: result ?? null }),
          (e: unknown) => {
            if (!(e instanceof DexServiceError)) o.logger?.warn({ err: String(e), method }, "partition: a call failed");
            send(ws, { t: "error", id, error: errorBody(e) });
          },
        );
        return;
      }
      const s = signs.get(frame.id);
      if (!s) return;
      signs.delete(frame.id);
      clearTimeout(s.timer);
      if (frame.t === "signed") s.resolve(frame.signature);
      else s.reject(new DexServiceError("AGENT_NOT_APPROVED", `the API process refused to sign: ${frame.message}`));
    });
    ws.on("close", () => {
      connections.delete(ws);
      listening.delete(ws);
      for (const s of signs.values()) {
        clearTimeout(s.timer);
        s.reject(new DexServiceError("SERVICE_UNAVAILABLE", "the API process disconnected"));
      }
      signs.clear();
    });
    ws.on("error", () => undefined);
  }

  await new Promise<void>((resolve, reject) => {
    httpServer.once("error", reject);
    httpServer.listen(o.port, o.host, () => resolve());
  }).catch((e: unknown) => {
    clearInterval(metaTimer);
    unsubscribe();
    throw e;
  });
  const port = (httpServer.address() as AddressInfo).port;
  const url = `http://${o.host.includes(":") ? `[${o.host}]` : o.host}:${port}`;
  o.logger?.info({ url, index: o.index }, "partition transport listening");
  return {
    url,
    port,
    async close() {
      clearInterval(metaTimer);
      unsubscribe();
      for (const ws of connections) ws.terminate();
      wss.close();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}
