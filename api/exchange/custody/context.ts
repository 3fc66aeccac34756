// What custody's parts share (custody.ts, deposits.ts, withdrawals.ts): the dependencies with their defaults,
// the accounts' rows (cached: they never change once written), their keys, and the transfer rows.
import type { Address, Hex } from "viem";
import { type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { systemClock } from "../../../runtime/clock";
import { settlementAbi } from "../../../sdk/abi";
import { getSettlementDomain } from "../../../sdk/eip712";
import { type CustodyDeps, CustodyUnavailableError, type TransferRow } from "./types";

export interface CustodyContext {
  readonly deps: CustodyDeps;
  readonly usd: { readonly address: Address; readonly decimals: number };
  readonly accountNow: (accountId: string) => number;
  readonly domain: ReturnType<typeof getSettlementDomain>;
  /** an account's custody row never changes once written (its address and sealed key): kept after the first
   *  read, so that the order path (address, balances, signature) does not ask the database for it each time */
  readonly rows: Map<string, { address: Address; sealed_key: string }>;
}

/** A Settlement view of (`owner`, `token`), read on the home chain now. */
async function readSettlement<T>(
  ctx: CustodyContext,
  functionName: "balanceOf" | "pendingWithdrawal",
  owner: Address,
  token: Address,
): Promise<T> {
  const { chain, settlement } = ctx.deps;
  return (await chain.client.readContract({
    address: settlement,
    abi: settlementAbi,
    functionName,
    args: [owner, token],
  })) as T;
}

/** What `owner` holds of `token` in Settlement now (base units). */
export const settlementBalance = (ctx: CustodyContext, owner: Address, token: Address) =>
  readSettlement<bigint>(ctx, "balanceOf", owner, token);

/** `owner`'s withdrawal of `token` pending in Settlement: its amount (0: none) and when it may be executed. */
export const pendingWithdrawalOf = (ctx: CustodyContext, owner: Address, token: Address) =>
  readSettlement<{ amount: bigint; availableAt: bigint }>(ctx, "pendingWithdrawal", owner, token);

export function custodyContext(deps: CustodyDeps): CustodyContext {
  const usd = deps.tokens.USD;
  if (!usd) throw new Error("custody: the tokens have no USD (the cash token)");
  return {
    deps,
    usd,
    accountNow: deps.accountNow ?? (() => systemClock.now()),
    domain: getSettlementDomain(deps.chain.chainId, deps.settlement),
    rows: new Map(),
  };
}

/** The test seam after each chain send (CustodyDeps.afterChainSend). */
export const afterSend = async (ctx: CustodyContext, step: string, id: string): Promise<void> =>
  ctx.deps.afterChainSend?.(step, id);

export async function accountRow(
  ctx: CustodyContext,
  accountId: string,
): Promise<{ address: Address; sealed_key: string } | undefined> {
  const known = ctx.rows.get(accountId);
  if (known) return known;
  const r = await ctx.deps.db.query<{ address: Address; sealed_key: string }>(
    "SELECT address, sealed_key FROM exchange_custody_accounts WHERE account_id = $1",
    [accountId],
  );
  if (r.rows[0]) ctx.rows.set(accountId, r.rows[0]);
  return r.rows[0];
}

export async function keyOf(ctx: CustodyContext, accountId: string): Promise<PrivateKeyAccount> {
  const row = await accountRow(ctx, accountId);
  if (!row) throw new Error(`custody: no account ${accountId}`);
  return privateKeyToAccount(ctx.deps.secretBox.open(row.sealed_key, accountId) as Hex);
}

export function requireFunding(ctx: CustodyContext): Address {
  if (!ctx.deps.funding || !ctx.deps.chain.fundingAddress)
    throw new CustodyUnavailableError("funding is not configured (no SandboxFunding deployment or no funding key)");
  return ctx.deps.funding;
}

export async function getTransfer(ctx: CustodyContext, id: string): Promise<TransferRow | undefined> {
  return (await ctx.deps.db.query<TransferRow>("SELECT * FROM exchange_funding_transfers WHERE id = $1", [id])).rows[0];
}
