// A synthetic chain for the hot front's bench and tests: blocks of settlePacked transactions (each a
// BatchSettled log of its id, trade count and fee rates, its trades in the transaction's input) answered over
// JSON-RPC as a node does (Anvil's log shape, with blockTimestamp). No EVM: the signatures are never checked,
// the orders need not be sorted, and a transaction may be made to call another contract (the direct-call rule's
// tests).
import { type Hex, encodeAbiParameters, encodeFunctionData } from "viem";
import { settlementAbi } from "../../sdk/abi";
import type { Order } from "../../sdk/eip712";
import { type SettleArgs, encodePackedBatch } from "../../sdk/settle-batch";
import { BATCH_SETTLED_TOPIC } from "../hot/decode";
import type { FollowOptions } from "../hot/follow";
import type { HotTail } from "../hot/tail";

export const SYNTHETIC = {
  settlement: "0x5fbdb2315678afecb367f032556d4b3a5c65d2e0",
  chainId: 31337,
  weth: "0x00000000000000000000000000000000000000e1",
  usd: "0x00000000000000000000000000000000000000d1",
  maker: "0x00000000000000000000000000000000000000a1",
  taker: "0x00000000000000000000000000000000000000b1",
  price: 2_000_000_000n,
  fees: { maker: 10, taker: 25 },
} as const;

/** The follower's options for this chain at `rpcUrl` (its chain id, settlement and token symbols) into `tail`;
 *  no Ponder below it. */
export const syntheticFollowing = (rpcUrl: string, tail: HotTail) =>
  ({
    rpcUrl,
    chainId: SYNTHETIC.chainId,
    settlement: SYNTHETIC.settlement,
    symbols: new Map([
      [SYNTHETIC.weth, "WETH"],
      [SYNTHETIC.usd, "USD"],
    ]),
    tail,
    floor: () => -1,
  }) satisfies Partial<FollowOptions>;

/** a 65-byte signature (v 27) that the packed batch carries in its 64-byte compact form: nothing checks it */
const SIGNATURE = `0x${"11".repeat(32)}${"22".repeat(32)}1b` as Hex;
const hex64 = (n: number | bigint) => n.toString(16).padStart(64, "0");
const quantity = (n: number) => `0x${n.toString(16)}`;

/** One settlePacked input: `count` trades, each its own maker order (a sell at the price, filled at its limit)
 *  against the batch's one taker order; trade k (numbered from `first` + 1) is marked by its base amount,
 *  k * 1e12 (its key). */
export function blockBatch(batchId: bigint, first: number, count: number): { input: Hex; keys: string[] } {
  const order = (side: 0 | 1, nonce: bigint, trader: Hex): Order => ({
    trader,
    baseToken: SYNTHETIC.weth,
    quoteToken: SYNTHETIC.usd,
    side,
    price: SYNTHETIC.price,
    amount: 10n ** 30n,
    expiry: 2n ** 40n,
    nonce,
    flags: 0,
  });
  const args: SettleArgs = { orders: [order(0, batchId, SYNTHETIC.taker)], signatures: [SIGNATURE], fills: [] };
  const keys: string[] = [];
  for (let i = 1; i <= count; i++) {
    const baseAmount = BigInt(first + i) * 10n ** 12n;
    args.orders.push(order(1, BigInt(first + i), SYNTHETIC.maker));
    args.signatures.push(SIGNATURE);
    args.fills.push({ makerIndex: i, takerIndex: 0, baseAmount, price: SYNTHETIC.price });
    keys.push(baseAmount.toString());
  }
  const input = encodeFunctionData({
    abi: settlementAbi,
    functionName: "settlePacked",
    args: [batchId, encodePackedBatch(args)],
  });
  return { input, keys };
}

interface Block {
  number: number;
  hash: string;
  parentHash: string;
  timestamp: number;
  logs: object[];
}

export interface JsonRpcRequest {
  id: unknown;
  method: string;
  params?: unknown[];
}

/** The chain: `mine` appends a block, `answer` serves a JSON-RPC request as a node would. */
export class SyntheticChain {
  readonly blocks: Block[] = [
    { number: 0, hash: `0x${hex64(0xb0)}`, parentHash: `0x${hex64(0)}`, timestamp: 1_700_000_000, logs: [] },
  ];
  private readonly txs = new Map<string, object>();
  private batchId = 0;
  private tradeNo = 0;

