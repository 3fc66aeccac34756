// Funding (issue #14, spec 8): simulated bank deposits and withdrawals by ACH, wire and instant bank link.
// A transfer is a row first (the intent, with the limits checked in the same SQL transaction under the
// account's row lock), the chain second (custody: deposits credited once per transfer id, withdrawals'
// stored signed steps). The bank side is simulated on the account's sandbox clock: the system clock plus
// the account's own offset, which only that account advances (sandbox-clock.ts; kept in SQL).
//   deposit:    pending -> (the bank completes at completes_ms) credited in Settlement -> completed
//   withdrawal: pending -> demo USD out of Settlement at once (request, execute after the contract's delay,
//               back to the bank) -> completed at completes_ms; a chain refusal -> failed, nothing moved
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { Db } from "../../../db";
import { systemClock, type Clock } from "../../../runtime/clock";
import { formatDecimal } from "../../../sdk/decimal";
import { USD_DECIMALS, type Custody, type TransferRow } from "../custody/custody";
import { FundingApiError } from "./errors";
import { completesAt, METHOD_RULES, utcDay, type FundingMethod } from "./methods";
import { createSandboxClocks, type SandboxClocks } from "./sandbox-clock";

export type Direction = "deposit" | "withdrawal";

export interface FundingDeps {
  db: Db;
  custody: Custody;
  /** the wall clock the funding clock is offset from (tests inject their own) */
  clock?: Clock;
  /** the accounts' sandbox clocks (default: over `clock`) */
  clocks?: SandboxClocks;
  logger?: Logger;
}

/** A transaction of spec 2.11, with the funding fields beside it. Money: JSON numbers in dollars (exact:
 *  whole cents at most), and the exact base units as a decimal string. */
export interface FundingTransaction {
  id: string;
  type: Direction;
  assetId: "USD";
  side: "in" | "out";
  quantity: number;
  price: number;
  total: number;
  fee: number;
  status: "pending" | "completed" | "failed";
  timestamp: string;
  method: FundingMethod | "sandbox";
  amountUnits: string;
  completesAt: string;
  completedAt: string | null;
  failureReason: string | null;
  txHashes: string[];
}

const dollars = (units: bigint): number => Number(formatDecimal(units, USD_DECIMALS));

export function presentTransfer(row: TransferRow): FundingTransaction {
  const units = BigInt(row.amount_units);
  return {
    id: row.id,
    type: row.direction,
    assetId: "USD",
    side: row.direction === "deposit" ? "in" : "out",
    quantity: dollars(units),
    price: 1,
    total: dollars(units),
    fee: 0,
    status: row.status,
    timestamp: new Date(Number(row.created_ms)).toISOString(),
    method: row.method,
    amountUnits: units.toString(),
    completesAt: new Date(Number(row.completes_ms)).toISOString(),
    completedAt: row.completed_ms === null ? null : new Date(Number(row.completed_ms)).toISOString(),
    failureReason: row.failure_reason,
    txHashes: row.tx_hashes ?? [],
  };
}

interface FundingContext {
  db: Db;
  custody: Custody;
  clocks: SandboxClocks;
  logger?: Logger;
}

/** The account's sandbox clock (after clocks.load()). */
const nowOf = (ctx: FundingContext, accountId: string) => ctx.clocks.now(accountId);

const sumOf = async (tx: Pick<Db, "query">, sql: string, params: Parameters<Db["query"]>[1]): Promise<bigint> =>
  BigInt((await tx.query<{ total: string | null }>(sql, params)).rows[0]?.total ?? "0");

/** The method's minimum (spec 8). */
function checkMinimum(method: FundingMethod, direction: Direction, amountUnits: bigint): void {
  const rule = METHOD_RULES[method];
  if (amountUnits >= rule.minUnits) return;
  throw new FundingApiError(
    "AMOUNT_BELOW_MINIMUM",
    `the minimum of a ${method} ${direction} is ${formatDecimal(rule.minUnits, USD_DECIMALS)} USD`,
    {
      method,
      direction,
      minimum: dollars(rule.minUnits),
      requested: dollars(amountUnits),
    },
  );
}

interface NewTransfer {
  accountId: string;
  direction: Direction;
  method: FundingMethod;
  amountUnits: bigint;
  day: string;
}

