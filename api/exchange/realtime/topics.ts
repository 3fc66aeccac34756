// The `subscribe` grammar of spec 4.D / 6.1, shared by SSE and the legacy WebSocket: a comma-separated list
// of `quote:<asset_id>` and `book:<asset_id>` of catalogue assets, at most `max` distinct topics (spec 8:
// 50 subscriptions per connection), and the Last-Event-ID a client resumes after.
import { ExchangeApiError } from "../errors";

/** spec 8: subscriptions per connection (SSE and WebSocket) */
export const MAX_SUBSCRIPTIONS = 50;
/** spec 8: SSE connections per user; and WebSocket connections per user */
export const MAX_CONNECTIONS_PER_USER = 5;
/** longest `subscribe` value read (50 topics of long ids fit) */
export const MAX_SUBSCRIBE_LENGTH = 8192;

const TOKEN = /^(quote|book):([A-Za-z0-9._-]{1,64})$/;

/** Distinct topics, in the order given; throws INVALID_REQUEST (400) or ASSET_NOT_FOUND (404). */
export function parseSubscribe(
  raw: unknown,
  isKnownAsset: (id: string) => boolean,
  max = MAX_SUBSCRIPTIONS,
  already = 0,
): string[] {
  if (typeof raw !== "string" || raw.trim() === "")
    throw new ExchangeApiError(
      "INVALID_REQUEST",
      "subscribe: a comma-separated list of quote:<asset_id> and book:<asset_id> is required",
      { field: "subscribe" },
    );
  if (raw.length > MAX_SUBSCRIBE_LENGTH)
    throw new ExchangeApiError("INVALID_REQUEST", "subscribe is too long", {
      field: "subscribe",
      maxLength: MAX_SUBSCRIBE_LENGTH,
    });
  const topics: string[] = [];
  for (const part of raw.split(",")) {
    const token = part.trim();
    const m = TOKEN.exec(token);
    if (!m)
      throw new ExchangeApiError("INVALID_REQUEST", "subscribe: each item is quote:<asset_id> or book:<asset_id>", {
        field: "subscribe",
        item: token.slice(0, 80),
      });
    if (!isKnownAsset(m[2])) throw new ExchangeApiError("ASSET_NOT_FOUND", "asset not found", { assetId: m[2] });
    if (!topics.includes(token)) topics.push(token);
  }
  if (already + topics.length > max)
    throw new ExchangeApiError("INVALID_REQUEST", `at most ${max} subscriptions per connection`, {
      field: "subscribe",
      limit: max,
      requested: already + topics.length,
    });
  return topics;
}

/** Last-Event-ID: a decimal event id (what this API sends), else INVALID_REQUEST. */
export function parseLastEventId(raw: unknown): number | undefined {
  if (raw === undefined || raw === "") return undefined;
  if (typeof raw !== "string" || !/^\d{1,16}$/.test(raw))
    throw new ExchangeApiError("INVALID_REQUEST", "Last-Event-ID: an event id this stream sent", {
      field: "Last-Event-ID",
    });
  return Number(raw);
}

/** spec-silent: WebSocket connections one client address may hold open before they authenticate */
export const MAX_UNAUTHENTICATED_PER_ADDRESS = 5;

/** Counts live connections per key (a user, or a client address: `per`) against a limit. */
export function connectionCounter(limit: number, per: "user" | "address" = "user") {
  const counts = new Map<string, number>();
  return {
    /** takes a slot, or throws RATE_LIMIT_EXCEEDED (429) */
    acquire(key: string, what: string): () => void {
      const n = counts.get(key) ?? 0;
      if (n >= limit)
        throw new ExchangeApiError("RATE_LIMIT_EXCEEDED", `at most ${limit} ${what} connections per ${per}`, {
          limit,
          open: n,
        });
      counts.set(key, n + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const left = (counts.get(key) ?? 1) - 1;
        if (left <= 0) counts.delete(key);
        else counts.set(key, left);
      };
    },
    count: (key: string) => counts.get(key) ?? 0,
  };
}
