// Keeps the eligibility registry in step with the exchange (docs/decisions/api.md "Eligibility registry sync"):
// investors' facts (accreditation, US person) of every account with a custody address, and each holder's
// restricted lots of each restricted asset from the exchange ledger's FIFO lots. Off the order path: a keyed
// queue (one pending job per investor or per token and holder, coalesced), worked one at a time (one nonce
// lane), each job recomputed when it runs and skipped when the chain already holds it; a failure is logged
// and retried with a growing delay; nothing is lost across a restart since `start` recomputes everything.
import type { Address } from "viem";
import type { Logger } from "pino";
import type { Config } from "../../../config";
import type { ComplianceClient } from "./client";
import {
  MAX_LOTS,
  holdEndSeconds,
  registryAccreditation,
  type InvestorEligibility,
  type RestrictedLot,
} from "./registry-values";

export interface LedgerLots {
  settled: boolean;
  /** the holder's lots now, oldest first (hold ends in ms) */
  lots: { units: bigint; holdEndMs: number }[];
}

export interface ComplianceSyncDeps {
  client: ComplianceClient;
  logger?: Pick<Logger, "info" | "warn"> & Partial<Pick<Logger, "debug">>;
  /** every exchange investor with a custody address and its facts now */
  investors(): Promise<{ address: Address; facts: InvestorEligibility }[]>;
  /** the ledger's lots of `holder` in the asset of `token` (null: not an asset the exchange lists) */
  ledgerLots(token: Address, holder: Address): Promise<LedgerLots | null>;
  /** the tokens of assets whose regime has a hold (the registry checks their transfers) */
  restrictedTokens(): Address[];
  /** wall clock (the chain's clock follows it): lots whose hold ended are not recorded */
  now?: () => number;
  pollMs?: number;
  retryMs?: number;
}

/** The registry's lots of a holder from the ledger's: those still in their hold on the chain's clock, oldest
 *  first; past MAX_LOTS the oldest are merged (their units with the later hold end: never freed early). */
export function registryLots(lots: readonly { units: bigint; holdEndMs: number }[], nowMs: number): RestrictedLot[] {
  const held = lots
    .filter((l) => l.units > 0n && l.holdEndMs > nowMs)
    .map((l) => ({ amountBaseUnits: l.units, holdEndMs: l.holdEndMs }));
  while (held.length > MAX_LOTS) {
    const [a, b] = held.splice(0, 2);
    held.unshift({
      amountBaseUnits: a!.amountBaseUnits + b!.amountBaseUnits,
      holdEndMs: Math.max(a!.holdEndMs, b!.holdEndMs),
    });
  }
  return held;
}

type Job =
  | { kind: "investor"; address: Address; facts: InvestorEligibility }
  | { kind: "lots"; token: Address; holder: Address };
/** An address as a key: the same account whatever its letters' case. */
const lower = (a: Address): string => a.toLowerCase();
const keyOf = (j: Job) => (j.kind === "investor" ? `i:${lower(j.address)}` : `l:${lower(j.token)}:${lower(j.holder)}`);

/** An investor's facts written to the registry when they differ from the chain's (the sync's investor job, and
 *  the sandbox's provisioning of the simulated market's agents); true when it wrote them. */
export async function recordInvestorFacts(
  client: ComplianceClient,
  investor: { address: Address; facts: InvestorEligibility },
  logger?: ComplianceSyncDeps["logger"],
): Promise<boolean> {
  const onChain = await client.investor(investor.address);
  if (onChain.accreditation === investor.facts.accreditation && onChain.usPerson === investor.facts.usPerson)
    return false;
  await client.recordInvestor(investor.address, investor.facts);
  logger?.debug?.({ investor: investor.address, ...investor.facts }, "eligibility registry: investor recorded");
  return true;
}

/** A lots job: the holder's restricted lots from the ledger, written when they differ from the chain's; true
 *  when done, false (again shortly) while a fill of it is not settled. `nextSequence` gives the record's sequence. */
