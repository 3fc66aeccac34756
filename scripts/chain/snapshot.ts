// Chain state snapshots (Anvil only: Hardhat 2 has no state dump). A snapshot is Anvil's own dump
// (`anvil_dumpState`: accounts, storage, and every block, transaction and receipt with its logs), written
// with the journal position it covers: a (re)start loads the newest good one and replays only the journal
// entries after it. One file per snapshot, `snapshots/<entries, 12 digits>.snap`, which is itself a JSON
// state file Anvil loads at its start (`anvil --load-state <file>`: no hex-encoded request, no gunzip):
//   line 1: `{"snapshot_header":<header>,` (what it covers, the head it must produce, the state's length
//           and crc32); Anvil ignores the member
//   then:   the rest of Anvil's state JSON, from just after its opening brace
// written to a temp file, fdatasync'd, renamed into place and the folder fsync'd: a snapshot is whole or
// absent. A torn or corrupt one (length or checksum wrong, a header that does not parse) is refused when
// read, and the start falls back to the one before, then to the full journal. The newest KEEP_SNAPSHOTS
// are kept; the journal itself is kept whole (the start reads it from the snapshot's byte offset on).
// Before it is written, the dump loses the call traces Anvil keeps for every transaction (compactDump):
// two thirds of its size and of its load time, and nothing here reads them (no debug_trace* on these
// chains); blocks, transactions, receipts and logs all stay. Uncompressed (format 2): about 6x the disk of
// the gzipped format 1, loaded 1.5-3x faster (docs/decisions/stack.md "Chain state snapshots").
import crypto from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import zlib from "node:zlib";
import { Worker } from "node:worker_threads";
import { AppError } from "../../runtime/errors";
import type { BlockHead } from "./journal";

/** 2: Anvil's state JSON with the header as its first member (1, the gzipped dump after a header line,
 *  is no longer read: such a snapshot is skipped and the journal replayed, once). */
export const SNAPSHOT_FORMAT = 2;
/** Snapshots kept: the newest and the one before it (the fallback when the newest is damaged). */
export const KEEP_SNAPSHOTS = 2;

export interface SnapshotHeader {
  format: typeof SNAPSHOT_FORMAT;
  node: "anvil";
  chainId: number;
  /** journal entries the state includes (the first `journalEntries` lines of journal.jsonl) */
  journalEntries: number;
  /** byte offset in journal.jsonl just after those entries: the tail is read from here */
  journalBytes: number;
  /** the chain's head in the state: a load must produce exactly this block */
  head: BlockHead;
  /** chain time minus wall-clock time (s) when taken: restores the clock when no tail entry follows */
  offsetS: number;
  takenAtMs: number;
  /** bytes after the header line (the state JSON less its opening brace) */
  stateBytes: number;
  /** zlib crc32 of those bytes */
  stateCrc32: number;
}

export interface Snapshot {
  file: string;
  header: SnapshotHeader;
  /** Anvil's state JSON (without the header member), as compactDump gave it */
  state: Buffer;
}

export class SnapshotCorruptError extends AppError<"CHAIN_SNAPSHOT_CORRUPT"> {
  constructor(file: string, why: string) {
    super("CHAIN_SNAPSHOT_CORRUPT", `chain snapshot ${file} is unusable: ${why}`, { details: { file, why } });
    this.name = "SnapshotCorruptError";
  }
}

const NAME = /^(\d{12})\.snap$/;

export function snapshotDir(chainDataDir: string): string {
  return path.join(chainDataDir, "snapshots");
}

/** Snapshot files, newest (most journal entries) first. Temp files of an interrupted write are ignored. */
export function listSnapshots(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((n) => NAME.test(n))
    .sort()
    .reverse()
    .map((n) => path.join(dir, n));
}

const HEADER_PREFIX = '{"snapshot_header":';
const HEADER_LIMIT = 64 * 1024;

/** Reads a snapshot's header line and checks its size against the file's (not the checksum: verifySnapshot).
 *  Throws SnapshotCorruptError when it is not whole. Returns the header and where the state starts. */
export function readSnapshotHeader(file: string): { header: SnapshotHeader; stateOffset: number } {
  let fd: number;
  try {
    fd = fs.openSync(file, "r");
  } catch (e) {
    throw new SnapshotCorruptError(file, `cannot read: ${(e as Error).message}`);
  }
  try {
    const head = Buffer.alloc(HEADER_LIMIT);
    const n = fs.readSync(fd, head, 0, HEADER_LIMIT, 0);
    const nl = head.subarray(0, n).indexOf(0x0a);
    if (nl < 0) throw new SnapshotCorruptError(file, "no header line");
    const line = head.subarray(0, nl).toString("utf8");
    let header: SnapshotHeader;
    try {
      // format 1's header was the whole first line
      header = (
        line.startsWith(HEADER_PREFIX) && line.endsWith(",")
          ? JSON.parse(line.slice(HEADER_PREFIX.length, -1))
          : JSON.parse(line)
      ) as SnapshotHeader;
      if (typeof header !== "object" || header === null) throw new Error("not an object");
    } catch {
      throw new SnapshotCorruptError(file, "the header is not JSON");
    }
    if (header.format !== SNAPSHOT_FORMAT || header.node !== "anvil")
      throw new SnapshotCorruptError(file, `unknown format ${header.format}/${header.node}`);
    const size = fs.fstatSync(fd).size;
    if (size - (nl + 1) !== header.stateBytes)
      throw new SnapshotCorruptError(
        file,
        `state is ${size - (nl + 1)} bytes, the header says ${header.stateBytes} (torn write?)`,
      );
    return { header, stateOffset: nl + 1 };
  } finally {
    fs.closeSync(fd);
  }
}

