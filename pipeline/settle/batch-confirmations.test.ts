// The settled batches' transactions at a start (batch-confirmations.ts), without a chain: batchTxsFromChain
// against a scripted PublicClient (the BatchSettled logs it asks for, window by window), and settledAtStart
// over a batch run whose store and lookup are stand-ins (what it journals, where it searches from, what it logs).
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  encodeAbiParameters,
  encodeEventTopics,
  toEventSelector,
  type Address,
  type Hex,
  type PublicClient,
} from "viem";
import { settlementAbi } from "../../sdk/abi";
import type { RecordLog } from "../../matcher/journal";
import { systemClock } from "../../runtime/clock";
import { batchTxsFromChain, settledAtStart } from "./batch-confirmations";
import { newBatchRun } from "./batch-run";
import type { BatchRecord, BatcherDeps, FindBatchTxs } from "./batch-types";
import { addressOf, hashOf } from "../testing/batcher-fixture";

const SETTLEMENT = addressOf(0x5e7);
const SELECTOR = toEventSelector("BatchSettled(uint64,uint256,uint16,uint16)");

interface ChainLog {
  batchId: bigint;
  block: bigint;
  tx: Hex;
}

/** A PublicClient that knows the chain head and BatchSettled logs; it records every read. */
function fakeClient(head: bigint, logs: ChainLog[]) {
  const headReads: unknown[] = [];
  const windows: { address: Address; fromBlock: bigint; toBlock: bigint; topics: Hex[] }[] = [];
  const client = {
    async getBlockNumber(args: unknown) {
      headReads.push(args);
      return head;
    },
    async request({ method, params }: { method: string; params: [Record<string, unknown>] }) {
      assert.equal(method, "eth_getLogs");
      const f = params[0];
      const w = {
        address: f.address as Address,
        fromBlock: BigInt(f.fromBlock as Hex),
        toBlock: BigInt(f.toBlock as Hex),
        topics: f.topics as Hex[],
      };
      windows.push(w);
      return logs
        .filter((l) => l.block >= w.fromBlock && l.block <= w.toBlock)
        .map((l) => ({
          topics: encodeEventTopics({ abi: settlementAbi, eventName: "BatchSettled", args: { batchId: l.batchId } }),
          data: encodeAbiParameters([{ type: "uint256" }, { type: "uint16" }, { type: "uint16" }], [3n, 10, 20]),
          blockNumber: `0x${l.block.toString(16)}`,
          transactionHash: l.tx,
        }));
    },
  };
  return { client: client as unknown as PublicClient, headReads, windows };
}

const span = (w: { fromBlock: bigint; toBlock: bigint }) => [w.fromBlock, w.toBlock];

test("batchTxsFromChain: reads BatchSettled logs of the Settlement contract in windows of 5000 blocks from the deployment block up to a fresh head", async () => {
  const logs = [
    { batchId: 4n, block: 150n, tx: hashOf(0xa4) },
    { batchId: 5n, block: 5_099n, tx: hashOf(0xa5) },
    { batchId: 6n, block: 5_100n, tx: hashOf(0xa6) },
    { batchId: 7n, block: 12_000n, tx: hashOf(0xa7) },
  ];
  const { client, headReads, windows } = fakeClient(12_000n, logs);
  const find = batchTxsFromChain(client, SETTLEMENT, 100n);
  const found = await find([5n, 7n, 6n], undefined);
  assert.deepEqual(headReads, [{ cacheTime: 0 }], "the head is read once, never from a cache");
  assert.deepEqual(windows.map(span), [
    [100n, 5_099n],
    [5_100n, 10_099n],
    [10_100n, 12_000n],
  ]);
  for (const w of windows) {
    assert.equal(w.address, SETTLEMENT);
    assert.deepEqual(w.topics, [SELECTOR]);
  }
  // batch 4 is on the chain but not asked for
  assert.deepEqual(
    found,
    new Map([
      [5n, { txHash: hashOf(0xa5), blockNumber: 5_099n }],
      [6n, { txHash: hashOf(0xa6), blockNumber: 5_100n }],
      [7n, { txHash: hashOf(0xa7), blockNumber: 12_000n }],
    ]),
  );
});

