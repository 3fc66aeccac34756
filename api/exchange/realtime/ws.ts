// The exchange API's legacy WebSocket ({ws_url} = ws://<exchange api host>/ws, spec 4.D, 9: legacy, new
// integrations use SSE): the same events as SSE, as JSON messages {type, id, data}. Authentication (spec
// 5.1 leaves it open): `Authorization: Bearer <identity token>` on the upgrade, or, for browsers, a first
// message {type:"auth", token} within `authTimeoutMs`. Client messages:
//   {type:"auth", token}
//   {type:"subscribe", subscribe:"quote:AAPL,book:AAPL", lastEventId?}   -> {type:"subscribed", topics}
//   {type:"unsubscribe", subscribe:"quote:AAPL"}                         -> {type:"unsubscribed", topics}
//   {type:"ping"}                                                        -> {type:"pong"}
// Server messages: {type:"quote"|"book"|"order"|"settlement", id, data}, {type:"gap", topic, after},
// {type:"authenticated"}, {type:"error", error:{code,message,details}}. Limits: 5 connections per user
// (the sixth: HTTP 429 on a header-authenticated upgrade, else an error message and close 1008), 50
// subscriptions per connection, 16 KiB per message; a protocol ping every heartbeatMs, a connection that
// did not answer the previous one is closed. Before authentication, `unauthenticatedPerAddress` open
// connections per client address (the next upgrade without an Authorization header: HTTP 429). A
// connection ends when its identity token expires: {type:"error", error:{code:"UNAUTHORIZED", details:
// {reason:"token_expired"}}}, then close 1008 "token_expired" (the client reconnects with a fresh token).
import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import { z } from "zod";
import { toHttpError } from "../../errors";
import { ExchangeApiError } from "../errors";
import type { IdentityClaims, IdentityVerifier } from "../identity-tokens";
import { userTopic, type RealtimeEvent, type RealtimeHub, type Subscriber } from "./hub";
import { bearerOf, userKeyOf, type RealtimeLimits } from "./sse";
import { connectionCounter, parseLastEventId, parseSubscribe } from "./topics";

/** close code and reason of a connection whose identity token expired */
export const TOKEN_EXPIRED_CLOSE = { code: 1008, reason: "token_expired" } as const;

export const LEGACY_WS_PATH = "/ws";
export const MAX_WS_MESSAGE_BYTES = 16 * 1024;

const clientMessage = z.discriminatedUnion("type", [
  z.object({ type: z.literal("auth"), token: z.string().min(1).max(8192) }).strict(),
  z
    .object({
      type: z.literal("subscribe"),
      subscribe: z.string(),
      lastEventId: z.union([z.string(), z.number().int().nonnegative()]).optional(),
    })
    .strict(),
  z.object({ type: z.literal("unsubscribe"), subscribe: z.string() }).strict(),
  z.object({ type: z.literal("ping") }).strict(),
]);

/** the spec body of any failure (an unexpected one: INTERNAL_ERROR, never its text) */
const errorBody = (err: unknown) => toHttpError(err);

export interface LegacyWsDeps {
  hub: RealtimeHub;
  identity: IdentityVerifier;
  limits: RealtimeLimits;
  /** ms a connection without the Authorization header has to send {type:"auth"} (default 10 s) */
  authTimeoutMs?: number;
  /** the client's address of an upgrade request (the exchange API's `trust proxy` applied) */
  clientAddress: (req: IncomingMessage) => string;
  now?: () => number;
}

export function createLegacyWs(deps: LegacyWsDeps) {
  const server = new LegacyWsServer(deps);
  return {
    /** Serves upgrades of LEGACY_WS_PATH on `server` (other paths are left to other listeners, or refused). */
    attach: (http: Server): void => server.attach(http),
    close: (): Promise<void> => server.close(),
  };
}

type ClientMessage = z.infer<typeof clientMessage>;

/** One client message, or INVALID_REQUEST. */
function parseClientMessage(text: string, isBinary: boolean): ClientMessage {
  if (isBinary) throw new ExchangeApiError("INVALID_REQUEST", "JSON text messages only");
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ExchangeApiError("INVALID_REQUEST", "a message is one JSON object");
  }
  const parsed = clientMessage.safeParse(json);
  if (!parsed.success)
    throw new ExchangeApiError("INVALID_REQUEST", "unknown or malformed message", {
      issues: parsed.error.issues.slice(0, 5).map((i) => ({ path: i.path.join("."), message: i.message })),
    });
  return parsed.data;
}

