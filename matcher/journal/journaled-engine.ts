// The engine behind a write-ahead journal. submit() applies the command at once (so commands are
// ordered by arrival) and resolves with its events only once the command's record is on disk:
// records of commands that arrive while a write is under way are written and fdatasync'ed together
// (group commit), so one fsync acknowledges a whole batch. Restart = newest valid snapshot + replay
// of the journal records after it: the same book and, command by command, the same events.
import { mkdir, open, readFile, truncate, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { MatchingEngine } from "../core/engine";
import { restoreSnapshot, takeSnapshot } from "../core/snapshot";
import { NULL_SINK } from "../core/collector";
import type { Command, EngineEvent, MarketConfig } from "../core/types";
import { encodeRecord, scanRecords, type JournalRecord } from "./frames";
import { fsyncDir, listDir, readSnapshotFile, removeFiles, segmentName, writeSnapshotFile } from "./files";

export interface JournaledEngineOptions {
  dir: string;
  /** Markets to open; markets already in the snapshot keep their stored config. */
  markets: MarketConfig[];
  /** fdatasync each batch before acknowledging it (default true). false only for tests and benchmarks. */
  fsync?: boolean;
  /** Take a snapshot (and start a new segment) after this many commands; 0 = never (default). */
  snapshotEvery?: number;
}

export interface RecoveryReport {
  /** Command index the snapshot stood at (0 without snapshot). */
  snapshotIndex: number;
  /** Journal records replayed on top of it. */
  replayed: number;
  /** Bytes of a torn last record cut from the journal's tail (an unacknowledged write). */
  truncatedBytes: number;
}

export interface JournaledEngine {
  /** Read access (depth, orders). Commands must go through submit(). */
  readonly engine: MatchingEngine;
  /** Commands applied so far (acknowledged or still waiting for their fsync). */
  readonly commandCount: number;
  readonly recovery: RecoveryReport;
  /** Applies the command now; resolves with its events once it is durable. */
  submit(cmd: Command): Promise<EngineEvent[]>;
  /** Writes a snapshot at the current command index and starts a new journal segment. */
  snapshot(): Promise<void>;
  /** Waits for every pending write, then closes the journal. */
  close(): Promise<void>;
}

interface Waiter {
  events: EngineEvent[];
  resolve: (events: EngineEvent[]) => void;
  reject: (err: Error) => void;
}

export async function createJournaledEngine(options: JournaledEngineOptions): Promise<JournaledEngine> {
  const { dir } = options;
  const fsync = options.fsync ?? true;
  await mkdir(dir, { recursive: true });
  const { engine, count, lastSegment, report } = await recover(dir, options.markets);

  let fh: FileHandle = await open(join(dir, lastSegment), "a");
  await fsyncDir(dir);
  let commandCount = count;
  let pending: Buffer[] = [];
  let waiters: Waiter[] = [];
  let io: Promise<void> = Promise.resolve();
  let flushQueued = false;
  let failure: Error | undefined;
  let closed = false;
  let sinceSnapshot = 0;

  const fail = (err: Error) => {
    failure ??= err;
    for (const w of waiters) w.reject(failure);
    waiters = [];
    pending = [];
  };

  /** Serialises every file operation: batches, rotations and snapshots never interleave. */
  const enqueue = (task: () => Promise<void>): Promise<void> => {
    io = io.then(() => (failure ? undefined : task())).catch((err: Error) => fail(err));
    return io;
  };

  const writePending = async () => {
    while (pending.length > 0) {
      const batch = pending;
      const batchWaiters = waiters;
      pending = [];
      waiters = [];
      try {
        await fh.write(Buffer.concat(batch));
        if (fsync) await fh.datasync();
      } catch (err) {
        for (const w of batchWaiters) w.reject(err as Error);
        throw err;
      }
      for (const w of batchWaiters) w.resolve(w.events);
    }
  };

  const flush = () => {
    flushQueued = false;
    return writePending();
  };

  const snapshotTask = async () => {
    await writePending();
    // Synchronous from here to the rotation: no command can slip between the state and the index.
    const index = commandCount;
    const state = takeSnapshot(engine);
    const next = await open(join(dir, segmentName(index)), "a");
    const old = fh;
    fh = next;
    await old.close();
    await fsyncDir(dir);
    await writeSnapshotFile(dir, index, state);
    // Older segments and snapshots are no longer needed once this snapshot is durable.
    const listing = await listDir(dir);
    await removeFiles(dir, [
      ...listing.segments.filter((s) => s.firstIndex < index).map((s) => s.name),
      ...listing.snapshots.filter((s) => s.index < index).map((s) => s.name),
    ]);
    sinceSnapshot = 0;
  };

  const journaled: JournaledEngine = {
    engine,
    recovery: report,
    get commandCount() {
      return commandCount;
    },
    submit(cmd: Command): Promise<EngineEvent[]> {
      if (closed) return Promise.reject(new Error("journal closed"));
      if (failure) return Promise.reject(failure);
      let frame: Buffer;
      let applied: Command;
      try {
        frame = encodeRecord({ i: commandCount, c: cmd });
        // Apply exactly what replay will read back (JSON drops undefined, turns NaN into null...).
        applied = (JSON.parse(frame.subarray(8).toString("utf8")) as JournalRecord).c;
      } catch (err) {
        return Promise.reject(new Error(`command cannot be journaled: ${(err as Error).message}`));
      }
      const events = engine.apply(applied);
      commandCount++;
      sinceSnapshot++;
      return new Promise<EngineEvent[]>((resolve, reject) => {
        pending.push(frame);
        waiters.push({ events, resolve, reject });
        if (!flushQueued) {
          flushQueued = true;
          void enqueue(flush);
        }
        if (options.snapshotEvery && sinceSnapshot >= options.snapshotEvery) {
          sinceSnapshot = 0;
          void enqueue(snapshotTask);
        }
      });
    },
    snapshot: () => enqueue(snapshotTask).then(() => {
      if (failure) throw failure;
    }),
    async close() {
      if (closed) return;
      closed = true;
      await enqueue(writePending);
      await fh.close();
      if (failure) throw failure;
    },
  };
  return journaled;
}

async function recover(
  dir: string,
  markets: MarketConfig[],
): Promise<{ engine: MatchingEngine; count: number; lastSegment: string; report: RecoveryReport }> {
  const listing = await listDir(dir);
  let engine: MatchingEngine | undefined;
  let snapshotIndex = 0;
  for (const s of [...listing.snapshots].reverse()) {
    const snap = await readSnapshotFile(dir, s.name);
    if (snap === undefined) continue; // a snapshot cut short by a crash: use an older one
    engine = restoreSnapshot(snap.state);
    snapshotIndex = snap.index;
    break;
  }
  engine ??= new MatchingEngine({ markets: [] });
  for (const m of markets) if (!engine.markets.has(m.symbol)) engine.addMarket(m);

  let count = snapshotIndex;
  let truncatedBytes = 0;
  const segments = listing.segments;
  for (const [k, seg] of segments.entries()) {
    const path = join(dir, seg.name);
    const buf = await readFile(path);
    const { records, validBytes } = scanRecords(buf);
    if (validBytes < buf.length) {
      if (k !== segments.length - 1) throw new Error(`journal ${seg.name} is corrupt at byte ${validBytes}`);
      truncatedBytes = buf.length - validBytes;
      await truncate(path, validBytes);
    }
    for (const r of records) {
      if (r.i < count) continue;
      if (r.i !== count) throw new Error(`journal gap: expected command ${count}, found ${r.i} in ${seg.name}`);
      engine.process(r.c, NULL_SINK);
      count++;
    }
  }
  const lastSegment = segments.length > 0 ? segments[segments.length - 1].name : segmentName(snapshotIndex);
  return { engine, count, lastSegment, report: { snapshotIndex, replayed: count - snapshotIndex, truncatedBytes } };
}
