// The open orders by orderId: a chained hash table whose chains run through the order nodes themselves
// (Order.hashNext), so an insert or a removal allocates nothing and no table is ever rebuilt by the
// garbage collector's side. It replaces a JS Map (sharded 64 ways), whose tables were reallocated as
// orders came and went: every such table survived a scavenge or two and was copied, and two lookups per
// placed order (`has`, then `set`) cost ~120 ns each on a steady 10,000-order book (docs/measurements.md).
//
// - Hash: 32-bit FNV-1a over every UTF-16 unit of the id, from a per-table random seed, then a final mix.
//   Every character counts and the seed is secret, so a client who picks order ids cannot line them up in
//   one chain. The seed decides only where a node sits, never what the engine emits (nothing iterates the
//   table), so replays stay bit-identical.
// - Size: a power of two >= the expected open orders (the engine's reserve), load factor <= 1. When the
//   count passes the bucket count the table doubles incrementally: each later insert moves up to
//   MIGRATE_STEP old buckets, and lookups look in both tables until the old one is empty, so no single
//   command pays for rehashing every open order (a Map's doubling stalled the engine 6-19 ms at ~65,000).
//   The doubled table's empty array is itself built ahead, PREPARE_STEP nulls per insert once the count
//   passes half the bucket count, so that no single command allocates and fills it either: built at the
//   doubling, the 131,072-bucket array took 3.5-4.6 ms of one command (page faults of a fresh 512 KB object
//   and 131,072 pushes), the longest single command of bench:matcher's growing book.
import type { Order } from "./order";

/** Old buckets moved per insert while the table doubles; 4 buckets per insert finish long before the next doubling. */
const MIGRATE_STEP = 4;
/** Nulls appended to the next table per insert once the count passes half the bucket count n (not while an
 *  earlier doubling is still migrating). The count reaches n/2 at the doubling before, and that migration takes
 *  (n/2) / MIGRATE_STEP = n/8 inserts, so at least 3n/8 inserts append before the count reaches n: 8 each make
 *  3n >= the 2n nulls the next table needs. */
const PREPARE_STEP = 8;
const MIN_BUCKETS = 1024;

/** Seeded FNV-1a over every UTF-16 unit, with a final avalanche (murmur3's fmix32). */
export function hashOrderId(key: string, seed: number): number {
  let h = seed | 0;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) | 0;
}

function roundUpPow2(n: number): number {
  let p = MIN_BUCKETS;
  while (p < n) p *= 2;
  return p;
}

/** Unlinks `o` from the chain at b[i]; false when it is not there. */
function unlink(b: (Order | null)[], i: number, o: Order): boolean {
  let p = b[i];
  if (p === o) {
    b[i] = o.hashNext;
    return true;
  }
  while (p !== null && p.hashNext !== o) p = p.hashNext;
  if (p === null) return false;
  p.hashNext = o.hashNext;
  return true;
}

/** A packed array of nulls (a holey one would pay a hole check on every read). */
function emptyBuckets(n: number): (Order | null)[] {
  const b: (Order | null)[] = [];
  for (let i = 0; i < n; i++) b.push(null);
  return b;
}

export class OrderIndex {
  private buckets: (Order | null)[];
  private mask: number;
  /** The previous, half-size table while a doubling is under way; its buckets below `migrated` are empty. */
  private old: (Order | null)[] | null = null;
  private oldMask = 0;
  private migrated = 0;
  private count = 0;
  /** The next (doubled) table, built ahead a few nulls per insert; complete at 2 * buckets.length. */
  private next: (Order | null)[] = [];
  /** The count from which add() does more than insert: half the bucket count while the next table is being
   *  built, the bucket count once it is complete (then add() grows the table when the count reaches it). */
  private watermark: number;
  readonly seed: number;

  constructor(expected = 0, seed = (Math.random() * 0x100000000) | 0) {
    const n = roundUpPow2(expected);
    this.buckets = emptyBuckets(n);
    this.mask = n - 1;
    this.seed = seed;
    this.watermark = n >>> 1;
  }

