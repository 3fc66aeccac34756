// A deposit's one step: sign MINT for the minter's current epoch and submit mint. A mint refused as
// "already minted" (another relayer, or this one before a crash) is done, recorded with that mint's
// transaction, never an error.
import type { Hex, TransactionReceipt } from "viem";
import { BRIDGE_MINTED } from "../sdk/bridge-abi";
import type { TransferRow } from "./store";
import { revertOf } from "./submitter";
import { NotYet, readMinter, sendToMinter, signatureFor, updateRow, type TransferContext } from "./transfer-context";

export async function processDeposit(ctx: TransferContext, row: TransferRow): Promise<void> {
  const nonce = BigInt(row.nonce);
  const core = await ctx.minterCore();
  if (core.paused) throw new NotYet("the minter is paused");
  const { signature } = await signatureFor(ctx, row, core.keyEpoch);
  let receipt: TransactionReceipt;
  try {
    receipt = await sendToMinter(ctx, "mint", [nonce, row.token, row.recipient, BigInt(row.amount_wei), signature]);
  } catch (err) {
    if (!(await alreadyMinted(ctx, nonce, err))) throw err;
    ctx.deps.logger.info(
      { bridge: ctx.deps.deployment.bridge, nonce: row.nonce },
      "deposit already minted; recording it as done",
    );
    await recordMinted(ctx, row, await mintedTx(ctx, nonce));
    return;
  }
  ctx.deps.afterSubmit?.(row, "mint");
  await recordMinted(ctx, row, receipt.transactionHash);
}

function recordMinted(ctx: TransferContext, row: TransferRow, txHash: Hex | undefined) {
  return updateRow(ctx, row, { status: "minted", dst_tx_hash: txHash, minted_at: "now", last_error: null }, true);
}

/** Whether a failed mint failed because the deposit is minted already (named, or read back on a bare revert). */
async function alreadyMinted(ctx: TransferContext, nonce: bigint, err: unknown): Promise<boolean> {
  const revert = revertOf(err);
  if (revert?.errorName === "BridgeMinterDepositAlreadyMinted") return true;
  if (revert?.errorName !== "OnChainRevert") return false;
  return readMinter<boolean>(ctx.deps, "isMinted", [nonce]);
}

/** The transaction that minted deposit `nonce`, from the minter's BridgeMinted log. */
async function mintedTx(ctx: TransferContext, nonce: bigint): Promise<Hex | undefined> {
  const { remote, deployment: d } = ctx.deps;
  const logs = await remote.publicClient.getLogs({
    address: d.remote.minter,
    event: BRIDGE_MINTED,
    args: { depositNonce: nonce },
    fromBlock: d.remote.fromBlock,
    toBlock: "latest",
  });
  return logs[0]?.transactionHash ?? undefined;
}
