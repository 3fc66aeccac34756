// createWsServer: the DEX WebSocket (port 8080, path /ws). Public channels `orderbook` (snapshot, then
// updates of changed levels, size 0 = removed) and `trades` exactly as spec 6.2 / 6.3, each message with
// a per-stream `sequence` and orderbook messages with a `checksum`; a private `orders` channel after
// `auth`; heartbeats; per-user connection and per-connection subscription limits; slow consumers closed.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "pino";
import type { Address } from "viem";
import { WebSocket, WebSocketServer, type RawData } from "ws";
import type { ApiKeyRecord, ApiKeyStore } from "../auth/api-keys";
import type { Authenticator } from "../auth/authenticate";
import { ipAllowed, normalizeIp } from "../auth/ip-allowlist";
import type { DexApiConfig } from "../dex/config";
import { presentFill, presentOrder } from "../dex/present";
import type { DexEvent, DexLevel, MarketSpec, DexService } from "../../pipeline/service";
import { lotsToSize, ticksToPrice } from "../dex/units";
import { ApiError, toApiError, validationError } from "../errors";
import { BookMirror } from "./book-mirror";
import { bookChecksum, type WsLevel } from "./checksum";
import { clientMessage, DEFAULT_WS_DEPTH, WS_AUTH_METHOD, WS_AUTH_PATH, type ClientMessage } from "./messages";

export interface WsServerDeps {
  config: DexApiConfig;
  logger: Logger;
  service: DexService;
  auth: Authenticator;
  /** when given, a key revoked through it closes that key's connections at once, and every heartbeat
   *  closes the connections of keys revoked elsewhere (another process sharing the database) */
  keys?: ApiKeyStore;
}

interface Conn {
  id: number;
  ws: WebSocket;
  ip: string;
  key: ApiKeyRecord | null;
  account: Address | null;
  subs: Set<string>;
  alive: boolean;
  ordersSequence: number;
}

interface BookGroup {
  market: MarketSpec;
  depth: number;
  subscribers: Set<Conn>;
  /** what every subscriber of this group holds: price ticks -> size lots */
  bids: Map<bigint, bigint>;
  asks: Map<bigint, bigint>;
  sequence: number;
}

interface TradeStream {
  subscribers: Set<Conn>;
  sequence: number;
}

export interface DexWsServer {
  readonly server: Server;
  listen(port: number, host?: string): Promise<{ url: string }>;
  /** current connections (for tests and metrics) */
  connectionCount(): number;
  close(): Promise<void>;
}

const CLOSE_TRY_AGAIN = 1013;
/** application close code (4000-4999): the API key this connection authenticated with was revoked */
export const CLOSE_KEY_REVOKED = 4001;

