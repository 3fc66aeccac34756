// One API process's connection to one matcher partition (protocol.ts): calls, the partition's events, and the
// signatures an API-key placement needs from the caller's agent key. Reconnects by itself; while the partition
// is unreachable every call fails at once with SERVICE_UNAVAILABLE (retryable).
import WebSocket from "ws";
import type { Hex, LocalAccount } from "viem";
import { getDomainSeparator, ORDER_TYPES } from "../../sdk/eip712";
import { createOrderDigester } from "../intake/order-digest";
import type { Order } from "../order";
import { DexServiceError, type DexEvent, type DexFees, type DexService, type MarketSpec } from "../service";
import {
  decodeFrame,
  encodeFrame,
  METHODS,
  orderMessageSchema,
  PARTITION_PATH,
  serverFrameSchema,
  type MethodName,
} from "./protocol";
import { corkPerTick } from "../../runtime/cork-per-tick";
import type { z } from "zod";

export type Result<M extends MethodName> = z.infer<(typeof METHODS)[M]["result"]>;

export interface PartitionClientOptions {
  /** http(s)://host:port of the partition */
  url: string;
  secret: string;
  /** a call unanswered this long fails with SERVICE_UNAVAILABLE (default 30 s) */
  callTimeoutMs?: number;
  logger?: { warn(o: object, m?: string): void; info(o: object, m?: string): void };
}

export interface PartitionHello {
  index: number;
  domain: DexService["settlementDomain"];
  markets: MarketSpec[];
  fees: DexFees;
}

export interface PartitionClient {
  readonly url: string;
  /** connected and greeted */
  readonly up: boolean;
  /** the last greeting's facts (markets and fees as last told); null before the first connection */
  readonly hello: PartitionHello | null;
  /** resolves at the first greeting; rejects after `timeoutMs` without one */
  ready(timeoutMs: number): Promise<PartitionHello>;
  call<M extends MethodName>(
    method: M,
    params: z.input<(typeof METHODS)[M]["params"]>,
    agent?: LocalAccount,
  ): Promise<Result<M>>;
  onEvent(listener: (e: DexEvent) => void): () => void;
  close(): void;
}

/** What reaches the API's client: no internal address (the connection's loss is logged with it). `sent`: the call
 *  left this process (its answer was lost: a placement may have happened) or not (nothing happened there). */
const unavailable = (_url: string, why: string, sent: boolean) =>
  new DexServiceError("SERVICE_UNAVAILABLE", `the market's matcher partition is unavailable (${why})`, { sent });

