// The DEX service's finished orders (filled, cancelled, expired, rejected, every fill settled), out of memory
// and out of the matcher journal's snapshots: DexState (dex-service.ts) keeps live orders only and hands each
// order here once nothing can change it any more, so a restart restores what is live and reads history on
// demand (issue #13; docs/decisions/pipeline.md "Finished orders in an LMDB history store").
// Two stores behind one interface: `openDexHistory(dir)` (LMDB on disk, what the stack uses) and
// `createMemoryDexHistory()` (in memory, kept in DexState's snapshot part: a DexState without a store, as in
// tests, still answers for every order after a restart).
import { mkdirSync } from "node:fs";
import { open, type RootDatabase } from "lmdb";
import type { Hex } from "viem";
import type { DexOrderQuery, DexOrderWithFills } from "./service";
import { DEX_OPEN_STATUSES } from "./service";
import { fromJsonSafe, toJsonSafe, type JsonSafe } from "./match/snapshot-json";

/** An order as the DEX service keeps it: the order with its fills, its hash, and `ord`, its place in the
 *  order of first recording (a list's tie-break between orders of one millisecond: the older first). */
export interface OrderRecord extends DexOrderWithFills {
  hash: Hex;
  ord: number;
}

export interface ClientOrderHit {
  order: OrderRecord;
  requestHash: string | null;
}

/** Finished orders: written once (a second put of an order id changes nothing), read on demand. */
export interface DexHistory {
  /** resolves once the records are durable */
  put(records: readonly { record: OrderRecord; requestHash: string | null }[]): Promise<void>;
  get(orderId: string): OrderRecord | undefined;
  /** the first order placed with this client order id by this account */
  byClientId(account: string, clientOrderId: string): ClientOrderHit | undefined;
  /** the account's orders matching the query, newest first (created, then `ord`), at most `q.limit` */
  list(q: DexOrderQuery): OrderRecord[];
  /** the in-memory store's contents for DexState's snapshot part; absent for a durable store */
  snapshotState?(): unknown;
  restoreSnapshot?(state: unknown): void;
  close(): Promise<void>;
}

/** What a list query keeps of an order (the DEX service's listOrders filter). */
export function matchesQuery(r: OrderRecord, q: DexOrderQuery): boolean {
  return (
    r.account.toLowerCase() === q.account.toLowerCase() &&
    (!q.statuses || q.statuses.includes(r.status)) &&
    (!q.symbol || r.symbol === q.symbol) &&
    (!q.apiKeyId || r.apiKeyId === q.apiKeyId) &&
    (q.sinceMs === undefined || r.updatedAtMs >= q.sinceMs)
  );
}

/** Newest first: created later first; one millisecond's orders in the order they were recorded. */
export const newestFirst = (x: OrderRecord, y: OrderRecord): number => y.createdAtMs - x.createdAtMs || x.ord - y.ord;

/** Whether a list query can match a finished order at all (only open statuses asked: it cannot). */
export function queryReachesHistory(q: DexOrderQuery): boolean {
  return !q.statuses || q.statuses.some((s) => !DEX_OPEN_STATUSES.includes(s));
}

// ------------------------------------------------------------------ LMDB

/** Keys (LMDB ordered-binary arrays), values JSON text:
 *    ["o", orderId]                                  {r: the record (bigints as {$n}), h: request fingerprint}
 *    ["c", account, clientOrderId, ord]              orderId  (the lowest ord is the first placement)
 *    ["a", account, createdAtMs, MAX - ord]          orderId  (newest first = a reverse range scan)
 *    ["u", account, updatedAtMs, ord]                orderId  (`sinceMs` queries: updated at or after)
 *  account lower-case. Every key of an order is derived from the order, so writing it again is a no-op. */
const MAX_ORD = Number.MAX_SAFE_INTEGER;