test("batchTxsFromChain: starts at the given block, and stops at the window that found the last id asked for", async () => {
  const logs = [
    { batchId: 1n, block: 20_000n, tx: hashOf(0xb1) },
    { batchId: 2n, block: 30_000n, tx: hashOf(0xb2) },
  ];
  const { client, windows } = fakeClient(40_000n, logs);
  const find = batchTxsFromChain(client, SETTLEMENT, 7n);
  assert.deepEqual(await find([1n], 19_000n), new Map([[1n, { txHash: hashOf(0xb1), blockNumber: 20_000n }]]));
  assert.deepEqual(windows.map(span), [[19_000n, 23_999n]]);
});

test("batchTxsFromChain: a window ending exactly at the head, a start at the head (one block), a start past it and no ids read nothing more", async () => {
  const logs = [{ batchId: 9n, block: 5_000n, tx: hashOf(0xc9) }];
  const exact = fakeClient(5_000n, logs);
  assert.deepEqual(
    await batchTxsFromChain(exact.client, SETTLEMENT, 1n)([9n, 10n], undefined),
    new Map([[9n, { txHash: hashOf(0xc9), blockNumber: 5_000n }]]),
  );
  assert.deepEqual(exact.windows.map(span), [[1n, 5_000n]], "an id never found: the search ends at the head");

  const atHead = fakeClient(5_000n, logs);
  assert.equal((await batchTxsFromChain(atHead.client, SETTLEMENT, 1n)([9n], 5_000n)).size, 1);
  assert.deepEqual(atHead.windows.map(span), [[5_000n, 5_000n]]);

  const past = fakeClient(5_000n, logs);
  assert.equal((await batchTxsFromChain(past.client, SETTLEMENT, 1n)([9n], 5_001n)).size, 0);
  assert.equal(past.windows.length, 0);

  const none = fakeClient(5_000n, logs);
  assert.equal((await batchTxsFromChain(none.client, SETTLEMENT, 1n)([], undefined)).size, 0);
  assert.equal(none.windows.length, 0, "nothing asked: no log read");
});

/** A batch run whose store records appends, with `records` already in it and the chain at `nextId`. */
function runWith(records: BatchRecord[], nextId: bigint, extra: Partial<BatcherDeps> = {}) {
  const appended: BatchRecord[] = [];
  const lines: { level: string; o: object; m?: string }[] = [];
  const logger = {
    info: (o: object, m?: string) => lines.push({ level: "info", o, m }),
    warn: (o: object, m?: string) => lines.push({ level: "warn", o, m }),
    error: (o: object, m?: string) => lines.push({ level: "error", o, m }),
  };
  const deps = { storeDir: "unused", maxTrades: 1, maxDelayMs: 1, logger, ...extra } as BatcherDeps;
  const b = newBatchRun(deps, systemClock);
  b.store = {
    append: async (c: BatchRecord) => {
      appended.push(c);
    },
  } as unknown as RecordLog<BatchRecord>;
  for (const r of records) b.byId.set(r.batchId, r);
  b.nextId = nextId;
  return { b, appended, lines };
}

const rec = (id: number, fromSeq: number, tx?: { hash: Hex; block?: number }): BatchRecord => ({
  batchId: String(id),
  fromSeq,
  toSeq: fromSeq + 1,
  tradeCount: 2,
  ...(tx ? { txHash: tx.hash } : {}),
  ...(tx?.block !== undefined ? { blockNumber: String(tx.block) } : {}),
});

test("settledAtStart: the lane's batches below the chain's next id, oldest first; a composed batch not yet settled and ids the store lacks are not among them", async () => {
  const lane = 1n << 56n;
  const records = [
    rec(0, 1, { hash: hashOf(0xd0), block: 3 }), // another lane's
    { ...rec(0, 10, { hash: hashOf(0xd1), block: 4 }), batchId: lane.toString() },
    { ...rec(0, 14, { hash: hashOf(0xd3), block: 6 }), batchId: (lane + 2n).toString() },
    { ...rec(0, 20), batchId: (lane + 3n).toString() }, // composed, the chain has not settled it
  ];
  const { b, lines } = runWith(records, lane + 3n, { firstBatchId: lane });
  assert.deepEqual(await settledAtStart(b), [
    { batchId: lane, fromSeq: 10, toSeq: 11, txHash: hashOf(0xd1) },
    { batchId: lane + 2n, fromSeq: 14, toSeq: 15, txHash: hashOf(0xd3) },
  ]);
  assert.deepEqual(lines, [], "every batch had its confirmation: no lookup, nothing logged");
});

