// The chain journal: an append-only JSON-lines file of every state-changing call a chain accepted, in
// order, each with the head block it produced. Appends are group-committed: every entry queued while
// one write+fdatasync is in flight goes out in the next one, so the cost of durability is shared.
import fs from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { AppError } from "../../runtime/errors";

export interface BlockHead {
  number: number;
  hash: string;
  timestamp: number;
}

export interface JournalEntry {
  method: string;
  params: unknown[];
  /** False when the node answered with a JSON-RPC error (e.g. a mined transaction that reverted). */
  ok: boolean;
  /** The chain's head after the call. */
  head: BlockHead;
  /** Set when the call produced blocks: the timestamp of the first one, replayed exactly. */
  firstBlockTimestamp?: number;
  /** Chain time minus wall-clock time (s) when the call was made: restores the chain's clock. */
  offsetS: number;
}

export class JournalCorruptError extends AppError<"CHAIN_JOURNAL_CORRUPT"> {
  constructor(file: string, line: number, cause: unknown) {
    super(
      "CHAIN_JOURNAL_CORRUPT",
      `chain journal ${file} is corrupt at line ${line}; start with --reset to discard it`,
      { cause, details: { file, line } },
    );
    this.name = "JournalCorruptError";
  }
}

/** Reads every complete entry; a torn last line (a crash mid-append) is cut off the file. */
export function readJournal(file: string): JournalEntry[] {
  return readJournalFrom(file, 0).entries;
}

/**
 * Reads the complete entries from byte `fromByte` on (0: all; a snapshot's `journalBytes`: the tail after
 * it, without reading what it covers). A torn last line (a crash mid-append, never acknowledged) is cut
 * off the file. Returns the entries and the byte offset after the last one (the file's length then).
 */
export function readJournalFrom(file: string, fromByte: number): { entries: JournalEntry[]; endByte: number } {
  if (!fs.existsSync(file)) {
    if (fromByte > 0) throw new JournalCorruptError(file, 0, new Error(`missing, but ${fromByte} bytes were expected`));
    return { entries: [], endByte: 0 };
  }
  const fd = fs.openSync(file, "r");
  let buf: Buffer;
  try {
    const size = fs.fstatSync(fd).size;
    if (size < fromByte)
      throw new JournalCorruptError(file, 0, new Error(`${size} bytes, shorter than the ${fromByte} expected`));
    if (fromByte > 0) {
      const before = Buffer.alloc(1);
      fs.readSync(fd, before, 0, 1, fromByte - 1);
      if (before[0] !== 0x0a)
        throw new JournalCorruptError(file, 0, new Error(`byte ${fromByte} is not the start of an entry`));
    }
    buf = Buffer.alloc(size - fromByte);
    let got = 0;
    while (got < buf.length) {
      const n = fs.readSync(fd, buf, got, buf.length - got, fromByte + got);
      if (n === 0) break;
      got += n;
    }
  } finally {
    fs.closeSync(fd);
  }
  const entries: JournalEntry[] = [];
  let offset = 0;
  let lineNo = 0;
  while (offset < buf.length) {
    const end = buf.indexOf(0x0a, offset);
    lineNo++;
    if (end === -1) {
      // No newline: the append never completed, so it was never acknowledged either.
      fs.truncateSync(file, fromByte + offset);
      break;
    }
    try {
      entries.push(JSON.parse(buf.toString("utf8", offset, end)) as JournalEntry);
    } catch (e) {
      throw new JournalCorruptError(file, lineNo, e);
    }
    offset = end + 1;
  }
  return { entries, endByte: fromByte + offset };
}

export interface JournalWriter {
  /** Resolves once the entry is on disk (fdatasync), in append order. */
  append(entry: JournalEntry): Promise<void>;
  close(): Promise<void>;
  /** Once every entry appended so far is written (and fdatasync'd): the file's length then. */
  flushedBytes(): Promise<number>;
  /** entries and flushes so far; lastFlushAtMs: wall clock of the last flush (0: none yet) */
  readonly stats: { entries: number; flushes: number; lastFlushAtMs: number };
}

export async function openJournalWriter(file: string, options: { fsync: boolean }): Promise<JournalWriter> {
  const handle: FileHandle = await open(file, "a");
  let bytes = (await handle.stat()).size;
  let queue: { line: string; resolve: () => void; reject: (e: unknown) => void }[] = [];
  let flushing: Promise<void> | null = null;
  const stats = { entries: 0, flushes: 0, lastFlushAtMs: 0 };

  async function flushLoop(): Promise<void> {
    while (queue.length > 0) {
      const batch = queue;
      queue = [];
      try {
        const chunk = Buffer.from(batch.map((b) => b.line).join(""), "utf8");
        await handle.write(chunk);
        bytes += chunk.length;
        if (options.fsync) await handle.datasync();
        stats.flushes++;
        stats.entries += batch.length;
        stats.lastFlushAtMs = Date.now();
        for (const b of batch) b.resolve();
      } catch (e) {
        for (const b of batch) b.reject(e);
      }
    }
    flushing = null;
  }

  return {
    stats,
    append(entry) {
      return new Promise<void>((resolve, reject) => {
        queue.push({ line: `${JSON.stringify(entry)}\n`, resolve, reject });
        flushing ??= flushLoop();
      });
    },
    async flushedBytes() {
      while (flushing) await flushing;
      return bytes;
    },
    async close() {
      await flushing;
      await handle.close();
    },
  };
}
