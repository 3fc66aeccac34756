// createWsServer: the DEX WebSocket (port 8080, path /ws). Public channels `orderbook` (snapshot, then
// updates of changed levels, size 0 = removed) and `trades` exactly as spec 6.2 / 6.3, each message with
// a per-stream `sequence` and orderbook messages with a `checksum`; a private `orders` channel after
// `auth`; heartbeats; per-user connection and per-connection subscription limits; slow consumers closed.
// The parts: connection.ts (a connection, sending, admission limits), channels.ts (subscriptions and the
// fan-out of the service's events), session.ts (client messages and auth); this file wires them to the
// HTTP upgrade, the heartbeat and key revocation.
import net from "node:net";
import { DRAIN_DEADLINE_MS } from "../../runtime/http-drain";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "pino";
import { WebSocket, WebSocketServer } from "ws";
import { systemClock, type Clock } from "../../runtime/clock";
import type { ApiKeyStore } from "../auth/api-keys";
import type { Authenticator } from "../auth/authenticate";
import { clientAddressOf, trustFunction } from "../trust-proxy";
import type { DexApiConfig } from "../dex/config";
import type { DexService } from "../../pipeline/service";
import { ApiError } from "../errors";
import { Channels } from "./channels";
import { Admission, createSender, type Conn, type ConnSender } from "./connection";
import { WS_AUTH_PATH } from "./messages";
import { createMessageHandler } from "./session";
import { createOrderEntry } from "./order-entry";
import { createOrderPlacer, type OrderPlacer } from "../dex/place-order";

export interface WsServerDeps {
  config: DexApiConfig;
  logger: Logger;
  service: DexService;
  auth: Authenticator;
  /** when given, a key revoked through it closes that key's connections at once, and every heartbeat
   *  closes the connections of keys revoked elsewhere (another process sharing the database) */
  keys?: ApiKeyStore;
  /** the messages' timestamps and the connection-rate window (default: the system clock) */
  clock?: Clock;
  /** order entry (`order` messages): share the REST app's placer (one in-flight registry of client order
   *  ids); created when omitted (needs `keys` then: without both, `order` messages are refused) */
  placeOrder?: OrderPlacer;
}

export interface DexWsServer {
  readonly server: Server;
  listen(port: number, host?: string): Promise<{ url: string }>;
  /** current connections (for tests and metrics) */
  connectionCount(): number;
  /** Stops accepting connections and waits (DRAIN_DEADLINE_MS at most) until every order message received
   *  is answered; the connections stay open until close(). */
  drain(): Promise<void>;
  close(): Promise<void>;
}

const CLOSE_TRY_AGAIN = 1013;
/** application close code (4000-4999): the API key this connection authenticated with was revoked */
export const CLOSE_KEY_REVOKED = 4001;

/** What the connection-level parts share. */
interface Hub {
  deps: WsServerDeps;
  /** whose X-Forwarded-For is believed (config.trustProxy) */
  trust: (addr: string, i: number) => boolean;
  clock: Clock;
  out: ConnSender;
  admission: Admission;
  channels: Channels;
  conns: Set<Conn>;
}

/** A plain HTTP request is answered 426; upgrades on /ws become connections. */
function createUpgradeServer(maxMessageBytes: number): { server: Server; wss: WebSocketServer } {
  const server = createServer((_req, res) => {
    res.writeHead(426, { "content-type": "application/json" });
    res.end(
      JSON.stringify(
        new ApiError("INVALID_REQUEST", "WebSocket upgrade required on /ws", { reason: "upgrade_required" }).toBody(),
      ),
    );
  });
  return { server, wss: new WebSocketServer({ server, path: WS_AUTH_PATH, maxPayload: maxMessageBytes }) };
}

/** Admits a new connection (or refuses it with an error message and close code 1013) and wires its events. */
function accept(
  hub: Hub,
  onMessage: ReturnType<typeof createMessageHandler>,
  nextId: () => number,
  ws: WebSocket,
  req: IncomingMessage,
): void {
  const ip = clientAddressOf(req, hub.trust);
  const c: Conn = {
    id: nextId(),
    ws,
    ip,
    key: null,
    account: null,
    subs: new Set(),
    alive: true,
    ordersSequence: 0,
    socket: req.socket,
  };
  const refusal = hub.admission.admit(ip);
  if (refusal) {
    ws.send(JSON.stringify({ type: "error", ...refusal.toBody() }));
    ws.close(CLOSE_TRY_AGAIN, refusal.details.reason as string);
    return;
  }
  hub.admission.opened(ip);
  hub.conns.add(c);
  ws.on("pong", () => {
    c.alive = true;
  });
  ws.on("message", (data, isBinary) => void onMessage(c, data, isBinary));
  ws.on("error", (err) => hub.deps.logger.debug({ err, conn: c.id }, "ws error"));
  ws.on("close", () => {
    hub.conns.delete(c);
    hub.channels.dropAll(c);
    hub.admission.closed(c);
  });
}

