// The eligibility registry's sync over the exchange's orders (resale restrictions on chain): investors' facts
// and restricted lots, written with the compliance key (COMPLIANCE_ROLE only) off the order path (sync.ts);
// the restricted books' fills tell it which holder's lots changed.
import type { Logger } from "pino";
import type { Address, Hex } from "viem";
import type { Db } from "../../../db";
import type { DexService } from "../../../pipeline/service";
import { bookSymbolOf, CATALOGUE } from "../assets/catalogue";
import type { Orders } from "../orders/service";
import { hasHold } from "../orders/resale";
import { createComplianceClient } from "./client";
import type { InvestorEligibility } from "./registry-values";
import { type ComplianceSync, createComplianceSync, investorFacts, sandboxAgentInvestors } from "./sync";

export interface OrdersComplianceDeps {
  db: Db;
  dex: DexService;
  orders: Orders;
  logger: Logger;
  chainId: number;
  rpcUrl: string;
  /** the EligibilityRegistry's address */
  registry: Address;
  complianceKey: Hex;
  /** the sandbox's demo traders (the simulated market's agents); none in production */
  demoTraders: readonly Address[];
}

/** The registry's sync, and the fills watch that feeds it (`unwatch` ends that watch). */
export function createOrdersCompliance(deps: OrdersComplianceDeps): { sync: ComplianceSync; unwatch(): void } {
  const { dex, db } = deps;
  const client = createComplianceClient({
    chainId: deps.chainId,
    rpcUrl: deps.rpcUrl,
    complianceKey: deps.complianceKey,
    registry: deps.registry,
  });
  const restrictedSymbols = new Set(
    CATALOGUE.filter((a) => hasHold(a.regime))
      .map((a) => bookSymbolOf(a))
      .filter((s): s is string => !!s),
  );
  const restrictedTokens = () =>
    dex
      .listMarkets()
      .filter((m) => restrictedSymbols.has(m.symbol))
      .map((m) => m.baseToken);
  const sync = createComplianceSync({
    client,
    logger: deps.logger,
    // the sandbox's demo traders (the simulated market's agents) are investors the registry knows: verified
    // accredited and non-US, so they may trade every restricted book within its rules (docs/decisions/api.md)
    investors: async () => [...(await exchangeInvestors(db)), ...sandboxAgentInvestors(deps.demoTraders)],
    ledgerLots: (token, holder) => deps.orders.ledgerLots(token, holder),
    restrictedTokens,
  });
  const unwatch = dex.subscribe((e) => {
    if (e.kind !== "order" || !e.fill || !restrictedSymbols.has(e.order.symbol)) return;
    const m = dex.listMarkets().find((x) => x.symbol === e.order.symbol);
    if (m) sync.lotsChanged(m.baseToken, e.account);
  });
  return { sync, unwatch };
}

/** Every exchange account with a custody address, with its registry facts (sync.ts investorFacts). */
async function exchangeInvestors(db: Db): Promise<{ address: Address; facts: InvestorEligibility }[]> {
  const r = await db.query<{
    address: string;
    accreditation_status: string;
    accreditation_type: string;
    phone: string | null;
    us_person: boolean | null;
  }>(
    `SELECT c.address, a.accreditation_status, a.accreditation_type, a.phone, p.us_person
       FROM exchange_accounts a JOIN exchange_custody_accounts c ON c.account_id = a.id::text
       LEFT JOIN exchange_investor_profiles p ON p.account_id = a.id::text`,
  );
  return r.rows.map((row) => ({ address: row.address as Address, facts: investorFacts(row) }));
}
