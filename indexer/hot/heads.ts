// New heads by subscription (eth_subscribe "newHeads" over the node's WebSocket): tells the follower the
// moment a block is mined, so that it reads at once instead of at its next poll. Only a hint: the follower
// reads the same range, headers and logs as a poll would, and keeps polling when the socket is down (it
// reconnects with a growing pause) or the node sends nothing. No I/O beyond the one socket; no state but
// the latest head's number.
import { WebSocket } from "ws";

export interface HeadWatch {
  /** the last head the node announced (undefined before the first, after a socket loss or `forget`) */
  readonly latest: number | undefined;
  /** whether the subscription is live */
  readonly subscribed: boolean;
  /** Resolves when a head above `above` is announced, or after `ms` (whichever first). */
  next(above: number, ms: number): Promise<void>;
  /** Drops the latest head (the follower found it stale: a node that went back). */
  forget(): void;
  stop(): void;
}

/** A message of the newHeads socket: the subscription's answer (id 1), a head, or nothing of interest. */
function parseHeadMessage(
  text: string,
): { kind: "refused"; detail: string } | { kind: "subscribed" } | { kind: "head"; number: number } | undefined {
  let msg: {
    id?: number;
    result?: unknown;
    error?: unknown;
    method?: string;
    params?: { result?: { number?: unknown } };
  };
  try {
    msg = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (msg.id === 1) {
    return msg.error !== undefined || typeof msg.result !== "string"
      ? { kind: "refused", detail: JSON.stringify(msg.error ?? msg.result).slice(0, 200) }
      : { kind: "subscribed" };
  }
  const n = msg.method === "eth_subscription" ? msg.params?.result?.number : undefined;
  return typeof n === "string" && /^0x[0-9a-fA-F]{1,16}$/.test(n) ? { kind: "head", number: Number(n) } : undefined;
}

export function watchHeads(url: string, opts: { onError?: (error: unknown) => void } = {}): HeadWatch {
  let latest: number | undefined;
  let subscribed = false;
  let stopped = false;
  let socket: WebSocket | undefined;
  let retryMs = 1_000;
  let retryTimer: NodeJS.Timeout | undefined;
  let waiter: { above: number; wake: () => void } | undefined;

  const connect = () => {
    const ws = new WebSocket(url);
    socket = ws;
    ws.on("open", () =>
      ws.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_subscribe", params: ["newHeads"] })),
    );
    ws.on("message", (data) => {
      const msg = parseHeadMessage(data.toString());
      if (msg?.kind === "refused") {
        opts.onError?.(new Error(`eth_subscribe newHeads refused: ${msg.detail}`));
        ws.close();
      } else if (msg?.kind === "subscribed") {
        subscribed = true;
        retryMs = 1_000;
      } else if (msg?.kind === "head") {
        latest = msg.number;
        if (waiter && latest > waiter.above) waiter.wake();
      }
    });
    ws.on("error", (e) => opts.onError?.(e));
    ws.on("close", () => {
      subscribed = false;
      latest = undefined;
      if (socket === ws) socket = undefined;
      if (stopped) return;
      retryTimer = setTimeout(connect, retryMs);
      retryMs = Math.min(retryMs * 2, 30_000);
    });
  };
  connect();

  return {
    get latest() {
      return latest;
    },
    get subscribed() {
      return subscribed;
    },
    next(above, ms) {
      if (latest !== undefined && latest > above) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const timer = setTimeout(() => wake(), ms);
        const wake = () => {
          clearTimeout(timer);
          if (waiter?.wake === wake) waiter = undefined;
          resolve();
        };
        waiter = { above, wake };
      });
    },
    forget() {
      latest = undefined;
    },
    stop() {
      stopped = true;
      clearTimeout(retryTimer);
      waiter?.wake();
      socket?.terminate();
    },
  };
}
