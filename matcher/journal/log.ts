// The write-ahead log under every journal of the venue (the matcher's commands, the batcher's batch
// compositions): checksummed records in segments, group commit, snapshots, recovery.
// append() resolves only once its record is on disk: records that arrive while a write is under way are
// written and fdatasync'ed together (group commit), so one fsync acknowledges a whole batch. A snapshot
// stores the owner's state at a record index and starts a new segment; older segments and snapshots are
// then deleted. Recovery = newest valid snapshot + the records after it, in order; a torn last record (an
// unacknowledged write cut by a crash) is cut off the tail.
import { existsSync } from "node:fs";
import { mkdir, open, readFile, rename, truncate, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { encodeFrame, recordFrame, scanRecords, type JournalRecord } from "./frames";
import { fsyncDir, listDir, readSnapshotFile, removeFiles, segmentName, writeSnapshotFile } from "./files";

export interface RecoveryReport {
  /** Record index the snapshot stood at (0 without snapshot). */
  snapshotIndex: number;
  /** Journal records replayed on top of it. */
  replayed: number;
  /** Bytes of a torn last record cut from the journal's tail (an unacknowledged write). */
  truncatedBytes: number;
  /** Records carried over from a JSON-lines file of the previous version (0 when there was none). */
  imported: number;
}

/** A JSON-lines file an earlier version wrote (one record per line, a torn last line ignored). */
export interface LegacyJsonLines<C, M> {
  /** file name inside the journal's directory */
  file: string;
  /** one parsed line -> the record's content */
  convert(line: unknown): { c: C; m?: M };
}

export interface RecordLogOptions<C, M, S> {
  dir: string;
  /** fdatasync each batch before acknowledging it (default true). false only for tests and benchmarks. */
  fsync?: boolean;
  /** Called once before replay with the newest valid snapshot (undefined without one). */
  restore?(snapshot: { index: number; state: S } | undefined): void;
  /** Called for every record after the snapshot, in order. */
  replay?(record: JournalRecord<C, M>): void;
  /** The owner's state, for snapshots (taken synchronously at the snapshot's record index). */
  state?(): S;
  /** Take a snapshot (and start a new segment) after this many records; 0 = never (default). Needs `state`. */
  snapshotEvery?: number;
  /** Carry a previous version's JSON-lines file into the journal once (then renamed `<file>.imported`). */
  legacy?: LegacyJsonLines<C, M>;
}

export interface RecordLog<C, M = unknown> {
  /** Records appended so far in the journal's whole history (the next record's index). */
  readonly count: number;
  readonly recovery: RecoveryReport;
  /** Appends record `count`; resolves once it (and every record before it) is durable. */
  append(c: C, m?: M): Promise<void>;
  /** Why append() would refuse now (the journal is closed or a write failed), else undefined. */
  refusal(): Error | undefined;
  /** How long the write on its way has waited for the log to hold it (ms; 0 when none is): a replicated log
   *  that lost its quorum keeps retrying, and its owner refuses new work meanwhile. Absent: never stalls. */
  stalledMs?(): number;
  /** Appends an already framed record (its index must be `count`, see frames.ts); resolves with `value`
   *  once durable (saves the owner a promise per record). */
  appendFrame<T = void>(frame: Buffer, value?: T): Promise<T>;
  /** Writes a snapshot of `state()` at the current record index and starts a new segment. */
  snapshot(): Promise<void>;
  /** Waits for every pending write, then closes the journal. */
  close(): Promise<void>;
}

/** How a journal's owner opens its record log: openRecordLog (local files) or a replicated log with the
 *  same contract (pipeline/replication/stream-log.ts). */
export type OpenRecordLog = <C, M = unknown, S = unknown>(
  options: RecordLogOptions<C, M, S>,
) => Promise<RecordLog<C, M>>;

interface Waiter {
  value: unknown;
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
}

export async function openRecordLog<C, M = unknown, S = unknown>(
  options: RecordLogOptions<C, M, S>,
): Promise<RecordLog<C, M>> {
  const { dir } = options;
  await mkdir(dir, { recursive: true });
  const imported = options.legacy ? await importLegacy(dir, options.legacy) : 0;
  const { count: recovered, lastSegment, report } = await recover(options);
  report.imported = imported;
  const fh: FileHandle = await open(join(dir, lastSegment), "a");
  await fsyncDir(dir);
  return new FileRecordLog(options, fh, recovered, report);
}

/** The local-files record log: appends batched into one write (and one datasync) a turn, snapshots that
 *  start a new segment. Every file operation goes through one queue (`enqueue`). */
class FileRecordLog<C, M, S> implements RecordLog<C, M> {
  private readonly fsync: boolean;
  private pending: Buffer[] = [];
  private waiters: Waiter[] = [];
  private io: Promise<void> = Promise.resolve();
  private flushQueued = false;
  private failure: Error | undefined;
  private closed = false;
  private sinceSnapshot = 0;

  constructor(
    private readonly options: RecordLogOptions<C, M, S>,
    private fh: FileHandle,
    private records: number,
    readonly recovery: RecoveryReport,
  ) {
    this.fsync = options.fsync ?? true;
  }

  get count(): number {
    return this.records;
  }

  private fail(err: Error): void {
    this.failure ??= err;
    for (const w of this.waiters) w.reject(this.failure);
    this.waiters = [];
    this.pending = [];
  }

  /** Serialises every file operation: batches, rotations and snapshots never interleave. */
  private enqueue(task: () => Promise<void>): Promise<void> {
    this.io = this.io.then(() => (this.failure ? undefined : task())).catch((err: Error) => this.fail(err));
    return this.io;
  }

  private async writePending(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending;
      const batchWaiters = this.waiters;
      this.pending = [];
      this.waiters = [];
      try {
        await this.fh.write(Buffer.concat(batch));
        if (this.fsync) await this.fh.datasync();
      } catch (err) {
        for (const w of batchWaiters) w.reject(err as Error);
        throw err;
      }
      for (const w of batchWaiters) w.resolve(w.value);
    }
  }

  private readonly flush = () => {
    this.flushQueued = false;
    return this.writePending();
  };

  private readonly snapshotTask = async () => {
    const { options } = this;
    const { dir } = options;
    if (!options.state) throw new Error("this journal takes no snapshots (no state)");
    await this.writePending();
    // Synchronous from here to the rotation: no record can slip between the state and the index.
    const index = this.records;
    const state = options.state();
    const next = await open(join(dir, segmentName(index)), "a");
    const old = this.fh;
    this.fh = next;
    await old.close();
    await fsyncDir(dir);
    await writeSnapshotFile(dir, index, state);
    // Older segments and snapshots are no longer needed once this snapshot is durable.
    const listing = await listDir(dir);
    await removeFiles(dir, [
      ...listing.segments.filter((s) => s.firstIndex < index).map((s) => s.name),
      ...listing.snapshots.filter((s) => s.index < index).map((s) => s.name),
    ]);
    this.sinceSnapshot = 0;
  };

  readonly refusal = (): Error | undefined => (this.closed ? new Error("journal closed") : this.failure);

  readonly appendFrame = <T = void>(frame: Buffer, value?: T): Promise<T> => {
    const refused = this.refusal();
    if (refused) return Promise.reject(refused);
    this.records++;
    this.sinceSnapshot++;
    return new Promise<T>((resolve, reject) => {
      this.pending.push(frame);
      this.waiters.push({ value, resolve: resolve as (value: unknown) => void, reject });
      if (!this.flushQueued) {
        this.flushQueued = true;
        void this.enqueue(this.flush);
      }
      const every = this.options.snapshotEvery;
      if (every && this.sinceSnapshot >= every) {
        this.sinceSnapshot = 0;
        void this.enqueue(this.snapshotTask);
      }
    });
  };

  append(c: C, m?: M): Promise<void> {
    const frame = recordFrame(this.records, c, m);
    return frame instanceof Error ? Promise.reject(frame) : this.appendFrame(frame);
  }

  snapshot(): Promise<void> {
    return this.enqueue(this.snapshotTask).then(() => {
      if (this.failure) throw this.failure;
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.enqueue(() => this.writePending());
    await this.fh.close();
    if (this.failure) throw this.failure;
  }
}

async function recover<C, M, S>(
  options: RecordLogOptions<C, M, S>,
): Promise<{ count: number; lastSegment: string; report: RecoveryReport }> {
  const { dir } = options;
  const listing = await listDir(dir);
  let snapshot: { index: number; state: S } | undefined;
  for (const s of [...listing.snapshots].reverse()) {
    snapshot = await readSnapshotFile<S>(dir, s.name);
    if (snapshot !== undefined) break; // else a snapshot cut short by a crash: use an older one
  }
  options.restore?.(snapshot);
  const snapshotIndex = snapshot?.index ?? 0;

  let count = snapshotIndex;
  let truncatedBytes = 0;
  const segments = listing.segments;
  for (const [k, seg] of segments.entries()) {
    const path = join(dir, seg.name);
    const buf = await readFile(path);
    const { records, validBytes } = scanRecords<C, M>(buf);
    if (validBytes < buf.length) {
      if (k !== segments.length - 1) throw new Error(`journal ${seg.name} is corrupt at byte ${validBytes}`);
      truncatedBytes = buf.length - validBytes;
      await truncate(path, validBytes);
    }
    for (const r of records) {
      if (r.i < count) continue;
      if (r.i !== count) throw new Error(`journal gap: expected record ${count}, found ${r.i} in ${seg.name}`);
      options.replay?.(r);
      count++;
    }
  }
  const lastSegment = segments.length > 0 ? segments[segments.length - 1].name : segmentName(snapshotIndex);
  return {
    count,
    lastSegment,
    report: { snapshotIndex, replayed: count - snapshotIndex, truncatedBytes, imported: 0 },
  };
}

/** Carries a previous version's JSON-lines file into the journal's first segment, once. The segment is
 *  written beside, fsynced and renamed into place before the old file is renamed away, so a crash at any
 *  point leaves either the old file alone (imported again at the next start) or the whole segment. */
async function importLegacy<C, M>(dir: string, legacy: LegacyJsonLines<C, M>): Promise<number> {
  const file = join(dir, legacy.file);
  if (!existsSync(file)) return 0;
  const listing = await listDir(dir);
  let imported = 0;
  if (listing.segments.length === 0 && listing.snapshots.length === 0) {
    const lines = (await readFile(file, "utf8")).split("\n");
    // the last element is "" after a complete final line, or a torn fragment (never acknowledged): skip it
    const frames: Buffer[] = [];
    for (let k = 0; k < lines.length - 1; k++) {
      if (!lines[k]) continue;
      const { c, m } = legacy.convert(JSON.parse(lines[k]));
      const i = frames.length;
      frames.push(encodeFrame(JSON.stringify(m === undefined ? { i, c } : { i, c, m })));
    }
    const target = join(dir, segmentName(0));
    const fh = await open(`${target}.tmp`, "w");
    try {
      await fh.writeFile(Buffer.concat(frames));
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(`${target}.tmp`, target);
    await fsyncDir(dir);
    imported = frames.length;
  }
  // journal files without the old file being renamed away: a crash after the import; only the rename is left
  await rename(file, `${file}.imported`);
  await fsyncDir(dir);
  return imported;
}