/** The method's daily limit, summed under the account's row lock. */
async function checkDailyLimit(tx: Pick<Db, "query">, t: NewTransfer): Promise<void> {
  const { method, direction, amountUnits, day } = t;
  const rule = METHOD_RULES[method];
  if (rule.dailyMaxUnits === null) return;
  const used = await sumOf(
    tx,
    "SELECT SUM(amount_units)::text AS total FROM exchange_funding_transfers WHERE account_id = $1 AND direction = $2 AND method = $3 AND limit_day = $4 AND status <> 'failed'",
    [t.accountId, direction, method, day],
  );
  if (used + amountUnits <= rule.dailyMaxUnits) return;
  throw new FundingApiError(
    "FUNDING_LIMIT_EXCEEDED",
    `the ${method} ${direction} limit is ${formatDecimal(rule.dailyMaxUnits, USD_DECIMALS)} USD per UTC day`,
    {
      method,
      direction,
      day,
      limit: dollars(rule.dailyMaxUnits),
      used: dollars(used),
      requested: dollars(amountUnits),
      remaining: dollars(rule.dailyMaxUnits - used > 0n ? rule.dailyMaxUnits - used : 0n),
    },
  );
}

/** A withdrawal takes at most the cash less the withdrawals still leaving Settlement. */
async function checkWithdrawable(tx: Pick<Db, "query">, t: NewTransfer, cashUnits: bigint): Promise<void> {
  const held = await sumOf(
    tx,
    "SELECT SUM(amount_units)::text AS total FROM exchange_funding_transfers WHERE account_id = $1 AND direction = 'withdrawal' AND status <> 'failed' AND chain_step IN ('new', 'requested', 'cancelling')",
    [t.accountId],
  );
  const available = cashUnits - held > 0n ? cashUnits - held : 0n;
  if (t.amountUnits <= available) return;
  throw new FundingApiError("INSUFFICIENT_BALANCE", "not enough cash for this withdrawal", {
    token: "USD",
    required: dollars(t.amountUnits),
    available: dollars(available),
    required_units: t.amountUnits.toString(),
    available_units: available.toString(),
  });
}

/** Creates a transfer after its checks; an instant deposit is credited before this returns. */
async function createTransfer(
  ctx: FundingContext,
  accountId: string,
  direction: Direction,
  method: FundingMethod,
  amountUnits: bigint,
): Promise<FundingTransaction> {
  const { db, custody } = ctx;
  await ctx.clocks.load();
  if (!custody.fundingAvailable)
    throw new FundingApiError("SERVICE_UNAVAILABLE", "funding is not available on this deployment", {
      reason: "funding_not_configured",
    });
  checkMinimum(method, direction, amountUnits);
  await custody.ensureAccount(accountId);
  // the cash a withdrawal may take, read from the chain before the lock (re-checked on chain when sent)
  const cashUnits = direction === "withdrawal" ? (await custody.balances(accountId)).cashUnits : 0n;
  const created = nowOf(ctx, accountId);
  const t: NewTransfer = { accountId, direction, method, amountUnits, day: utcDay(created) };
  const id = randomUUID();
  const row = await db.transaction(async (tx) => {
    // one account's transfers are created one at a time: the limit sums below cannot race
    await tx.query("SELECT account_id FROM exchange_custody_accounts WHERE account_id = $1 FOR UPDATE", [accountId]);
    await checkDailyLimit(tx, t);
    if (direction === "withdrawal") await checkWithdrawable(tx, t, cashUnits);
    const r = await tx.query<TransferRow>(
      `INSERT INTO exchange_funding_transfers (id, account_id, direction, method, amount_units, status, chain_step, created_ms, limit_day, completes_ms)
       VALUES ($1, $2, $3, $4, $5, 'pending', 'new', $6, $7, $8) RETURNING *`,
      [id, accountId, direction, method, amountUnits, created, t.day, completesAt(method, created)],
    );
    return r.rows[0];
  });
  // instant deposits complete now; withdrawals start leaving Settlement now
  await processOne(ctx, row).catch((err) =>
    ctx.logger?.warn({ err, id }, "funding: first processing attempt failed; the loop retries"),
  );
  return presentTransfer((await custody.getTransfer(id)) ?? row);
}

