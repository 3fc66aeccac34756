// Custody (issue #14): every exchange account has its own address in the Settlement contract; its private key
// is generated here and kept sealed at rest (api/auth/secret-box.ts, the account id as AAD). Balances are read
// from the chain, never from a copy. Cash is the demo USD token.
//
// Money moves only through rows of exchange_funding_transfers written BEFORE the chain is touched:
//   - a deposit is credited by SandboxFunding.credit(transferId, account, amount), which the contract refuses
//     for a transfer id it has already credited: repeated or resumed completions credit once;
//   - a withdrawal is three transactions of the account's own key (Settlement.requestWithdrawal, then
//     executeWithdrawal once the contract's delay has passed, then the demo USD back to the sandbox bank, the
//     SandboxFunding reserve); each is signed and stored in the row before it is sent, and a restart sends the
//     stored bytes again, so each step is mined at most once.
// Orders are signed by the service with the account's key (signOrder): the key never leaves this module.
// The parts: types.ts (rows, balances, constants), context.ts (the accounts' rows and keys), deposits.ts,
// withdrawals.ts; this file composes them with the accounts' creation, balances and order signing.
import { randomUUID } from "node:crypto";
import type { Address, Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { type Order, signOrder as signTypedOrder } from "../../../sdk/eip712";
import { accountRow, type CustodyContext, custodyContext, getTransfer, keyOf, settlementBalance } from "./context";
import { creditDeposit } from "./deposits";
import {
  type CustodyAccount,
  type CustodyBalances,
  type CustodyDeps,
  DEFAULT_SANDBOX_PRELOAD_UNITS,
  WITHDRAWAL_STEPS_IN_SETTLEMENT,
} from "./types";
import { advanceWithdrawal } from "./withdrawals";

export {
  type CustodyAccount,
  type CustodyBalances,
  type CustodyDeps,
  type CustodyTokens,
  CustodyUnavailableError,
  DEFAULT_GAS_TOP_UP_WEI,
  DEFAULT_MIN_GAS_WEI,
  DEFAULT_SANDBOX_PRELOAD_UNITS,
  type TokenBalance,
  type TransferRow,
  transferIdOf,
  USD_DECIMALS,
  USD_UNIT,
  WITHDRAWAL_STEPS_IN_SETTLEMENT,
} from "./types";

const fundingAvailable = (ctx: CustodyContext): boolean =>
  ctx.deps.funding !== undefined && ctx.deps.chain.fundingAddress !== undefined;

/** The account's custody: creates its key and address on first call and, in the sandbox, credits the
 *  preloaded test funds (once, however often or concurrently it is called). */
async function ensureAccount(ctx: CustodyContext, accountId: string): Promise<CustodyAccount> {
  const { db, secretBox } = ctx.deps;
  let row = await accountRow(ctx, accountId);
  if (!row) {
    const key = generatePrivateKey();
    const address = privateKeyToAccount(key).address;
    await db.query(
      "INSERT INTO exchange_custody_accounts (account_id, address, sealed_key) VALUES ($1, $2, $3) ON CONFLICT (account_id) DO NOTHING",
      [accountId, address, secretBox.seal(key, accountId)],
    );
    row = (await accountRow(ctx, accountId))!;
  }
  const preloadUnits = ctx.deps.preloadUnits ?? DEFAULT_SANDBOX_PRELOAD_UNITS;
  if (ctx.deps.mode === "sandbox" && preloadUnits > 0n && fundingAvailable(ctx)) {
    const now = ctx.accountNow(accountId);
    await db.query(
      `INSERT INTO exchange_funding_transfers (id, account_id, direction, method, amount_units, status, chain_step, created_ms, limit_day, completes_ms)
       VALUES ($1, $2, 'deposit', 'sandbox', $3, 'pending', 'new', $4, $5, $4) ON CONFLICT (account_id) WHERE method = 'sandbox' DO NOTHING`,
      [randomUUID(), accountId, preloadUnits, now, new Date(now).toISOString().slice(0, 10)],
    );
    const preload = (
      await db.query<{ id: string; chain_step: string }>(
        "SELECT id, chain_step FROM exchange_funding_transfers WHERE account_id = $1 AND method = 'sandbox'",
        [accountId],
      )
    ).rows[0];
    if (preload && preload.chain_step === "new") await creditDeposit(ctx, preload.id);
  }
  return { accountId, address: row.address };
}

/** Balances as the chain has them (Settlement.balanceOf per token), with the cash withdrawals hold.
 *  `only`: read these tokens (and the cash token) alone, e.g. the two of one book for an order's check. */
async function balances(ctx: CustodyContext, accountId: string, only?: readonly Address[]): Promise<CustodyBalances> {
  const { tokens: all } = ctx.deps;
  const row = await accountRow(ctx, accountId);
  if (!row) throw new Error(`custody: no account ${accountId}`);
  const wanted = only ? new Set([ctx.usd.address, ...only].map((a) => a.toLowerCase())) : undefined;
  const tokens = await Promise.all(
    Object.entries(all)
      .filter(([, t]) => !wanted || wanted.has(t.address.toLowerCase()))
      .map(async ([symbol, t]) => ({
        symbol,
        token: t.address,
        decimals: t.decimals,
        units: await settlementBalance(ctx, row.address, t.address),
      })),
  );
  const cashUnits = tokens.find((t) => t.symbol === "USD")!.units;
  const pendingWithdrawalUnits = await inSettlementWithdrawals(ctx, accountId);
  const available = cashUnits - pendingWithdrawalUnits;
  return {
    accountId,
    address: row.address,
    tokens,
    cashUnits,
    pendingWithdrawalUnits,
    availableCashUnits: available > 0n ? available : 0n,
  };
}

async function inSettlementWithdrawals(ctx: CustodyContext, accountId: string): Promise<bigint> {
  const r = await ctx.deps.db.query<{ total: string | null }>(
    "SELECT SUM(amount_units)::text AS total FROM exchange_funding_transfers WHERE account_id = $1 AND direction = 'withdrawal' AND status <> 'failed' AND chain_step = ANY($2)",
    [accountId, WITHDRAWAL_STEPS_IN_SETTLEMENT],
  );
  return BigInt(r.rows[0]?.total ?? "0");
}

export function createCustody(deps: CustodyDeps) {
  const ctx = custodyContext(deps);
  return {
    settlement: deps.settlement,
    tokens: deps.tokens,
    usd: ctx.usd,
    get fundingAvailable(): boolean {
      return fundingAvailable(ctx);
    },
    ensureAccount: (accountId: string) => ensureAccount(ctx, accountId),
    /** The account's address, if it has one. */
    addressOf: async (accountId: string): Promise<Address | undefined> => (await accountRow(ctx, accountId))?.address,
    balances: (accountId: string, only?: readonly Address[]) => balances(ctx, accountId, only),
    /** Signs an exchange order (Settlement's EIP-712 Order) as the account: `order.trader` must be its address. */
    async signOrder(accountId: string, order: Order): Promise<Hex> {
      const key = await keyOf(ctx, accountId);
      if (order.trader.toLowerCase() !== key.address.toLowerCase())
        throw new Error("custody.signOrder: the order's trader is not the account's address");
      return signTypedOrder(key, ctx.domain, order);
    },
    settlementDomain: ctx.domain,
    creditDeposit: (id: string) => creditDeposit(ctx, id),
    advanceWithdrawal: (id: string) => advanceWithdrawal(ctx, id),
    getTransfer: (id: string) => getTransfer(ctx, id),
    inSettlementWithdrawals: (accountId: string) => inSettlementWithdrawals(ctx, accountId),
  };
}

export type Custody = ReturnType<typeof createCustody>;
