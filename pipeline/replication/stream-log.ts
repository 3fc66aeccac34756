// A journal (the RecordLog of matcher/journal) on a replicated JetStream stream instead of a local file:
// the partition's order log (the matcher's commands) and its batch store. One stream message holds every
// record that arrived while the previous append was on its way (group commit: the frames of log.ts, back
// to back), published with the stream's expected last sequence, so an append lands only on the log this
// writer has read to its end: a deposed leader's append is refused (JetStream error 10071). An append is
// acknowledged once the stream's quorum (2 of 3 with R3) holds it. A timeout or a cluster without a leader
// is retried with the same message id (the stream's duplicate window answers a retry of a stored append
// with its sequence) for as long as this process holds the lease. Any other failure deposes the process: its
// books applied records the log may not hold, so the standby, which holds only what the log holds, leads.
// Open: every record is replayed in order; a standby keeps reading (and replaying) the records its leader
// appends until it holds the lease, reads to the end, then appends a term marker (no records) so the old
// leader's next append is refused even when the new one has nothing to write yet.
import {
  jetstream,
  jetstreamManager,
  DeliverPolicy,
  JetStreamApiError,
  StorageType,
  type JetStreamClient,
  type PubAck,
} from "@nats-io/jetstream";
import {
  AuthorizationError,
  ClosedConnectionError,
  DrainingConnectionError,
  headers,
  InvalidArgumentError,
  PermissionViolationError,
  type NatsConnection,
} from "@nats-io/nats-core";
import { scanRecords, recordFrame, type JournalRecord } from "../../matcher/journal/frames";
import type { RecordLog, RecordLogOptions } from "../../matcher/journal/log";
import type { Leadership } from "./lease";

/** A message carries at most this many bytes of records (the server's default max payload is 1 MiB). */
const MAX_MESSAGE_BYTES = 512 * 1024;
const WRONG_LAST_SEQUENCE = 10071;
const TERM_HEADER = "Log-Term";
/** the one subject of a log's stream */
const subjectOf = (stream: string) => `orderlog.${stream}`;

export interface StreamLogOptions<C, M, S> extends Omit<RecordLogOptions<C, M, S>, "dir" | "snapshotEvery" | "legacy"> {
  nc: NatsConnection;
  /** the stream's name (one per partition and journal, e.g. ORDERS_P0) */
  stream: string;
  replicas: number;
  leadership: Leadership;
  /** told when an append goes unanswered and when it lands after that */
  logger?: { warn(o: object, m?: string): void };
  /** each replayed message's sequence (replication lag: the followed log's head minus this) */
  onApplied?(seq: number): void;
}

export class DeposedError extends Error {
  constructor(reason: string) {
    super(`this process no longer leads the partition: ${reason}`);
    this.name = "DeposedError";
  }
}

/** `fn` again (100 ms apart, 100 times at most) while it fails: the cluster's first seconds, or a JetStream meta
 *  leader or a stream leader being elected after a node's death, when its API answers nothing or refuses. */
async function retried<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (attempt >= 100) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

function ensureStream(nc: NatsConnection, stream: string, replicas: number): Promise<number> {
  return retried(async () => {
    const jsm = await jetstreamManager(nc);
    const info = await jsm.streams.info(stream).catch(async (err) => {
      if (!/not found/i.test(String(err))) throw err;
      return jsm.streams.add({
        name: stream,
        subjects: [subjectOf(stream)],
        num_replicas: replicas,
        storage: StorageType.File,
        duplicate_window: 120_000_000_000,
      });
    });
    return info.state.last_seq;
  });
}

/** Replays the stream's messages from `fromSeq` on; stops at `untilSeq` (inclusive) or when `until` resolves. */
async function readStream(
  js: JetStreamClient,
  stream: string,
  fromSeq: number,
  untilSeq: number,
  onMsg: (seq: number, data: Uint8Array, marker: boolean) => void,
  until?: Promise<void>,
): Promise<number> {
  let last = fromSeq - 1;
  if (!until && untilSeq < fromSeq) return last;
  const consumer = await js.consumers.get(stream, {
    deliver_policy: DeliverPolicy.StartSequence,
    opt_start_seq: fromSeq,
  });
  const msgs = await consumer.consume({ max_messages: 1000 });
  let stopRequested = false;
  void until?.then(() => {
    stopRequested = true;
    void msgs.close();
  });
  for await (const m of msgs) {
    onMsg(m.seq, m.data, m.headers?.get(TERM_HEADER) !== undefined && m.data.length === 0);
    last = m.seq;
    if (!until && last >= untilSeq) break;
    if (stopRequested) break;
  }
  await msgs.close();
  return last;
}

