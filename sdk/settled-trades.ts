// The trades of one settled batch. The Settlement contract's BatchSettled event names the batch, its trade
// count and its fee rates; the trades are the fills of the transaction that emitted it, which must be a direct
// call of `settle` or `settlePacked` (tx.to is the contract). A batch is atomic, so every fill of the call was
// settled, in calldata order. The quote amount and both fees follow from the fill and the fee rates by the
// contract's rules (quoteAmountFor, feeFor); the order hashes are the EIP-712 digests, recomputed here.
import { type Hex, type PublicClient, decodeEventLog, decodeFunctionData } from "viem";
import { settlementAbi } from "./abi";
import { type Order, feeFor, getOrderHash, getSettlementDomain, quoteAmountFor } from "./eip712";
import { type SettleArgs, decodePackedBatch } from "./settle-batch";

/** One settled trade (the fields TradeSettled used to carry); hex strings lowercase. */
export interface SettledBatchTrade {
  batchId: bigint;
  /** the trade's place in its batch (0-based, the order of the batch's fills) */
  tradeIndex: number;
  makerOrderHash: Hex;
  takerOrderHash: Hex;
  maker: Hex;
  taker: Hex;
  baseToken: Hex;
  quoteToken: Hex;
  takerIsBuy: boolean;
  price: bigint;
  baseAmount: bigint;
  quoteAmount: bigint;
  makerFee: bigint;
  takerFee: bigint;
}

/** BatchSettled's arguments. */
export interface BatchSettledArgs {
  batchId: bigint;
  tradeCount: bigint;
  makerFeeBps: number;
  takerFeeBps: number;
}

/** Where the orders were signed for: the settlement contract's chain and address (its EIP-712 domain). */
export interface SettlementDomain {
  chainId: bigint | number;
  settlement: Hex;
}

/** What settledTradesOf asks of a chain (a viem PublicClient has it). */
export type SettlementReadClient = Pick<PublicClient, "getTransaction" | "getChainId">;

/** A log as viem or ethers give it (a receipt's, eth_getLogs'): where it was, when the source says. */
export interface SettlementLogLike {
  address: string;
  topics: readonly Hex[] | readonly string[];
  data: string;
  transactionHash?: string | null;
  blockNumber?: bigint | number | null;
  logIndex?: number | null;
}

export type LocatedSettledTrade = SettledBatchTrade & {
  transactionHash?: Hex;
  blockNumber?: bigint;
  logIndex?: number;
};

/** Hashes the orders of one settlement contract (its EIP-712 domain). The default is sdk/eip712's `getOrderHash`
 *  (portable); a node service passes a faster one of the same digest (runtime/order-digest.ts
 *  `createOrderDigester` over the domain's separator). */
export type OrderHasherFactory = (domain: Eip712Domain) => (order: Order) => Hex;
type Eip712Domain = ReturnType<typeof getSettlementDomain>;

const portableHasher: OrderHasherFactory = (domain) => (o) => getOrderHash(domain, o);

const hashers = new WeakMap<OrderHasherFactory, Map<string, (order: Order) => Hex>>();

/** The order hasher of a settlement contract, made once per contract and factory. */
function hasherOf(domain: SettlementDomain, factory: OrderHasherFactory): (order: Order) => Hex {
  const key = `${domain.chainId}:${domain.settlement.toLowerCase()}`;
  let byContract = hashers.get(factory);
  if (byContract === undefined) hashers.set(factory, (byContract = new Map()));
  let hash = byContract.get(key);
  if (hash === undefined) byContract.set(key, (hash = factory(getSettlementDomain(domain.chainId, domain.settlement))));
  return hash;
}

/** The batch id and arguments of a settle or settlePacked call's input; throws on any other input. */
function decodeSettleCall(input: Hex): { batchId: bigint; args: SettleArgs } {
  let call;
  try {
    call = decodeFunctionData({ abi: settlementAbi, data: input });
  } catch (e) {
    throw new Error(`BatchSettled: the transaction's input is not a Settlement call (${(e as Error).message})`);
  }
  if (call.functionName === "settlePacked") {
    const [batchId, batch] = call.args;
    return { batchId, args: decodePackedBatch(batch) };
  }
  if (call.functionName === "settle") {
    const [batchId, orders, signatures, fills] = call.args;
    const sided = orders.map((o, i) => {
      if (o.side !== 0 && o.side !== 1) throw new Error(`BatchSettled: order ${i} has side ${o.side}`);
      return { ...o, side: o.side as Order["side"] };
    });
    return { batchId, args: { orders: sided, signatures: [...signatures], fills: [...fills] } };
  }
  throw new Error(`BatchSettled: the transaction calls ${call.functionName}, not settle or settlePacked`);
}

/** The trades of one BatchSettled event, from the input of the transaction that emitted it. Throws (Error
 *  with a clear message) when the input is not a settle/settlePacked call, names another batch, carries
 *  another number of fills, or is malformed. */
