// The resale rule's facts in the matcher (issue #26, docs/decisions/matching.md "Resale rule at the match"):
// which markets trade restricted securities and under which exemption (Settlement.restrictedToken: the chain's
// own list), each investor's eligibility (the eligibility registry's InvestorRecorded, pipeline/follow/
// resale-follower.ts) and, journaled with each sell order, whether it gives restricted units and until when.
// Investor facts change only through journaled records (a `tick` whose meta carries the update), applied
// after the record's command live and on replay alike, and are part of the service's snapshot: a replay
// decides every match as the live run did. The engine asks `gate(symbol)` at each match (matcher/core).
import type { MatchingEngine, ResaleGate } from "../../matcher/core";

/** Who may receive a market's restricted units: Reg D and Reg CF an accredited investor, Reg S a non-US one
 *  (IEligibilityRegistry.Regime 1, 2: accredited; 3: non-US). */
export type ResaleExemption = "accredited" | "non-us";

/** The registry's Regime (IEligibilityRegistry.sol) as the exemption its book applies (0, Free: none). */
export function exemptionOfRegime(regime: number): ResaleExemption | null {
  if (regime === 1 || regime === 2) return "accredited";
  if (regime === 3) return "non-us";
  return null;
}

/** One journaled change: an investor's facts (account in lower case). */
export interface ResaleUpdate {
  investor: string;
  accredited: boolean;
  nonUS: boolean;
}

export interface ResaleFactsJson {
  investors: [string, boolean, boolean][];
}

export class ResaleFacts {
  private readonly investors = new Map<string, { accredited: boolean; nonUS: boolean }>();

  /** `restrictedUntilMs(sellOrderId)`: the hold end the sell order carries (journaled with it; 0: free units) */
  constructor(
    readonly exemptions: ReadonlyMap<string, ResaleExemption>,
    private readonly restrictedUntilMs: (sellOrderId: string) => number,
  ) {}

  /** Whether `u` would change anything (a fact the chain repeats is not journaled again). */
  changes(u: ResaleUpdate): boolean {
    const cur = this.investors.get(u.investor);
    return cur?.accredited !== u.accredited || cur?.nonUS !== u.nonUS;
  }

  apply(u: ResaleUpdate): void {
    this.investors.set(u.investor, { accredited: u.accredited, nonUS: u.nonUS });
  }

  /** May `buyer` receive `symbol`'s restricted units now? */
  eligible(symbol: string, buyer: string): boolean {
    const exemption = this.exemptions.get(symbol);
    if (exemption === undefined) return true;
    const f = this.investors.get(buyer.toLowerCase());
    return f !== undefined && (exemption === "accredited" ? f.accredited : f.nonUS);
  }

  /** The engine's rule for `symbol`: a sell that gives restricted units (until its hold end) fills only a buyer
   *  its exemption covers. */
  gate(symbol: string): ResaleGate | null {
    if (!this.exemptions.has(symbol)) return null;
    return (sellOrderId, buyer, ts) => ts >= this.restrictedUntilMs(sellOrderId) || this.eligible(symbol, buyer);
  }

  /** Installs every restricted market's gate on `engine` (at open, before the replay). */
  install(engine: MatchingEngine): void {
    for (const symbol of this.exemptions.keys())
      if (engine.markets.has(symbol)) engine.setResaleGate(symbol, this.gate(symbol));
  }

  toJson(): ResaleFactsJson {
    return { investors: [...this.investors].map(([a, f]) => [a, f.accredited, f.nonUS]) };
  }

  restore(j: ResaleFactsJson | undefined): void {
    this.investors.clear();
    for (const [a, accredited, nonUS] of j?.investors ?? []) this.investors.set(a, { accredited, nonUS });
  }
}
