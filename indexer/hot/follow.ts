// Follows the Settlement contract's trades by block RANGE: each read asks the node for the BatchSettled logs
// of [cursor + 1, head] in one eth_getLogs (no per-block transaction, whatever the number
// of blocks), then the transactions that emitted them (eth_getTransactionByHash, all of a read's at once: one
// JSON-RPC batch, one more round trip a read), and appends their trades to the hot tail. A read starts when the node announces a new head (`heads`,
// eth_subscribe newHeads: no wait for a poll, no eth_blockNumber), at most every `minGapMs`; without an
// announcement (an idle chain, no socket) every `pollMs` after an eth_blockNumber, as before. A batch's
// BatchSettled log is decoded by fixed layout and its trades from its transaction's input by the sdk, under
// the direct-call rule (decode.ts, lib/batchTrades.ts: Ponder's handler's function), and their rows come from
// lib/batchRows.ts (`tradeRow`, which batchRows uses): exactly the rows Ponder's BatchSettled handler
// writes. Reorgs: the cursor block's hash is checked each time the head moves (and every 20th idle poll); a
// changed hash or a head below the cursor (a node that went back, e.g. a journal replay) drops the tail
// above the blocks Ponder answered for and reads them again.
import { type PublicClient, createPublicClient, http, numberToHex } from "viem";
import { type BatchTrade, tradeRow } from "../lib/batchRows";
import type { Hex } from "../lib/trades";
import { tradeJson } from "../src/api/json";
import {
  BATCH_SETTLED_TOPIC,
  type BatchLog,
  type RawLog,
  type RawTransaction,
  type SettlementLog,
  decodeBatchLog,
  withTrades,
} from "./decode";
import type { HeadWatch } from "./heads";
import type { HotTail, TailBlock } from "./tail";

export interface FollowOptions {
  rpcUrl: string;
  /** the chain's id and the Settlement's address: the domain its orders are hashed under */
  chainId: number;
  settlement: Hex;
  /** lowercase token address -> symbol, for pair names */
  symbols: ReadonlyMap<string, string>;
  tail: HotTail;
  /** the highest block Ponder's answers are known to cover: where reading resumes after a reorg */
  floor: () => number;
  /** pause between polls when no new head is announced, ms */
  pollMs: number;
  /** new heads announced by the node (eth_subscribe); without it the follower polls every `pollMs` */
  heads?: HeadWatch;
  /** least time between the starts of two reads that a head announcement triggers, ms (default 50) */
  minGapMs?: number;
  /** blocks per eth_getLogs at most */
  maxRange: number;
  /** stop reading ahead while the tail holds this many trades (Ponder catching up trims it) */
  maxTailTrades: number;
  onError?: (error: unknown) => void;
  onReorg?: (detail: { cursor: number; head: number; resumeAfter: number }) => void;
  /** each read that moved the cursor: when it started, when the node answered (the logs; the transactions),
   *  when the tail had it (ms) */
  onRead?: (detail: {
    startedAt: number;
    answeredAt: number;
    transactionsAt: number;
    appendedAt: number;
    fromBlock: number;
    toBlock: number;
    logs: number;
    txs: Hex[];
    byHead: boolean;
  }) => void;
}

export interface Follower {
  stop(): Promise<void>;
}

const lc = (a: string) => a.toLowerCase() as Hex;

/** Each log's block's hash and timestamp: the log's own where the node gives it (Anvil), else its header (Hardhat). */
async function logHeaders(
  client: PublicClient,
  logs: readonly BatchLog[],
  to: number,
  toBlock: { number: bigint | null; hash: Hex | null; timestamp: bigint },
): Promise<Map<number, { hash: Hex; timestamp: bigint }>> {
  const blockNumbers = [...new Set(logs.filter((l) => l.blockTimestamp === undefined).map((l) => l.blockNumber))];
  const headers = new Map<number, { hash: Hex; timestamp: bigint }>(
    (
      await Promise.all(blockNumbers.map((n) => (n === to ? toBlock : client.getBlock({ blockNumber: BigInt(n) }))))
    ).map((b) => [Number(b.number), { hash: lc(b.hash!), timestamp: b.timestamp }]),
  );
  for (const l of logs) {
    // (the block read as the range's end must be the logs' own: else a reorg is under way)
    if (l.blockTimestamp !== undefined)
      headers.set(l.blockNumber, {
        hash: l.blockNumber === to ? lc(toBlock.hash!) : l.blockHash,
        timestamp: l.blockTimestamp,
      });
  }
  return headers;
}