async function recordLots(
  deps: ComplianceSyncDeps,
  now: () => number,
  job: Extract<Job, { kind: "lots" }>,
  nextSequence: () => bigint,
): Promise<boolean> {
  const ledger = await deps.ledgerLots(job.token, job.holder);
  if (!ledger) return true;
  // a fill not yet settled: its units are not on chain yet (a seller's lots must not shrink before they move)
  if (!ledger.settled) return false;
  // only the lots the registry holds from our records: the lots a holder received by a direct transfer (an
  // exempt recipient: the hold tacks) are the registry's own list, which a record never touches
  const onChain = (await deps.client.recordedLotsOf(job.token, job.holder)).filter(
    (l) => l.holdEnd * 1000n > BigInt(now()),
  );
  const lots = registryLots(ledger.lots, now());
  const same =
    onChain.length === lots.length &&
    lots.every(
      (l, i) => onChain[i]!.amount === l.amountBaseUnits && onChain[i]!.holdEnd === holdEndSeconds(l.holdEndMs),
    );
  if (same) return true;
  const sequence = nextSequence();
  await deps.client.recordLots(job.token, job.holder, sequence, lots);
  deps.logger?.debug?.(
    { token: job.token, holder: job.holder, lots: lots.length, sequence: sequence.toString() },
    "eligibility registry: lots recorded",
  );
  return true;
}

interface Pending {
  job: Job;
  notBefore: number;
  failures: number;
}

/** The keyed job queue, worked one job at a time: a newer job of a key replaces the pending one; a job that
 *  fails is retried with a growing delay, one that is not done (false) shortly after. */
class JobQueue {
  readonly pending = new Map<string, Pending>();
  stopped = true;
  private wake: (() => void) | undefined;

  constructor(
    private readonly deps: ComplianceSyncDeps,
    private readonly now: () => number,
    private readonly run: (job: Job) => Promise<boolean>,
  ) {}

  enqueue(job: Job): void {
    const k = keyOf(job);
    const cur = this.pending.get(k);
    // a newer job replaces the pending one (lots are recomputed when the job runs anyway)
    this.pending.set(k, {
      job,
      notBefore: Math.min(cur?.notBefore ?? Infinity, this.now()),
      failures: cur?.failures ?? 0,
    });
    this.wake?.();
  }

  /** Ends the wait of work() (a stop). */
  interrupt(): void {
    this.wake?.();
  }

  async work(pollMs: number, retryMs: number): Promise<void> {
    while (!this.stopped) {
      const t = this.now();
      const due = [...this.pending.entries()]
        .filter(([, p]) => p.notBefore <= t)
        .sort((a, b) => a[1].notBefore - b[1].notBefore)[0];
      if (!due) {
        await this.sleep(Math.min(...[...this.pending.values()].map((p) => p.notBefore), t + pollMs) - t);
        continue;
      }
      const [k, p] = due;
      this.pending.delete(k);
      try {
        const done = await this.run(p.job);
        if (!done && !this.pending.has(k))
          this.pending.set(k, { job: p.job, notBefore: this.now() + 250, failures: p.failures });
      } catch (err) {
        const failures = p.failures + 1;
        this.deps.logger?.warn(
          { job: p.job, failures, err: err instanceof Error ? err.message : String(err) },
          "eligibility registry: record failed, retrying",
        );
        if (!this.pending.has(k))
          this.pending.set(k, {
            job: p.job,
            notBefore: this.now() + Math.min(retryMs * 2 ** Math.min(failures - 1, 5), 30_000),
            failures,
          });
      }
    }
  }

  private async sleep(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, Math.max(10, ms));
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.wake = undefined;
  }
}

