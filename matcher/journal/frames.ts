// Journal records on disk: [u32 payload length][u32 crc32 of payload][payload: JSON {i, c, m?}].
// A crash can leave a torn last record; scanning stops at the first record that is short or whose
// checksum fails, and reports the byte offset where the valid prefix ends.
import { crc32 } from "node:zlib";
import type { Command } from "../core/types";

export interface JournalRecord<C = Command, M = unknown> {
  /** 0-based index of the record in the journal's whole history. */
  i: number;
  /** the record's content: an engine command for the matcher, a batch composition for the batcher... */
  c: C;
  /** facts beside the content that replay needs (e.g. the signed order a place command carries) */
  m?: M;
}

export const HEADER_BYTES = 8;

/** Frames an already serialised JSON payload. */
export function encodeFrame(payload: string): Buffer {
  const len = Buffer.byteLength(payload, "utf8");
  const frame = Buffer.allocUnsafe(HEADER_BYTES + len);
  frame.write(payload, HEADER_BYTES, "utf8");
  frame.writeUInt32LE(len, 0);
  frame.writeUInt32LE(crc32(frame.subarray(HEADER_BYTES)), 4);
  return frame;
}

export function encodeRecord(record: JournalRecord<unknown, unknown>): Buffer {
  return encodeFrame(JSON.stringify(record));
}

/** The frame of record `i` (command `c`, meta `m` when given), or the error saying why it cannot be journaled. */
export function recordFrame(i: number, c: unknown, m: unknown): Buffer | Error {
  try {
    return encodeRecord(m === undefined ? { i, c } : { i, c, m });
  } catch (err) {
    return new Error(`record cannot be journaled: ${(err as Error).message}`);
  }
}

export interface ScanResult<C = Command, M = unknown> {
  records: JournalRecord<C, M>[];
  /** Bytes of whole, valid records from the start of the buffer. */
  validBytes: number;
}

export function scanRecords<C = Command, M = unknown>(buf: Buffer): ScanResult<C, M> {
  const records: JournalRecord<C, M>[] = [];
  let off = 0;
  while (off + HEADER_BYTES <= buf.length) {
    const len = buf.readUInt32LE(off);
    const sum = buf.readUInt32LE(off + 4);
    const end = off + HEADER_BYTES + len;
    if (end > buf.length) break;
    const payload = buf.subarray(off + HEADER_BYTES, end);
    if (crc32(payload) !== sum) break;
    let record: JournalRecord<C, M>;
    try {
      record = JSON.parse(payload.toString("utf8")) as JournalRecord<C, M>;
    } catch {
      break;
    }
    if (!Number.isSafeInteger(record.i)) break;
    records.push(record);
    off = end;
  }
  return { records, validBytes: off };
}
