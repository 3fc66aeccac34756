// File names and durable file operations of a journal directory:
//   journal-<first record index>.log   append-only records (segments)
//   snapshot-<record index>.json       the owner's state after that many records (header line + state;
//                                      the matcher's: the engine after that many commands)
import { crc32 } from "node:zlib";
import { open, readdir, readFile, rename, unlink } from "node:fs/promises";
import { join } from "node:path";

const SEGMENT = /^journal-(\d+)\.log$/;
const SNAPSHOT = /^snapshot-(\d+)\.json$/;

export const segmentName = (firstIndex: number) => `journal-${String(firstIndex).padStart(12, "0")}.log`;
export const snapshotName = (index: number) => `snapshot-${String(index).padStart(12, "0")}.json`;

export interface DirListing {
  segments: { name: string; firstIndex: number }[];
  snapshots: { name: string; index: number }[];
}

export async function listDir(dir: string): Promise<DirListing> {
  const names = await readdir(dir);
  const segments = names.flatMap((name) => {
    const m = SEGMENT.exec(name);
    return m ? [{ name, firstIndex: Number(m[1]) }] : [];
  });
  const snapshots = names.flatMap((name) => {
    const m = SNAPSHOT.exec(name);
    return m ? [{ name, index: Number(m[1]) }] : [];
  });
  segments.sort((a, b) => a.firstIndex - b.firstIndex);
  snapshots.sort((a, b) => a.index - b.index);
  return { segments, snapshots };
}

/** Makes a directory entry (a created or renamed file) durable. */
export async function fsyncDir(dir: string): Promise<void> {
  const fh = await open(dir, "r");
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Writes the snapshot atomically: temporary file, fsync, rename, fsync of the directory. */
export async function writeSnapshotFile(dir: string, index: number, state: unknown): Promise<void> {
  const body = Buffer.from(JSON.stringify(state), "utf8");
  const header = Buffer.from(`${JSON.stringify({ index, bytes: body.length, crc32: crc32(body) })}\n`, "utf8");
  const tmp = join(dir, `${snapshotName(index)}.tmp`);
  const fh = await open(tmp, "w");
  try {
    await fh.writeFile(Buffer.concat([header, body]));
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(tmp, join(dir, snapshotName(index)));
  await fsyncDir(dir);
}

/** The snapshot's state, or undefined when the file is incomplete or corrupt. */
export async function readSnapshotFile<S>(dir: string, name: string): Promise<{ index: number; state: S } | undefined> {
  const buf = await readFile(join(dir, name));
  const nl = buf.indexOf(10);
  if (nl < 0) return undefined;
  try {
    const header = JSON.parse(buf.subarray(0, nl).toString("utf8")) as { index: number; bytes: number; crc32: number };
    const body = buf.subarray(nl + 1);
    if (body.length !== header.bytes || crc32(body) !== header.crc32) return undefined;
    return { index: header.index, state: JSON.parse(body.toString("utf8")) as S };
  } catch {
    return undefined;
  }
}

export async function removeFiles(dir: string, names: string[]): Promise<void> {
  for (const name of names) await unlink(join(dir, name)).catch(() => undefined);
}