export async function createWsServer(deps: WsServerDeps): Promise<DexWsServer> {
  const { config, logger, service } = deps;
  const limits = config.ws;
  const markets = new Map(service.listMarkets().map((m) => [m.symbol, m]));
  const mirrors = new Map<string, BookMirror>();
  const groups = new Map<string, BookGroup>();
  const tradeStreams = new Map<string, TradeStream>();
  const orderSubscribers = new Map<string, Set<Conn>>();
  const conns = new Set<Conn>();
  const anonymousPerIp = new Map<string, number>();
  const authedPerKey = new Map<string, number>();
  const connectsPerIp = new Map<string, number[]>();
  let nextId = 1;

  // ------------------------------------------------------------------ sending

  function send(c: Conn, data: string): void {
    if (c.ws.readyState !== WebSocket.OPEN) return;
    if (c.ws.bufferedAmount > limits.maxBufferedBytes) {
      // A slow consumer: its backlog would grow without bound. Cut it off; it can reconnect and resync.
      logger.warn({ conn: c.id, buffered: c.ws.bufferedAmount }, "ws slow consumer disconnected");
      c.ws.terminate();
      return;
    }
    c.ws.send(data);
  }
  const sendJson = (c: Conn, msg: unknown) => send(c, JSON.stringify(msg));
  const sendError = (c: Conn, err: unknown, id?: string | number) => {
    const e = toApiError(err);
    sendJson(c, { type: "error", ...(id !== undefined ? { id } : {}), ...e.toBody() });
  };

  // ------------------------------------------------------------------ books

  const wsLevels = (m: MarketSpec, levels: Iterable<[bigint, bigint]>): WsLevel[] =>
    [...levels].map(([p, s]) => [ticksToPrice(m, p), lotsToSize(m, s)]);
  const asMap = (levels: DexLevel[]) => new Map(levels.map((l) => [l.priceTicks, l.sizeLots] as [bigint, bigint]));

  function checksumOf(g: BookGroup): number {
    return bookChecksum(wsLevels(g.market, g.bids), wsLevels(g.market, g.asks), Math.min(g.depth, limits.checksumLevels));
  }

  function diff(prev: Map<bigint, bigint>, next: Map<bigint, bigint>): [bigint, bigint][] {
    const changed: [bigint, bigint][] = [];
    for (const [p, s] of next) if (prev.get(p) !== s) changed.push([p, s]);
    for (const p of prev.keys()) if (!next.has(p)) changed.push([p, 0n]);
    return changed;
  }

  function onBookChanged(mirror: BookMirror): void {
    for (const g of groups.values()) {
      if (g.market.symbol !== mirror.symbol) continue;
      const top = mirror.top(g.depth);
      const bids = asMap(top.bids);
      const asks = asMap(top.asks);
      const changedBids = diff(g.bids, bids);
      const changedAsks = diff(g.asks, asks);
      if (changedBids.length + changedAsks.length === 0) continue;
      g.bids = bids;
      g.asks = asks;
      g.sequence += 1;
      const msg = JSON.stringify({
        type: "orderbook_update",
        symbol: g.market.symbol,
        depth: g.depth,
        bids: wsLevels(g.market, changedBids),
        asks: wsLevels(g.market, changedAsks),
        timestamp: Date.now(),
        sequence: g.sequence,
        checksum: checksumOf(g),
      });
      for (const c of g.subscribers) send(c, msg);
    }
  }

  function onEvent(e: DexEvent): void {
    if (e.kind === "book") {
      mirrors.get(e.symbol)?.apply(e);
    } else if (e.kind === "trade") {
      const stream = tradeStreams.get(e.trade.symbol);
      const m = markets.get(e.trade.symbol);
      if (!stream || !m) return;
      stream.sequence += 1;
      if (stream.subscribers.size === 0) return;
      const msg = JSON.stringify({
        type: "trade",
        symbol: e.trade.symbol,
        price: ticksToPrice(m, e.trade.priceTicks),
        size: lotsToSize(m, e.trade.sizeLots),
        side: e.trade.takerSide,
        timestamp: e.trade.timestampMs,
        trade_id: e.trade.tradeId,
        sequence: stream.sequence,
      });
      for (const c of stream.subscribers) send(c, msg);
    } else {
      const subs = orderSubscribers.get(e.account.toLowerCase());
      const m = markets.get(e.order.symbol);
      if (!subs || !m) return;
      const feeDecimals = e.fill && e.fill.feeToken.toLowerCase() === m.baseToken.toLowerCase() ? m.baseDecimals : m.quoteDecimals;
      for (const c of subs) {
        c.ordersSequence += 1;
        sendJson(c, {
          type: "order",
          order: presentOrder(m, e.order),
          fill: e.fill ? presentFill(m, e.fill, feeDecimals) : null,
          timestamp: Date.now(),
          sequence: c.ordersSequence,
        });
      }
    }
  }

  for (const m of markets.values()) {
    mirrors.set(
      m.symbol,
      new BookMirror(m.symbol, service, onBookChanged, (err) => logger.error({ err, symbol: m.symbol }, "ws book reload failed")),
    );
    tradeStreams.set(m.symbol, { subscribers: new Set(), sequence: 0 });
  }
  const unsubscribe = service.subscribe(onEvent);
  await Promise.all([...mirrors.values()].map((mi) => mi.load()));

  // ------------------------------------------------------------------ client messages

  function market(symbol: string | undefined): MarketSpec {
    if (!symbol) throw new ApiError("INVALID_REQUEST", "symbol is required for this channel", { field: "symbol" });
    const m = markets.get(symbol);
    if (!m) throw new ApiError("INVALID_SYMBOL", `trading pair ${symbol} is not supported`, { symbol });
    return m;
  }

  function subscribe(c: Conn, msg: Extract<ClientMessage, { type: "subscribe" }>): void {
    const id = msg.id;
    if (msg.channel === "orders") {
      if (!c.account) throw new ApiError("UNAUTHORIZED", "authenticate first (type auth) to use the orders channel", { reason: "missing_credentials" });
      const subKey = "orders";
      if (c.subs.has(subKey)) return sendJson(c, { type: "subscribed", channel: "orders", sequence: c.ordersSequence, ...(id !== undefined ? { id } : {}) });
      checkSubscriptionLimit(c);
      c.subs.add(subKey);
      const set = orderSubscribers.get(c.account.toLowerCase()) ?? new Set();
      set.add(c);
      orderSubscribers.set(c.account.toLowerCase(), set);
      return sendJson(c, { type: "subscribed", channel: "orders", sequence: c.ordersSequence, ...(id !== undefined ? { id } : {}) });
    }
    const m = market(msg.symbol);
    if (msg.channel === "trades") {
      const subKey = `trades:${m.symbol}`;
      const stream = tradeStreams.get(m.symbol)!;
      if (!c.subs.has(subKey)) {
        checkSubscriptionLimit(c);
        c.subs.add(subKey);
        stream.subscribers.add(c);
      }
      return sendJson(c, { type: "subscribed", channel: "trades", symbol: m.symbol, sequence: stream.sequence, ...(id !== undefined ? { id } : {}) });
    }
    const depth = msg.depth ?? DEFAULT_WS_DEPTH;
    const subKey = `orderbook:${m.symbol}:${depth}`;
    if (c.subs.has(subKey)) throw new ApiError("INVALID_REQUEST", "already subscribed to this book at this depth", { reason: "duplicate_subscription" });
    checkSubscriptionLimit(c);
    let g = groups.get(subKey);
    if (!g) {
      const top = mirrors.get(m.symbol)!.top(depth);
      g = { market: m, depth, subscribers: new Set(), bids: asMap(top.bids), asks: asMap(top.asks), sequence: 0 };
      groups.set(subKey, g);
    }
    c.subs.add(subKey);
    g.subscribers.add(c);
    sendJson(c, { type: "subscribed", channel: "orderbook", symbol: m.symbol, depth, ...(id !== undefined ? { id } : {}) });
    sendJson(c, {
      type: "orderbook_snapshot",
      symbol: m.symbol,
      depth,
      bids: wsLevels(m, g.bids),
      asks: wsLevels(m, g.asks),
      timestamp: Date.now(),
      sequence: g.sequence,
      checksum: checksumOf(g),
    });
  }

  function checkSubscriptionLimit(c: Conn): void {
    if (c.subs.size >= limits.maxSubscriptionsPerConnection) {
      throw new ApiError("RATE_LIMIT_EXCEEDED", `at most ${limits.maxSubscriptionsPerConnection} subscriptions per connection`, {
        reason: "subscriptions_per_connection",
        limit: limits.maxSubscriptionsPerConnection,
      });
    }
  }

  function dropSubscription(c: Conn, subKey: string): void {
    c.subs.delete(subKey);
    if (subKey === "orders") {
      const set = c.account ? orderSubscribers.get(c.account.toLowerCase()) : undefined;
      set?.delete(c);
      if (set && set.size === 0) orderSubscribers.delete(c.account!.toLowerCase());
    } else if (subKey.startsWith("trades:")) {
      tradeStreams.get(subKey.slice(7))?.subscribers.delete(c);
    } else {
      const g = groups.get(subKey);
      g?.subscribers.delete(c);
      if (g && g.subscribers.size === 0) groups.delete(subKey);
    }
  }

  function unsubscribeMsg(c: Conn, msg: Extract<ClientMessage, { type: "unsubscribe" }>): void {
    let subKey = "orders";
    if (msg.channel !== "orders") {
      const m = market(msg.symbol);
      subKey = msg.channel === "trades" ? `trades:${m.symbol}` : `orderbook:${m.symbol}:${msg.depth ?? DEFAULT_WS_DEPTH}`;
    }
    if (!c.subs.has(subKey)) throw new ApiError("INVALID_REQUEST", "not subscribed", { reason: "not_subscribed" });
    dropSubscription(c, subKey);
    sendJson(c, {
      type: "unsubscribed",
      channel: msg.channel,
      ...(msg.symbol ? { symbol: msg.symbol } : {}),
      ...(msg.channel === "orderbook" ? { depth: msg.depth ?? DEFAULT_WS_DEPTH } : {}),
      ...(msg.id !== undefined ? { id: msg.id } : {}),
    });
  }

  async function authenticate(c: Conn, msg: Extract<ClientMessage, { type: "auth" }>): Promise<void> {
    if (c.key) throw new ApiError("INVALID_REQUEST", "already authenticated", { reason: "already_authenticated" });
    const key = await deps.auth.verifyHmac({
      apiKey: msg.api_key,
      timestamp: String(msg.timestamp),
      signature: msg.signature,
      method: WS_AUTH_METHOD,
      path: WS_AUTH_PATH,
      body: new Uint8Array(0),
    });
    if (!key.permissions.includes("read")) throw new ApiError("FORBIDDEN", "this API key lacks the read permission", { reason: "missing_permission", permission: "read" });
    if (!ipAllowed(key.ipAllowlist, c.ip)) throw new ApiError("FORBIDDEN", "connection from an address outside the key's IP allowlist", { reason: "ip_not_allowed" });
    const n = authedPerKey.get(key.id) ?? 0;
    if (n >= limits.maxConnectionsPerUser) {
      throw new ApiError("RATE_LIMIT_EXCEEDED", `at most ${limits.maxConnectionsPerUser} connections per API key`, {
        reason: "connections_per_user",
        limit: limits.maxConnectionsPerUser,
      });
    }
    // The connection now counts against its key, no longer against its IP.
    authedPerKey.set(key.id, n + 1);
    decrement(anonymousPerIp, c.ip);
    c.key = key;
    c.account = key.owner;
    sendJson(c, { type: "authenticated", account: key.owner, ...(msg.id !== undefined ? { id: msg.id } : {}) });
  }

  async function onMessage(c: Conn, data: RawData, isBinary: boolean): Promise<void> {
    let id: string | number | undefined;
    try {
      if (isBinary) throw new ApiError("INVALID_REQUEST", "send JSON text messages", { reason: "binary_message" });
      let parsed: unknown;
      try {
        parsed = JSON.parse(data.toString());
      } catch {
        throw new ApiError("INVALID_REQUEST", "the message is not valid JSON", { reason: "malformed_json" });
      }
      const rawId = (parsed as { id?: unknown } | null)?.id;
      if (typeof rawId === "string" || typeof rawId === "number") id = rawId;
      const type = (parsed as { type?: unknown } | null)?.type;
      if (typeof type !== "string" || !["subscribe", "unsubscribe", "auth", "ping"].includes(type)) {
        throw new ApiError("INVALID_REQUEST", `unknown message type ${JSON.stringify(type ?? null).slice(0, 40)}`, {
          reason: "unknown_message_type",
          allowed: ["subscribe", "unsubscribe", "auth", "ping"],
        });
      }
      const r = clientMessage.safeParse(parsed);
      if (!r.success) throw validationError(r.error, "message");
      const msg = r.data;
      if (msg.type === "ping") sendJson(c, { type: "pong", timestamp: Date.now(), ...(msg.id !== undefined ? { id: msg.id } : {}) });
      else if (msg.type === "subscribe") subscribe(c, msg);
      else if (msg.type === "unsubscribe") unsubscribeMsg(c, msg);
      else await authenticate(c, msg);
    } catch (err) {
      const e = toApiError(err);
      if (e.status >= 500) logger.error({ err, conn: c.id }, "ws message failed");
      sendError(c, e, id);
    }
  }

  // ------------------------------------------------------------------ connections

  const decrement = (m: Map<string, number>, k: string) => {
    const n = (m.get(k) ?? 1) - 1;
    if (n <= 0) m.delete(k);
    else m.set(k, n);
  };

  function admit(ip: string): ApiError | null {
    const now = Date.now();
    const recent = (connectsPerIp.get(ip) ?? []).filter((t) => now - t < 60_000);
    recent.push(now);
    connectsPerIp.set(ip, recent);
    if (recent.length > limits.connectionsPerMinutePerIp) {
      return new ApiError("RATE_LIMIT_EXCEEDED", "too many new connections from this address", { reason: "connections_per_minute", limit: limits.connectionsPerMinutePerIp });
    }
    if ((anonymousPerIp.get(ip) ?? 0) >= limits.maxConnectionsPerUser) {
      return new ApiError("RATE_LIMIT_EXCEEDED", `at most ${limits.maxConnectionsPerUser} unauthenticated connections per address`, {
        reason: "connections_per_user",
        limit: limits.maxConnectionsPerUser,
      });
    }
    return null;
  }

  const server = createServer((_req, res) => {
    res.writeHead(426, { "content-type": "application/json" });
    res.end(JSON.stringify(new ApiError("INVALID_REQUEST", "WebSocket upgrade required on /ws", { reason: "upgrade_required" }).toBody()));
  });
  const wss = new WebSocketServer({ server, path: WS_AUTH_PATH, maxPayload: limits.maxMessageBytes });

  wss.on("connection", (ws: WebSocket, req: IncomingMessage) => {
    const ip = normalizeIp(req.socket.remoteAddress);
    const c: Conn = { id: nextId++, ws, ip, key: null, account: null, subs: new Set(), alive: true, ordersSequence: 0 };
    const refusal = admit(ip);
    if (refusal) {
      ws.send(JSON.stringify({ type: "error", ...refusal.toBody() }));
      ws.close(CLOSE_TRY_AGAIN, refusal.details.reason as string);
      return;
    }
    anonymousPerIp.set(ip, (anonymousPerIp.get(ip) ?? 0) + 1);
    conns.add(c);
    ws.on("pong", () => {
      c.alive = true;
    });
    ws.on("message", (data, isBinary) => void onMessage(c, data, isBinary));
    ws.on("error", (err) => logger.debug({ err, conn: c.id }, "ws error"));
    ws.on("close", () => {
      conns.delete(c);
      for (const s of [...c.subs]) dropSubscription(c, s);
      if (c.key) decrement(authedPerKey, c.key.id);
      else decrement(anonymousPerIp, c.ip);
    });
  });

  /** Closes every connection of a revoked key: its private order stream must stop with the key. */
  function closeRevoked(keyId: string): void {
    for (const c of conns) {
      if (c.key?.id !== keyId || c.ws.readyState !== WebSocket.OPEN) continue;
      sendError(c, new ApiError("UNAUTHORIZED", "the API key of this connection was revoked", { reason: "api_key_revoked" }));
      for (const sub of [...c.subs]) dropSubscription(c, sub);
      c.ws.close(CLOSE_KEY_REVOKED, "api_key_revoked");
    }
  }
  const stopRevokedListener = deps.keys?.onRevoked(closeRevoked);

  const heartbeat = setInterval(() => {
    const beat = JSON.stringify({ type: "heartbeat", timestamp: Date.now() });
    for (const c of conns) {
      if (!c.alive) {
        c.ws.terminate();
        continue;
      }
      c.alive = false;
      c.ws.ping();
      send(c, beat);
      const key = c.key;
      if (key && deps.keys) {
        deps.keys.findByApiKey(key.apiKey).then(
          (live) => {
            if (!live) closeRevoked(key.id);
          },
          (err) => logger.warn({ err, conn: c.id }, "ws: could not check the connection's API key"),
        );
      }
    }
  }, limits.heartbeatIntervalMs);
  heartbeat.unref();

  return {
    server,
    connectionCount: () => conns.size,
    async listen(port, host = "127.0.0.1") {
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, host, () => resolve());
      });
      const { port: bound } = server.address() as AddressInfo;
      return { url: `ws://${host}:${bound}${WS_AUTH_PATH}` };
    },
    async close() {
      clearInterval(heartbeat);
      stopRevokedListener?.();
      unsubscribe();
      for (const c of conns) c.ws.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

