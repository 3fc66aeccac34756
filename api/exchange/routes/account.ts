// GET /v1/account (spec 2.12) and its legacy path /v1/custody-account-info (spec 9), and
// GET /v1/accounts/{accountId} (an account of the caller's organization; any other id: 404).
import { Router, type RequestHandler, type Response } from "express";
import { formatDecimal } from "../../../sdk/decimal";
import type { AccountRecord, AccountStore } from "../accounts";
import { accountOf, scopeOf, type AccountCustody } from "../authenticate";
import { ExchangeApiError } from "../errors";

/** Spec 2.12's numbers are JSON numbers in dollars; the exact base units go beside them as decimal
 *  strings (`cashBalanceUnits`, `buyingPowerUnits`), as INSUFFICIENT_BALANCE's details do. */
export function dollars(units: bigint, decimals: number): number {
  return Number(formatDecimal(units, decimals));
}

export interface AccountView {
  accountId: string;
  userId: string;
  orgId: string;
  /** "" when the account has none (a phone-only login): a string, never null (spec 2.12) */
  email: string;
  phone: string;
  kycStatus: string;
  kybStatus: string;
  accreditationStatus: string;
  /** 506c or 506b (spec 2.12); absent while the account holds no accreditation (accreditationStatus tells) */
  accreditationType?: "506c" | "506b";
  /** the account's own address in the Settlement contract (custody) */
  settlementAddress: string;
  cashBalance: number;
  buyingPower: number;
  cashBalanceUnits: string;
  buyingPowerUnits: string;
  createdAt: string;
}

/** What open buy orders hold of the account's cash (api/exchange/orders: the pipeline's locks), base units. */
export type OpenBuyHolds = (accountId: string) => Promise<bigint>;

export async function presentAccount(
  a: AccountRecord,
  custody: AccountCustody,
  cashDecimals: number,
  openBuyHolds?: OpenBuyHolds,
): Promise<AccountView> {
  const [b, held] = await Promise.all([
    custody.balances(a.id),
    openBuyHolds ? openBuyHolds(a.id) : Promise.resolve(0n),
  ]);
  // buying power: cash less pending withdrawals (custody's available cash) less what open buy orders hold
  const free = b.availableCashUnits - held;
  const buyingPowerUnits = free > 0n ? free : 0n;
  return {
    accountId: a.id,
    userId: a.userId,
    orgId: a.orgId,
    email: a.email ?? "",
    phone: a.phone ?? "",
    kycStatus: a.kycStatus,
    kybStatus: a.kybStatus,
    accreditationStatus: a.accreditationStatus,
    ...(a.accreditationType === "none" ? {} : { accreditationType: a.accreditationType }),
    settlementAddress: b.address,
    cashBalance: dollars(b.cashUnits, cashDecimals),
    buyingPower: dollars(buyingPowerUnits, cashDecimals),
    cashBalanceUnits: b.cashUnits.toString(),
    buyingPowerUnits: buyingPowerUnits.toString(),
    createdAt: a.createdAt.toISOString(),
  };
}

/** What the account routes (and the sandbox's, which answer the same account) need. */
export interface AccountRouteDeps {
  accounts: AccountStore;
  custody: AccountCustody;
  cashDecimals: number;
  auth: RequestHandler;
  openBuyHolds?: OpenBuyHolds;
}

export function accountRouter(deps: AccountRouteDeps): Router {
  const r = Router();
  const own = async (_req: unknown, res: Response) => {
    res.json({
      data: await presentAccount(accountOf(res), deps.custody, deps.cashDecimals, deps.openBuyHolds),
      message: "account",
    });
  };
  r.get("/account", deps.auth, own);
  r.get("/custody-account-info", deps.auth, own);
  r.get("/accounts/:accountId", deps.auth, async (req, res) => {
    const a = await deps.accounts.get(scopeOf(res), String(req.params.accountId));
    if (!a) throw new ExchangeApiError("ACCOUNT_NOT_FOUND", "account not found");
    res.json({ data: await presentAccount(a, deps.custody, deps.cashDecimals, deps.openBuyHolds), message: "account" });
  });
  return r;
}