/** Each log's transaction by hash, asked all at once (the client batches them into one JSON-RPC request). */
async function logTransactions(
  client: PublicClient,
  logs: readonly BatchLog[],
): Promise<Map<string, RawTransaction | null>> {
  const hashes = [...new Set(logs.map((l) => l.txHash))];
  const txs = await Promise.all(
    hashes.map(
      (hash) =>
        client.request({ method: "eth_getTransactionByHash", params: [hash] }) as Promise<RawTransaction | null>,
    ),
  );
  return new Map(hashes.map((h, i) => [h, txs[i] ?? null]));
}

/** The range's BatchSettled logs with their trades (from their transactions) and their blocks' headers; the
 *  headers and the transactions are asked together (one JSON-RPC batch). Throws on a log outside the range, a
 *  malformed one, or one whose transaction is not a direct settle call of its batch in its block. */
async function readBatches(
  client: PublicClient,
  rawLogs: readonly RawLog[],
  range: { from: number; to: number },
  toBlock: { number: bigint | null; hash: Hex | null; timestamp: bigint },
  domain: { chainId: number; settlement: Hex },
): Promise<{ logs: SettlementLog[]; headers: Map<number, { hash: Hex; timestamp: bigint }> }> {
  const batchLogs = rawLogs.map(decodeBatchLog);
  for (const l of batchLogs) {
    if (l.blockNumber < range.from || l.blockNumber > range.to)
      throw new Error(`log of block ${l.blockNumber} outside the range read (${range.from}-${range.to})`);
  }
  const [headers, txs] = await Promise.all([
    logHeaders(client, batchLogs, range.to, toBlock),
    logTransactions(client, batchLogs),
  ]);
  return { logs: batchLogs.map((l) => withTrades(l, txs.get(l.txHash), domain)), headers };
}

/** The logs' trades as tail blocks, in block order and, within a block, in log and trade order. */
function tailBlocks(
  logs: readonly SettlementLog[],
  headers: Map<number, { hash: Hex; timestamp: bigint }>,
  symbols: FollowOptions["symbols"],
): { ordered: TailBlock[]; txs: Hex[] } {
  const blocks = new Map<number, TailBlock>();
  const txs: Hex[] = [];
  for (const l of logs) {
    const number = l.blockNumber;
    const header = headers.get(number)!;
    // a log of another block than the one read (a reorg under way): read again next poll
    if (header.hash !== l.blockHash)
      throw new Error(`block ${number}: log of ${l.blockHash}, header ${header.hash} (reorg under way)`);
    const trades: BatchTrade[] = l.trades;
    txs.push(l.txHash);
    const ctx = { txHash: l.txHash, blockNumber: BigInt(number), timestamp: header.timestamp, symbols };
    let block = blocks.get(number);
    if (!block) blocks.set(number, (block = { number, hash: header.hash, trades: [] }));
    for (const t of trades) {
      const row = tradeRow(t, ctx);
      block.trades.push({
        json: tradeJson(row),
        pair: row.pair,
        blockNumber: number,
        price: row.price,
        baseAmount: row.baseAmount,
        quoteAmount: row.quoteAmount,
        timestamp: row.timestamp,
      });
    }
  }
  // a block's batches in log order (several settles can share a block)
  const ordered = [...blocks.values()].sort((a, b) => a.number - b.number);
  for (const b of ordered)
    b.trades.sort((x, y) => x.json.logIndex - y.json.logIndex || x.json.tradeIndex - y.json.tradeIndex);
  return { ordered, txs };
}