export async function openStreamLog<C, M = unknown, S = unknown>(
  options: StreamLogOptions<C, M, S>,
): Promise<RecordLog<C, M>> {
  const { nc, stream, leadership } = options;
  const js = jetstream(nc, { timeout: 5_000 });
  const headSeq = await ensureStream(nc, stream, options.replicas);
  options.restore?.(undefined);
  let count = 0;
  let lastSeq = 0;
  const apply = (seq: number, data: Uint8Array, marker: boolean) => {
    lastSeq = seq;
    if (!marker) {
      for (const r of scanRecords<C, M>(Buffer.from(data.buffer, data.byteOffset, data.byteLength))
        .records as JournalRecord<C, M>[]) {
        if (r.i < count) continue; // a retried append stored twice past the duplicate window: same records
        if (r.i !== count)
          throw new Error(`order log ${stream} has a gap: expected record ${count}, found ${r.i} at message ${seq}`);
        options.replay?.(r);
        count++;
      }
    }
    options.onApplied?.(seq);
  };
  await readStream(js, stream, 1, headSeq, apply);
  // standby: follow the leader's appends until this process holds the lease
  if (!leadership.valid()) await readStream(js, stream, lastSeq + 1, Infinity, apply, leadership.acquired);
  const publish = publisher(js, stream, leadership, options.logger);
  // take over the log: read what the old leader appended up to now, then fence it with a term marker
  for (let attempt = 0; ; attempt++) {
    await retried(async () => {
      const info = await jetstreamManager(nc).then((jsm) => jsm.streams.info(stream));
      await readStream(js, stream, lastSeq + 1, info.state.last_seq, apply);
    });
    try {
      const ack = await publish(new Uint8Array(0), `${leadership.term}:marker`, true, lastSeq);
      lastSeq = ack.seq;
      break;
    } catch (err) {
      if (!(err instanceof DeposedError) || attempt >= 20 || !leadership.valid()) throw err;
      await new Promise((r) => setTimeout(r, 100)); // the old leader's last append was on its way
    }
  }
  return writer(options, publish, { count, lastSeq });
}

/** Appends to `stream`'s subject with the expected last sequence, retrying what may land if sent again while the
 *  lease lasts (see the file's head). */