function refuseUpgrade(socket: Duplex, err: unknown): void {
  const { status, body } = errorBody(err);
  const text = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${status} ${status === 401 ? "Unauthorized" : status === 429 ? "Too Many Requests" : "Error"}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
  );
}

/** What every connection shares: the hub, the limits, the identity verifier and the per-user counter. */
interface WsShared {
  deps: LegacyWsDeps;
  connections: ReturnType<typeof connectionCounter>;
  now: () => number;
  live: Set<WebSocket>;
}

/** The upgrades: with a bearer token (verified before the upgrade) or anonymous (counted per address). */
class LegacyWsServer {
  private readonly shared: WsShared;
  private readonly unauthenticated: ReturnType<typeof connectionCounter>;
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: MAX_WS_MESSAGE_BYTES });

  constructor(private readonly deps: LegacyWsDeps) {
    this.shared = {
      deps,
      connections: connectionCounter(deps.limits.connectionsPerUser),
      now: deps.now ?? Date.now,
      live: new Set(),
    };
    this.unauthenticated = connectionCounter(deps.limits.unauthenticatedPerAddress, "address");
  }

  attach(server: Server): void {
    server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      const path = (req.url ?? "").split("?")[0];
      if (path !== LEGACY_WS_PATH) {
        if (server.listenerCount("upgrade") === 1)
          refuseUpgrade(socket, new ExchangeApiError("ROUTE_NOT_FOUND", `no route ${path.slice(0, 200)}`));
        return;
      }
      socket.on("error", () => socket.destroy());
      const header = req.headers.authorization;
      if (header === undefined) this.upgradeAnonymous(req, socket, head);
      else void this.upgradeWithBearer(req, socket, head, header);
    });
  }

  async close(): Promise<void> {
    for (const ws of this.shared.live) ws.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  private upgradeAnonymous(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    let releaseAnonymous: () => void;
    try {
      releaseAnonymous = this.unauthenticated.acquire(this.deps.clientAddress(req), "unauthenticated WebSocket");
    } catch (err) {
      refuseUpgrade(socket, err);
      return;
    }
    socket.once("close", releaseAnonymous);
    this.wss.handleUpgrade(req, socket, head, (ws) => new WsConnection(this.shared, ws, null, releaseAnonymous));
  }

  private async upgradeWithBearer(req: IncomingMessage, socket: Duplex, head: Buffer, header: string): Promise<void> {
    let release: (() => void) | undefined;
    try {
      const identity = await this.deps.identity.verify(bearerOf(header));
      release = this.shared.connections.acquire(userKeyOf(identity), "WebSocket");
      const r = release;
      this.wss.handleUpgrade(
        req,
        socket,
        head,
        (ws) => new WsConnection(this.shared, ws, { identity, release: r }, () => {}),
      );
    } catch (err) {
      release?.();
      refuseUpgrade(socket, err);
    }
  }
}

/** One connection: its identity (from the upgrade or an auth message), its topics, its timers. */
class WsConnection {
  private identity: IdentityClaims | null;
  private release: (() => void) | null;
  private expiry: NodeJS.Timeout | undefined;
  private readonly authTimer: NodeJS.Timeout | null;
  private readonly topics = new Set<string>();
  private readonly sub: Subscriber = {
    send: (e: RealtimeEvent) => this.send({ type: e.event, id: e.id, data: e.data }),
  };

  constructor(
    private readonly shared: WsShared,
    private readonly ws: WebSocket,
    pre: { identity: IdentityClaims; release: () => void } | null,
    private readonly releaseAnonymous: () => void,
  ) {
    const { deps, live } = shared;
    live.add(ws);
    this.identity = pre?.identity ?? null;
    this.release = pre?.release ?? null;
    if (this.identity) this.start(this.identity);
    this.authTimer = this.identity
      ? null
      : setTimeout(() => {
          this.sendError(
            new ExchangeApiError("UNAUTHORIZED", 'authenticate first: {type:"auth", token}', {
              reason: "auth_timeout",
            }),
          );
          ws.close(1008, "unauthorized");
        }, deps.authTimeoutMs ?? 10_000);
    let alive = true;
    const heartbeat = setInterval(() => {
      if (!alive) return ws.terminate();
      alive = false;
      ws.ping();
    }, deps.limits.heartbeatMs);
    ws.on("pong", () => (alive = true));
    let queue = Promise.resolve();
    ws.on("message", (raw, isBinary) => {
      queue = queue.then(() => this.handle(parseClientMessage(raw.toString(), isBinary))).catch(this.sendError);
    });
    ws.on("close", () => {
      live.delete(ws);
      clearInterval(heartbeat);
      if (this.authTimer) clearTimeout(this.authTimer);
      if (this.expiry) clearTimeout(this.expiry);
      releaseAnonymous();
      deps.hub.unsubscribe(this.sub);
      this.release?.();
    });
  }

