// Chain state snapshots (Anvil only: Hardhat 2 has no state dump). A snapshot is Anvil's own dump
// (`anvil_dumpState`: accounts, storage, and every block, transaction and receipt with its logs, gzipped),
// written with the journal position it covers: a (re)start loads the newest good one and replays only the
// journal entries after it. One file per snapshot, `snapshots/<entries, 12 digits>.snap`:
//   line 1: the header (JSON: what it covers, the head it must produce, the state's length and sha256)
//   then:   the gzipped state, as Anvil dumped it
// written to a temp file, fdatasync'd, renamed into place and the folder fsync'd: a snapshot is whole or
// absent. A torn or corrupt one (length or checksum wrong, a header that does not parse) is refused when
// read, and the start falls back to the one before, then to the full journal. The newest KEEP_SNAPSHOTS
// are kept; the journal itself is kept whole (the start reads it from the snapshot's byte offset on).
// Before it is written, the dump loses the call traces Anvil keeps for every transaction (compactDump):
// two thirds of its size and of its load time, and nothing here reads them (no debug_trace* on these
// chains); blocks, transactions, receipts and logs all stay.
import crypto from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { AppError } from "../../runtime/errors";
import type { BlockHead } from "./journal";

export const SNAPSHOT_FORMAT = 1;
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
  stateBytes: number;
  stateSha256: string;
}

export interface Snapshot {
  file: string;
  header: SnapshotHeader;
  /** Anvil's dump: gzipped JSON, as anvil_dumpState returned it (hex-decoded) */
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

const sha256 = (b: Buffer) => crypto.createHash("sha256").update(b).digest("hex");

/** Reads and checks one snapshot file; throws SnapshotCorruptError when it is not whole. */
export function readSnapshot(file: string): Snapshot {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch (e) {
    throw new SnapshotCorruptError(file, `cannot read: ${(e as Error).message}`);
  }
  const nl = bytes.indexOf(0x0a);
  if (nl < 0) throw new SnapshotCorruptError(file, "no header line");
  let header: SnapshotHeader;
  try {
    header = JSON.parse(bytes.subarray(0, nl).toString("utf8")) as SnapshotHeader;
  } catch {
    throw new SnapshotCorruptError(file, "the header is not JSON");
  }
  if (header.format !== SNAPSHOT_FORMAT || header.node !== "anvil") throw new SnapshotCorruptError(file, `unknown format ${header.format}/${header.node}`);
  const state = bytes.subarray(nl + 1);
  if (state.length !== header.stateBytes) throw new SnapshotCorruptError(file, `state is ${state.length} bytes, the header says ${header.stateBytes} (torn write?)`);
  if (sha256(state) !== header.stateSha256) throw new SnapshotCorruptError(file, "state checksum mismatch");
  return { file, header, state };
}

/** Writes a snapshot atomically (temp file, fdatasync, rename, fsync of the folder); keeps the newest
 *  KEEP_SNAPSHOTS. Asynchronous: the chain's proxy serves on the same thread meanwhile. Returns the file. */
export async function writeSnapshot(dir: string, header: Omit<SnapshotHeader, "format" | "node" | "stateBytes" | "stateSha256">, state: Buffer): Promise<string> {
  await fsp.mkdir(dir, { recursive: true });
  const full: SnapshotHeader = { format: SNAPSHOT_FORMAT, node: "anvil", ...header, stateBytes: state.length, stateSha256: sha256(state) };
  const file = path.join(dir, `${String(header.journalEntries).padStart(12, "0")}.snap`);
  const tmp = path.join(dir, `.tmp-${process.pid}-${crypto.randomBytes(4).toString("hex")}`);
  const handle = await fsp.open(tmp, "w");
  try {
    await handle.write(Buffer.from(JSON.stringify(full) + "\n", "utf8"));
    await handle.write(state);
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

// Runs on a thread of its own: parsing and re-compressing tens of MB would stall the chain's proxy, which
// serves on the thread that takes the snapshot.
const COMPACT_WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
const zlib = require("node:zlib");
const state = JSON.parse(zlib.gunzipSync(workerData).toString("utf8"));
for (const tx of state.transactions ?? []) if (tx && tx.info && Array.isArray(tx.info.traces)) tx.info.traces = [];
const out = zlib.gzipSync(JSON.stringify(state), { level: 1 });
parentPort.postMessage(out);
`;

/** Anvil's gzipped dump without the per-transaction call traces (see the header comment). */
export function compactDump(gz: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(COMPACT_WORKER, { eval: true, workerData: gz });
    let done = false;
    worker.once("message", (out: Uint8Array) => {
      done = true;
      resolve(Buffer.from(out.buffer, out.byteOffset, out.byteLength));
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
