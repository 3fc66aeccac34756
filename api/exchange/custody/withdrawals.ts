// Withdrawals out of custody: three transactions of the account's own key (Settlement.requestWithdrawal, then
// executeWithdrawal once the contract's delay has passed, then the demo USD back to the sandbox bank, the
// SandboxFunding reserve). Each is signed and stored in the transfer row before it is sent, and a restart sends
// the stored bytes again, so each step is mined at most once.
import { type Address, erc20Abi, type Hex, type TransactionReceipt } from "viem";
import { settlementAbi } from "../../../sdk/abi";
import { revertName } from "./chain";
import {
  afterSend,
  type CustodyContext,
  getTransfer,
  keyOf,
  requireFunding,
  pendingWithdrawalOf,
  settlementBalance,
} from "./context";
import { DEFAULT_GAS_TOP_UP_WEI, DEFAULT_MIN_GAS_WEI, NEXT_WITHDRAWAL_STEP, type TransferRow } from "./types";

/** One pass: the row as far as the chain allows now, or "again" to read it and go on. */
type Pass = { row: TransferRow } | "again";
/** The next step's call; "wait" for the chain, "failed" once the row is marked failed. */
type NextCall = { address: Address; abi: unknown; functionName: string; args: readonly unknown[] } | "wait" | "failed";

/** Takes a withdrawal one chain step further (or as far as the chain allows now). Idempotent; the caller
 *  runs one withdrawal of an account at a time (Settlement holds one pending withdrawal per token). */
export async function advanceWithdrawal(ctx: CustodyContext, id: string): Promise<TransferRow> {
  for (let i = 0; i < 4; i++) {
    const pass = await advanceOnce(ctx, id);
    if (pass !== "again") return pass.row;
  }
  return (await getTransfer(ctx, id))!;
}

async function advanceOnce(ctx: CustodyContext, id: string): Promise<Pass> {
  const row = await getTransfer(ctx, id);
  if (!row) throw new Error(`custody: no transfer ${id}`);
  if (row.direction !== "withdrawal" || row.status !== "pending") return { row };
  if (row.pending_tx_hash) return (await resumeStored(ctx, row)) ? "again" : { row };
  const key = await keyOf(ctx, row.account_id);
  const call = await nextCall(ctx, row, key.address);
  if (call === "wait") return { row };
  if (call === "failed") return "again";
  await ensureGas(ctx, key.address);
  let signed: { raw: Hex; hash: Hex };
  try {
    signed = await ctx.deps.chain.signAccountCall(key, call as never);
  } catch (err) {
    const name = revertName(err);
    if (name === "SettlementWithdrawalNotReady") return { row };
    if (name && row.chain_step === "new") {
      await markFailed(ctx, row, `request_refused:${name}`);
      return "again";
    }
    throw err;
  }
  return sendStored(ctx, row, signed);
}

/** The call of the row's next step, from what the chain holds now. */
async function nextCall(ctx: CustodyContext, row: TransferRow, account: Address): Promise<NextCall> {
  const { chain, settlement, db } = ctx.deps;
  const usd = ctx.usd.address;
  const amount = BigInt(row.amount_units);
  const pendingWithdrawal = () => pendingWithdrawalOf(ctx, account, usd);
  switch (row.chain_step) {
    case "new": {
      if ((await pendingWithdrawal()).amount !== 0n) return "wait"; // another request is pending on chain: wait for it
      if ((await settlementBalance(ctx, account, usd)) < amount) {
        await markFailed(ctx, row, "insufficient_balance");
        return "failed";
      }
      return { address: settlement, abi: settlementAbi, functionName: "requestWithdrawal", args: [usd, amount] };
    }
    case "requested": {
      const pending = await pendingWithdrawal();
      const block = await chain.client.getBlock();
      if (row.withdraw_available_at === null) {
        await db.query("UPDATE exchange_funding_transfers SET withdraw_available_at = $2 WHERE id = $1", [
          row.id,
          pending.availableAt,
        ]);
      }
      if (block.timestamp < pending.availableAt) return "wait"; // the contract's delay has not passed
      return { address: settlement, abi: settlementAbi, functionName: "executeWithdrawal", args: [usd] };
    }
    case "executed":
      return { address: usd, abi: erc20Abi, functionName: "transfer", args: [requireFunding(ctx), amount] };
    case "cancelling":
      return { address: settlement, abi: settlementAbi, functionName: "cancelWithdrawal", args: [usd] };
    default:
      return "wait"; // returned or cancelled: nothing left on chain
  }
}