  private send(msg: unknown): void {
    const { ws } = this;
    if (ws.readyState !== ws.OPEN) return;
    if (ws.bufferedAmount > this.shared.deps.limits.maxBufferedBytes) {
      ws.terminate();
      return;
    }
    ws.send(JSON.stringify(msg));
  }

  private readonly sendError = (err: unknown): void => this.send({ type: "error", error: errorBody(err).body.error });

  /** The user's own events, until the token's end ends the connection (as it ends an SSE stream). */
  private start(identity: IdentityClaims): void {
    this.shared.deps.hub.subscribe(this.sub, [
      userTopic({ issuer: identity.issuer, orgId: identity.owner, userId: identity.sub }),
    ]);
    this.expiry = setTimeout(
      () => {
        this.sendError(
          new ExchangeApiError("UNAUTHORIZED", "the identity token expired: reconnect with a fresh one", {
            reason: TOKEN_EXPIRED_CLOSE.reason,
          }),
        );
        this.ws.close(TOKEN_EXPIRED_CLOSE.code, TOKEN_EXPIRED_CLOSE.reason);
      },
      Math.min(2 ** 31 - 1, Math.max(0, identity.exp * 1000 - this.shared.now())),
    );
  }

  private async handle(m: ClientMessage): Promise<void> {
    if (m.type === "ping") return this.send({ type: "pong" });
    if (m.type === "auth") return this.authenticate(m.token);
    if (!this.identity)
      throw new ExchangeApiError("UNAUTHORIZED", 'authenticate first: {type:"auth", token}', {
        reason: "not_authenticated",
      });
    if (m.type === "subscribe") return this.subscribe(m.subscribe, m.lastEventId);
    this.unsubscribe(m.subscribe);
  }

  private async authenticate(token: string): Promise<void> {
    if (this.identity) throw new ExchangeApiError("INVALID_REQUEST", "already authenticated");
    const claims = await this.shared.deps.identity.verify(token);
    let release: () => void;
    try {
      release = this.shared.connections.acquire(userKeyOf(claims), "WebSocket");
    } catch (err) {
      this.sendError(err);
      this.ws.close(1008, "too many connections");
      return;
    }
    this.release = release;
    this.identity = claims;
    if (this.authTimer) clearTimeout(this.authTimer);
    if (this.ws.readyState !== this.ws.OPEN) return release();
    this.releaseAnonymous();
    this.start(claims);
    this.send({ type: "authenticated" });
  }

  private subscribe(list: string, lastEventId: string | number | undefined): void {
    const { hub, limits } = this.shared.deps;
    const { topics } = this;
    const fresh = parseSubscribe(
      list,
      (id) => hub.isMarketTopic(`quote:${id}`),
      limits.subscriptionsPerConnection,
      0,
    ).filter((t) => !topics.has(t));
    if (topics.size + fresh.length > limits.subscriptionsPerConnection)
      throw new ExchangeApiError(
        "INVALID_REQUEST",
        `at most ${limits.subscriptionsPerConnection} subscriptions per connection`,
        {
          field: "subscribe",
          limit: limits.subscriptionsPerConnection,
          requested: topics.size + fresh.length,
        },
      );
    const afterId = parseLastEventId(lastEventId === undefined ? undefined : String(lastEventId));
    for (const t of fresh) topics.add(t);
    this.send({ type: "subscribed", topics: [...topics] });
    const { replay, gaps } = hub.subscribe(this.sub, fresh, afterId);
    for (const g of gaps) this.send({ type: "gap", topic: g.topic, after: g.after });
    for (const e of replay) this.sub.send(e);
  }

  private unsubscribe(list: string): void {
    const { hub } = this.shared.deps;
    const gone = parseSubscribe(list, (id) => hub.isMarketTopic(`quote:${id}`), Number.MAX_SAFE_INTEGER).filter((t) =>
      this.topics.has(t),
    );
    for (const t of gone) this.topics.delete(t);
    hub.unsubscribe(this.sub, gone);
    this.send({ type: "unsubscribed", topics: gone });
  }
}
