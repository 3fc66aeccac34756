// WebSocket messages. Client (spec 6.2 plus unsubscribe, auth, ping) validated with zod; server messages
// (spec 6.3 plus acks, errors, heartbeats and the private orders channel) typed here.
import { z } from "zod";
import { MAX_STREAM_BOOK_DEPTH } from "../../sdk/book";

const symbol = z.string().min(1).max(32);
const depth = z.number().int().min(1).max(MAX_STREAM_BOOK_DEPTH);

/** What `subscribe` and `unsubscribe` name: a channel, with its symbol and depth where it has them. */
const channelFields = {
  channel: z.enum(["orderbook", "trades", "orders"]),
  symbol: symbol.optional(),
  depth: depth.optional(),
  id: z.union([z.string().max(64), z.number()]).optional(),
};

export const clientMessage = z.discriminatedUnion("type", [
  z.object({ type: z.literal("subscribe"), ...channelFields }).strict(),
  z.object({ type: z.literal("unsubscribe"), ...channelFields }).strict(),
  z
    .object({
      type: z.literal("auth"),
      api_key: z.string().min(1).max(128),
      timestamp: z.union([z.number().int().nonnegative(), z.string().regex(/^\d{1,15}$/)]),
      signature: z.string().max(128),
      id: z.union([z.string().max(64), z.number()]).optional(),
    })
    .strict(),
  z.object({ type: z.literal("ping"), id: z.union([z.string().max(64), z.number()]).optional() }).strict(),
]);
export type ClientMessage = z.infer<typeof clientMessage>;

export const CLIENT_MESSAGE_TYPES = ["subscribe", "unsubscribe", "auth", "ping"] as const;
export const DEFAULT_WS_DEPTH = 10;

/** The path the WebSocket auth signature covers: HMAC(secret, timestamp + "GET" + "/ws"). */
export const WS_AUTH_METHOD = "GET";
export const WS_AUTH_PATH = "/ws";