export async function openDexHistory(dir: string): Promise<DexHistory> {
  mkdirSync(dir, { recursive: true });
  const db: RootDatabase<string, (string | number)[]> = open({ path: dir, encoding: "string", compression: false });
  const entry = (orderId: string): ClientOrderHit | undefined => {
    const v = db.get(["o", orderId]);
    if (v === undefined) return undefined;
    const { r, h } = JSON.parse(v) as { r: JsonSafe; h: string | null };
    return { order: fromJsonSafe<OrderRecord>(r), requestHash: h };
  };
  const read = (orderId: string): OrderRecord | undefined => entry(orderId)?.order;
  return {
    async put(records) {
      // one batch (one write transaction, one promise) for all of them, not a promise per key
      const ok = await db.batch(() => {
        for (const { record: r, requestHash } of records) {
          const a = r.account.toLowerCase();
          db.put(["o", r.orderId], JSON.stringify({ r: toJsonSafe(r), h: requestHash }));
          db.put(["c", a, r.clientOrderId, r.ord], r.orderId);
          db.put(["a", a, r.createdAtMs, MAX_ORD - r.ord], r.orderId);
          db.put(["u", a, r.updatedAtMs, r.ord], r.orderId);
        }
      });
      if (!ok) throw new Error("order history: the batch was not written");
    },
    get: read,
    byClientId(account, clientOrderId) {
      const a = account.toLowerCase();
      for (const { value } of db.getRange({
        start: ["c", a, clientOrderId, 0],
        end: ["c", a, clientOrderId, MAX_ORD],
        limit: 1,
      }))
        return entry(value);
      return undefined;
    },
    list(q) {
      const a = q.account.toLowerCase();
      const out: OrderRecord[] = [];
      if (q.sinceMs !== undefined) {
        // every order updated since then, whenever created; sorted afterwards
        for (const { value } of db.getRange({
          start: ["u", a, q.sinceMs, 0],
          end: ["u", a, Number.MAX_SAFE_INTEGER, MAX_ORD],
        })) {
          const r = read(value);
          if (r && matchesQuery(r, q)) out.push(r);
        }
        return out.sort(newestFirst).slice(0, q.limit);
      }
      for (const { value } of db.getRange({
        start: ["a", a, Number.MAX_SAFE_INTEGER, MAX_ORD],
        end: ["a", a, -1, -1],
        reverse: true,
      })) {
        if (out.length >= q.limit) break;
        const r = read(value);
        if (r && matchesQuery(r, q)) out.push(r);
      }
      return out;
    },
    async close() {
      await db.close();
    },
  };
}

// ------------------------------------------------------------------ memory

export function createMemoryDexHistory(): DexHistory {
  const byId = new Map<string, { record: OrderRecord; requestHash: string | null }>();
  const byClient = new Map<string, OrderRecord>();
  const key = (account: string, clientOrderId: string) => `${account.toLowerCase()}\n${clientOrderId}`;
  const add = (record: OrderRecord, requestHash: string | null) => {
    if (byId.has(record.orderId)) return;
    byId.set(record.orderId, { record, requestHash });
    const k = key(record.account, record.clientOrderId);
    const first = byClient.get(k);
    if (!first || record.ord < first.ord) byClient.set(k, record);
  };
  return {
    async put(records) {
      for (const { record, requestHash } of records) add(record, requestHash);
    },
    get: (orderId) => byId.get(orderId)?.record,
    byClientId(account, clientOrderId) {
      const r = byClient.get(key(account, clientOrderId));
      return r ? { order: r, requestHash: byId.get(r.orderId)!.requestHash } : undefined;
    },
    list: (q) =>
      [...byId.values()]
        .map((e) => e.record)
        .filter((r) => matchesQuery(r, q))
        .sort(newestFirst)
        .slice(0, q.limit),
    snapshotState: () => toJsonSafe([...byId.values()].map((e) => [e.record, e.requestHash])),
    restoreSnapshot(state) {
      for (const [record, requestHash] of fromJsonSafe<[OrderRecord, string | null][]>(state as JsonSafe))
        add(record, requestHash);
    },
    async close() {},
  };
}
