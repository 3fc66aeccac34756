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
    super("CHAIN_JOURNAL_CORRUPT", `chain journal ${file} is corrupt at line ${line}; start with --reset to discard it`, { cause, details: { file, line } });
    this.name = "JournalCorruptError";
  }
}

/** Reads every complete entry; a torn last line (a crash mid-append) is cut off the file. */
export function readJournal(file: string): JournalEntry[] {
  if (!fs.existsSync(file)) return [];
  const text = fs.readFileSync(file, "utf8");
  const entries: JournalEntry[] = [];
  let offset = 0;
  let lineNo = 0;
  while (offset < text.length) {
    const end = text.indexOf("\n", offset);
    lineNo++;
    if (end === -1) {
      // No newline: the append never completed, so it was never acknowledged either.
      fs.truncateSync(file, Buffer.byteLength(text.slice(0, offset)));
      break;
    }
    const line = text.slice(offset, end);
    try {
      entries.push(JSON.parse(line) as JournalEntry);
    } catch (e) {
      throw new JournalCorruptError(file, lineNo, e);
    }
    offset = end + 1;
  }
  return entries;
}

export interface JournalWriter {
  /** Resolves once the entry is on disk (fdatasync), in append order. */
  append(entry: JournalEntry): Promise<void>;
  close(): Promise<void>;
  readonly stats: { entries: number; flushes: number };
}

export async function openJournalWriter(file: string, options: { fsync: boolean }): Promise<JournalWriter> {
  const handle: FileHandle = await open(file, "a");
  let queue: { line: string; resolve: () => void; reject: (e: unknown) => void }[] = [];
  let flushing: Promise<void> | null = null;
  const stats = { entries: 0, flushes: 0 };

  async function flushLoop(): Promise<void> {
    while (queue.length > 0) {
      const batch = queue;
      queue = [];
      try {
        await handle.write(batch.map((b) => b.line).join(""));
        if (options.fsync) await handle.datasync();
        stats.flushes++;
        stats.entries += batch.length;
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
        queue.push({ line: JSON.stringify(entry) + "\n", resolve, reject });
        flushing ??= flushLoop();
      });
    },
    async close() {
      await flushing;
      await handle.close();
    },
  };
}
