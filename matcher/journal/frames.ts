// Journal records on disk: [u32 payload length][u32 crc32 of payload][payload: JSON {i, c}].
// A crash can leave a torn last record; scanning stops at the first record that is short or whose
// checksum fails, and reports the byte offset where the valid prefix ends.
import { crc32 } from "node:zlib";
import type { Command } from "../core/types";

export interface JournalRecord {
  /** 0-based index of the command in the engine's whole history. */
  i: number;
  c: Command;
}

const HEADER_BYTES = 8;

export function encodeRecord(record: JournalRecord): Buffer {
  const payload = Buffer.from(JSON.stringify(record), "utf8");
  const frame = Buffer.allocUnsafe(HEADER_BYTES + payload.length);
  frame.writeUInt32LE(payload.length, 0);
  frame.writeUInt32LE(crc32(payload), 4);
  payload.copy(frame, HEADER_BYTES);
  return frame;
}

export interface ScanResult {
  records: JournalRecord[];
  /** Bytes of whole, valid records from the start of the buffer. */
  validBytes: number;
}

export function scanRecords(buf: Buffer): ScanResult {
  const records: JournalRecord[] = [];
  let off = 0;
  while (off + HEADER_BYTES <= buf.length) {
    const len = buf.readUInt32LE(off);
    const sum = buf.readUInt32LE(off + 4);
    const end = off + HEADER_BYTES + len;
    if (end > buf.length) break;
    const payload = buf.subarray(off + HEADER_BYTES, end);
    if (crc32(payload) !== sum) break;
    let record: JournalRecord;
    try {
      record = JSON.parse(payload.toString("utf8")) as JournalRecord;
    } catch {
      break;
    }
    if (!Number.isSafeInteger(record.i)) break;
    records.push(record);
    off = end;
  }
  return { records, validBytes: off };
}
