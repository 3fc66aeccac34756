// Client order ids in SQL: the first placement with an id reserves (account, client_order_id) -> order id
// before the service is called; a retry finds the stored response, or (when the first attempt died
// before its response was stored) places the same order id again, which the service treats as a no-op.
import { createHash, randomUUID } from "node:crypto";
import type { Db } from "../../db";

export type Reservation =
  | { state: "new"; orderId: string }
  | { state: "in_flight"; orderId: string }
  | { state: "done"; orderId: string; response: unknown }
  | { state: "conflict"; orderId: string };

export interface IdempotencyStore {
  /** The existing row for this id, without reserving; null when the id is free. */
  peek(account: string, clientOrderId: string, requestHash: string): Promise<Exclude<Reservation, { state: "new" }> | null>;
  reserve(account: string, clientOrderId: string, requestHash: string): Promise<Reservation>;
  complete(account: string, clientOrderId: string, response: unknown): Promise<unknown>;
  /** The service refused the order: forget the id so that a corrected retry may use it. */
  release(account: string, clientOrderId: string, orderId: string): Promise<void>;
}

/** SHA-256 of the request's canonical JSON (keys sorted), so key order or spacing is not a difference. */
export function requestHash(value: unknown): string {
  return createHash("sha256").update(canonicalJson(value)).digest("hex");
}

function canonicalJson(v: unknown): string {
  if (v === null || typeof v !== "object") return JSON.stringify(v) ?? "null";
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(",")}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
    .join(",")}}`;
}

export function createIdempotencyStore(db: Db): IdempotencyStore {
  async function peek(account: string, clientOrderId: string, hash: string): Promise<Exclude<Reservation, { state: "new" }> | null> {
    const row = (
      await db.query<{ order_id: string; request_hash: string; response: unknown }>(
        "SELECT order_id::text AS order_id, request_hash, response FROM dex_client_orders WHERE account = $1 AND client_order_id = $2",
        [account.toLowerCase(), clientOrderId],
      )
    ).rows[0];
    if (!row) return null;
    if (row.request_hash !== hash) return { state: "conflict", orderId: row.order_id };
    if (row.response !== null && row.response !== undefined) return { state: "done", orderId: row.order_id, response: row.response };
    return { state: "in_flight", orderId: row.order_id };
  }
  return {
    peek,
    async reserve(account, clientOrderId, hash) {
      const orderId = randomUUID();
      const inserted = await db.query(
        `INSERT INTO dex_client_orders (account, client_order_id, order_id, request_hash) VALUES ($1,$2,$3,$4)
         ON CONFLICT (account, client_order_id) DO NOTHING`,
        [account.toLowerCase(), clientOrderId, orderId, hash],
      );
      if (inserted.rowCount === 1) return { state: "new", orderId };
      const existing = await peek(account, clientOrderId, hash);
      // Released between our insert and select: try once more.
      return existing ?? this.reserve(account, clientOrderId, hash);
    },
    async complete(account, clientOrderId, response) {
      // First writer wins: a concurrent retry returns whatever was stored first.
      const row = (
        await db.query<{ response: unknown }>(
          `UPDATE dex_client_orders SET response = COALESCE(response, $3::jsonb)
           WHERE account = $1 AND client_order_id = $2 RETURNING response`,
          [account.toLowerCase(), clientOrderId, JSON.stringify(response)],
        )
      ).rows[0];
      return row?.response ?? response;
    },
    async release(account, clientOrderId, orderId) {
      await db.query("DELETE FROM dex_client_orders WHERE account = $1 AND client_order_id = $2 AND order_id = $3 AND response IS NULL", [
        account.toLowerCase(),
        clientOrderId,
        orderId,
      ]);
    },
  };
}