/** Checks the state's checksum, reading the file in chunks (a start runs it while Anvil loads the file). */
export async function verifySnapshot(file: string, header: SnapshotHeader, stateOffset: number): Promise<void> {
  let crc = 0;
  try {
    for await (const chunk of fs.createReadStream(file, { start: stateOffset, highWaterMark: 4 * 2 ** 20 }))
      crc = zlib.crc32(chunk as Buffer, crc);
  } catch (e) {
    throw new SnapshotCorruptError(file, `cannot read: ${(e as Error).message}`);
  }
  if (crc !== header.stateCrc32) throw new SnapshotCorruptError(file, "state checksum mismatch");
}

/** Reads and checks one whole snapshot file (tests, tools); throws SnapshotCorruptError when it is not whole. */
export function readSnapshot(file: string): Snapshot {
  const { header, stateOffset } = readSnapshotHeader(file);
  const rest = fs.readFileSync(file).subarray(stateOffset);
  if (zlib.crc32(rest) !== header.stateCrc32) throw new SnapshotCorruptError(file, "state checksum mismatch");
  return { file, header, state: Buffer.concat([Buffer.from("{"), rest]) };
}

/** Writes a snapshot atomically (temp file, fdatasync, rename, fsync of the folder); keeps the newest
 *  KEEP_SNAPSHOTS. `state` is Anvil's state JSON (an object with at least one member). Asynchronous: the
 *  chain's proxy serves on the same thread meanwhile. Returns the file. */
export async function writeSnapshot(
  dir: string,
  header: Omit<SnapshotHeader, "format" | "node" | "stateBytes" | "stateCrc32">,
  state: Buffer,
  stateCrc32?: number,
): Promise<string> {
  if (state[0] !== 0x7b || state[1] !== 0x22)
    throw new Error("a chain snapshot's state must be a JSON object with members");
  const rest = state.subarray(1);
  await fsp.mkdir(dir, { recursive: true });
  const full: SnapshotHeader = {
    format: SNAPSHOT_FORMAT,
    node: "anvil",
    ...header,
    stateBytes: rest.length,
    stateCrc32: stateCrc32 ?? zlib.crc32(rest),
  };
  const file = path.join(dir, `${String(header.journalEntries).padStart(12, "0")}.snap`);
  const tmp = path.join(dir, `.tmp-${process.pid}-${crypto.randomBytes(4).toString("hex")}`);
  const handle = await fsp.open(tmp, "w");
  try {
    await handle.write(Buffer.from(`${HEADER_PREFIX}${JSON.stringify(full)},\n`, "utf8"));
    await handle.write(rest);
    await handle.datasync();
  } catch (e) {
    await handle.close();
    await fsp.rm(tmp, { force: true });
    throw e;
  }
  await handle.close();
  await fsp.rename(tmp, file);
  fsyncDir(dir);
  for (const old of listSnapshots(dir).slice(KEEP_SNAPSHOTS)) await fsp.rm(old, { force: true });
  for (const n of await fsp.readdir(dir)) if (n.startsWith(".tmp-")) await fsp.rm(path.join(dir, n), { force: true });
  return file;
}

function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, "r");
    fs.fsyncSync(fd);
  } catch {
    // not supported on this platform: the rename is still atomic
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

// Runs on a thread of its own: parsing and re-serialising tens of MB would stall the chain's proxy, which
// serves on the thread that takes the snapshot. The checksum of what follows the opening brace (what
// writeSnapshot stores after the header) is taken there too.
const COMPACT_WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
const zlib = require("node:zlib");
const state = JSON.parse(zlib.gunzipSync(workerData).toString("utf8"));
for (const tx of state.transactions ?? []) if (tx && tx.info && Array.isArray(tx.info.traces)) tx.info.traces = [];
const out = Buffer.from(JSON.stringify(state), "utf8");
const crc32 = zlib.crc32(out.subarray(1));
const copy = new Uint8Array(out.length);
copy.set(out);
parentPort.postMessage({ state: copy, crc32 }, [copy.buffer]);
`;

/** Anvil's gzipped dump as state JSON without the per-transaction call traces (see the header comment),
 *  with the crc32 writeSnapshot stores. */
export function compactDump(gz: Buffer): Promise<{ state: Buffer; crc32: number }> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(COMPACT_WORKER, { eval: true, workerData: gz });
    let done = false;
    worker.once("message", (m: { state: Uint8Array; crc32: number }) => {
      done = true;
      resolve({ state: Buffer.from(m.state.buffer, m.state.byteOffset, m.state.byteLength), crc32: m.crc32 });
      void worker.terminate();
    });
    worker.once("error", (e) => {
      done = true;
      reject(e);
    });
    worker.once("exit", (code) => {
      if (!done) reject(new Error(`the snapshot compaction thread exited (${code})`));
    });
  });
}