async function processOne(ctx: FundingContext, row: TransferRow): Promise<void> {
  const { db, custody } = ctx;
  if (row.direction === "deposit") {
    if (row.chain_step === "new" && Number(row.completes_ms) <= nowOf(ctx, row.account_id))
      await custody.creditDeposit(row.id);
    return;
  }
  let current = row;
  if (row.chain_step !== "returned") {
    // one withdrawal of an account at a time on chain (Settlement holds one pending request per token):
    // only the account's oldest open one moves
    const oldest = await db.query<{ id: string }>(
      `SELECT id FROM exchange_funding_transfers WHERE account_id = $1 AND direction = 'withdrawal' AND status = 'pending'
         AND chain_step IN ('new', 'requested', 'executed', 'cancelling') ORDER BY created_ms, id LIMIT 1`,
      [row.account_id],
    );
    if (oldest.rows[0] && oldest.rows[0].id !== row.id) return;
    current = await custody.advanceWithdrawal(row.id);
  }
  if (
    current.status === "pending" &&
    current.chain_step === "returned" &&
    Number(current.completes_ms) <= nowOf(ctx, row.account_id)
  ) {
    await db.query(
      "UPDATE exchange_funding_transfers SET status = 'completed', completed_ms = $2, updated_at = now() WHERE id = $1 AND status = 'pending' AND chain_step = 'returned'",
      [row.id, nowOf(ctx, row.account_id)],
    );
  }
}

/** Takes every open transfer as far as the funding clock and the chain allow. */
async function processOpen(ctx: FundingContext): Promise<void> {
  await ctx.clocks.load();
  const open = await ctx.db.query<TransferRow>(
    "SELECT * FROM exchange_funding_transfers WHERE status = 'pending' ORDER BY created_ms, id",
  );
  for (const row of open.rows) {
    try {
      await processOne(ctx, row);
    } catch (err) {
      ctx.logger?.warn({ err, id: row.id }, "funding: processing a transfer failed; retried on the next run");
    }
  }
}

export function createFunding(deps: FundingDeps) {
  const { db, custody } = deps;
  const clocks = deps.clocks ?? createSandboxClocks(db, deps.clock ?? systemClock);
  const ctx: FundingContext = { db, custody, clocks, logger: deps.logger };
  let running: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;

  /** Takes every open transfer as far as the funding clock and the chain allow. One run at a time. */
  function processDue(): Promise<void> {
    running ??= processOpen(ctx).finally(() => {
      running = undefined;
    });
    return running;
  }

  return {
    /** the account's sandbox clock (after clocks.load()) */
    now: (accountId: string) => nowOf(ctx, accountId),
    clocks,
    create: (accountId: string, direction: Direction, method: FundingMethod, amountUnits: bigint) =>
      createTransfer(ctx, accountId, direction, method, amountUnits),
    processDue,

    async list(accountId: string, type: Direction | "all"): Promise<FundingTransaction[]> {
      const r = await db.query<TransferRow>(
        `SELECT * FROM exchange_funding_transfers WHERE account_id = $1 AND ($2 = 'all' OR direction = $2) ORDER BY created_ms DESC, id DESC`,
        [accountId, type],
      );
      return r.rows.map(presentTransfer);
    },

    async get(accountId: string, id: string): Promise<FundingTransaction | undefined> {
      const row = await custody.getTransfer(id);
      return row && row.account_id === accountId ? presentTransfer(row) : undefined;
    },

    /** Sandbox: moves the account's clock forward by `ms` (kept in SQL), then processes what became due. */
    async advanceClock(accountId: string, ms: number): Promise<number> {
      const t = await clocks.advance(accountId, ms);
      await processDue();
      return t;
    },

    /** Runs processDue every `intervalMs` until stop(). */
    start(intervalMs = 1_000): void {
      if (timer) return;
      timer = setInterval(
        () => void processDue().catch((err) => deps.logger?.warn({ err }, "funding: processing run failed")),
        intervalMs,
      );
      timer.unref();
    },

    async stop(): Promise<void> {
      if (timer) clearInterval(timer);
      timer = undefined;
      await running?.catch(() => undefined);
    },
  };
}

export type Funding = ReturnType<typeof createFunding>;
