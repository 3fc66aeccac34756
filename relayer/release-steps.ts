// A withdrawal's two steps on the home chain's vault: queue the release (RELEASE signature, plus the HSM's
// co-signature at or above the token's threshold), then, once the challenge period is over and no guardian
// disputed it, execute it. Before either, the row is brought in line with the vault's own record, so a
// step that already happened (here before a crash, or by another relayer) is recorded, not repeated.
import { decodeEventLog, type Hex, type TransactionReceipt } from "viem";
import { BRIDGE_RELEASE_QUEUED, ReleaseStatus } from "../sdk/bridge-abi";
import type { TransferRow } from "./store";
import { revertOf } from "./submitter";
import { NotYet, readVault, sendToVault, signatureFor, updateRow, type TransferContext } from "./transfer-context";

export async function queueRelease(ctx: TransferContext, row: TransferRow): Promise<void> {
  if (await syncRelease(ctx, row)) return;
  const core = await ctx.vaultCore();
  if (core.paused) throw new NotYet("the vault is paused");
  const { signature, hsm } = await signatureFor(ctx, row, core.keyEpoch);
  let receipt: TransactionReceipt;
  try {
    const amount = BigInt(row.amount_wei);
    receipt = await sendToVault(ctx, "queueRelease", [
      BigInt(row.nonce),
      row.token,
      row.recipient,
      amount,
      signature,
      hsm ?? "0x",
    ]);
  } catch (err) {
    const name = revertOf(err)?.errorName;
    if ((name === "BridgeVaultBurnAlreadyReleased" || name === "OnChainRevert") && (await syncRelease(ctx, row)))
      return;
    throw err;
  }
  ctx.deps.afterSubmit?.(row, "queueRelease");
  const readyAt = readyAtOf(receipt) ?? (await releaseReadyAt(ctx, BigInt(row.nonce)));
  await recordQueued(ctx, row, readyAt, receipt);
}

export async function executeRelease(ctx: TransferContext, row: TransferRow): Promise<void> {
  if (await syncRelease(ctx, row)) return;
  try {
    const args = [BigInt(row.nonce), row.token, row.recipient, BigInt(row.amount_wei)];
    const receipt = await sendToVault(ctx, "executeRelease", args);
    ctx.deps.afterSubmit?.(row, "executeRelease");
    await updateRow(
      ctx,
      row,
      { status: "released", execute_tx_hash: receipt.transactionHash, released_at: "now", last_error: null },
      true,
    );
  } catch (err) {
    const revert = revertOf(err);
    if (revert?.errorName === "BridgeVaultChallengePeriodActive") {
      // the chain's clock decides: wait until its latest block is past readyAt (at least 100 ms)
      const block = await ctx.deps.home.publicClient.getBlock({ blockTag: "latest" });
      const waitMs = Math.min(
        1_000,
        Math.max(100, (Number(revert.args[1] ?? row.ready_at) - Number(block.timestamp)) * 1_000),
      );
      throw new NotYet("challenge period still running", new Date(ctx.clock.now() + waitMs));
    }
    if (revert && (await syncRelease(ctx, row))) return;
    throw err;
  }
}

/** Brings the row in line with the vault's record of this burn; true when nothing is left to queue. */
async function syncRelease(ctx: TransferContext, row: TransferRow): Promise<boolean> {
  const nonce = BigInt(row.nonce);
  const [status] = await readVault<[number, Hex]>(ctx.deps, "getRelease", [nonce]);
  if (status === ReleaseStatus.None) return false;
  if (status === ReleaseStatus.Disputed) await updateRow(ctx, row, { status: "disputed", disputed_at: "now" }, true);
  else if (status === ReleaseStatus.Executed)
    await updateRow(ctx, row, { status: "released", released_at: "now" }, true);
  else if (row.status !== "release_queued") await recordQueued(ctx, row, await releaseReadyAt(ctx, nonce));
  else return false; // queued, and we know it: time to execute
  return true;
}

/** Records the release as queued (by `receipt`, when this relayer queued it), due once the chain reaches readyAt. */
async function recordQueued(ctx: TransferContext, row: TransferRow, readyAt: bigint, receipt?: TransactionReceipt) {
  const patch = {
    status: "release_queued",
    ready_at: readyAt,
    release_queued_at: "now",
    next_attempt_at: await whenChainReaches(ctx, readyAt, receipt?.blockNumber),
    ...(receipt ? { dst_tx_hash: receipt.transactionHash, last_error: null } : {}),
  } as const;
  await updateRow(ctx, row, patch, true);
}

function releaseReadyAt(ctx: TransferContext, nonce: bigint): Promise<bigint> {
  return readVault<bigint>(ctx.deps, "releaseReadyAt", [nonce]);
}

/** The wall-clock moment the home chain's clock should reach `readyAt`: the challenge period runs in
 *  chain time, and a chain mining many blocks per second runs ahead of the wall clock. */
async function whenChainReaches(ctx: TransferContext, readyAt: bigint, blockNumber?: bigint): Promise<Date> {
  const block = await ctx.deps.home.publicClient.getBlock(
    blockNumber === undefined ? { blockTag: "latest" } : { blockNumber },
  );
  return new Date(ctx.clock.now() + Math.max(0, Number(readyAt - block.timestamp)) * 1000);
}

function readyAtOf(receipt: TransactionReceipt): bigint | undefined {
  for (const log of receipt.logs) {
    try {
      const ev = decodeEventLog({ abi: [BRIDGE_RELEASE_QUEUED], data: log.data, topics: log.topics });
      return ev.args.readyAt;
    } catch {
      /* another event */
    }
  }
  return undefined;
}
