// A partition's leadership: a lease held in a JetStream KV key, taken and renewed with revision checks
// (compare-and-set), so exactly one process at a time holds it. Time is only measured locally (monotonic
// clock), never compared across hosts:
// - the holder renews every leaseMs/3 with update(key, me, myRevision); a refused update means another
//   process took the key: deposed. The holder counts itself leader only until leaseMs after the start of
//   its last successful renewal (valid()), so a paused holder (SIGSTOP) knows on waking that it may no
//   longer write, before it tries;
// - a standby watches the key and takes it (update with the revision it saw) once the revision has not
//   moved for leaseMs of its own clock, or creates it when there is none.
// The order log's expected-last-sequence and the chain's batch-id sequence fence a deposed holder anyway
// (docs/decisions/pipeline.md "Replicated order log").
import { Kvm, type KV } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/nats-core";
import { randomBytes } from "node:crypto";

export interface Leadership {
  /** this process's term id: unique per process start (the log's message ids carry it) */
  readonly term: string;
  /** resolves once this process holds the lease */
  readonly acquired: Promise<void>;
  /** whether this process holds the lease now by its own clock (false before acquiring, once deposed) */
  valid(): boolean;
  /** set when deposed: another process took the lease, or a log refused this process's append */
  readonly deposedReason: string | undefined;
  /** called once when deposed */
  onDeposed(fn: (reason: string) => void): void;
  /** gives the lease up (the key is deleted so that a standby takes over at once) */
  release(): Promise<void>;
  /** marks this process deposed (a log found another writer) */
  depose(reason: string): void;
}

export interface LeaseOptions {
  nc: NatsConnection;
  /** the KV bucket's name (one per venue) and the key (one per partition) */
  bucket: string;
  key: string;
  leaseMs: number;
  replicas: number;
  now?: () => number;
  log?: { info(o: object, m?: string): void; warn(o: object, m?: string): void };
}

export async function openLeaseBucket(nc: NatsConnection, bucket: string, replicas: number): Promise<KV> {
  const kvm = new Kvm(nc);
  for (let attempt = 0; ; attempt++) {
    try {
      return await kvm.create(bucket, { replicas, history: 1 });
    } catch (err) {
      // the cluster elects its JetStream meta leader shortly after it starts
      if (attempt >= 100) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** One process's hold on a partition's lease key: taking it (standby), renewing it (leader), losing it. */
class Lease implements Leadership {
  readonly term = `${process.pid}-${randomBytes(6).toString("hex")}`;
  readonly acquired: Promise<void>;
  deposedReason: string | undefined;
  private revision = 0;
  private heldSince = -Infinity; // start of the last successful take or renewal
  private held = false;
  private stopped = false;
  private readonly deposedFns: ((r: string) => void)[] = [];
  private resolveAcquired!: () => void;
  private readonly now: () => number;

  constructor(
    private readonly opts: LeaseOptions,
    private readonly kv: KV,
  ) {
    this.now = opts.now ?? (() => performance.now());
    this.acquired = new Promise<void>((r) => (this.resolveAcquired = r));
  }

  private value(): string {
    return JSON.stringify({ term: this.term, pid: process.pid });
  }

  valid(): boolean {
    return this.held && !this.deposedReason && this.now() - this.heldSince < this.opts.leaseMs;
  }

  onDeposed(fn: (reason: string) => void): void {
    if (this.deposedReason) fn(this.deposedReason);
    else this.deposedFns.push(fn);
  }

  depose(reason: string): void {
    if (this.deposedReason) return;
    this.deposedReason = reason;
    this.held = false;
    this.opts.log?.warn({ term: this.term, reason }, "leadership lost");
    for (const fn of this.deposedFns) fn(reason);
  }

  async release(): Promise<void> {
    this.stopped = true;
    if (this.held && !this.deposedReason)
      await this.kv.delete(this.opts.key, { previousSeq: this.revision }).catch(() => undefined);
    this.held = false;
  }

  /** standby: take the key once its revision stood still for leaseMs (or create it when absent) */
  async acquire(): Promise<void> {
    const { kv, opts } = this;
    let seenRev = -1;
    let seenAt = this.now();
    while (!this.stopped && !this.held) {
      const started = this.now();
      try {
        const e = await kv.get(opts.key);
        const live = e && e.operation === "PUT" ? e.revision : 0;
        if (live === 0) {
          this.revision = e
            ? await kv.update(opts.key, this.value(), e.revision)
            : await kv.create(opts.key, this.value());
        } else if (live !== seenRev) {
          seenRev = live;
          seenAt = this.now();
        } else if (this.now() - seenAt >= opts.leaseMs) {
          this.revision = await kv.update(opts.key, this.value(), live);
        }
        if (this.revision > 0) {
          this.held = true;
          this.heldSince = started;
          opts.log?.info({ term: this.term, revision: this.revision }, "leadership acquired");
          this.resolveAcquired();
          return;
        }
      } catch {
        // another standby was first, or the cluster is electing: look again
      }
      await new Promise((r) => setTimeout(r, Math.min(200, opts.leaseMs / 10)));
    }
  }

  /** leader: renew every leaseMs/3 while it holds the key */
  async renew(): Promise<void> {
    await this.acquired;
    const { leaseMs } = this.opts;
    while (!this.stopped && this.held) {
      await new Promise((r) => setTimeout(r, leaseMs / 3));
      if (this.stopped || !this.held) return;
      // woken after the lease ran out (a pause): deposed by our own clock, whatever the key says
      if (this.now() - this.heldSince >= leaseMs) return this.depose("lease lapsed before renewal");
      const started = this.now();
      try {
        this.revision = await this.kv.update(this.opts.key, this.value(), this.revision);
        this.heldSince = started;
      } catch (err) {
        const msg = String((err as Error).message ?? err);
        // a refused compare-and-set: someone else holds the key now
        if (/wrong last sequence|10071/i.test(msg)) return this.depose("lease taken by another process");
        // the cluster did not answer: keep trying while the lease lasts (valid() stops the writes meanwhile)
      }
    }
  }
}

export async function startLeadership(opts: LeaseOptions): Promise<Leadership> {
  const lease = new Lease(opts, await openLeaseBucket(opts.nc, opts.bucket, opts.replicas));
  void lease.acquire().then(() => lease.renew());
  return lease;
}