  get size(): number {
    return this.count;
  }

  /** The bucket count of the current table (for tests). */
  get capacity(): number {
    return this.buckets.length;
  }

  /** Buckets of the next (doubled) table built so far (for tests). */
  get prepared(): number {
    return this.next.length;
  }

  /** Whether a doubling is still moving buckets (for tests). */
  get migrating(): boolean {
    return this.old !== null;
  }

  hash(key: string): number {
    return hashOrderId(key, this.seed);
  }

  /** The open order with this id; `h` must be `this.hash(key)`. */
  find(key: string, h: number): Order | undefined {
    const old = this.old;
    if (old !== null) {
      const i = h & this.oldMask;
      if (i >= this.migrated)
        for (let o = old[i]; o !== null; o = o.hashNext) if (o.idHash === h && o.orderId === key) return o;
    }
    for (let o = this.buckets[h & this.mask]; o !== null; o = o.hashNext)
      if (o.idHash === h && o.orderId === key) return o;
    return undefined;
  }

  get(key: string): Order | undefined {
    if (typeof key !== "string") return undefined;
    return this.find(key, hashOrderId(key, this.seed));
  }

  /** Adds a node whose id is not in the table; `o.idHash` must be `this.hash(o.orderId)`. */
  add(o: Order): void {
    if (this.old !== null) this.migrate();
    else if (this.count >= this.watermark) this.prepareOrGrow();
    const b = this.buckets;
    const i = o.idHash & this.mask;
    o.hashNext = b[i];
    b[i] = o;
    this.count++;
  }

  /** Removes a node that is in the table. */
  remove(o: Order): void {
    const h = o.idHash;
    const old = this.old;
    // While doubling, a node may still sit in its old bucket (not yet moved), or in the new table (moved, or
    // added since the doubling began).
    if (old === null || (h & this.oldMask) < this.migrated || !unlink(old, h & this.oldMask, o))
      unlink(this.buckets, h & this.mask, o);
    o.hashNext = null;
    this.count--;
  }

  /** Every node (order unspecified; for tests and checks, not the hot path). */
  values(): Order[] {
    const out: Order[] = [];
    for (const table of this.old === null ? [this.buckets] : [this.old, this.buckets])
      for (const head of table) for (let o = head; o !== null; o = o.hashNext) out.push(o);
    return out;
  }

  /** Appends PREPARE_STEP nulls to the next table; once the count reaches the bucket count, doubles. */
  private prepareOrGrow(): void {
    const n = this.buckets.length * 2;
    if (this.count >= this.buckets.length) return this.grow(n);
    const next = this.next;
    const end = Math.min(n, next.length + PREPARE_STEP);
    for (let i = next.length; i < end; i++) next.push(null);
    if (end === n) this.watermark = this.buckets.length;
  }

  private grow(n: number): void {
    const next = this.next;
    // Complete already (PREPARE_STEP); the loop only guards the invariant.
    while (next.length < n) next.push(null);
    this.next = [];
    this.old = this.buckets;
    this.oldMask = this.mask;
    this.migrated = 0;
    this.buckets = next;
    this.mask = n - 1;
    this.watermark = n >>> 1;
    this.migrate();
  }

  /** Moves the next MIGRATE_STEP old buckets into the current table. */
  private migrate(): void {
    const old = this.old!;
    const b = this.buckets;
    const mask = this.mask;
    const end = Math.min(old.length, this.migrated + MIGRATE_STEP);
    for (let i = this.migrated; i < end; i++) {
      let o = old[i];
      old[i] = null;
      while (o !== null) {
        const next = o.hashNext;
        const j = o.idHash & mask;
        o.hashNext = b[j];
        b[j] = o;
        o = next;
      }
    }
    this.migrated = end;
    if (end === old.length) this.old = null;
  }
}
