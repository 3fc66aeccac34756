// Anvil's chain state snapshots: written whole or not at all, taken periodically and at a clean stop; a
// (re)start loads the newest good one and replays only the journal after it; a torn or corrupt one falls
// back to the one before, then to the whole journal; blocks, receipts and logs from before a snapshot are
// still there after it is loaded.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { privateKeyToAccount } from "viem/accounts";
import type { Hex } from "viem";
import { HARDHAT_DEV_PRIVATE_KEYS } from "../../config";
import { createRpcClient, type RpcClient } from "./rpc-client";
import { startChain, type RunningChain } from "./start-chain";
import {
  KEEP_SNAPSHOTS,
  listSnapshots,
  readSnapshot,
  snapshotDir,
  SnapshotCorruptError,
  writeSnapshot,
} from "./snapshot";

const CHAIN_ID = 31337;
const sender = privateKeyToAccount(HARDHAT_DEV_PRIVATE_KEYS[9]);
// emits LOG1(topic 1) with no data on every call: PUSH1 1 PUSH1 0 PUSH1 0 LOG1 STOP
const LOGGER = "0x00000000000000000000000000000000000000cc";
const LOGGER_CODE = "0x600160006000a100";
const BIG = "0x00000000000000000000000000000000000000dd";
const head = { number: 1, hash: `0x${"11".repeat(32)}`, timestamp: 2 };