export function connectPartition(o: PartitionClientOptions): PartitionClient {
  const wsUrl = o.url.replace(/^http/, "ws") + PARTITION_PATH;
  const callTimeoutMs = o.callTimeoutMs ?? 30_000;
  let ws: WebSocket | null = null;
  /** per connection: its socket corked for the rest of the tick before a frame (runtime/cork-per-tick.ts) */
  const corkers = new WeakMap<WebSocket, () => void>();
  const write = (sock: WebSocket, text: string) => {
    corkers.get(sock)?.();
    sock.send(text);
  };
  let up = false;
  let closed = false;
  let hello: PartitionHello | null = null;
  let nextId = 0;
  let backoff = 100;
  const pending = new Map<
    number,
    {
      method: MethodName;
      resolve(v: unknown): void;
      reject(e: Error): void;
      timer: NodeJS.Timeout;
      agent?: LocalAccount;
      trader?: string;
      symbol?: string;
      side?: string;
    }
  >();
  const listeners = new Set<(e: DexEvent) => void>();
  const greeted = new Set<(h: PartitionHello) => void>();
  /** the order digester of the partition's domain (made again if a greeting names another) */
  let digest: { key: string; of: (o: Order) => Hex } | null = null;
  const digester = (d: PartitionHello["domain"]) => {
    const key = `${d.name}|${d.version}|${d.chainId}|${d.verifyingContract.toLowerCase()}`;
    if (digest?.key !== key) digest = { key, of: createOrderDigester(getDomainSeparator(d)) };
    return digest.of;
  };
  let retry: NodeJS.Timeout | null = null;

  function failAll(why: string): void {
    for (const p of pending.values()) {
      clearTimeout(p.timer);
      p.reject(unavailable(o.url, why, true));
    }
    pending.clear();
  }

  function connect(): void {
    if (closed) return;
    const sock = new WebSocket(wsUrl, {
      headers: { authorization: `Bearer ${o.secret}` },
      maxPayload: 64 * 1024 * 1024,
    });
    ws = sock;
    // one tick's frames in one write (runtime/cork-per-tick.ts): the upgrade response's socket is the connection's
    sock.on("upgrade", (res) => corkers.set(sock, corkPerTick(res.socket)));
    sock.on("message", (data) => onFrame(sock, String(data)));
    sock.on("unexpected-response", (_req, res) => {
      o.logger?.warn({ partition: o.url, status: res.statusCode }, "partition refused the connection");
      sock.terminate();
    });
    sock.on("error", () => undefined);
    sock.on("close", () => {
      if (ws === sock) ws = null;
      if (up) o.logger?.warn({ partition: o.url }, "partition connection lost; reconnecting");
      up = false;
      failAll("connection lost");
      if (!closed) {
        retry = setTimeout(connect, backoff);
        backoff = Math.min(backoff * 2, 2_000);
      }
    });
  }

  function onFrame(sock: WebSocket, text: string): void {
    let f;
    try {
      f = serverFrameSchema.parse(decodeFrame(text));
    } catch (e) {
      o.logger?.warn({ partition: o.url, err: String(e).slice(0, 300) }, "partition sent a bad frame; reconnecting");
      sock.terminate();
      return;
    }
    switch (f.t) {
      case "hello":
        hello = { index: f.index, domain: f.domain, markets: f.markets, fees: f.fees };
        up = true;
        backoff = 100;
        for (const g of greeted) g(hello);
        greeted.clear();
        return;
      case "meta":
        if (hello) hello = { ...hello, markets: f.markets, fees: f.fees };
        return;
      case "event":
        for (const l of listeners) {
          try {
            l(f.event as DexEvent);
          } catch {
            /* the listener's problem */
          }
        }
        return;
      case "result":
      case "error": {
        const p = pending.get(f.id);
        if (!p) return;
        pending.delete(f.id);
        clearTimeout(p.timer);
        if (f.t === "error") {
          const { code, message, details } = f.error;
          p.reject(
            code === "INTERNAL"
              ? new Error(`partition ${o.url}: ${message}`)
              : new DexServiceError(code, message, details),
          );
          return;
        }
        const r = METHODS[p.method].result.safeParse(f.result);
        if (r.success) p.resolve(r.data);
        else p.reject(new Error(`partition ${o.url}: bad result of ${p.method}: ${r.error.issues[0]?.message}`));
        return;
      }
      case "sign": {
        const p = pending.get(f.call);
        const td = f.typedData;
        const msg = td.message as Record<string, unknown>;
        // the agent signs only an Order of the placement's trader under the partition's own domain
        const refuse = (why: string) => write(sock, encodeFrame({ t: "signRefused", id: f.id, message: why }));
        if (!p?.agent || !hello) return refuse("no placement awaits a signature");
        if (
          td.primaryType !== "Order" ||
          td.domain.verifyingContract.toLowerCase() !== hello.domain.verifyingContract.toLowerCase() ||
          td.domain.chainId !== hello.domain.chainId
        ) {
          return refuse("not an order of this exchange");
        }
        if (typeof msg.trader !== "string" || msg.trader.toLowerCase() !== p.trader)
          return refuse("not the placement's trader");
        const m = hello.markets.find((x) => x.symbol === p.symbol);
        const same = (a: unknown, b: string) => typeof a === "string" && a.toLowerCase() === b.toLowerCase();
        if (
          !m ||
          !same(msg.baseToken, m.baseToken) ||
          !same(msg.quoteToken, m.quoteToken) ||
          msg.side !== (p.side === "buy" ? 0 : 1)
        ) {
          return refuse("not the placement's market or side");
        }
        // exactly the canonical Order type under exactly the partition's domain: what the native signer signs
        const order = orderMessageSchema.safeParse(msg);
        const types = Object.keys(td.types).filter((k) => k !== "EIP712Domain");
        if (
          !order.success ||
          types.length !== 1 ||
          JSON.stringify(td.types.Order) !== JSON.stringify(ORDER_TYPES.Order) ||
          td.domain.name !== hello.domain.name ||
          td.domain.version !== hello.domain.version
        ) {
          return refuse("not a canonical order");
        }
        // an API key's agent (agent-signer.ts) signs the order's digest natively (tens of µs; viem's signTypedData,
        // pure JS, took ~half of an API process's CPU under bench:e2e's API-key orders: docs/measurements.md)
        const agent = p.agent as LocalAccount & { signDigest?: (digest: Hex) => Hex };
        if (agent.signDigest) {
          let signature: Hex;
          try {
            signature = agent.signDigest(digester(hello.domain)(order.data));
          } catch (e) {
            return refuse(String(e));
          }
          write(sock, encodeFrame({ t: "signed", id: f.id, signature }));
          return;
        }
        p.agent
          .signTypedData(td as never)
          .then((signature) => write(sock, encodeFrame({ t: "signed", id: f.id, signature })))
          .catch((e: unknown) => refuse(String(e)));
        return;
      }
    }
  }

  connect();
  return {
    url: o.url,
    get up() {
      return up;
    },
    get hello() {
      return hello;
    },
    ready(timeoutMs) {
      if (up && hello) return Promise.resolve(hello);
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => {
          greeted.delete(done);
          reject(unavailable(o.url, `no answer within ${timeoutMs} ms`, false));
        }, timeoutMs);
        const done = (h: PartitionHello) => {
          clearTimeout(t);
          resolve(h);
        };
        greeted.add(done);
      });
    },
    call(method, params, agent) {
      const sock = ws;
      if (!up || !sock || sock.readyState !== WebSocket.OPEN)
        return Promise.reject(unavailable(o.url, "not connected", false));
      const id = nextId++;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(unavailable(o.url, `${method} unanswered after ${callTimeoutMs} ms`, true));
        }, callTimeoutMs);
        const { trader, symbol, side } = params as { trader?: string; symbol?: string; side?: string };
        pending.set(id, {
          method,
          resolve: resolve as (v: unknown) => void,
          reject,
          timer,
          agent,
          trader: trader?.toLowerCase(),
          symbol,
          side,
        });
        write(sock, encodeFrame({ t: "call", id, method, params }));
      });
    },
    onEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close() {
      closed = true;
      if (retry) clearTimeout(retry);
      failAll("closed");
      ws?.terminate();
    },
  };
}
