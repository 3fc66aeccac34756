// Client order ids without a database: the service answers "which order did this account place with this
// client order id" from memory (the pipeline rebuilds it from its journal, where the id and the request
// fingerprint travel with every place command, fsynced before the acknowledgement), and this registry
// holds the placements in flight, so that two concurrent identical requests place one order.
import { createHash } from "node:crypto";

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

export interface InFlight<T> {
  requestHash: string;
  orderId: string;
  done: Promise<T>;
}

/** Placements in flight per (account, client order id). One per process, shared by REST and gRPC. */
export class InFlightPlacements<T> {
  private readonly pending = new Map<string, InFlight<T>>();

  static key(account: string, clientOrderId: string): string {
    return `${account.toLowerCase()}\n${clientOrderId}`;
  }

  get(key: string): InFlight<T> | undefined {
    return this.pending.get(key);
  }

  /** Registers `run` synchronously (no await between the caller's get() and this), so a concurrent
   *  request sees it; forgets it once settled. */
  start(key: string, requestHash: string, orderId: string, run: () => Promise<T>): Promise<T> {
    const done = run();
    const entry: InFlight<T> = { requestHash, orderId, done };
    this.pending.set(key, entry);
    const forget = () => {
      if (this.pending.get(key) === entry) this.pending.delete(key);
    };
    done.then(forget, forget);
    return done;
  }

  get size(): number {
    return this.pending.size;
  }
}
