// Tests: read and write a journal directory (matcher/journal) synchronously, as a crash would leave it.
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { encodeRecord, scanRecords, type JournalRecord } from "../journal/frames";
import { segmentName } from "../journal/files";

const segments = (dir: string): string[] =>
  existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => /^journal-\d+\.log$/.test(f))
        .sort()
    : [];

/** Every valid record in the directory's segments, in order. */
export function readJournalRecords<C = unknown, M = unknown>(dir: string): JournalRecord<C, M>[] {
  return segments(dir).flatMap((name) => scanRecords<C, M>(readFileSync(join(dir, name))).records);
}

/** The contents of every record, in order. */
export const readJournalContents = <C = unknown>(dir: string): C[] => readJournalRecords<C>(dir).map((r) => r.c);

/** Appends records with the next indexes to the last segment (creating the first one), as a journal that
 *  wrote them and then crashed would leave the directory. */
export function appendJournalRecords(dir: string, contents: unknown[]): void {
  mkdirSync(dir, { recursive: true });
  const records = readJournalRecords(dir);
  let next = records.length > 0 ? records[records.length - 1].i + 1 : 0;
  const last = segments(dir).at(-1) ?? segmentName(next);
  appendFileSync(join(dir, last), Buffer.concat(contents.map((c) => encodeRecord({ i: next++, c }))));
}
