// One WebSocket connection of the DEX feed: what the server knows of it, how a message reaches it (a slow
// consumer is cut off), and the admission limits (new connections per minute per address, unauthenticated
// connections per address, authenticated ones per API key).
import type { Duplex } from "node:stream";
import type { Logger } from "pino";
import type { Address } from "viem";
import { WebSocket } from "ws";
import type { Clock } from "../../runtime/clock";
import { corkPerTick } from "../../runtime/cork-per-tick";
import type { ApiKeyRecord } from "../auth/api-keys";
import type { DexWsLimits } from "../dex/config";
import { ApiError, toApiError } from "../errors";

export interface Conn {
  id: number;
  ws: WebSocket;
  ip: string;
  key: ApiKeyRecord | null;
  account: Address | null;
  subs: Set<string>;
  alive: boolean;
  ordersSequence: number;
  /** the connection's TCP socket (the upgrade request's): the sender corks it while a turn's messages are
   *  written, so that they leave in one write; absent: each message is its own write */
  socket?: Duplex;
  /** called before each message: corks `socket` until the end of the current tick (made at the first send) */
  cork?: () => void;
}

/** How the server writes to its connections. */
export interface ConnSender {
  /** a serialized message; a connection whose backlog exceeds the limit is terminated instead */
  send(c: Conn, data: string): void;
  sendJson(c: Conn, msg: unknown): void;
  /** the error body of `err` (any error, mapped by toApiError), with the request's id when it had one */
  sendError(c: Conn, err: unknown, id?: string | number): void;
}

export function createSender(limits: DexWsLimits, logger: Logger): ConnSender {
  function send(c: Conn, data: string): void {
    if (c.ws.readyState !== WebSocket.OPEN) return;
    if (c.ws.bufferedAmount > limits.maxBufferedBytes) {
      // A slow consumer: its backlog would grow without bound. Cut it off; it can reconnect and resync.
      logger.warn({ conn: c.id, buffered: c.ws.bufferedAmount }, "ws slow consumer disconnected");
      c.ws.terminate();
      return;
    }
    // one tick's messages leave in one write; a burst past 64 KiB at once, so that the backlog bound above
    // still measures what the client has not taken (runtime/cork-per-tick.ts)
    (c.cork ??= corkPerTick(c.socket))();
    c.ws.send(data);
  }
  const sendJson = (c: Conn, msg: unknown) => send(c, JSON.stringify(msg));
  const sendError = (c: Conn, err: unknown, id?: string | number) => {
    const e = toApiError(err);
    sendJson(c, { type: "error", ...(id !== undefined ? { id } : {}), ...e.toBody() });
  };
  return { send, sendJson, sendError };
}

const decrement = (m: Map<string, number>, k: string) => {
  const n = (m.get(k) ?? 1) - 1;
  if (n <= 0) m.delete(k);
  else m.set(k, n);
};

/** Connection counts: an unauthenticated connection counts against its address, an authenticated one
 *  against its API key. */
export class Admission {
  private readonly anonymousPerIp = new Map<string, number>();
  private readonly authedPerKey = new Map<string, number>();
  private readonly connectsPerIp = new Map<string, number[]>();

  constructor(
    private readonly limits: DexWsLimits,
    private readonly clock: Clock,
  ) {}

  /** A new connection from `ip` (the attempt counts either way): null when it may stay, else why not. */
  admit(ip: string): ApiError | null {
    const { limits } = this;
    const now = this.clock.now();
    const recent = (this.connectsPerIp.get(ip) ?? []).filter((t) => now - t < 60_000);
    recent.push(now);
    this.connectsPerIp.set(ip, recent);
    if (recent.length > limits.connectionsPerMinutePerIp) {
      return new ApiError("RATE_LIMIT_EXCEEDED", "too many new connections from this address", {
        reason: "connections_per_minute",
        limit: limits.connectionsPerMinutePerIp,
      });
    }
    if ((this.anonymousPerIp.get(ip) ?? 0) >= limits.maxConnectionsPerUser) {
      return new ApiError(
        "RATE_LIMIT_EXCEEDED",
        `at most ${limits.maxConnectionsPerUser} unauthenticated connections per address`,
        {
          reason: "connections_per_user",
          limit: limits.maxConnectionsPerUser,
        },
      );
    }
    return null;
  }

  /** An admitted connection from `ip` is open (unauthenticated). */
  opened(ip: string): void {
    this.anonymousPerIp.set(ip, (this.anonymousPerIp.get(ip) ?? 0) + 1);
  }

  /** `c` authenticated with key `keyId`: it now counts against the key, no longer against its address.
   *  Throws (nothing changes) when the key already holds its maximum of connections. */
  authenticated(c: Conn, keyId: string): void {
    const max = this.limits.maxConnectionsPerUser;
    const n = this.authedPerKey.get(keyId) ?? 0;
    if (n >= max) {
      throw new ApiError("RATE_LIMIT_EXCEEDED", `at most ${max} connections per API key`, {
        reason: "connections_per_user",
        limit: max,
      });
    }
    this.authedPerKey.set(keyId, n + 1);
    decrement(this.anonymousPerIp, c.ip);
  }

  closed(c: Conn): void {
    if (c.key) decrement(this.authedPerKey, c.key.id);
    else decrement(this.anonymousPerIp, c.ip);
  }
}
