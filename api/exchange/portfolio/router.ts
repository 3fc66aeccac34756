// Portfolio endpoints (spec 2.9, 2.10, 4.A), mounted at /v1 behind both tokens: GET /portfolio (holdings: the
// account's Settlement balance of each asset token, its current price = the book's last trade, unrealized
// P&L against the FIFO lots' cost) and GET /exchange-portfolio (the same holdings with their FIFO lots:
// quantity, acquisitionDate, restrictionEndDate, isRestricted, offeringType). Trades reach /transactions
// through the funding router's `tradeTransactions` hook (tradeTransactionsOf).
import { Router, type Response } from "express";
import { z } from "zod";
import { validationError } from "../../errors";
import type { Orders } from "../orders/service";

const principalAccount = (res: Response): string => (res.locals.principal as { accountId: string }).accountId;

export function createPortfolioRouter(deps: { orders: Orders }): Router {
  const r = Router();
  const noQuery = (q: unknown) => {
    const p = z.object({}).strict().safeParse(q);
    if (!p.success) throw validationError(p.error, "query");
  };
  r.get("/portfolio", async (req, res) => {
    noQuery(req.query);
    const { holdings } = await deps.orders.positions(principalAccount(res));
    const data = holdings.map(({ lots: _lots, ...h }) => h);
    res.json({ data, message: `${data.length} holdings` });
  });
  r.get("/exchange-portfolio", async (req, res) => {
    noQuery(req.query);
    const { holdings } = await deps.orders.positions(principalAccount(res));
    const data = holdings.map((h) => ({
      assetId: h.assetId,
      symbol: h.symbol,
      name: h.name,
      type: h.type,
      quantity: h.quantity,
      averageCost: h.averageCost,
      lots: h.lots,
    }));
    res.json({ data, message: `${data.length} holdings` });
  });
  return r;
}

/** The funding router's hook: the account's trades as transactions (spec 2.11). */
export const tradeTransactionsOf = (orders: Orders) => async (accountId: string) =>
  (await orders.positions(accountId)).transactions;
