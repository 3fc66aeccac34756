// Follows the Settlement contract's trades by block RANGE: each poll asks the node for its block number and,
// when it moved, for the TradeSettled and BatchSettled logs of [cursor + 1, head] in one eth_getLogs (no
// per-block transaction, whatever the number of blocks), and appends them to the hot tail. A batch's
// trades are the TradeSettled logs of its transaction with its batch id before its BatchSettled log,
// counted against the event's tradeCount, and their rows come from lib/batchRows.ts (`tradeRow`, which
// batchRows uses): exactly the rows Ponder's BatchSettled handler writes. Reorgs: the cursor block's hash is checked each time the head
// moves (and every 20th idle poll); a changed hash or a head below the cursor (a node that went back, e.g. a journal replay) drops the
// tail above the blocks Ponder answered for and reads them again.
import { type PublicClient, createPublicClient, getAbiItem, http } from "viem";
import { settlementAbi } from "../../sdk/abi";
import { type BatchTrade, tradeRow } from "../lib/batchRows";
import type { Hex } from "../lib/trades";
import { tradeJson } from "../src/api/json";
import type { HotTail, TailBlock } from "./tail";

const tradeSettled = getAbiItem({ abi: settlementAbi, name: "TradeSettled" });
const batchSettled = getAbiItem({ abi: settlementAbi, name: "BatchSettled" });

export interface FollowOptions {
  rpcUrl: string;
  settlement: Hex;
  /** lowercase token address -> symbol, for pair names */
  symbols: ReadonlyMap<string, string>;
  tail: HotTail;
  /** the highest block Ponder's answers are known to cover: where reading resumes after a reorg */
  floor: () => number;
  /** pause between polls, ms */
  pollMs: number;
  /** blocks per eth_getLogs at most */
  maxRange: number;
  /** stop reading ahead while the tail holds this many trades (Ponder catching up trims it) */
  maxTailTrades: number;
  onError?: (error: unknown) => void;
  onReorg?: (detail: { cursor: number; head: number; resumeAfter: number }) => void;
}

export interface Follower {
  stop(): Promise<void>;
}

const lc = (a: string) => a.toLowerCase() as Hex;

export function followSettlement(opts: FollowOptions): Follower {
  // batch: the reads one poll issues together (the cursor's header, the range end's, the logs) travel as one
  // JSON-RPC batch, one HTTP request: the node's per-request cost slowed its mining (docs/decisions/indexer.md)
  const client: PublicClient = createPublicClient({ transport: http(opts.rpcUrl, { retryCount: 0, timeout: 10_000, batch: true }) });
  const { tail } = opts;
  const settlement = lc(opts.settlement);

  let idlePolls = 0;
  async function pollOnce(): Promise<void> {
    const headNumber = Number(await client.getBlockNumber({ cacheTime: 0 }));
    const cursor = tail.cursor;
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
    const [hashNow, toBlock, logs] = await Promise.all([
      cursor.hash ? cursorHash() : undefined,
      client.getBlock({ blockNumber: BigInt(to) }),
      client.getLogs({
        address: settlement,
        events: [tradeSettled, batchSettled],
        fromBlock: BigInt(cursor.number + 1),
        toBlock: BigInt(to),
        strict: true,
      }),
    ]);
    if (cursor.hash && hashNow !== cursor.hash) return reset();
    const toHash = toBlock.hash;
    // the BatchSettled logs, each with the TradeSettled logs of its transaction before it
    const byTx = new Map<string, typeof logs>();
    for (const l of logs) {
      const k = l.transactionHash;
      const list = byTx.get(k);
      if (list) list.push(l);
      else byTx.set(k, [l]);
    }
    // a block's timestamp: the log's own where the node gives it (Anvil), else its header (Hardhat)
    const stamped = (l: (typeof logs)[number]) => (l as { blockTimestamp?: bigint | null }).blockTimestamp ?? undefined;
    const blockNumbers = [...new Set(logs.filter((l) => l.eventName === "BatchSettled" && stamped(l) === undefined).map((l) => Number(l.blockNumber)))];
    const headers = new Map<number, { hash: Hex; timestamp: bigint }>(
      (await Promise.all(blockNumbers.map((n) => (n === to ? toBlock : client.getBlock({ blockNumber: BigInt(n) }))))).map((b) => [Number(b.number), b]),
    );
    for (const l of logs) {
      const timestamp = stamped(l);
      // (the block read as the range's end must be the logs' own: else a reorg is under way)
      if (timestamp !== undefined) headers.set(Number(l.blockNumber), { hash: Number(l.blockNumber) === to ? toBlock.hash : l.blockHash, timestamp: BigInt(timestamp) });
    }
    const blocks = new Map<number, TailBlock>();
    for (const l of logs) {
      if (l.eventName !== "BatchSettled") continue;
      const number = Number(l.blockNumber);
      const header = headers.get(number)!;
      // a log of another block than the one read (a reorg under way): read again next poll
      if (header.hash !== l.blockHash) throw new Error(`block ${number}: log of ${l.blockHash}, header ${header.hash} (reorg under way)`);
      const trades: BatchTrade[] = [];
      for (const t of byTx.get(l.transactionHash)!) {
        if (t.eventName !== "TradeSettled" || t.logIndex >= l.logIndex || t.args.batchId !== l.args.batchId) continue;
        trades.push({
          logIndex: t.logIndex,
          batchId: t.args.batchId,
          makerOrderHash: lc(t.args.makerOrderHash),
          takerOrderHash: lc(t.args.takerOrderHash),
          maker: lc(t.args.maker),
          taker: lc(t.args.taker),
          baseToken: lc(t.args.baseToken),
          quoteToken: lc(t.args.quoteToken),
          takerIsBuy: t.args.takerIsBuy,
          price: t.args.price,
          baseAmount: t.args.baseAmount,
          quoteAmount: t.args.quoteAmount,
          makerFee: t.args.makerFee,
          takerFee: t.args.takerFee,
        });
      }
      if (BigInt(trades.length) !== l.args.tradeCount) {
        throw new Error(`batch ${l.args.batchId}: ${trades.length} TradeSettled logs in ${l.transactionHash}, the event says ${l.args.tradeCount}`);
      }
      const ctx = { txHash: l.transactionHash, blockNumber: l.blockNumber, timestamp: header.timestamp, symbols: opts.symbols };
      let block = blocks.get(number);
      if (!block) blocks.set(number, (block = { number, hash: header.hash, trades: [] }));
      for (const row of trades.map((t) => tradeRow(t, ctx))) {
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
    for (const b of ordered) b.trades.sort((x, y) => x.json.logIndex - y.json.logIndex);
    tail.append(ordered, { number: to, hash: toHash });
  }

  let running = true;
  const loop = (async () => {
    while (running) {
      try {
        await pollOnce();
      } catch (error) {
        opts.onError?.(error);
      }
      if (running) await new Promise((r) => setTimeout(r, opts.pollMs));
    }
  })();

  return {
    async stop() {
      running = false;
      await loop;
    },
  };
}
