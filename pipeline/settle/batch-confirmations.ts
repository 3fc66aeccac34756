// The batches the chain settled before this start, each with its transaction, so that the fills rebuilt
// from the matcher journal read settled with their transaction again (a status never goes backwards).
// The batch store holds each batch's confirmation (batch-flights.ts writes it when the receipt arrives);
// a settled batch without one (the process died between its landing and the write, or its receipt was
// lost) is looked up in the Settlement contract's BatchSettled events, and its confirmation journaled then.
import { decodeEventLog, toEventSelector, type Address, type Hex, type Log, type PublicClient } from "viem";
import { settlementAbi } from "../../sdk/abi";
import type { BatchRun } from "./batch-run";
import type { BatchRecord, FindBatchTxs, SettledBatchRecord } from "./batch-types";
export type { FindBatchTxs, SettledBatchRecord } from "./batch-types";

/** A batch the chain settled: its trades are those with seq in [fromSeq, toSeq] (minus dropped ones). */

const CHUNK = 5_000n;

/** Reads BatchSettled logs from `fromBlock` (else the deployment block) in windows until every id is found. */
export function batchTxsFromChain(client: PublicClient, settlement: Address, deployBlock: bigint): FindBatchTxs {
  const selector = toEventSelector(settlementAbi.find((x) => x.type === "event" && x.name === "BatchSettled")!);
  return async (batchIds, fromBlock) => {
    const wanted = new Set(batchIds);
    const found = new Map<bigint, { txHash: Hex; blockNumber: bigint }>();
    const head = await client.getBlockNumber({ cacheTime: 0 });
    for (let from = fromBlock ?? deployBlock; from <= head && found.size < wanted.size; from += CHUNK) {
      const to = from + CHUNK - 1n < head ? from + CHUNK - 1n : head;
      const logs = (await client.request({
        method: "eth_getLogs",
        params: [
          {
            address: settlement,
            fromBlock: `0x${from.toString(16)}`,
            toBlock: `0x${to.toString(16)}`,
            topics: [selector],
          },
        ],
      })) as unknown as (Pick<Log, "data" | "topics"> & { blockNumber: Hex; transactionHash: Hex })[];
      for (const log of logs) {
        const { args } = decodeEventLog({
          abi: settlementAbi,
          eventName: "BatchSettled",
          data: log.data,
          topics: log.topics as [Hex, ...Hex[]],
        });
        const id = BigInt(args.batchId);
        if (wanted.has(id)) found.set(id, { txHash: log.transactionHash, blockNumber: BigInt(log.blockNumber) });
      }
    }
    return found;
  };
}

/** Every batch below the chain's nextBatchId, oldest first, with its transaction; confirmations found on
 *  the chain are journaled (so the next start reads them from the store). Needs `b.nextId` and the store. */
export async function settledAtStart(b: BatchRun): Promise<SettledBatchRecord[]> {
  const records: BatchRecord[] = [];
  for (let id = b.deps.firstBatchId ?? 0n; id < b.nextId; id++) {
    const r = b.byId.get(id.toString());
    if (r) records.push(r);
  }
  const missing = records.filter((r) => !r.txHash);
  if (missing.length > 0 && b.deps.findBatchTxs) {
    // the chain is searched from the block of the last confirmation before the first batch it lacks
    const firstMissing = BigInt(missing[0].batchId);
    const before = records.filter((r) => r.blockNumber !== undefined && BigInt(r.batchId) < firstMissing).at(-1);
    try {
      const found = await b.deps.findBatchTxs(
        missing.map((r) => BigInt(r.batchId)),
        before ? BigInt(before.blockNumber!) : undefined,
      );
      const writes: Promise<void>[] = [];
      for (const r of missing) {
        const tx = found.get(BigInt(r.batchId));
        if (!tx) continue;
        r.txHash = tx.txHash;
        r.blockNumber = tx.blockNumber.toString();
        writes.push(b.store!.append({ ...r }));
      }
      await Promise.all(writes);
      b.log?.info(
        { batches: missing.length, found: found.size },
        "settled batches without a journaled confirmation found on the chain",
      );
    } catch (err) {
      b.log?.warn(
        { err: (err as Error).message, batches: missing.length },
        "settled batches' transactions not found: their fills read settled without a transaction",
      );
    }
  }
  return records.map((r) => ({
    batchId: BigInt(r.batchId),
    fromSeq: r.fromSeq,
    toSeq: r.toSeq,
    txHash: r.txHash ?? null,
  }));
}
