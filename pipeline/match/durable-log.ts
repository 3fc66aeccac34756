// An append-only JSON-lines file with group commit: records appended while the previous flush is on its
// way to disk share the next write and fsync; `append` resolves once its record is on disk. The fsync
// runs on libuv's thread pool, so the event loop keeps serving (intake, the chain proxy) while the disk
// works; one flush at a time keeps the file in append order. A torn last line (crash
// mid-write) is ignored on read: its append never resolved, so nothing was acknowledged on it.
import { closeSync, existsSync, fsync as fsyncAsync, fsyncSync, mkdirSync, openSync, readFileSync, writeSync } from "node:fs";
import { dirname } from "node:path";

export interface DurableLog<T> {
  /** every complete record, in append order (read once at open) */
  readonly records: readonly T[];
  append(record: T): Promise<void>;
  close(): void;
}

export function openDurableLog<T>(file: string, opts: { fsync?: boolean } = {}): DurableLog<T> {
  const fsync = opts.fsync ?? true;
  mkdirSync(dirname(file), { recursive: true });
  const records: T[] = [];
  if (existsSync(file)) {
    const text = readFileSync(file, "utf8");
    const lines = text.split("\n");
    // the last element is "" after a complete final line, or a torn fragment: skip it either way
    for (let i = 0; i < lines.length - 1; i++) if (lines[i]) records.push(JSON.parse(lines[i]) as T);
    if (lines[lines.length - 1] !== "") {
      // rewrite without the torn tail so that later appends start on a fresh line
      const good = lines.slice(0, -1).join("\n") + (lines.length > 1 ? "\n" : "");
      const fd0 = openSync(file, "w");
      writeSync(fd0, good);
      fsyncSync(fd0);
      closeSync(fd0);
    }
  }
  const fd = openSync(file, "a");
  let buffer: string[] = [];
  let waiters: { resolve: () => void; reject: (e: unknown) => void }[] = [];
  let scheduled = false;
  /** a write+fsync is in progress; appends meanwhile wait for the next flush */
  let flushing = false;
  let closed = false;

  const settle = (ws: typeof waiters, error: unknown): void => {
    for (const w of ws)
      if (error) w.reject(error);
      else w.resolve();
  };

  const flush = (): void => {
    scheduled = false;
    if (flushing || buffer.length === 0) return;
    const chunk = buffer.join("");
    const ws = waiters;
    buffer = [];
    waiters = [];
    try {
      writeSync(fd, chunk);
    } catch (e) {
      settle(ws, e);
      return;
    }
    if (!fsync) return settle(ws, null);
    flushing = true;
    fsyncAsync(fd, (e) => {
      flushing = false;
      settle(ws, e);
      if (closed) closeSync(fd); // close() left the descriptor to this flush
      else if (buffer.length > 0) flush();
    });
  };

  return {
    records,
    append(record: T): Promise<void> {
      if (closed) return Promise.reject(new Error("durable log closed"));
      buffer.push(JSON.stringify(record) + "\n");
      return new Promise((resolve, reject) => {
        waiters.push({ resolve, reject });
        if (!scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
      });
    },
    close(): void {
      if (closed) return;
      closed = true;
      // what is still buffered (or behind a flush in progress) goes to disk now, synchronously
      if (buffer.length) {
        const ws = waiters;
        try {
          writeSync(fd, buffer.join(""));
          if (fsync) fsyncSync(fd);
          settle(ws, null);
        } catch (e) {
          settle(ws, e);
        }
        buffer = [];
        waiters = [];
      }
      // a flush on its way to disk closes the descriptor when its fsync returns
      if (!flushing) closeSync(fd);
    },
  };
}
