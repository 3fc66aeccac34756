// The funding routes of the exchange API (issue #14), mounted by the exchange API at /v1 behind its
// authentication (res.locals.principal). Bodies are JSON; every refusal is the spec's error body.
//   POST /deposits      {method: ach|wire|instant, amount}  -> 201 {data: transaction, message}
//   POST /withdrawals   {method: ach|wire|instant, amount}  -> 201 {data: transaction, message}
//   GET  /transactions?type=deposit|withdrawal|trade|all     -> {data: [transaction], message}
//   GET  /custody-transactions?type=...                      (legacy path, spec 9: the same answer)
//   GET  /transactions/{id}                                  -> {data: transaction} (another account's: 404)
//   POST /sandbox/funding/advance-clock {seconds}            -> sandbox only (404 in production): this account's clock
// `amount` is dollars: a JSON number or a decimal string, whole cents at most, converted exactly to demo USD
// base units (no float arithmetic).
import express, { type NextFunction, type Request, type Response, type Router } from "express";
import { z } from "zod";
import { parseDecimal } from "../../../sdk/decimal";
import { validationError } from "../../errors";
import { USD_UNIT } from "../custody/custody";
import { FundingApiError } from "./errors";
import type { Funding, FundingTransaction } from "./funding";
import { FUNDING_METHODS } from "./methods";

/** The largest amount one transfer may name: 1,000,000,000,000 USD (a wire has no maximum; this bounds input). */
export const MAX_TRANSFER_DOLLARS = 1_000_000_000_000n;
/** The most the sandbox clock moves in one call: 366 days. */
export const MAX_ADVANCE_SECONDS = 366 * 86_400;

export interface FundingPrincipal {
  userId: string;
  orgId: string;
  accountId: string;
  phone?: string;
}

export interface FundingRouterDeps {
  funding: Funding;
  mode: "sandbox" | "production";
  /** the account's trades as transactions (type "trade"), when the exchange has them (#15); default none */
  tradeTransactions?: (accountId: string) => Promise<readonly unknown[]>;
}

/** Dollars (JSON number or decimal string, at most 2 decimals) -> demo USD base units. */
export const amountSchema = z.union([z.number(), z.string().max(40)]).transform((v, ctx) => {
  const cents = parseDecimal(v, 2);
  if (cents === null) {
    ctx.addIssue({ code: "custom", message: "a decimal number of dollars, whole cents at most" });
    return z.NEVER;
  }
  if (cents <= 0n) {
    ctx.addIssue({ code: "custom", message: "must be more than 0" });
    return z.NEVER;
  }
  if (cents > MAX_TRANSFER_DOLLARS * 100n) {
    ctx.addIssue({ code: "custom", message: `at most ${MAX_TRANSFER_DOLLARS} dollars` });
    return z.NEVER;
  }
  return cents * (USD_UNIT / 100n);
});

export const transferBody = z.object({ method: z.enum(FUNDING_METHODS), amount: amountSchema }).strict();
export const transactionListQuery = z
  .object({ type: z.enum(["deposit", "withdrawal", "trade", "all"]).default("all") })
  .strict();
export const advanceClockBody = z.object({ seconds: z.number().int().positive().max(MAX_ADVANCE_SECONDS) }).strict();
const idParam = z.string().uuid();

function parse<S extends z.ZodType>(schema: S, value: unknown, where: string): z.output<S> {
  const r = schema.safeParse(value);
  if (!r.success) throw validationError(r.error, where);
  return r.data;
}

function principalOf(res: Response): FundingPrincipal {
  const p = res.locals.principal as FundingPrincipal | undefined;
  // the router is mounted behind the authentication middleware; without a principal nothing is served
  if (!p || typeof p.accountId !== "string")
    throw new FundingApiError("INVALID_REQUEST", "no authenticated account", {});
  return p;
}

export function createFundingRouter(deps: FundingRouterDeps): Router {
  const router = express.Router();
  const wrap =
    (fn: (req: Request, res: Response) => Promise<void>) => (req: Request, res: Response, next: NextFunction) =>
      fn(req, res).catch(next);

  const transfer = (direction: "deposit" | "withdrawal") =>
    wrap(async (req, res) => {
      const { accountId } = principalOf(res);
      const body = parse(transferBody, req.body ?? {}, "body");
      const tx = await deps.funding.create(accountId, direction, body.method, body.amount);
      res.status(201).json({ data: tx, message: `${direction} ${tx.status}` });
    });
  router.post("/deposits", transfer("deposit"));
  router.post("/withdrawals", transfer("withdrawal"));

  const list = wrap(async (req, res) => {
    const { accountId } = principalOf(res);
    const { type } = parse(transactionListQuery, req.query, "query");
    const funding: FundingTransaction[] = type === "trade" ? [] : await deps.funding.list(accountId, type);
    const trades = type === "trade" || type === "all" ? ((await deps.tradeTransactions?.(accountId)) ?? []) : [];
    const data = [...funding, ...trades].sort((a, b) =>
      String((b as { timestamp?: string }).timestamp).localeCompare(String((a as { timestamp?: string }).timestamp)),
    );
    res.json({ data, message: `${data.length} transactions` });
  });
  router.get("/transactions", list);
  router.get("/custody-transactions", list);

  router.get(
    "/transactions/:id",
    wrap(async (req, res) => {
      const { accountId } = principalOf(res);
      const id = idParam.safeParse(req.params.id);
      let tx: unknown = id.success ? await deps.funding.get(accountId, id.data) : undefined;
      // a trade's transaction (`trd_<trade id>_<buy|sell>`, the trade hook's ids)
      if (!tx && typeof req.params.id === "string" && /^trd_[0-9a-z]{1,64}_(buy|sell)$/.test(req.params.id)) {
        tx = ((await deps.tradeTransactions?.(accountId)) ?? []).find(
          (t) => (t as { id?: unknown }).id === req.params.id,
        );
      }
      if (!tx) throw new FundingApiError("TRANSACTION_NOT_FOUND", "transaction not found", {});
      res.json({ data: tx, message: "transaction" });
    }),
  );

  router.post(
    "/sandbox/funding/advance-clock",
    wrap(async (req, res) => {
      if (deps.mode !== "sandbox") throw new FundingApiError("ROUTE_NOT_FOUND", "route not found", {});
      const { accountId } = principalOf(res);
      const { seconds } = parse(advanceClockBody, req.body ?? {}, "body");
      const now = await deps.funding.advanceClock(accountId, seconds * 1000);
      res.json({ data: { now: new Date(now).toISOString() }, message: "this account's sandbox clock advanced" });
    }),
  );
  return router;
}
