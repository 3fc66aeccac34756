// What a connection may ask (spec 6.2 plus unsubscribe, auth, ping): each text message is parsed and
// validated, then answered or routed to the channels; any refusal is answered as an error message with
// the request's id. `auth` verifies the HMAC scheme over (timestamp, GET, /ws) and moves the connection's
// count from its address to its key.
import type { Logger } from "pino";
import type { RawData } from "ws";
import type { Clock } from "../../runtime/clock";
import type { Authenticator } from "../auth/authenticate";
import { ipAllowed } from "../auth/ip-allowlist";
import { ApiError, logServerError, toApiError, validationError } from "../errors";
import type { Channels } from "./channels";
import type { Admission, Conn, ConnSender } from "./connection";
import { clientMessage, WS_AUTH_METHOD, WS_AUTH_PATH, type ClientMessage } from "./messages";
import { ORDER_MESSAGE_TYPE, type OrderEntry } from "./order-entry";

export interface SessionDeps {
  auth: Authenticator;
  admission: Admission;
  channels: Channels;
  out: ConnSender;
  clock: Clock;
  logger: Logger;
  /** order entry (`order` messages, answered by order-entry.ts); absent: refused as unknown */
  orders?: OrderEntry;
}

const MESSAGE_TYPES = ["subscribe", "unsubscribe", "auth", "ping"];

/** The request's id (when it has a usable one) and the validated message; throws ApiError otherwise
 *  (after `onId` has seen the id, so the refusal carries it). */
function parseClientMessage(
  data: RawData,
  isBinary: boolean,
  onId: (id: string | number) => void,
  orders?: OrderEntry,
): ClientMessage | { type: "order"; parsed: unknown } {
  if (isBinary) throw new ApiError("INVALID_REQUEST", "send JSON text messages", { reason: "binary_message" });
  let parsed: unknown;
  try {
    parsed = JSON.parse(data.toString());
  } catch {
    throw new ApiError("INVALID_REQUEST", "the message is not valid JSON", { reason: "malformed_json" });
  }
  const rawId = (parsed as { id?: unknown } | null)?.id;
  if (typeof rawId === "string" || typeof rawId === "number") onId(rawId);
  const type = (parsed as { type?: unknown } | null)?.type;
  if (type === ORDER_MESSAGE_TYPE && orders) return { type: ORDER_MESSAGE_TYPE, parsed };
  if (typeof type !== "string" || !MESSAGE_TYPES.includes(type)) {
    throw new ApiError("INVALID_REQUEST", `unknown message type ${JSON.stringify(type ?? null).slice(0, 40)}`, {
      reason: "unknown_message_type",
      allowed: orders ? [...MESSAGE_TYPES, ORDER_MESSAGE_TYPE] : [...MESSAGE_TYPES],
    });
  }
  const r = clientMessage.safeParse(parsed);
  if (!r.success) throw validationError(r.error, "message");
  return r.data;
}

async function authenticate(deps: SessionDeps, c: Conn, msg: Extract<ClientMessage, { type: "auth" }>): Promise<void> {
  if (c.key) throw new ApiError("INVALID_REQUEST", "already authenticated", { reason: "already_authenticated" });
  const key = await deps.auth.verifyHmac({
    apiKey: msg.api_key,
    timestamp: String(msg.timestamp),
    signature: msg.signature,
    method: WS_AUTH_METHOD,
    path: WS_AUTH_PATH,
    body: new Uint8Array(0),
  });
  if (!key.permissions.includes("read"))
    throw new ApiError("FORBIDDEN", "this API key lacks the read permission", {
      reason: "missing_permission",
      permission: "read",
    });
  if (!ipAllowed(key.ipAllowlist, c.ip))
    throw new ApiError("FORBIDDEN", "connection from an address outside the key's IP allowlist", {
      reason: "ip_not_allowed",
    });
  deps.admission.authenticated(c, key.id);
  c.key = key;
  c.account = key.owner;
  deps.out.sendJson(c, { type: "authenticated", account: key.owner, ...(msg.id !== undefined ? { id: msg.id } : {}) });
}

/** The handler of one connection's messages. */
export function createMessageHandler(deps: SessionDeps): (c: Conn, data: RawData, isBinary: boolean) => Promise<void> {
  return async (c, data, isBinary) => {
    let id: string | number | undefined;
    try {
      const msg = parseClientMessage(data, isBinary, (x) => (id = x), deps.orders);
      if (msg.type === ORDER_MESSAGE_TYPE) await deps.orders!.handle(c, msg.parsed);
      else if (msg.type === "ping")
        deps.out.sendJson(c, {
          type: "pong",
          timestamp: deps.clock.now(),
          ...(msg.id !== undefined ? { id: msg.id } : {}),
        });
      else if (msg.type === "subscribe") deps.channels.subscribe(c, msg);
      else if (msg.type === "unsubscribe") deps.channels.unsubscribe(c, msg);
      else await authenticate(deps, c, msg);
    } catch (err) {
      const e = toApiError(err);
      logServerError(deps.logger, e, err, { conn: c.id }, "ws message failed");
      deps.out.sendError(c, e, id);
    }
  };
}
