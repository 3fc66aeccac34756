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
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import { erc20Abi, pad, parseEther, type Address, type Hex, type TransactionReceipt } from "viem";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import type { Db } from "../../../db";
import { systemClock } from "../../../runtime/clock";
import { sandboxFundingAbi, settlementAbi } from "../../../sdk/abi";
import { getSettlementDomain, signOrder as signTypedOrder, type Order } from "../../../sdk/eip712";
import type { SecretBox } from "../../auth/secret-box";
import { revertName, type CustodyChain } from "./chain";

/** Demo USD has 6 decimals (scripts/deploy-exchange.ts DEMO_TOKENS). */
export const USD_DECIMALS = 6;
export const USD_UNIT = 10n ** BigInt(USD_DECIMALS);
/** Test funds preloaded on a sandbox account's creation (spec 5.5): 100,000 demo USD. */
export const DEFAULT_SANDBOX_PRELOAD_UNITS = 100_000n * USD_UNIT;
/** An account's own transactions (withdrawals) need gas: below MIN the funding key sends TOP_UP. */
export const DEFAULT_MIN_GAS_WEI = parseEther("0.005");
export const DEFAULT_GAS_TOP_UP_WEI = parseEther("0.05");

export interface CustodyTokens {
  /** by symbol; "USD" is the cash token */
  readonly [symbol: string]: { readonly address: Address; readonly decimals: number };
}

export interface CustodyDeps {
  db: Db;
  chain: CustodyChain;
  settlement: Address;
  /** SandboxFunding (the sandbox bank); funding is unavailable without it */
  funding: Address | undefined;
  tokens: CustodyTokens;
  secretBox: SecretBox;
  mode: "sandbox" | "production";
  /** the account's sandbox clock (ms); default the system clock */
  accountNow?: (accountId: string) => number;
  preloadUnits?: bigint;
  minGasWei?: bigint;
  gasTopUpWei?: bigint;
  logger?: Logger;
  /** test seam for the crash test: runs after each chain send, before its outcome is written */
  afterChainSend?: (step: string, transferId: string) => void | Promise<void>;
}

export interface CustodyAccount {
  accountId: string;
  address: Address;
}

export interface TokenBalance {
  symbol: string;
  token: Address;
  decimals: number;
  /** Settlement.balanceOf(address, token), base units */
  units: bigint;
}

export interface CustodyBalances {
  accountId: string;
  address: Address;
  /** every token of the exchange, as the chain has it */
  tokens: TokenBalance[];
  /** demo USD in Settlement (base units): the chain's figure */
  cashUnits: bigint;
  /** withdrawals accepted whose demo USD has not left Settlement yet (base units) */
  pendingWithdrawalUnits: bigint;
  /** cash less pending withdrawals (never below 0): what a new withdrawal or a buy may use */
  availableCashUnits: bigint;
}

/** A row of exchange_funding_transfers as SQL returns it. */
export interface TransferRow {
  id: string;
  account_id: string;
  direction: "deposit" | "withdrawal";
  method: "ach" | "wire" | "instant" | "sandbox";
  amount_units: string;
  status: "pending" | "completed" | "failed";
  chain_step: string;
  created_ms: string;
  limit_day: string;
  completes_ms: string;
  completed_ms: string | null;
  pending_raw_tx: string | null;
  pending_tx_hash: string | null;
  withdraw_available_at: string | null;
  tx_hashes: string[];
  failure_reason: string | null;
  attempts: number;
}

/** Withdrawal steps: each names what the chain has done; the next transaction follows from it. */
const NEXT_WITHDRAWAL_STEP: Record<string, string> = {
  new: "requested",
  requested: "executed",
  executed: "returned",
  cancelling: "cancelled",
};
/** Steps whose demo USD is still in Settlement. */
export const WITHDRAWAL_STEPS_IN_SETTLEMENT = ["new", "requested", "cancelling"];

/** The on-chain transfer id of a transfer row: its uuid as 32 bytes. */
export function transferIdOf(id: string): Hex {
  return pad(`0x${id.replace(/-/g, "")}`, { size: 32 });
}

export class CustodyUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CustodyUnavailableError";
  }
}

