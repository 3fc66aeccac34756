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
  const { hub, limits } = deps;
  const connections = connectionCounter(limits.connectionsPerUser);
  const unauthenticated = connectionCounter(limits.unauthenticatedPerAddress, "address");
  const now = deps.now ?? Date.now;
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_WS_MESSAGE_BYTES });
  const live = new Set<WebSocket>();

  function refuseUpgrade(socket: Duplex, err: unknown): void {
    const { status, body } = errorBody(err);
    const text = JSON.stringify(body);
    socket.end(
      `HTTP/1.1 ${status} ${status === 401 ? "Unauthorized" : status === 429 ? "Too Many Requests" : "Error"}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
    );
  }

  function serve(
    ws: WebSocket,
    pre: { identity: IdentityClaims; release: () => void } | null,
    releaseAnonymous: () => void,
  ): void {
    live.add(ws);
    let identity = pre?.identity ?? null;
    let release = pre?.release ?? null;
    let expiry: NodeJS.Timeout | undefined;
    const topics = new Set<string>();
    let alive = true;
    const send = (msg: unknown) => {
      if (ws.readyState !== ws.OPEN) return;
      if (ws.bufferedAmount > limits.maxBufferedBytes) {
        ws.terminate();
        return;
      }
      ws.send(JSON.stringify(msg));
    };
    const sendError = (err: unknown) => send({ type: "error", error: errorBody(err).body.error });
    const sub: Subscriber = { send: (e: RealtimeEvent) => send({ type: e.event, id: e.id, data: e.data }) };
    const ownTopic = () => userTopic({ issuer: identity!.issuer, orgId: identity!.owner, userId: identity!.sub });
    // the token's end ends the connection, as it ends an SSE stream
    const expireAt = (exp: number) => {
      expiry = setTimeout(
        () => {
          sendError(
            new ExchangeApiError("UNAUTHORIZED", "the identity token expired: reconnect with a fresh one", {
              reason: TOKEN_EXPIRED_CLOSE.reason,
            }),
          );
          ws.close(TOKEN_EXPIRED_CLOSE.code, TOKEN_EXPIRED_CLOSE.reason);
        },
        Math.min(2 ** 31 - 1, Math.max(0, exp * 1000 - now())),
      );
    };
    if (identity) {
      hub.subscribe(sub, [ownTopic()]);
      expireAt(identity.exp);
    }
    const authTimer = identity
      ? null
      : setTimeout(() => {
          sendError(
            new ExchangeApiError("UNAUTHORIZED", 'authenticate first: {type:"auth", token}', {
              reason: "auth_timeout",
            }),
          );
          ws.close(1008, "unauthorized");
        }, deps.authTimeoutMs ?? 10_000);
    const heartbeat = setInterval(() => {
      if (!alive) return ws.terminate();
      alive = false;
      ws.ping();
    }, limits.heartbeatMs);
    ws.on("pong", () => (alive = true));
    let queue = Promise.resolve();
    ws.on("message", (raw, isBinary) => {
      queue = queue.then(() => handle(raw.toString(), isBinary)).catch(sendError);
    });
    ws.on("close", () => {
      live.delete(ws);
      clearInterval(heartbeat);
      if (authTimer) clearTimeout(authTimer);
      if (expiry) clearTimeout(expiry);
      releaseAnonymous();
      hub.unsubscribe(sub);
      release?.();
    });

    async function handle(text: string, isBinary: boolean): Promise<void> {
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
      const m = parsed.data;
      if (m.type === "ping") return send({ type: "pong" });
      if (m.type === "auth") {
        if (identity) throw new ExchangeApiError("INVALID_REQUEST", "already authenticated");
        const claims = await deps.identity.verify(m.token);
        try {
          release = connections.acquire(userKeyOf(claims), "WebSocket");
        } catch (err) {
          sendError(err);
          ws.close(1008, "too many connections");
          return;
        }
        identity = claims;
        if (authTimer) clearTimeout(authTimer);
        if (ws.readyState !== ws.OPEN) return release();
        releaseAnonymous();
        hub.subscribe(sub, [ownTopic()]);
        expireAt(claims.exp);
        return send({ type: "authenticated" });
      }
      if (!identity)
        throw new ExchangeApiError("UNAUTHORIZED", 'authenticate first: {type:"auth", token}', {
          reason: "not_authenticated",
        });
      if (m.type === "subscribe") {
        const fresh = parseSubscribe(
          m.subscribe,
          (id) => hub.isMarketTopic(`quote:${id}`),
          limits.subscriptionsPerConnection,
          0,
        ).filter((t) => !topics.has(t));
        if (topics.size + fresh.length > limits.subscriptionsPerConnection)
          throw new ExchangeApiError(
            "INVALID_REQUEST",
            `at most ${limits.subscriptionsPerConnection} subscriptions per connection`,
            { field: "subscribe", limit: limits.subscriptionsPerConnection, requested: topics.size + fresh.length },
          );
        const afterId = parseLastEventId(m.lastEventId === undefined ? undefined : String(m.lastEventId));
        for (const t of fresh) topics.add(t);
        send({ type: "subscribed", topics: [...topics] });
        const { replay, gaps } = hub.subscribe(sub, fresh, afterId);
        for (const g of gaps) send({ type: "gap", topic: g.topic, after: g.after });
        for (const e of replay) sub.send(e);
        return;
      }
      const gone = parseSubscribe(
        m.subscribe,
        (id) => hub.isMarketTopic(`quote:${id}`),
        Number.MAX_SAFE_INTEGER,
      ).filter((t) => topics.has(t));
      for (const t of gone) topics.delete(t);
      hub.unsubscribe(sub, gone);
      send({ type: "unsubscribed", topics: gone });
    }
  }

  return {
    /** Serves upgrades of LEGACY_WS_PATH on `server` (other paths are left to other listeners, or refused). */
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
        if (header === undefined) {
          let releaseAnonymous: () => void;
          try {
            releaseAnonymous = unauthenticated.acquire(deps.clientAddress(req), "unauthenticated WebSocket");
          } catch (err) {
            refuseUpgrade(socket, err);
            return;
          }
          socket.once("close", releaseAnonymous);
          wss.handleUpgrade(req, socket, head, (ws) => serve(ws, null, releaseAnonymous));
          return;
        }
        void (async () => {
          let release: (() => void) | undefined;
          try {
            const identity = await deps.identity.verify(bearerOf(header));
            release = connections.acquire(userKeyOf(identity), "WebSocket");
            const r = release;
            wss.handleUpgrade(req, socket, head, (ws) => serve(ws, { identity, release: r }, () => {}));
          } catch (err) {
            release?.();
            refuseUpgrade(socket, err);
          }
        })();
      });
    },
    async close(): Promise<void> {
      for (const ws of live) ws.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