/** Reads again and again until stopped: at each announced head, else every pollMs; at most one read per minGapMs. */
function pollLoop(pollOnce: () => Promise<void>, opts: FollowOptions, minGapMs: number): Follower {
  const { tail, heads } = opts;
  let running = true;
  const loop = (async () => {
    while (running) {
      const startedAt = Date.now();
      try {
        await pollOnce();
      } catch (error) {
        // an announced head may be stale (a node that went back): ask the node next time
        heads?.forget();
        opts.onError?.(error);
      }
      if (!running) break;
      if (!heads) {
        await new Promise((r) => setTimeout(r, opts.pollMs));
        continue;
      }
      // the next read: when a head above the cursor is announced, else after pollMs; never sooner than
      // minGapMs after this one started (the node's cost is per request)
      await heads.next(tail.cursor.number, opts.pollMs);
      const gap = startedAt + minGapMs - Date.now();
      if (gap > 0 && running) await new Promise((r) => setTimeout(r, gap));
    }
  })();
  return {
    async stop() {
      running = false;
      heads?.stop();
      await loop;
    },
  };
}

export function followSettlement(opts: FollowOptions): Follower {
  // batch: the reads one poll issues together (the cursor's header, the range end's, the logs) travel as one
  // JSON-RPC batch, one HTTP request: the node's per-request cost slowed its mining (docs/decisions/indexer.md)
  const client: PublicClient = createPublicClient({
    transport: http(opts.rpcUrl, { retryCount: 0, timeout: 10_000, batch: true }),
  });
  const { tail, heads } = opts;
  const settlement = lc(opts.settlement);
  const domain = { chainId: opts.chainId, settlement };
  const minGapMs = opts.minGapMs ?? 50;

  let idlePolls = 0;
  /** one read; true when it moved the cursor */
  async function pollOnce(): Promise<void> {
    const startedAt = Date.now();
    const cursor = tail.cursor;
    // an announced head above the cursor is the range's end (the reads below check it exists and hangs
    // together); else the node is asked
    const announced = heads?.latest;
    const byHead = announced !== undefined && announced > cursor.number;
    const headNumber = byHead ? announced : Number(await client.getBlockNumber({ cacheTime: 0 }));
    const reset = () => {
      const resumeAfter = Math.min(opts.floor(), headNumber);
      tail.resetTo(resumeAfter);
      opts.onReorg?.({ cursor: cursor.number, head: headNumber, resumeAfter });
    };
    if (headNumber < cursor.number) return reset();
    const cursorHash = async () => (await client.getBlock({ blockNumber: BigInt(cursor.number) })).hash;
    if (headNumber === cursor.number) {
      // an idle chain: its head's hash is checked now and then (a node replaced by one as high)
      if (cursor.hash && ++idlePolls % 20 === 0 && (await cursorHash()) !== cursor.hash) reset();
      return;
    }
    if (tail.tradeCount >= opts.maxTailTrades) return;
    const to = Math.min(headNumber, cursor.number + opts.maxRange);
    const [hashNow, toBlock, rawLogs] = await Promise.all([
      cursor.hash ? cursorHash() : undefined,
      client.getBlock({ blockNumber: BigInt(to) }),
      client.request({
        method: "eth_getLogs",
        params: [
          {
            address: settlement,
            topics: [[BATCH_SETTLED_TOPIC]],
            fromBlock: numberToHex(cursor.number + 1),
            toBlock: numberToHex(to),
          },
        ],
      }) as Promise<RawLog[]>,
    ]);
    const answeredAt = Date.now();
    if (cursor.hash && hashNow !== cursor.hash) return reset();
    const { logs, headers } = await readBatches(client, rawLogs, { from: cursor.number + 1, to }, toBlock, domain);
    const transactionsAt = Date.now();
    const { ordered, txs } = tailBlocks(logs, headers, opts.symbols);
    tail.append(ordered, { number: to, hash: toBlock.hash });
    opts.onRead?.({
      startedAt,
      answeredAt,
      transactionsAt,
      appendedAt: Date.now(),
      fromBlock: cursor.number + 1,
      toBlock: to,
      logs: logs.length,
      txs,
      byHead,
    });
  }

  return pollLoop(pollOnce, opts, minGapMs);
}