test("settledAtStart: the chain is searched from the block of the last confirmation before the first batch without one; what it finds is journaled, what it lacks reads no transaction", async () => {
  const records = [
    rec(0, 1, { hash: hashOf(0xe0), block: 4 }),
    rec(1, 3, { hash: hashOf(0xe1), block: 5 }),
    rec(2, 5, { hash: hashOf(0xe2), block: 6 }),
    rec(3, 7, { hash: hashOf(0xe3) }), // a confirmation of the previous format: no block
    { ...rec(4, 9), blockNumber: "8" }, // no transaction: missing, whatever its block says
    rec(5, 11),
    rec(6, 13, { hash: hashOf(0xe6), block: 12 }),
    rec(7, 15),
  ];
  const asked: { ids: readonly bigint[]; fromBlock: bigint | undefined }[] = [];
  const findBatchTxs: FindBatchTxs = async (ids, fromBlock) => {
    asked.push({ ids, fromBlock });
    return new Map([
      [4n, { txHash: hashOf(0xf4), blockNumber: 9n }],
      [7n, { txHash: hashOf(0xf7), blockNumber: 14n }],
    ]);
  };
  const { b, appended, lines } = runWith(records, 8n, { findBatchTxs });
  const settled = await settledAtStart(b);
  assert.deepEqual(asked, [{ ids: [4n, 5n, 7n], fromBlock: 6n }]);
  assert.deepEqual(
    settled.map((s) => [s.batchId, s.txHash]),
    [
      [0n, hashOf(0xe0)],
      [1n, hashOf(0xe1)],
      [2n, hashOf(0xe2)],
      [3n, hashOf(0xe3)],
      [4n, hashOf(0xf4)],
      [5n, null],
      [6n, hashOf(0xe6)],
      [7n, hashOf(0xf7)],
    ],
  );
  assert.deepEqual(appended, [
    { ...rec(4, 9), txHash: hashOf(0xf4), blockNumber: "9" },
    { ...rec(7, 15), txHash: hashOf(0xf7), blockNumber: "14" },
  ]);
  assert.deepEqual(lines, [
    {
      level: "info",
      o: { batches: 3, found: 2 },
      m: "settled batches without a journaled confirmation found on the chain",
    },
  ]);
});

test("settledAtStart: a first batch without a confirmation is searched from the deployment block; a failed lookup is logged and leaves it without a transaction", async () => {
  const asked: (bigint | undefined)[] = [];
  const findBatchTxs: FindBatchTxs = async (_ids, fromBlock) => {
    asked.push(fromBlock);
    throw new Error("eth_getLogs: range too large");
  };
  const { b, appended, lines } = runWith([rec(0, 1), rec(1, 3, { hash: hashOf(0xe1), block: 6 })], 2n, {
    findBatchTxs,
  });
  assert.deepEqual(await settledAtStart(b), [
    { batchId: 0n, fromSeq: 1, toSeq: 2, txHash: null },
    { batchId: 1n, fromSeq: 3, toSeq: 4, txHash: hashOf(0xe1) },
  ]);
  assert.deepEqual(asked, [undefined]);
  assert.deepEqual(appended, []);
  assert.deepEqual(lines, [
    {
      level: "warn",
      o: { err: "eth_getLogs: range too large", batches: 1 },
      m: "settled batches' transactions not found: their fills read settled without a transaction",
    },
  ]);

  // without a logger, the same failure still leaves the start to go on
  const quiet = runWith([rec(0, 1)], 1n, { findBatchTxs, logger: undefined });
  assert.deepEqual(await settledAtStart(quiet.b), [{ batchId: 0n, fromSeq: 1, toSeq: 2, txHash: null }]);
});