/** Closes every connection of a revoked key: its private order stream must stop with the key. */
function closeRevoked(hub: Hub, keyId: string): void {
  for (const c of hub.conns) {
    if (c.key?.id !== keyId || c.ws.readyState !== WebSocket.OPEN) continue;
    hub.out.sendError(
      c,
      new ApiError("UNAUTHORIZED", "the API key of this connection was revoked", { reason: "api_key_revoked" }),
    );
    hub.channels.dropAll(c);
    c.ws.close(CLOSE_KEY_REVOKED, "api_key_revoked");
  }
}

/** Every interval: terminates connections that did not answer the last ping, pings the rest, sends a
 *  heartbeat message and checks each authenticated connection's key is still live. */
function startHeartbeat(hub: Hub): NodeJS.Timeout {
  const { keys, logger } = hub.deps;
  const heartbeat = setInterval(() => {
    const beat = JSON.stringify({ type: "heartbeat", timestamp: hub.clock.now() });
    for (const c of hub.conns) {
      if (!c.alive) {
        c.ws.terminate();
        continue;
      }
      c.alive = false;
      c.ws.ping();
      hub.out.send(c, beat);
      const key = c.key;
      if (key && keys) {
        keys.findByApiKey(key.apiKey).then(
          (live) => {
            if (!live) closeRevoked(hub, key.id);
          },
          (err) => logger.warn({ err, conn: c.id }, "ws: could not check the connection's API key"),
        );
      }
    }
  }, hub.deps.config.ws.heartbeatIntervalMs);
  heartbeat.unref();
  return heartbeat;
}

export async function createWsServer(deps: WsServerDeps): Promise<DexWsServer> {
  const { config, logger, service } = deps;
  const limits = config.ws;
  const clock = deps.clock ?? systemClock;
  const markets = new Map(service.listMarkets().map((m) => [m.symbol, m]));
  const out = createSender(limits, logger);
  const channels = new Channels({ service, markets, limits, logger, clock, out });
  await channels.load();
  const hub: Hub = {
    deps,
    trust: trustFunction(config.trustProxy),
    clock,
    out,
    admission: new Admission(limits, clock),
    channels,
    conns: new Set(),
  };
  const placeOrder =
    deps.placeOrder ??
    (deps.keys
      ? createOrderPlacer({
          service,
          keys: deps.keys,
          now: () => clock.now(),
          exchangeOnlySymbols: deps.config.exchangeOnlySymbols,
        })
      : undefined);
  const orders = placeOrder ? createOrderEntry({ config, placeOrder, out, clock, logger }) : undefined;
  const onMessage = createMessageHandler({
    auth: deps.auth,
    admission: hub.admission,
    channels,
    out,
    clock,
    logger,
    orders,
  });

  const { server, wss } = createUpgradeServer(limits.maxMessageBytes);
  let nextId = 1;
  wss.on("connection", (ws: WebSocket, req: IncomingMessage) => accept(hub, onMessage, () => nextId++, ws, req));
  const stopRevokedListener = deps.keys?.onRevoked((keyId) => closeRevoked(hub, keyId));
  const heartbeat = startHeartbeat(hub);

  return {
    server,
    connectionCount: () => hub.conns.size,
    async listen(port, host = "127.0.0.1") {
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, host, () => resolve());
      });
      const { port: bound } = server.address() as AddressInfo;
      return { url: `ws://${host}:${bound}${WS_AUTH_PATH}` };
    },
    async drain() {
      // net.Server's close: stop listening, keep the open connections (http.Server's would drop idle ones)
      if (server.listening) net.Server.prototype.close.call(server);
      const deadline = performance.now() + DRAIN_DEADLINE_MS;
      const busy = () => orders !== undefined && [...hub.conns].some((c) => orders.inFlight(c) > 0);
      while (busy() && performance.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    },
    async close() {
      clearInterval(heartbeat);
      stopRevokedListener?.();
      channels.close();
      for (const c of hub.conns) c.ws.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
