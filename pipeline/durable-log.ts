// An append-only JSON-lines file with group commit: records appended in the same turn of the event loop
// share one write and one fsync; `append` resolves once its record is on disk. A torn last line (crash
// mid-write) is ignored on read: its append never resolved, so nothing was acknowledged on it.
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, writeSync } from "node:fs";
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
  let closed = false;

  const flush = (): void => {
    scheduled = false;
    const chunk = buffer.join("");
    const ws = waiters;
    buffer = [];
    waiters = [];
    try {
      writeSync(fd, chunk);
      if (fsync) fsyncSync(fd);
      for (const w of ws) w.resolve();
    } catch (e) {
      for (const w of ws) w.reject(e);
    }
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
      if (buffer.length) flush();
      closed = true;
      closeSync(fd);
    },
  };
}
