// The batch ids a Settlement contract's BatchSettled events carry, in log order: the failover tests require
// them consecutive from 0 (one settle lane, no batch lost or settled twice).
import { parseEventLogs, type Log } from "viem";
import { settlementAbi } from "../../sdk/abi";

export function settledBatchIds(logs: Log[]): number[] {
  const batches = parseEventLogs({ abi: settlementAbi, logs, eventName: "BatchSettled" }) as unknown as {
    args: { batchId: bigint };
  }[];
  return batches.map((b) => Number(b.args.batchId));
}
