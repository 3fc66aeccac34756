// GET /api/realtime (spec 4.D, 6.1): Server-Sent Events through better-sse. Authorization: Bearer identity
// token (verified as every exchange API request is: issuer discovery and JWKS); `subscribe` as in
// topics.ts; Last-Event-ID (header, or `lastEventId` in the query for clients that cannot set headers)
// resumes after that event. Refusals are answered before the stream starts, as JSON error bodies: 401,
// 400 / 404 (bad subscribe), 429 (a user's sixth connection). A comment heartbeat every `heartbeatMs`; the
// stream ends when the identity token expires (the client reconnects with a fresh one and Last-Event-ID).
import { Router, type Request, type Response } from "express";
import { createSession } from "better-sse";
import { unauthorized } from "../errors";
import type { IdentityVerifier } from "../identity-tokens";
import { userTopic, type RealtimeEvent, type RealtimeHub, type Subscriber } from "./hub";
import {
  connectionCounter,
  MAX_CONNECTIONS_PER_USER,
  MAX_UNAUTHENTICATED_PER_ADDRESS,
  MAX_SUBSCRIPTIONS,
  parseLastEventId,
  parseSubscribe,
} from "./topics";

export const REALTIME_PATH = "/api/realtime";

export interface RealtimeLimits {
  connectionsPerUser: number;
  /** legacy WebSocket: connections one client address holds before they authenticate */
  unauthenticatedPerAddress: number;
  subscriptionsPerConnection: number;
  /** ms between heartbeats (SSE comments; WebSocket pings) */
  heartbeatMs: number;
  /** a connection whose unsent output passes this many bytes is closed (a client too slow to follow);
   *  it reconnects with Last-Event-ID */
  maxBufferedBytes: number;
  /** reconnection delay suggested to SSE clients (the `retry:` field), ms */
  retryMs: number;
}

export const DEFAULT_REALTIME_LIMITS: RealtimeLimits = {
  connectionsPerUser: MAX_CONNECTIONS_PER_USER,
  unauthenticatedPerAddress: MAX_UNAUTHENTICATED_PER_ADDRESS,
  subscriptionsPerConnection: MAX_SUBSCRIPTIONS,
  heartbeatMs: 15_000,
  maxBufferedBytes: 1 << 20,
  retryMs: 1_000,
};

export function bearerOf(header: string | string[] | undefined): string {
  if (header === undefined || header === "")
    throw unauthorized("missing_authorization", "the authorization header is required");
  const m = typeof header === "string" ? /^Bearer +(\S+)$/i.exec(header.trim()) : null;
  if (!m) throw unauthorized("malformed_authorization", "authorization: Bearer <token>");
  return m[1];
}

export function userKeyOf(i: { issuer: string; owner: string; sub: string }): string {
  return `${i.issuer}|${i.owner}|${i.sub}`;
}

export function createSseRouter(deps: {
  hub: RealtimeHub;
  identity: IdentityVerifier;
  limits: RealtimeLimits;
  now?: () => number;
}): Router {
  const { hub, limits } = deps;
  const now = deps.now ?? Date.now;
  const connections = connectionCounter(limits.connectionsPerUser);
  const r = Router();
  r.get(REALTIME_PATH, async (req: Request, res: Response) => {
    const identity = await deps.identity.verify(bearerOf(req.headers.authorization));
    const topics = parseSubscribe(
      req.query.subscribe,
      (id) => hub.isMarketTopic(`quote:${id}`),
      limits.subscriptionsPerConnection,
    );
    const afterId = parseLastEventId(req.headers["last-event-id"] ?? req.query.lastEventId);
    const release = connections.acquire(userKeyOf(identity), "SSE");
    let sub: Subscriber | undefined;
    let expiry: NodeJS.Timeout | undefined;
    const end = () => {
      release();
      if (sub) hub.unsubscribe(sub);
      if (expiry) clearTimeout(expiry);
    };
    try {
      const session = await createSession(req, res, {
        keepAlive: limits.heartbeatMs,
        retry: limits.retryMs,
        trustClientEventId: false,
      });
      res.once("close", end);
      const send = (e: RealtimeEvent) => {
        if (res.writableLength > limits.maxBufferedBytes) {
          res.destroy();
          return;
        }
        if (session.isConnected) session.push(e.data, e.event, String(e.id));
      };
      sub = { send };
      const { replay, gaps } = hub.subscribe(
        sub,
        [...topics, userTopic({ issuer: identity.issuer, orgId: identity.owner, userId: identity.sub })],
        afterId,
      );
      for (const g of gaps)
        if (g.topic !== userTopic({ issuer: identity.issuer, orgId: identity.owner, userId: identity.sub }))
          session.push({ topic: g.topic, after: String(g.after) }, "gap");
      for (const e of replay) send(e);
      // the token's end ends the stream (a client holding an expired token receives nothing more)
      expiry = setTimeout(() => res.end(), Math.min(2 ** 31 - 1, Math.max(0, identity.exp * 1000 - now())));
      expiry.unref?.();
    } catch (err) {
      end();
      throw err;
    }
  });
  return r;
}
