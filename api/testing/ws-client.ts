// A small WebSocket test client: connects, queues every JSON message, waits for the one a test needs.
import { WebSocket } from "ws";
import { signRequest } from "../auth/hmac";

export interface TestWs {
  ws: WebSocket;
  messages: any[];
  send(msg: unknown): void;
  /** resolves with the first queued (or future) message matching `pred`, removing it from the queue */
  next(pred: (m: any) => boolean, timeoutMs?: number): Promise<any>;
  closed: Promise<{ code: number; reason: string }>;
  close(): void;
}

export async function connectWs(url: string): Promise<TestWs> {
  const ws = new WebSocket(url);
  const messages: any[] = [];
  const waiters: { pred: (m: any) => boolean; resolve: (m: any) => void }[] = [];
  ws.on("message", (data) => {
    const m = JSON.parse(data.toString());
    const i = waiters.findIndex((w) => w.pred(m));
    if (i >= 0) waiters.splice(i, 1)[0].resolve(m);
    else messages.push(m);
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on("close", (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  return {
    ws,
    messages,
    send: (msg) => ws.send(typeof msg === "string" ? msg : JSON.stringify(msg)),
    next(pred, timeoutMs = 15_000) {
      const i = messages.findIndex(pred);
      if (i >= 0) return Promise.resolve(messages.splice(i, 1)[0]);
      return new Promise((resolve, reject) => {
        const w = {
          pred,
          resolve: (m: any) => {
            clearTimeout(t);
            resolve(m);
          },
        };
        const t = setTimeout(() => {
          waiters.splice(waiters.indexOf(w), 1);
          reject(new Error(`timeout waiting for a message; queued: ${JSON.stringify(messages).slice(0, 500)}`));
        }, timeoutMs);
        waiters.push(w);
      });
    },
    closed,
    close: () => ws.terminate(),
  };
}

/** The DEX WebSocket `auth` message of an API key, HMAC-signed at `ts` (with `id` when given). */
export function wsAuthMessage(k: { apiKey: string; secret: string }, ts = Date.now(), id?: string | number) {
  return {
    type: "auth",
    ...(id !== undefined ? { id } : {}),
    api_key: k.apiKey,
    timestamp: ts,
    signature: signRequest(k.secret, String(ts), "GET", "/ws", ""),
  };
}

/** A socket logged in with the key (at `ts`) and subscribed to its private `orders` channel. */
export async function ordersSession(
  url: string,
  k: { apiKey: string; secret: string },
  ts = Date.now(),
  opened?: TestWs[],
): Promise<TestWs> {
  const c = await connectWs(url);
  opened?.push(c);
  c.send(wsAuthMessage(k, ts));
  await c.next((m) => m.type === "authenticated");
  c.send({ type: "subscribe", channel: "orders" });
  await c.next((m) => m.type === "subscribed" && m.channel === "orders");
  return c;
}
