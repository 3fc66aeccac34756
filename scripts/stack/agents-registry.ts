// The simulated market's agents (the sandbox's demo traders) recorded in the eligibility registry while the stack
// provisions, before any component starts: the restricted books' settlement checks a buyer there, so the
// simulator's history replay and live agents can trade every book from their first order instead of waiting for
// the exchange API's compliance sync to record them after its start. Same facts (`sandboxAgentInvestors`), same
// key (the compliance key, COMPLIANCE_ROLE) and same write (`recordInvestorFacts`) as that sync, which then
// finds them recorded and writes nothing (docs/decisions/stack.md "The first start").
import type { Address } from "viem";
import { createComplianceClient } from "../../api/exchange/compliance/client";
import { recordInvestorFacts, sandboxAgentInvestors, sandboxAgents } from "../../api/exchange/compliance/sync";
import type { ProvisionContext } from "./types";

/** Records every agent the registry does not know yet (a restart finds them all: reads only). Returns how
 *  many it recorded. */
export async function recordAgentInvestors(ctx: Pick<ProvisionContext, "config" | "chains" | "deployments">) {
  const registry = ctx.deployments.home.contracts.EligibilityRegistry as Address | undefined;
  const agents = sandboxAgentInvestors(sandboxAgents(ctx.config));
  if (!registry || agents.length === 0) return 0;
  const client = createComplianceClient({
    chainId: ctx.chains.home.chainId,
    rpcUrl: ctx.chains.home.rpcUrl,
    complianceKey: ctx.config.keys.compliance.privateKey,
    registry,
  });
  // one nonce lane: the sends go one after the other, the receipts are awaited together
  const written = await Promise.all(agents.map((a) => recordInvestorFacts(client, a)));
  return written.filter(Boolean).length;
}