export function createCustody(deps: CustodyDeps) {
  const { db, chain, secretBox } = deps;
  const accountNow = deps.accountNow ?? (() => systemClock.now());
  const usd = deps.tokens.USD;
  if (!usd) throw new Error("custody: the tokens have no USD (the cash token)");
  const preloadUnits = deps.preloadUnits ?? DEFAULT_SANDBOX_PRELOAD_UNITS;
  const domain = getSettlementDomain(chain.chainId, deps.settlement);
  const afterSend = async (step: string, id: string) => deps.afterChainSend?.(step, id);

  // an account's custody row never changes once written (its address and sealed key): kept after the first
  // read, so that the order path (address, balances, signature) does not ask the database for it each time
  const rows = new Map<string, { address: Address; sealed_key: string }>();
  async function accountRow(accountId: string): Promise<{ address: Address; sealed_key: string } | undefined> {
    const known = rows.get(accountId);
    if (known) return known;
    const r = await db.query<{ address: Address; sealed_key: string }>(
      "SELECT address, sealed_key FROM exchange_custody_accounts WHERE account_id = $1",
      [accountId],
    );
    if (r.rows[0]) rows.set(accountId, r.rows[0]);
    return r.rows[0];
  }

  async function keyOf(accountId: string): Promise<PrivateKeyAccount> {
    const row = await accountRow(accountId);
    if (!row) throw new Error(`custody: no account ${accountId}`);
    return privateKeyToAccount(secretBox.open(row.sealed_key, accountId) as Hex);
  }

  function requireFunding(): Address {
    if (!deps.funding || !chain.fundingAddress)
      throw new CustodyUnavailableError("funding is not configured (no SandboxFunding deployment or no funding key)");
    return deps.funding;
  }

  async function getTransfer(id: string): Promise<TransferRow | undefined> {
    return (await db.query<TransferRow>("SELECT * FROM exchange_funding_transfers WHERE id = $1", [id])).rows[0];
  }

  /** Credits a deposit row once: the contract refuses a transfer id twice, so a repeat is a no-op. */
  async function creditDeposit(id: string): Promise<TransferRow> {
    const row = await getTransfer(id);
    if (!row) throw new Error(`custody: no transfer ${id}`);
    if (row.direction !== "deposit" || row.chain_step !== "new") return row;
    const funding = requireFunding();
    const account = await accountRow(row.account_id);
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
      await afterSend("deposit-credited", id);
    }
    const done = await credited();
    if (done === 0n) throw new Error(`custody: transfer ${id} not credited`);
    if (done !== amount)
      deps.logger?.error(
        { id, done: done.toString(), amount: amount.toString() },
        "custody: credited amount differs from the transfer row",
      );
    // after a crash the transaction is found in the contract's Credited event of this transfer id
    txHash ??=
      (
        await chain.client.getContractEvents({
          address: funding,
          abi: sandboxFundingAbi,
          eventName: "Credited",
          args: { transferId },
          fromBlock: 0n,
        })
      )[0]?.transactionHash ?? undefined;
    await db.query(
      `UPDATE exchange_funding_transfers SET chain_step = 'credited', status = 'completed', completed_ms = $2,
         tx_hashes = CASE WHEN $3::text IS NULL THEN tx_hashes ELSE array_append(tx_hashes, $3::text) END, updated_at = now()
       WHERE id = $1 AND chain_step = 'new'`,
      [id, accountNow(row.account_id), txHash ?? null],
    );
    return (await getTransfer(id))!;
  }

  async function ensureGas(address: Address): Promise<void> {
    const balance = await chain.client.getBalance({ address });
    if (balance >= (deps.minGasWei ?? DEFAULT_MIN_GAS_WEI)) return;
    await chain.sendFundingValue(address, deps.gasTopUpWei ?? DEFAULT_GAS_TOP_UP_WEI);
  }

  async function finishStep(row: TransferRow, receipt: TransactionReceipt): Promise<void> {
    const step = row.chain_step;
    if (receipt.status === "success") {
      const next = NEXT_WITHDRAWAL_STEP[step];
      await db.query(
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
    await db.query(
      `UPDATE exchange_funding_transfers SET chain_step = $2, pending_raw_tx = NULL, pending_tx_hash = NULL,
         status = CASE WHEN $2 = 'cancelling' THEN status ELSE 'failed' END, failure_reason = $3, updated_at = now()
       WHERE id = $1 AND chain_step = $4 AND pending_tx_hash = $5`,
      [row.id, after, `${step}_reverted`, step, receipt.transactionHash],
    );
  }

  async function markFailed(row: TransferRow, reason: string): Promise<void> {
    await db.query(
      "UPDATE exchange_funding_transfers SET status = 'failed', failure_reason = $2, updated_at = now() WHERE id = $1 AND chain_step = $3 AND pending_tx_hash IS NULL AND status = 'pending'",
      [row.id, reason, row.chain_step],
    );
  }

  /** Sends a stored signed step again and records its outcome; false when its receipt is not there yet. */
  async function resumeStored(row: TransferRow): Promise<boolean> {
    await chain.broadcast(row.pending_raw_tx as Hex);
    const receipt = await chain.receipt(row.pending_tx_hash as Hex);
    if (!receipt) return false;
    await finishStep(row, receipt);
    return true;
  }

  /** Takes a withdrawal one chain step further (or as far as the chain allows now). Idempotent; the caller
   *  runs one withdrawal of an account at a time (Settlement holds one pending withdrawal per token). */
  async function advanceWithdrawal(id: string): Promise<TransferRow> {
    for (let i = 0; i < 4; i++) {
      const row = await getTransfer(id);
      if (!row) throw new Error(`custody: no transfer ${id}`);
      if (row.direction !== "withdrawal" || row.status !== "pending") return row;
      if (row.pending_tx_hash) {
        if (!(await resumeStored(row))) return row;
        continue;
      }
      const key = await keyOf(row.account_id);
      const amount = BigInt(row.amount_units);
      let call;
      if (row.chain_step === "new") {
        const pending = (await chain.client.readContract({
          address: deps.settlement,
          abi: settlementAbi,
          functionName: "pendingWithdrawal",
          args: [key.address, usd.address],
        })) as { amount: bigint };
        if (pending.amount !== 0n) return row; // another request is pending on chain: wait for it
        const balance = (await chain.client.readContract({
          address: deps.settlement,
          abi: settlementAbi,
          functionName: "balanceOf",
          args: [key.address, usd.address],
        })) as bigint;
        if (balance < amount) {
          await markFailed(row, "insufficient_balance");
          continue;
        }
        call = {
          address: deps.settlement,
          abi: settlementAbi,
          functionName: "requestWithdrawal",
          args: [usd.address, amount],
        };
      } else if (row.chain_step === "requested") {
        const pending = (await chain.client.readContract({
          address: deps.settlement,
          abi: settlementAbi,
          functionName: "pendingWithdrawal",
          args: [key.address, usd.address],
        })) as { amount: bigint; availableAt: bigint };
        const block = await chain.client.getBlock();
        if (row.withdraw_available_at === null) {
          await db.query("UPDATE exchange_funding_transfers SET withdraw_available_at = $2 WHERE id = $1", [
            id,
            pending.availableAt,
          ]);
        }
        if (block.timestamp < pending.availableAt) return row; // the contract's delay has not passed
        call = { address: deps.settlement, abi: settlementAbi, functionName: "executeWithdrawal", args: [usd.address] };
      } else if (row.chain_step === "executed") {
        call = { address: usd.address, abi: erc20Abi, functionName: "transfer", args: [requireFunding(), amount] };
      } else if (row.chain_step === "cancelling") {
        call = { address: deps.settlement, abi: settlementAbi, functionName: "cancelWithdrawal", args: [usd.address] };
      } else {
        return row; // returned or cancelled: nothing left on chain
      }
      await ensureGas(key.address);
      let signed: { raw: Hex; hash: Hex };
      try {
        signed = await chain.signAccountCall(key, call as never);
      } catch (err) {
        const name = revertName(err);
        if (name === "SettlementWithdrawalNotReady") return row;
        if (name && row.chain_step === "new") {
          await markFailed(row, `request_refused:${name}`);
          continue;
        }
        throw err;
      }
      const stored = await db.query(
        "UPDATE exchange_funding_transfers SET pending_raw_tx = $2, pending_tx_hash = $3, attempts = attempts + 1, updated_at = now() WHERE id = $1 AND chain_step = $4 AND pending_tx_hash IS NULL",
        [id, signed.raw, signed.hash, row.chain_step],
      );
      if (stored.rowCount !== 1) continue; // someone else moved it: read again
      await afterSend(`withdrawal-${row.chain_step}-stored`, id);
      await chain.broadcast(signed.raw);
      await afterSend(`withdrawal-${row.chain_step}-sent`, id);
      const receipt = await chain.receipt(signed.hash);
      if (!receipt) return (await getTransfer(id))!;
      await finishStep({ ...row, pending_tx_hash: signed.hash }, receipt);
    }
    return (await getTransfer(id))!;
  }

  async function inSettlementWithdrawals(accountId: string): Promise<bigint> {
    const r = await db.query<{ total: string | null }>(
      "SELECT SUM(amount_units)::text AS total FROM exchange_funding_transfers WHERE account_id = $1 AND direction = 'withdrawal' AND status <> 'failed' AND chain_step = ANY($2)",
      [accountId, WITHDRAWAL_STEPS_IN_SETTLEMENT],
    );
    return BigInt(r.rows[0]?.total ?? "0");
  }

  return {
    settlement: deps.settlement,
    tokens: deps.tokens,
    usd,
    get fundingAvailable(): boolean {
      return deps.funding !== undefined && chain.fundingAddress !== undefined;
    },

    /** The account's custody: creates its key and address on first call and, in the sandbox, credits the
     *  preloaded test funds (once, however often or concurrently it is called). */
    async ensureAccount(accountId: string): Promise<CustodyAccount> {
      let row = await accountRow(accountId);
      if (!row) {
        const key = generatePrivateKey();
        const address = privateKeyToAccount(key).address;
        await db.query(
          "INSERT INTO exchange_custody_accounts (account_id, address, sealed_key) VALUES ($1, $2, $3) ON CONFLICT (account_id) DO NOTHING",
          [accountId, address, secretBox.seal(key, accountId)],
        );
        row = (await accountRow(accountId))!;
      }
      if (deps.mode === "sandbox" && preloadUnits > 0n && this.fundingAvailable) {
        const now = accountNow(accountId);
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
        if (preload && preload.chain_step === "new") await creditDeposit(preload.id);
      }
      return { accountId, address: row.address };
    },

    /** The account's address, if it has one. */
    async addressOf(accountId: string): Promise<Address | undefined> {
      return (await accountRow(accountId))?.address;
    },

    /** Balances as the chain has them (Settlement.balanceOf per token), with the cash withdrawals hold.
     *  `only`: read these tokens (and the cash token) alone, e.g. the two of one book for an order's check. */
    async balances(accountId: string, only?: readonly Address[]): Promise<CustodyBalances> {
      const row = await accountRow(accountId);
      if (!row) throw new Error(`custody: no account ${accountId}`);
      const wanted = only ? new Set([usd.address, ...only].map((a) => a.toLowerCase())) : undefined;
      const tokens = await Promise.all(
        Object.entries(deps.tokens)
          .filter(([, t]) => !wanted || wanted.has(t.address.toLowerCase()))
          .map(async ([symbol, t]) => ({
            symbol,
            token: t.address,
            decimals: t.decimals,
            units: (await chain.client.readContract({
              address: deps.settlement,
              abi: settlementAbi,
              functionName: "balanceOf",
              args: [row.address, t.address],
            })) as bigint,
          })),
      );
      const cashUnits = tokens.find((t) => t.symbol === "USD")!.units;
      const pendingWithdrawalUnits = await inSettlementWithdrawals(accountId);
      const available = cashUnits - pendingWithdrawalUnits;
      return {
        accountId,
        address: row.address,
        tokens,
        cashUnits,
        pendingWithdrawalUnits,
        availableCashUnits: available > 0n ? available : 0n,
      };
    },

    /** Signs an exchange order (Settlement's EIP-712 Order) as the account: `order.trader` must be its address. */
    async signOrder(accountId: string, order: Order): Promise<Hex> {
      const key = await keyOf(accountId);
      if (order.trader.toLowerCase() !== key.address.toLowerCase())
        throw new Error("custody.signOrder: the order's trader is not the account's address");
      return signTypedOrder(key, domain, order);
    },

    settlementDomain: domain,
    creditDeposit,
    advanceWithdrawal,
    getTransfer,
    inSettlementWithdrawals,
  };
}

export type Custody = ReturnType<typeof createCustody>;