function tmpDir(t: { after(fn: () => void): void }, prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test("a snapshot file is whole or refused: torn, flipped, headerless; the newest two are kept; temp files are not snapshots", async (t) => {
  const dir = tmpDir(t, "snap-unit-");
  const state = Buffer.from(
    JSON.stringify({ block: null, accounts: {}, blocks: Array.from({ length: 50 }, (_, i) => ({ n: i })) }),
  );
  const files: string[] = [];
  for (const n of [5, 10, 15])
    files.push(
      await writeSnapshot(
        dir,
        { chainId: CHAIN_ID, journalEntries: n, journalBytes: n * 100, head, offsetS: -3, takenAtMs: 1 },
        state,
      ),
    );
  assert.equal(KEEP_SNAPSHOTS, 2);
  assert.deepEqual(listSnapshots(dir), [files[2], files[1]], "newest first; the oldest beyond two removed");
  const good = readSnapshot(files[2]);
  assert.equal(good.header.journalEntries, 15);
  assert.equal(good.header.journalBytes, 1_500);
  assert.deepEqual(good.state, state);

  fs.writeFileSync(path.join(dir, ".tmp-123-abcd"), "half a snapshot");
  assert.deepEqual(listSnapshots(dir), [files[2], files[1]], "an interrupted write's temp file is not listed");

  const bytes = fs.readFileSync(files[2]);
  fs.writeFileSync(files[2], bytes.subarray(0, bytes.length - 1));
  assert.throws(
    () => readSnapshot(files[2]),
    (e: unknown) => e instanceof SnapshotCorruptError && /torn write/.test(e.message),
  );
  const flipped = Buffer.from(bytes);
  flipped[flipped.length - 5] ^= 0xff;
  fs.writeFileSync(files[2], flipped);
  assert.throws(() => readSnapshot(files[2]), /checksum mismatch/);
  fs.writeFileSync(files[2], "no header at all");
  assert.throws(() => readSnapshot(files[2]), /no header line/);
  fs.writeFileSync(files[2], "{not json\n" + "x");
  assert.throws(() => readSnapshot(files[2]), /header is not JSON/);
  // the file is Anvil's own state file: the header is its first member, the state's members follow
  assert.deepEqual(Object.keys(JSON.parse(fs.readFileSync(files[1], "utf8"))), [
    "snapshot_header",
    "block",
    "accounts",
    "blocks",
  ]);
  // a gzipped snapshot of format 1 (the header line, then the dump) is refused, not misread
  fs.writeFileSync(files[2], `${JSON.stringify({ ...good.header, format: 1 })}\nx`);
  assert.throws(() => readSnapshot(files[2]), /unknown format 1\/anvil/);
  await assert.rejects(
    writeSnapshot(
      dir,
      { chainId: CHAIN_ID, journalEntries: 20, journalBytes: 0, head, offsetS: 0, takenAtMs: 1 },
      Buffer.from("{}"),
    ),
    /JSON object with members/,
  );
  assert.equal(readSnapshot(files[1]).header.journalEntries, 10, "the other one still reads");
});

async function transfer(rpc: RpcClient, nonce: number, to: string = LOGGER): Promise<string> {
  const raw = await sender.signTransaction({
    chainId: CHAIN_ID,
    type: "eip1559",
    to: to as Hex,
    value: 1n,
    gas: 60_000n,
    nonce,
    maxFeePerGas: 10_000_000_000n,
    maxPriorityFeePerGas: 1n,
  });
  return rpc.call<string>("eth_sendRawTransaction", [raw]);
}

interface ChainView {
  hashes: string[];
  logs: string;
  receipts: string;
  balance: string;
  nonce: string;
}

async function view(rpc: RpcClient, txs: string[]): Promise<ChainView> {
  const latest = Number(await rpc.call<string>("eth_blockNumber"));
  const hashes: string[] = [];
  for (let n = 0; n <= latest; n++)
    hashes.push((await rpc.call<{ hash: string }>("eth_getBlockByNumber", [`0x${n.toString(16)}`, false])).hash);
  const logs = JSON.stringify(
    await rpc.call("eth_getLogs", [{ fromBlock: "0x0", toBlock: "latest", address: LOGGER }]),
  );
  const receipts = JSON.stringify(await Promise.all(txs.map((h) => rpc.call("eth_getTransactionReceipt", [h]))));
  return {
    hashes,
    logs,
    receipts,
    balance: await rpc.call<string>("eth_getBalance", [LOGGER, "latest"]),
    nonce: await rpc.call<string>("eth_getTransactionCount", [sender.address, "latest"]),
  };
}

async function until(cond: () => boolean, what: string, ms = 60_000): Promise<void> {
  const by = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > by) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test("anvil: periodic snapshots; a kill -9 comes back from the newest + the journal after it; a damaged newest falls back to the one before, then to the whole journal", async (t) => {
  const dir = tmpDir(t, "snap-anvil-");
  const started: RunningChain[] = [];
  const rpcs: RpcClient[] = [];
  t.after(async () => {
    for (const r of rpcs) r.close();
    await Promise.all(started.map((c) => c.stop()));
  });
  const start = async (snapshots = { everyEntries: 3, everyMs: 60_000 }) => {
    const c = await startChain({ chainId: CHAIN_ID, port: 0, dataDir: dir, node: "anvil", snapshots });
    started.push(c);
    const rpc = createRpcClient(c.rpcUrl);
    rpcs.push(rpc);
    return { c, rpc };
  };

  let { c, rpc } = await start();
  await rpc.call("anvil_setCode", [LOGGER, LOGGER_CODE]);
  // 3 MB of incompressible code: the snapshot is larger than Anvil's default 2 MB request limit
  const big = `0x${crypto.randomBytes(3 * 2 ** 20).toString("hex")}`;
  await rpc.call("anvil_setCode", [BIG, big]);
  const txs: string[] = [];
  for (let i = 0; i < 4; i++) txs.push(await transfer(rpc, i));
  // 6 entries since the start (2 setCode + 4 sends): the policy (every 3) takes one within a second or two
  await until(() => listSnapshots(snapshotDir(dir)).length > 0, "a periodic snapshot");
  const periodicSnap = readSnapshot(listSnapshots(snapshotDir(dir))[0]);
  const periodic = periodicSnap.header;
  assert.ok(periodic.journalEntries >= 3, `periodic snapshot covers ${periodic.journalEntries} entries`);
  // the dump without its call traces, every transaction and receipt (with its log) kept
  const dumped = JSON.parse(periodicSnap.state.toString("utf8")) as {
    transactions: { info: { traces: unknown[] }; receipt: unknown }[];
  };
  assert.ok(dumped.transactions.length >= 1);
  for (const tx of dumped.transactions) {
    assert.deepEqual(tx.info.traces, []);
    assert.match(JSON.stringify(tx.receipt), /logs/);
  }
  for (let i = 4; i < 6; i++) txs.push(await transfer(rpc, i));
  const before = await view(rpc, txs);
  assert.equal(JSON.parse(before.logs).length, 6);

  // kill -9: the supervisor boots a fresh node from the newest snapshot and the journal's tail
  const oldPid = c.nodePid;
  process.kill(oldPid, "SIGKILL");
  await until(() => c.status().restarts === 1 && c.status().state === "up", "the supervised restart");
  assert.deepEqual(await view(rpc, txs), before, "nothing acknowledged lost; blocks, logs and receipts identical");
  txs.push(await transfer(rpc, 6));
  const afterCrash = await view(rpc, txs);
  await c.stop();

  // a clean stop snapshots everything: the next start replays nothing
  const snaps = listSnapshots(snapshotDir(dir));
  assert.equal(snaps.length, 2);
  ({ c, rpc } = await start());
  assert.equal(c.restored.entries, 0);
  assert.equal(c.restored.snapshot?.journalEntries, 9);
  assert.ok(c.restored.snapshot!.bytes > 3 * 2 ** 20, `snapshot of ${c.restored.snapshot!.bytes} bytes`);
  assert.equal(await rpc.call("eth_getCode", [BIG, "latest"]), big);
  assert.deepEqual(await view(rpc, txs), afterCrash);
  await c.stop();

  // the newest torn (a crash mid-write cannot leave one: this is disk damage): the one before + the tail
  const newest = fs.readFileSync(snaps[0]);
  fs.writeFileSync(snaps[0], newest.subarray(0, newest.length - 100));
  const older = readSnapshot(snaps[1]).header;
  ({ c, rpc } = await start({ everyEntries: 1_000, everyMs: 600_000 }));
  assert.equal(c.restored.skippedSnapshots?.length, 1, JSON.stringify(c.restored));
  assert.match(c.restored.skippedSnapshots![0], /torn write/);
  assert.equal(c.restored.snapshot?.journalEntries, older.journalEntries);
  assert.equal(c.restored.entries, 9 - older.journalEntries);
  assert.deepEqual(await view(rpc, txs), afterCrash);
  await c.stop();

  // every snapshot damaged, and one that claims more journal than there is: the whole journal is replayed
  for (const f of listSnapshots(snapshotDir(dir))) {
    const b = fs.readFileSync(f);
    b[b.length - 1] ^= 0xff;
    fs.writeFileSync(f, b);
  }
  const journalBytes = fs.statSync(path.join(dir, "journal.jsonl")).size;
  await writeSnapshot(
    snapshotDir(dir),
    { chainId: CHAIN_ID, journalEntries: 999, journalBytes: journalBytes + 10, head, offsetS: 0, takenAtMs: 1 },
    Buffer.from('{"x":1}'),
  );
  ({ c, rpc } = await start({ everyEntries: 1_000, everyMs: 600_000 }));
  assert.equal(c.restored.snapshot, undefined);
  assert.equal(c.restored.entries, 9);
  assert.equal(c.restored.skippedSnapshots?.length, 2, JSON.stringify(c.restored));
  assert.match(c.restored.skippedSnapshots![0], /does not match the journal/);
  assert.match(c.restored.skippedSnapshots![1], /checksum mismatch/);
  assert.deepEqual(await view(rpc, txs), afterCrash);
  // ... and on demand: a snapshot now covers all 9 entries
  const file = await c.snapshot();
  assert.ok(file);
  assert.equal(readSnapshot(file).header.journalEntries, 9);
});

test("anvil: a snapshot whole by its checksum that the node cannot load is skipped: the whole journal is replayed", async (t) => {
  const dir = tmpDir(t, "snap-unloadable-");
  let c = await startChain({ chainId: CHAIN_ID, port: 0, dataDir: dir, node: "anvil" });
  let rpc = createRpcClient(c.rpcUrl);
  const txs = [await transfer(rpc, 0), await transfer(rpc, 1)];
  const before = await view(rpc, txs);
  rpc.close();
  await c.stop();
  const [file] = listSnapshots(snapshotDir(dir));
  const { header } = readSnapshot(file);
  // same position and head, a state Anvil refuses (blocks of the wrong type), a checksum that matches it
  fs.rmSync(file);
  const { format: _f, node: _n, stateBytes: _b, stateCrc32: _c, ...position } = header;
  await writeSnapshot(snapshotDir(dir), position, Buffer.from('{"blocks":"not a list"}'));
  c = await startChain({ chainId: CHAIN_ID, port: 0, dataDir: dir, node: "anvil" });
  t.after(() => c.stop());
  rpc = createRpcClient(c.rpcUrl);
  t.after(() => rpc.close());
  assert.equal(c.restored.snapshot, undefined);
  assert.equal(c.restored.skippedSnapshots?.length, 1, JSON.stringify(c.restored));
  assert.match(c.restored.skippedSnapshots![0], /could not load it/);
  assert.equal(c.restored.entries, header.journalEntries);
  assert.deepEqual(await view(rpc, txs), before);
});

test("hardhat: no snapshots (the node has no state dump): snapshot() answers undefined and a stop leaves none", async (t) => {
  const dir = tmpDir(t, "snap-hardhat-");
  const c = await startChain({ chainId: CHAIN_ID, port: 0, dataDir: dir, node: "hardhat" });
  const rpc = createRpcClient(c.rpcUrl);
  await transfer(rpc, 0);
  assert.equal(await c.snapshot(), undefined);
  rpc.close();
  await c.stop();
  assert.deepEqual(listSnapshots(snapshotDir(dir)), []);
});

/** An anvil chain in `dir` taking a snapshot after 2 entries (never on the clock) once `idleMs` pass without a
 *  call or the stall budget `maxStallShare` forces one; its RPC client. Both stop after the test. */
async function snapshottingAnvil(
  t: TestContext,
  dir: string,
  s: { idleMs: number; maxStallShare: number },
): Promise<RpcClient> {
  const c = await startChain({
    chainId: CHAIN_ID,
    port: 0,
    dataDir: dir,
    node: "anvil",
    snapshots: { everyEntries: 2, everyMs: 600_000, ...s },
  });
  const rpc = createRpcClient(c.rpcUrl);
  t.after(async () => {
    rpc.close();
    await c.stop();
  });
  return rpc;
}

test("anvil: a due snapshot waits while calls keep coming and is taken once the chain is quiet; a chain that never goes quiet gets one forced by the stall budget", async (t) => {
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  /** One transfer every 150 ms for `ms` (each a journal entry); returns the next nonce. */
  const busyFor = async (rpc: RpcClient, nonce: number, ms: number, sawSnapshot?: () => boolean) => {
    const end = Date.now() + ms;
    while (Date.now() < end && !sawSnapshot?.()) {
      await transfer(rpc, nonce++);
      await sleep(150);
    }
    return nonce;
  };

  // quiet-only: due after 2 entries, taken after 600 ms without a call; the stall budget never forces one
  // (FIRST_STALL_ESTIMATE_MS / 1e-6)
  const dir = tmpDir(t, "snap-quiet-");
  const rpc = await snapshottingAnvil(t, dir, { idleMs: 600, maxStallShare: 1e-6 });
  const nonce = await busyFor(rpc, 0, 3_000);
  assert.ok(nonce >= 10, `${nonce} transfers`);
  assert.deepEqual(listSnapshots(snapshotDir(dir)), [], "no snapshot while calls kept coming (every 150 ms < idleMs)");
  await until(() => listSnapshots(snapshotDir(dir)).length > 0, "a snapshot once the chain is quiet");
  assert.equal(readSnapshot(listSnapshots(snapshotDir(dir))[0]).header.journalEntries, nonce, "it covers every entry");

  // forced: idle never reached (60 s), stall budget 1 s / 0.5 = 2 s after the start
  const dir2 = tmpDir(t, "snap-forced-");
  const rpc2 = await snapshottingAnvil(t, dir2, { idleMs: 60_000, maxStallShare: 0.5 });
  const t0 = Date.now();
  await busyFor(rpc2, 0, 15_000, () => listSnapshots(snapshotDir(dir2)).length > 0);
  const snaps = listSnapshots(snapshotDir(dir2));
  assert.equal(snaps.length, 1, "a snapshot taken while calls kept coming");
  assert.ok(Date.now() - t0 >= 1_500, `not before the stall budget allowed (${Date.now() - t0} ms)`);
});