export function createComplianceSync(deps: ComplianceSyncDeps) {
  const now = deps.now ?? Date.now;
  const pollMs = deps.pollMs ?? 1_000;
  const retryMs = deps.retryMs ?? 1_000;
  const recordedFacts = new Map<string, string>();
  let lastSequence = 0n;
  // a sequence that grows across restarts too: the wall clock in microseconds, or one more than the last
  const nextSequence = () => {
    const clockSeq = BigInt(now()) * 1000n;
    lastSequence = clockSeq > lastSequence ? clockSeq : lastSequence + 1n;
    return lastSequence;
  };
  const queue = new JobQueue(deps, now, async (job) => {
    if (job.kind === "lots") return recordLots(deps, now, job, nextSequence);
    await recordInvestorFacts(deps.client, job, deps.logger);
    recordedFacts.set(lower(job.address), JSON.stringify(job.facts));
    return true;
  });
  let loop: Promise<void> | undefined;
  let poller: NodeJS.Timeout | undefined;

  async function pollInvestors(): Promise<void> {
    for (const inv of await deps.investors()) {
      if (recordedFacts.get(lower(inv.address)) !== JSON.stringify(inv.facts))
        queue.enqueue({ kind: "investor", address: inv.address, facts: inv.facts });
    }
  }

  return {
    /** Recomputes everything (investors, and each investor's lots of each restricted token), then follows. */
    async start(): Promise<void> {
      if (!queue.stopped) return;
      queue.stopped = false;
      loop = queue.work(pollMs, retryMs);
      const investors = await deps.investors();
      for (const inv of investors) {
        queue.enqueue({ kind: "investor", address: inv.address, facts: inv.facts });
        for (const token of deps.restrictedTokens()) queue.enqueue({ kind: "lots", token, holder: inv.address });
      }
      const tick = () => {
        if (queue.stopped) return;
        pollInvestors()
          .catch((err) => deps.logger?.warn({ err: String(err) }, "eligibility registry: reading investors failed"))
          .finally(() => {
            if (!queue.stopped) poller = setTimeout(tick, pollMs);
          });
      };
      poller = setTimeout(tick, pollMs);
    },
    /** A fill of `holder` in `token`: its lots are recorded once the fill is settled. */
    lotsChanged(token: Address, holder: Address): void {
      if (queue.stopped) return; // a stopped writer takes nothing: its next start recomputes everything
      if (deps.restrictedTokens().some((t) => lower(t) === lower(token)))
        queue.enqueue({ kind: "lots", token, holder });
    },
    /** An investor's facts may have changed (the poll finds it within pollMs anyway). */
    investorsChanged(): void {
      void pollInvestors().catch(() => undefined);
    },
    /** Jobs not yet done (tests wait for 0). */
    pendingCount: () => queue.pending.size,
    async stop(): Promise<void> {
      queue.stopped = true;
      clearTimeout(poller);
      queue.interrupt();
      await loop;
      // as a process that ends: what was pending is forgotten (start recomputes it from the ledger)
      queue.pending.clear();
      recordedFacts.clear();
    },
  };
}

export type ComplianceSync = ReturnType<typeof createComplianceSync>;

/** The sandbox's simulated-market agents (the demo traders): none in production. */
export function sandboxAgents(config: Pick<Config, "mode" | "keys">): Address[] {
  return config.mode === "sandbox" ? config.keys.demoTraders.map((k) => k.address) : [];
}

/** The sandbox's simulated-market agents (the demo traders) as the registry should know them: verified 506c
 *  accredited investors and not US persons, eligible for every resale exemption the book applies. The one
 *  source of their facts: the provisioning records them (scripts/stack/agents-registry.ts), the sync keeps them. */
export function sandboxAgentInvestors(
  addresses: readonly Address[],
): { address: Address; facts: InvestorEligibility }[] {
  return addresses.map((address) => ({ address, facts: { accreditation: "verified506c", usPerson: false } }));
}

/** An exchange account's row (orders-sync.ts reads them) as the registry's facts: the book's accreditation rule;
 *  US person as the investor profile says, else a +1 phone (none: +1). */
export function investorFacts(row: {
  accreditation_status: string;
  accreditation_type: string;
  phone: string | null;
  us_person: boolean | null;
}): InvestorEligibility {
  return {
    accreditation: registryAccreditation({
      accreditationStatus: row.accreditation_status as never,
      accreditationType: row.accreditation_type as never,
    }),
    usPerson: row.us_person ?? (row.phone ?? "+1").startsWith("+1"),
  };
}
