// The investor profile an account declares (income, net worth, US person): what the Reg CF investment limit
// and the book's resale exemptions read (table exchange_investor_profiles).
import type { AccountRecord } from "../accounts";
import type { OrdersContext } from "./context";

export interface InvestorProfile {
  annualIncomeCents: bigint;
  netWorthCents: bigint;
  usPerson: boolean;
}

export async function profileOf(ctx: Pick<OrdersContext, "db">, account: AccountRecord): Promise<InvestorProfile> {
  const r = await ctx.db.query<{ annual_income_cents: string; net_worth_cents: string; us_person: boolean }>(
    "SELECT annual_income_cents::text, net_worth_cents::text, us_person FROM exchange_investor_profiles WHERE account_id = $1",
    [account.id],
  );
  const row = r.rows[0];
  // no profile yet: nothing declared (the $2,500 floor applies); a US person when the phone is +1 (NANP)
  if (!row) return { annualIncomeCents: 0n, netWorthCents: 0n, usPerson: (account.phone ?? "+1").startsWith("+1") };
  return {
    annualIncomeCents: BigInt(row.annual_income_cents),
    netWorthCents: BigInt(row.net_worth_cents),
    usPerson: row.us_person,
  };
}

export async function setProfile(ctx: Pick<OrdersContext, "db">, accountId: string, p: InvestorProfile): Promise<void> {
  await ctx.db.query(
    `INSERT INTO exchange_investor_profiles (account_id, annual_income_cents, net_worth_cents, us_person) VALUES ($1, $2, $3, $4)
     ON CONFLICT (account_id) DO UPDATE SET annual_income_cents = $2, net_worth_cents = $3, us_person = $4, updated_at = now()`,
    [accountId, p.annualIncomeCents.toString(), p.netWorthCents.toString(), p.usPerson],
  );
}