export function settledTradesOfCall(
  input: Hex,
  event: BatchSettledArgs,
  domain: SettlementDomain,
  hasher: OrderHasherFactory = portableHasher,
): SettledBatchTrade[] {
  const { batchId, args } = decodeSettleCall(input);
  if (batchId !== event.batchId)
    throw new Error(`BatchSettled: the event is batch ${event.batchId}, its transaction settles batch ${batchId}`);
  if (BigInt(args.fills.length) !== event.tradeCount)
    throw new Error(
      `BatchSettled: the event has ${event.tradeCount} trades, its transaction ${args.fills.length} fills`,
    );
  const hashOrder = hasherOf(domain, hasher);
  const hashes: (Hex | undefined)[] = new Array(args.orders.length);
  const orderAt = (i: number, k: number) => {
    const o = args.orders[i];
    if (o === undefined) throw new Error(`BatchSettled: fill ${k} names order ${i} of ${args.orders.length}`);
    hashes[i] ??= hashOrder(o);
    return { o, hash: hashes[i]! };
  };
  return args.fills.map((f, tradeIndex) => {
    const maker = orderAt(f.makerIndex, tradeIndex);
    const taker = orderAt(f.takerIndex, tradeIndex);
    const quoteAmount = quoteAmountFor(f.baseAmount, f.price);
    if (quoteAmount === null) throw new Error(`BatchSettled: fill ${tradeIndex} is not exact`);
    const takerIsBuy = taker.o.side === 0;
    // each side's fee is on what it receives: base for the buyer, quote for the seller
    const received = (isBuy: boolean) => (isBuy ? f.baseAmount : quoteAmount);
    return {
      batchId,
      tradeIndex,
      makerOrderHash: maker.hash,
      takerOrderHash: taker.hash,
      maker: maker.o.trader.toLowerCase() as Hex,
      taker: taker.o.trader.toLowerCase() as Hex,
      baseToken: maker.o.baseToken.toLowerCase() as Hex,
      quoteToken: maker.o.quoteToken.toLowerCase() as Hex,
      takerIsBuy,
      price: f.price,
      baseAmount: f.baseAmount,
      quoteAmount,
      makerFee: feeFor(received(!takerIsBuy), event.makerFeeBps),
      takerFee: feeFor(received(takerIsBuy), event.takerFeeBps),
    };
  });
}

/** The BatchSettled arguments of a log, or undefined when the log is another event or another contract's. */
function batchSettledOf(log: SettlementLogLike): BatchSettledArgs | undefined {
  let decoded;
  try {
    decoded = decodeEventLog({ abi: settlementAbi, topics: log.topics as [Hex, ...Hex[]], data: log.data as Hex });
  } catch {
    return undefined; // not one of the contract's events
  }
  return decoded.eventName === "BatchSettled" ? decoded.args : undefined;
}

/** Most transactions settledTradesOf asks for at once (a range of logs can name thousands). */
const FETCHES_AT_ONCE = 16;

/** The transactions these events name, each fetched once, FETCHES_AT_ONCE at a time. */
async function transactionsOf(client: SettlementReadClient, events: readonly { hash: Hex }[]) {
  const hashes = [...new Set(events.map((e) => e.hash))];
  const txs = new Map<Hex, Awaited<ReturnType<SettlementReadClient["getTransaction"]>>>();
  let next = 0;
  const worker = async () => {
    while (next < hashes.length) {
      const hash = hashes[next++]!;
      txs.set(hash, await client.getTransaction({ hash }));
    }
  };
  await Promise.all(Array.from({ length: Math.min(FETCHES_AT_ONCE, hashes.length) }, worker));
  return txs;
}

/** Every trade of these logs (only the settlement's BatchSettled logs when `settlement` is given, else every
 *  BatchSettled log), in log order, with the log's transaction hash, block number and log index where the log
 *  has them. Fetches each log's transaction once and throws unless it is a direct call of the log's contract
 *  (tx.to) whose input settles that batch (settledTradesOfCall). */
export async function settledTradesOf(
  client: SettlementReadClient,
  logs: readonly SettlementLogLike[],
  settlement?: string,
): Promise<LocatedSettledTrade[]> {
  const events: { log: SettlementLogLike; event: BatchSettledArgs; hash: Hex }[] = [];
  for (const log of logs) {
    if (settlement !== undefined && log.address.toLowerCase() !== settlement.toLowerCase()) continue;
    const event = batchSettledOf(log);
    if (event === undefined) continue;
    if (typeof log.transactionHash !== "string")
      throw new Error(`BatchSettled: batch ${event.batchId}'s log has no transaction hash to read its trades from`);
    events.push({ log, event, hash: log.transactionHash.toLowerCase() as Hex });
  }
  if (events.length === 0) return [];
  const [chainId, txs] = await Promise.all([client.getChainId(), transactionsOf(client, events)]);
  const out: LocatedSettledTrade[] = [];
  for (const { log, event, hash } of events) {
    const tx = txs.get(hash)!;
    if (tx.to?.toLowerCase() !== log.address.toLowerCase())
      throw new Error(
        `BatchSettled: batch ${event.batchId}'s transaction ${hash} is not a direct call of ${log.address} (to ${tx.to})`,
      );
    const place = {
      transactionHash: hash,
      ...(log.blockNumber !== undefined && log.blockNumber !== null ? { blockNumber: BigInt(log.blockNumber) } : {}),
      ...(typeof log.logIndex === "number" ? { logIndex: log.logIndex } : {}),
    };
    const domain = { chainId, settlement: log.address as Hex };
    for (const t of settledTradesOfCall(tx.input, event, domain)) out.push({ ...t, ...place });
  }
  return out;
}