function publisher(
  js: JetStreamClient,
  stream: string,
  leadership: Leadership,
  logger: StreamLogOptions<unknown, unknown, unknown>["logger"],
): Publish {
  const subject = subjectOf(stream);
  return async (payload, msgID, marker, expected, closing) => {
    const t0 = performance.now();
    for (let attempt = 0; ; attempt++) {
      if (!leadership.valid()) throw new DeposedError(leadership.deposedReason ?? "lease lapsed");
      const h = headers();
      h.set(TERM_HEADER, leadership.term);
      try {
        const ack = await js.publish(subject, marker ? new Uint8Array(0) : payload, {
          msgID,
          expect: { lastSequence: expected },
          headers: h,
          timeout: 2_000,
        });
        if (attempt > 0)
          logger?.warn(
            { stream, msgID, attempts: attempt + 1, ms: Math.round(performance.now() - t0) },
            "order log append landed",
          );
        return ack;
      } catch (err) {
        if (err instanceof JetStreamApiError && err.code === WRONG_LAST_SEQUENCE)
          throw new DeposedError(`the order log ${stream} refused the append (another writer)`);
        if (!retriable(err)) throw err;
        // a stop does not wait out an outage: the append is abandoned unacknowledged (the standby reads the log)
        if (closing?.()) throw new Error(`the journal closed while the order log ${stream} did not answer`);
        if (attempt === 0)
          logger?.warn(
            { stream, msgID, err: String(err) },
            "order log append unanswered: retrying while the lease lasts",
          );
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  };
}

type Publish = (
  payload: Uint8Array,
  msgID: string,
  marker: boolean,
  expected: number,
  closing?: () => boolean,
) => Promise<PubAck>;

/** Whether an append may land if sent again: the cluster did not answer (a timeout; no stream leader, which
 *  NATS answers "no responders" and the client calls JetStreamNotEnabled; a JetStream 503; a connection
 *  between servers). Not: a refusal of the server (any other JetStream error), a closed or draining connection,
 *  a payload over the server's limit, a permission the connection lacks. */
function retriable(err: unknown): boolean {
  if (err instanceof JetStreamApiError) return err.code === 503;
  return !(
    err instanceof ClosedConnectionError ||
    err instanceof DrainingConnectionError ||
    err instanceof InvalidArgumentError ||
    err instanceof AuthorizationError ||
    err instanceof PermissionViolationError
  );
}

interface Waiting {
  frame: Buffer;
  value: unknown;
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
}

/** The leader's appends: records that arrive while one append is on its way go out together in the next
 *  (group commit), each message published with the sequence the previous one got as its expected last. */
class GroupCommit {
  count: number;
  closed = false;
  failure: Error | undefined;
  flushing: Promise<void> | undefined;
  private lastSeq: number;
  private pending: Waiting[] = [];
  /** when the append on its way was first sent (performance.now()), undefined when none is */
  sentAt: number | undefined;
  /** index of the first record not yet sent */
  private appended: number;

  constructor(
    private readonly leadership: Leadership,
    private readonly publish: Publish,
    at: { count: number; lastSeq: number },
  ) {
    this.count = at.count;
    this.appended = at.count;
    this.lastSeq = at.lastSeq;
    leadership.onDeposed((reason) => this.fail(new DeposedError(reason)));
  }

  fail(err: Error): void {
    this.failure ??= err;
    for (const w of this.pending) w.reject(this.failure);
    this.pending = [];
  }

  /** Why an append is refused now (closed, failed, deposed), else undefined. */
  refusal(): Error | undefined {
    if (this.closed) return new Error("journal closed");
    if (this.failure) return this.failure;
    const l = this.leadership;
    return l.valid() ? undefined : new DeposedError(l.deposedReason ?? "lease lapsed");
  }

  appendFrame<T = void>(frame: Buffer, value?: T): Promise<T> {
    const refused = this.refusal();
    if (refused) return Promise.reject(refused);
    this.count++;
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ frame, value, resolve: resolve as (v: unknown) => void, reject });
      this.kick();
    });
  }

  /** records that arrive in the same tick go out together; one append on its way at a time */
  private kick(): void {
    if (this.flushing) return;
    this.flushing = Promise.resolve()
      .then(() => this.flush())
      .finally(() => {
        this.flushing = undefined;
        if (this.pending.length > 0 && !this.failure) this.kick();
      });
  }

  private async flush(): Promise<void> {
    while (this.pending.length > 0 && !this.failure) {
      let bytes = 0;
      let n = 0;
      while (n < this.pending.length && (n === 0 || bytes + this.pending[n].frame.length <= MAX_MESSAGE_BYTES))
        bytes += this.pending[n++].frame.length;
      const batch = this.pending.splice(0, n);
      try {
        const payload = Buffer.concat(batch.map((w) => w.frame));
        this.sentAt = performance.now();
        const msgID = `${this.leadership.term}:${this.appended}`;
        const ack = await this.publish(payload, msgID, false, this.lastSeq, () => this.closed);
        this.lastSeq = ack.seq;
        this.appended += batch.length;
      } catch (err) {
        // deposed, or the log failed this append for good: either way the standby leads from what the log holds
        this.leadership.depose(err instanceof DeposedError ? err.message : `the order log failed an append: ${err}`);
        for (const w of batch) w.reject(err as Error);
        this.fail(err as Error);
        return;
      } finally {
        this.sentAt = undefined;
      }
      for (const w of batch) w.resolve(w.value);
    }
  }
}

function writer<C, M, S>(
  options: StreamLogOptions<C, M, S>,
  publish: Publish,
  at: { count: number; lastSeq: number },
): RecordLog<C, M> {
  const g = new GroupCommit(options.leadership, publish, at);
  return {
    recovery: { snapshotIndex: 0, replayed: at.count, truncatedBytes: 0, imported: 0 },
    get count() {
      return g.count;
    },
    refusal: () => g.refusal(),
    stalledMs: () => (g.sentAt === undefined ? 0 : performance.now() - g.sentAt),
    appendFrame: <T = void>(frame: Buffer, value?: T) => g.appendFrame<T>(frame, value),
    append(c: C, m?: M) {
      const frame = recordFrame(g.count, c, m);
      return frame instanceof Error ? Promise.reject(frame) : g.appendFrame(frame);
    },
    // the stream is the snapshot's replacement here: every start reads it (docs/decisions/pipeline.md)
    snapshot: async () => undefined,
    async close() {
      if (g.closed) return;
      g.closed = true;
      while (g.flushing) await g.flushing;
      if (g.failure && !(g.failure instanceof DeposedError)) throw g.failure;
    },
  };
}
