// Rebuilds a chain from its journal in a fresh Hardhat node: every journalled call again, in order,
// each block at its recorded timestamp, checking every few calls and after the last that the head
// block (number and hash) is the recorded one. Same genesis + same calls + same timestamps = the same
// chain, block for block.
import { AppError } from "../../runtime/errors";
import type { JournalEntry } from "./journal";
import { completeCall, type ChainNodeKind } from "./node-kind";
import { getHead } from "./recorder";
import type { RpcClient } from "./rpc-client";

export class ChainReplayDivergedError extends AppError<"CHAIN_REPLAY_DIVERGED"> {
  constructor(index: number, expected: unknown, got: unknown) {
    super(
      "CHAIN_REPLAY_DIVERGED",
      `chain replay diverged at journal entry ${index}: expected head ${JSON.stringify(expected)}, got ${JSON.stringify(got)}; ` +
        "the node or its configuration changed since the journal was written; start with --reset",
      { details: { index, expected, got } },
    );
    this.name = "ChainReplayDivergedError";
  }
}

/** How often the head is checked during replay: each check is one more call per entry it covers. */
const CHECK_EVERY_ENTRIES = 64;

/** `firstIndex`: the journal index of entries[0] (a tail after a snapshot), for the error's message. */
export async function replayJournal(
  node: RpcClient,
  entries: readonly JournalEntry[],
  kind: ChainNodeKind = "hardhat",
  firstIndex = 0,
): Promise<void> {
  for (const [i, entry] of entries.entries()) {
    if (entry.firstBlockTimestamp !== undefined) {
      await node.call("evm_setNextBlockTimestamp", [entry.firstBlockTimestamp]);
    }
    // Errors are expected where the original call failed too (a reverted transaction is still mined);
    // the head check below is what decides whether the replay is faithful.
    const res = await node.send(entry.method, entry.params);
    await completeCall(kind, node, entry.method, res);
    if (i % CHECK_EVERY_ENTRIES === CHECK_EVERY_ENTRIES - 1 || i === entries.length - 1) {
      const head = await getHead(node);
      if (head.number !== entry.head.number || head.hash !== entry.head.hash) {
        throw new ChainReplayDivergedError(firstIndex + i, entry.head, head);
      }
    }
  }
}

/**
 * Sets the chain clock back to wall-clock time plus the offset it had when last used: replaying moved
 * it to the past (the recorded timestamps). Hardhat can only move time forward, which is the direction
 * needed.
 */
export async function restoreClock(node: RpcClient, targetOffsetS: number): Promise<void> {
  const currentOffsetS = Number(await node.call<string>("evm_increaseTime", [0]));
  const deltaS = targetOffsetS - currentOffsetS;
  if (deltaS > 0) await node.call("evm_increaseTime", [deltaS]);
}