  get head(): number {
    return this.blocks.length - 1;
  }

  /** Mines a block of one settlePacked transaction a count (of its trades); `to` makes a transaction call another
   *  address than the settlement. Returns the block and its trades' keys. */
  mine(batches: readonly { count: number; to?: string }[], now = Date.now()): { block: Block; keys: string[] } {
    const prev = this.blocks[this.head]!;
    const number = prev.number + 1;
    const hash = `0x${hex64(BigInt(number) * 1_000_003n + 0xbeefn)}`;
    const block: Block = {
      number,
      hash,
      parentHash: prev.hash,
      timestamp: Math.max(prev.timestamp, Math.floor(now / 1000)),
      logs: [],
    };
    const keys: string[] = [];
    batches.forEach(({ count, to }, i) => {
      const id = this.batchId++;
      const txHash = `0x${hex64(BigInt(number) * 1_000n + BigInt(i) + 0xabcdn)}`;
      const batch = blockBatch(BigInt(id), this.tradeNo, count);
      this.tradeNo += count;
      keys.push(...batch.keys);
      const at = { blockNumber: quantity(number), blockHash: hash, transactionHash: txHash };
      block.logs.push({
        ...at,
        address: SYNTHETIC.settlement,
        blockTimestamp: quantity(block.timestamp),
        transactionIndex: quantity(i),
        logIndex: quantity(i),
        removed: false,
        topics: [BATCH_SETTLED_TOPIC, `0x${hex64(id)}`],
        data: encodeAbiParameters(
          [{ type: "uint256" }, { type: "uint16" }, { type: "uint16" }],
          [BigInt(count), SYNTHETIC.fees.maker, SYNTHETIC.fees.taker],
        ),
      });
      this.txs.set(txHash, {
        ...at,
        hash: txHash,
        transactionIndex: quantity(i),
        from: SYNTHETIC.taker,
        to: to ?? SYNTHETIC.settlement,
        input: batch.input,
        nonce: quantity(id),
        value: "0x0",
        gas: "0x1c9c380",
        gasPrice: "0x1",
        type: "0x0",
        v: "0x1b",
        r: `0x${hex64(1)}`,
        s: `0x${hex64(1)}`,
      });
    });
    this.blocks.push(block);
    return { block, keys };
  }

  /** A block's header as eth_getBlockByNumber and newHeads give it. */
  header(b: Block) {
    return {
      number: quantity(b.number),
      hash: b.hash,
      parentHash: b.parentHash,
      timestamp: quantity(b.timestamp),
      transactions: [],
      logsBloom: `0x${"0".repeat(512)}`,
      gasLimit: "0x1c9c380",
      gasUsed: "0x0",
      miner: `0x${"0".repeat(40)}`,
      nonce: "0x0000000000000000",
      difficulty: "0x0",
      extraData: "0x",
      size: "0x200",
      stateRoot: b.hash,
      receiptsRoot: b.hash,
      transactionsRoot: b.hash,
      sha3Uncles: b.hash,
      uncles: [],
      mixHash: b.hash,
      baseFeePerGas: "0x1",
    };
  }

  private result(req: JsonRpcRequest): unknown {
    const head = this.head;
    switch (req.method) {
      case "eth_blockNumber":
        return quantity(head);
      case "eth_chainId":
        return quantity(SYNTHETIC.chainId);
      case "eth_getBlockByNumber": {
        const tag = req.params?.[0] as string;
        const n = tag === "latest" ? head : Number(tag);
        return n <= head ? this.header(this.blocks[n]!) : null;
      }
      case "eth_getLogs": {
        const f = req.params?.[0] as { fromBlock: string; toBlock: string };
        const out: object[] = [];
        for (let n = Number(f.fromBlock); n <= Math.min(Number(f.toBlock), head); n++)
          out.push(...this.blocks[n]!.logs);
        return out;
      }
      case "eth_getTransactionByHash":
        return this.txs.get(req.params?.[0] as string) ?? null;
      case "eth_subscribe":
        return "0x1";
      default:
        return undefined;
    }
  }

  answer(req: JsonRpcRequest): object {
    const result = this.result(req);
    return result === undefined
      ? { jsonrpc: "2.0", id: req.id, error: { code: -32601, message: `no ${req.method}` } }
      : { jsonrpc: "2.0", id: req.id, result };
  }
}
