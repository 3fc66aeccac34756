// Deposits into custody: SandboxFunding.credit(transferId, account, amount), which the contract refuses for a
// transfer id it has already credited, so repeated or resumed completions credit once.
import type { Address, Hex } from "viem";
import { sandboxFundingAbi } from "../../../sdk/abi";
import { accountRow, afterSend, type CustodyContext, getTransfer, requireFunding } from "./context";
import { type TransferRow, transferIdOf } from "./types";

/** Credits a deposit row once: the contract refuses a transfer id twice, so a repeat is a no-op. */
export async function creditDeposit(ctx: CustodyContext, id: string): Promise<TransferRow> {
  const { chain, db } = ctx.deps;
  const row = await getTransfer(ctx, id);
  if (!row) throw new Error(`custody: no transfer ${id}`);
  if (row.direction !== "deposit" || row.chain_step !== "new") return row;
  const funding = requireFunding(ctx);
  const account = await accountRow(ctx, row.account_id);
  if (!account) throw new Error(`custody: no account ${row.account_id}`);
  const transferId = transferIdOf(id);
  const amount = BigInt(row.amount_units);
  const credited = async () =>
    (await chain.client.readContract({
      address: funding,
      abi: sandboxFundingAbi,
      functionName: "credited",
      args: [transferId],
    })) as bigint;
  let txHash: Hex | undefined;
  if ((await credited()) === 0n) {
    try {
      txHash = (
        await chain.sendFunding({
          address: funding,
          abi: sandboxFundingAbi,
          functionName: "credit",
          args: [transferId, account.address, amount],
        })
      ).transactionHash;
    } catch (err) {
      // a concurrent completion got there first (the contract refuses the id again): done; anything else
      // with nothing credited is a failure the caller retries
      if ((await credited()) === 0n) throw err;
    }
    await afterSend(ctx, "deposit-credited", id);
  }
  const done = await credited();
  if (done === 0n) throw new Error(`custody: transfer ${id} not credited`);
  if (done !== amount)
    ctx.deps.logger?.error(
      { id, done: done.toString(), amount: amount.toString() },
      "custody: credited amount differs from the transfer row",
    );
  // after a crash the transaction is found in the contract's Credited event of this transfer id
  txHash ??= await creditedTx(ctx, funding, transferId);
  await db.query(
    `UPDATE exchange_funding_transfers SET chain_step = 'credited', status = 'completed', completed_ms = $2,
       tx_hashes = CASE WHEN $3::text IS NULL THEN tx_hashes ELSE array_append(tx_hashes, $3::text) END, updated_at = now()
     WHERE id = $1 AND chain_step = 'new'`,
    [id, ctx.accountNow(row.account_id), txHash ?? null],
  );
  return (await getTransfer(ctx, id))!;
}

/** The transaction of the contract's Credited event of `transferId`. */
async function creditedTx(ctx: CustodyContext, funding: Address, transferId: Hex): Promise<Hex | undefined> {
  const events = await ctx.deps.chain.client.getContractEvents({
    address: funding,
    abi: sandboxFundingAbi,
    eventName: "Credited",
    args: { transferId },
    fromBlock: 0n,
  });
  return events[0]?.transactionHash ?? undefined;
}