/** Stores the signed step in the row, sends it and records its outcome. */
async function sendStored(ctx: CustodyContext, row: TransferRow, signed: { raw: Hex; hash: Hex }): Promise<Pass> {
  const { chain, db } = ctx.deps;
  const stored = await db.query(
    "UPDATE exchange_funding_transfers SET pending_raw_tx = $2, pending_tx_hash = $3, attempts = attempts + 1, updated_at = now() WHERE id = $1 AND chain_step = $4 AND pending_tx_hash IS NULL",
    [row.id, signed.raw, signed.hash, row.chain_step],
  );
  if (stored.rowCount !== 1) return "again"; // someone else moved it: read again
  await afterSend(ctx, `withdrawal-${row.chain_step}-stored`, row.id);
  await chain.broadcast(signed.raw);
  await afterSend(ctx, `withdrawal-${row.chain_step}-sent`, row.id);
  const receipt = await chain.receipt(signed.hash);
  if (!receipt) return { row: (await getTransfer(ctx, row.id))! };
  await finishStep(ctx, { ...row, pending_tx_hash: signed.hash }, receipt);
  return "again";
}

/** An account's own transactions need gas: below the minimum the funding key tops it up. */
async function ensureGas(ctx: CustodyContext, address: Address): Promise<void> {
  const { chain, minGasWei, gasTopUpWei } = ctx.deps;
  const balance = await chain.client.getBalance({ address });
  if (balance >= (minGasWei ?? DEFAULT_MIN_GAS_WEI)) return;
  await chain.sendFundingValue(address, gasTopUpWei ?? DEFAULT_GAS_TOP_UP_WEI);
}

async function finishStep(ctx: CustodyContext, row: TransferRow, receipt: TransactionReceipt): Promise<void> {
  const step = row.chain_step;
  if (receipt.status === "success") {
    const next = NEXT_WITHDRAWAL_STEP[step];
    await ctx.deps.db.query(
      `UPDATE exchange_funding_transfers SET chain_step = $2, pending_raw_tx = NULL, pending_tx_hash = NULL,
         tx_hashes = array_append(tx_hashes, $3::text), status = CASE WHEN $2 = 'cancelled' THEN 'failed' ELSE status END,
         failure_reason = CASE WHEN $2 = 'cancelled' THEN COALESCE(failure_reason, 'withdrawal_cancelled') ELSE failure_reason END, updated_at = now()
       WHERE id = $1 AND chain_step = $4 AND pending_tx_hash = $3`,
      [row.id, next, receipt.transactionHash, step],
    );
    return;
  }
  // reverted on chain (the balance moved between the checks and the block): request -> failed, nothing
  // moved; execute -> the request is cancelled so that the account's next withdrawal can be requested
  const after = step === "requested" ? "cancelling" : step;
  await ctx.deps.db.query(
    `UPDATE exchange_funding_transfers SET chain_step = $2, pending_raw_tx = NULL, pending_tx_hash = NULL,
       status = CASE WHEN $2 = 'cancelling' THEN status ELSE 'failed' END, failure_reason = $3, updated_at = now()
     WHERE id = $1 AND chain_step = $4 AND pending_tx_hash = $5`,
    [row.id, after, `${step}_reverted`, step, receipt.transactionHash],
  );
}

async function markFailed(ctx: CustodyContext, row: TransferRow, reason: string): Promise<void> {
  await ctx.deps.db.query(
    "UPDATE exchange_funding_transfers SET status = 'failed', failure_reason = $2, updated_at = now() WHERE id = $1 AND chain_step = $3 AND pending_tx_hash IS NULL AND status = 'pending'",
    [row.id, reason, row.chain_step],
  );
}

/** Sends a stored signed step again and records its outcome; false when its receipt is not there yet. */
async function resumeStored(ctx: CustodyContext, row: TransferRow): Promise<boolean> {
  await ctx.deps.chain.broadcast(row.pending_raw_tx as Hex);
  const receipt = await ctx.deps.chain.receipt(row.pending_tx_hash as Hex);
  if (!receipt) return false;
  await finishStep(ctx, row, receipt);
  return true;
}
