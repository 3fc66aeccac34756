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

export async function startLeadership(opts: LeaseOptions): Promise<Leadership> {
  const now = opts.now ?? (() => performance.now());
  const kv = await openLeaseBucket(opts.nc, opts.bucket, opts.replicas);
  const term = `${process.pid}-${randomBytes(6).toString("hex")}`;
  let revision = 0;
  let heldSince = -Infinity; // start of the last successful take or renewal
  let held = false;
  let deposedReason: string | undefined;
  let stopped = false;
  const deposedFns: ((r: string) => void)[] = [];
  let resolveAcquired!: () => void;
  const acquired = new Promise<void>((r) => (resolveAcquired = r));
  const value = () => JSON.stringify({ term, pid: process.pid });

  const depose = (reason: string) => {
    if (deposedReason) return;
    deposedReason = reason;
    held = false;
    opts.log?.warn({ term, reason }, "leadership lost");
    for (const fn of deposedFns) fn(reason);
  };

  /** standby: take the key once its revision stood still for leaseMs (or create it when absent) */
  const acquire = async () => {
    let seenRev = -1;
    let seenAt = now();
    while (!stopped && !held) {
      const started = now();
      try {
        const e = await kv.get(opts.key);
        const live = e && e.operation === "PUT" ? e.revision : 0;
        if (live === 0) {
          revision = e ? await kv.update(opts.key, value(), e.revision) : await kv.create(opts.key, value());
        } else if (live !== seenRev) {
          seenRev = live;
          seenAt = now();
        } else if (now() - seenAt >= opts.leaseMs) {
          revision = await kv.update(opts.key, value(), live);
        }
        if (revision > 0) {
          held = true;
          heldSince = started;
          opts.log?.info({ term, revision }, "leadership acquired");
          resolveAcquired();
          return;
        }
      } catch {
        // another standby was first, or the cluster is electing: look again
      }
      await new Promise((r) => setTimeout(r, Math.min(200, opts.leaseMs / 10)));
    }
  };

  const renewLoop = async () => {
    await acquired;
    while (!stopped && held) {
      await new Promise((r) => setTimeout(r, opts.leaseMs / 3));
      if (stopped || !held) return;
      // woken after the lease ran out (a pause): deposed by our own clock, whatever the key says
      if (now() - heldSince >= opts.leaseMs) return depose("lease lapsed before renewal");
      const started = now();
      try {
        revision = await kv.update(opts.key, value(), revision);
        heldSince = started;
      } catch (err) {
        const msg = String((err as Error).message ?? err);
        // a refused compare-and-set: someone else holds the key now
        if (/wrong last sequence|10071/i.test(msg)) return depose("lease taken by another process");
        // the cluster did not answer: keep trying while the lease lasts (valid() stops the writes meanwhile)
      }
    }
  };
  void acquire().then(renewLoop);

  return {
    term,
    acquired,
    valid: () => held && !deposedReason && now() - heldSince < opts.leaseMs,
    get deposedReason() {
      return deposedReason;
    },
    onDeposed(fn) {
      if (deposedReason) fn(deposedReason);
      else deposedFns.push(fn);
    },
    depose,
    async release() {
      stopped = true;
      if (held && !deposedReason) await kv.delete(opts.key, { previousSeq: revision }).catch(() => undefined);
      held = false;
    },
  };
}
